"""The person's edits of their history and their rules, with one set of limits.

Every entry point that lets the person change what Noru keeps calls here: the
CLI (`noru note`, `delete`, `keep`, `unkeep`, `capture --note`, `import
--note`, `exclude`, `redact`), the console's forms, and the app when a
capture asks for a note. A limit is checked here once, the same for all of
them; an edit that breaks it raises ``EditRefused`` naming the limit, and
nothing is changed (nothing is cut to fit: what the person wrote is theirs).

The limits:

- A note is at most ``NOTE_MAX`` characters (10,000) once stripped. A note
  is the person's words about one capture, served to agents with it: 10,000
  characters is a long paragraph or a pasted error of a few screens, and it
  fits, with a capture's text, in what each agent client measured passes on
  of one answer (19,000 bytes and up, ``noru.mcp.clients``), so the note
  reaches the model whole. A longer one is almost surely a paste gone wrong.
- The OCR engine (``config.toml``'s ``ocr_engine``) is one that ``noru
  doctor`` finds working on this machine (``noru.ocr.describe``): an unknown
  name, or an engine that cannot run here, is refused with why, so the
  running app is never told to switch to an engine it cannot start.
- An exclusion's pattern and a redaction pattern are checked by their own
  modules' rules (``exclusions.check_pattern``, ``redact.policy``'s
  ``check_pattern``, ``check_kind``, ``check_value``); here they are raised
  as ``EditRefused`` like every other refused edit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noru import exclusions
from noru.errors import EditRefused
from noru.settings import snapshot

if TYPE_CHECKING:
    from noru.ocr import EngineStatus
    from noru.redact.policy import AllowedValue, Pattern
    from noru.store import Store

__all__ = [
    "NOTE_MAX",
    "Kept",
    "add_exclusion",
    "add_redaction",
    "allow_value",
    "delete",
    "note_text",
    "ocr_engines",
    "set_kept",
    "set_note",
    "set_ocr_engine",
]

NOTE_MAX = 10_000


def note_text(text: str | None) -> str | None:
    """The note as it is kept: stripped, None when empty. ``EditRefused``
    when it is longer than ``NOTE_MAX`` characters."""
    if text is None:
        return None
    kept = text.strip()
    if len(kept) > NOTE_MAX:
        raise EditRefused(
            f"a note is at most {NOTE_MAX:,} characters; this one has {len(kept):,},"
            " so it was not saved",
            what="note",
        )
    return kept or None


def set_note(store: Store, capture_id: str, text: str | None) -> bool:
    """Attach ``text`` to the capture (an empty one removes its note), and
    give agents' search index the new text; False when there is no such
    capture. ``EditRefused`` (nothing saved) when the note is too long."""
    from noru.redact import index

    note = note_text(text)
    if not store.set_note(capture_id, note):
        return False
    index.refresh(store, snapshot(store.home).config.redact, ids=[capture_id])
    return True


def delete(store: Store, capture_ids: Iterable[str]) -> list[str]:
    """Delete the captures, rows and files; the ids not found."""
    return [capture_id for capture_id in dict.fromkeys(capture_ids) if not store.delete(capture_id)]


@dataclass(frozen=True)
class Kept:
    """What ``set_kept`` did: ids changed, ids already so, ids not found."""

    changed: tuple[str, ...]
    unchanged: tuple[str, ...]
    missing: tuple[str, ...]


def set_kept(store: Store, capture_ids: Sequence[str], *, kept: bool) -> Kept:
    """Keep captures (pruning passes them by) or let them go."""
    changed, unchanged, missing = [], [], []
    for capture_id in dict.fromkeys(capture_ids):
        record = store.get(capture_id)
        if record is None:
            missing.append(capture_id)
        elif record.kept == kept:
            unchanged.append(capture_id)
        elif store.set_kept(capture_id, kept):
            changed.append(capture_id)
        else:  # deleted meanwhile
            missing.append(capture_id)
    return Kept(tuple(changed), tuple(unchanged), tuple(missing))


def add_exclusion(home: Path, kind: str, pattern: str) -> str | None:
    """Never capture windows whose ``kind`` (app or title) matches
    ``pattern``. None when added; else the rule that already excludes them
    (the person's, or config.toml's), and nothing changed. ``EditRefused``
    when the pattern cannot be used."""
    problem = exclusions.check_pattern(kind, pattern)
    if problem:
        raise EditRefused(problem, what="kind" if kind not in ("app", "title") else "pattern")
    rule = exclusions.Rule(kind, pattern.strip())
    config = snapshot(home).config
    found = exclusions.already(home, rule, apps=config.exclude_apps, titles=config.exclude_titles)
    if found is not None:
        return found
    return None if exclusions.add(home, rule) else str(rule)


def add_redaction(home: Path, pattern: str, kind: str = "pattern") -> Pattern | None:
    """Redact what ``pattern`` matches too, as ``[redacted: KIND]``, in what
    agents get. None when added; else the person's pattern written the same,
    and nothing changed. ``EditRefused`` when the pattern or the kind cannot
    be used; ``DataDirError`` when their file cannot be read."""
    from noru.redact import policy

    for what, problem in (
        ("pattern", policy.check_pattern(pattern)),
        ("kind", policy.check_kind(kind)),
    ):
        if problem:
            raise EditRefused(problem, what=what)
    same = next((p for p in policy.load_patterns(home) if p.pattern == pattern), None)
    if same is not None:
        return same
    policy.add(home, policy.Pattern(pattern, kind))
    return None


def allow_value(home: Path, value: str) -> AllowedValue:
    """Never redact ``value`` (only its digest is kept, and a hint).
    ``EditRefused`` when it is too short to allow."""
    from noru.redact import policy

    problem = policy.check_value(value)
    if problem:
        raise EditRefused(problem, what="value")
    return policy.allow(home, value)


def ocr_engines(chosen: str) -> list[EngineStatus]:
    """The OCR engines the person chooses among, as ``noru doctor`` finds
    them on this machine (those that cannot run say why), by name, with
    ``chosen`` (config.toml's) among them even when no engine has its name."""
    from noru import ocr

    return [ocr.describe(name) for name in sorted(set(ocr.registered_engines()) | {chosen})]


def set_ocr_engine(home: Path, name: str) -> EngineStatus:
    """Read the text of captures with the OCR engine ``name`` from now on
    (``config.toml``'s ``ocr_engine``, its other lines and comments kept,
    the file replaced atomically); the engine as ``noru doctor`` finds it.

    ``EditRefused`` when no engine has that name or it cannot run on this
    machine (why, and its fix); ``DataDirError`` when config.toml does not
    parse (it is left as it is). Nothing is written in either case. The
    running app picks the engine up at its next recognition."""
    from noru import ocr
    from noru.config import SettingError, set_values

    wanted = name.strip().lower()
    known = ocr.registered_engines()
    if wanted not in known:
        raise EditRefused(
            f"no OCR engine is called {name.strip()!r}; known: {', '.join(known)}; nothing changed",
            what="ocr_engine",
        )
    found = ocr.describe(wanted)
    if not found.available:
        raise EditRefused(
            f"the OCR engine {wanted} cannot run on this machine: {found.problem};"
            " nothing changed (`noru doctor` lists the engines that can)",
            what="ocr_engine",
        )
    try:
        set_values(home, {"ocr_engine": wanted})
    except SettingError as exc:  # a name config.toml's reader would not take
        raise EditRefused(str(exc), what="ocr_engine") from None
    return found
