"""What is redacted for agents: the person's setting and their own patterns.

- ``redact`` in ``config.toml``: the categories on, ``["secrets", "cards"]``
  by default, ``"emails"`` and ``"phones"`` besides; ``redact = []`` turns
  redaction off, the person's own patterns too (``noru doctor`` and
  ``get_status`` say so).
- ``redactions.json`` in the data dir (0600), written only by the person's
  ``noru redact add / remove / allow``: their own regular expressions, each
  with the kind it is shown as (``[redacted: KIND]``), and the values they
  said are no secret (``allowed``: never redacted, whatever finds them).
  An allowed value is kept as a digest (``detect.allowed_digest``), with a
  hint to tell it by (its first characters and its length), not as
  written: what the person allows is no secret to them, but a file of
  their values should not become one more place a mistaken one is kept in
  clear. So the list shows hints, and ``--remove`` takes the value again.

A file that cannot be read or parsed fails closed: the ``Policy`` then holds
the ``problem``, and no capture is served to an agent (``noru.present``)
until it is fixed or removed; the person's commands say what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from noru.atomic import replace_text
from noru.errors import DataDirError
from noru.redact.detect import Allowed, Own, allowed_digest
from noru.redact.rules import CATEGORIES

__all__ = [
    "FILE",
    "AllowedValue",
    "Pattern",
    "Policy",
    "add",
    "allow",
    "check_kind",
    "check_pattern",
    "check_value",
    "disallow",
    "load",
    "load_allowed",
    "load_patterns",
    "remove",
]

FILE = "redactions.json"
_KIND = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")


@dataclass(frozen=True)
class Pattern:
    """One of the person's patterns, as they typed it."""

    pattern: str
    kind: str = "pattern"

    def compiled(self) -> Own:
        return Own(re.compile(self.pattern), self.kind)


@dataclass(frozen=True)
class AllowedValue:
    """A value the person said is no secret: its digest, and a hint to tell
    it by in their list (its first characters and its length)."""

    digest: str
    hint: str

    @classmethod
    def of(cls, value: str) -> AllowedValue:
        bare = "".join(value.split())
        shown = bare[:4] if len(bare) > 12 else bare[:2]
        return cls(allowed_digest(value), f"{shown}... ({len(bare)} characters)")


@dataclass(frozen=True)
class Policy:
    """The categories on, the person's patterns and allowed values, and why
    redaction cannot run (``problem``), if it cannot."""

    categories: frozenset[str] = frozenset()
    patterns: tuple[Pattern, ...] = ()
    problem: str | None = None
    allowed: tuple[AllowedValue, ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.categories) or self.problem is not None

    @cached_property
    def own(self) -> tuple[Own | Allowed, ...]:
        """The person's patterns compiled (once per policy: each is checked
        to compile when it is added and when its file is read), and their
        allowed values (``detect.Allowed``), as ``detect.find`` takes them."""
        mine: tuple[Own | Allowed, ...] = tuple(p.compiled() for p in self.patterns)
        if self.allowed:
            mine += (Allowed(frozenset(a.digest for a in self.allowed)),)
        return mine

    def describe(self) -> str:
        """In words, for ``noru doctor``, ``get_status`` and the person."""
        if self.problem:
            return f"cannot run: {self.problem}; no capture is served to agents until it is fixed"
        if not self.categories:
            return "off (redact = [] in config.toml): agents get secrets on screen as shown"
        on = ", ".join(c for c in CATEGORIES if c in self.categories)
        mine = len(self.patterns)
        on += f", and {mine} pattern{'s' if mine != 1 else ''} of yours" if mine else ""
        allowed = len(self.allowed)
        return on + (
            f"; {allowed} value{'s' if allowed != 1 else ''} you allowed" if allowed else ""
        )

    @classmethod
    def of(
        cls,
        categories: Sequence[str],
        patterns: Sequence[Pattern] = (),
        allowed: Sequence[AllowedValue] = (),
    ) -> Policy:
        if not categories:
            return cls()
        return cls(frozenset(categories), tuple(patterns), allowed=tuple(allowed))


def check_pattern(pattern: str) -> str | None:
    """What is wrong with a pattern the person typed, or None."""
    if not pattern.strip():
        return "an empty pattern would match everything"
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        return f"not a regular expression: {exc}"
    if compiled.search(""):
        return "it matches empty text: every line would be redacted"
    return None


def check_kind(kind: str) -> str | None:
    if not _KIND.match(kind):
        return "a kind is up to 32 lowercase letters, digits and dashes, like customer-id"
    return None


def check_value(value: str) -> str | None:
    """What is wrong with a value the person would allow, or None."""
    if len("".join(value.split())) < 4:
        return "a value to allow is at least 4 characters (spaces aside)"
    return None


def _read(home: Path) -> dict[str, object]:
    """The person's file, parsed; empty when there is none. ``DataDirError``
    when it cannot be read or is damaged."""
    path = home / FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "it is not text"
        raise DataDirError(f"{FILE} cannot be read ({reason})") from exc
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("patterns"), list):
        raise DataDirError(f"{FILE} is damaged")
    if not isinstance(data.get("allowed", []), list):
        raise DataDirError(f"{FILE} is damaged")
    return data


def _patterns(data: dict[str, object]) -> list[Pattern]:
    found = []
    for item in data.get("patterns", []):  # type: ignore[attr-defined]
        pattern = item.get("pattern") if isinstance(item, dict) else None
        kind = item.get("kind", "pattern") if isinstance(item, dict) else None
        if (
            not isinstance(pattern, str)
            or not isinstance(kind, str)
            or check_pattern(pattern)
            or check_kind(kind)
        ):
            raise DataDirError(f"{FILE} holds a pattern Noru cannot use")
        found.append(Pattern(pattern, kind))
    return found


def _allowed(data: dict[str, object]) -> list[AllowedValue]:
    found = []
    for item in data.get("allowed", []):  # type: ignore[attr-defined]
        digest = item.get("digest") if isinstance(item, dict) else None
        hint = item.get("hint", "") if isinstance(item, dict) else None
        if not isinstance(digest, str) or not _DIGEST.match(digest) or not isinstance(hint, str):
            raise DataDirError(f"{FILE} holds an allowed value Noru cannot use")
        found.append(AllowedValue(digest, hint))
    return found


_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def load_patterns(home: Path) -> list[Pattern]:
    """The person's patterns; ``DataDirError`` when their file cannot be read."""
    return _patterns(_read(home))


def load_allowed(home: Path) -> list[AllowedValue]:
    """The values the person allowed; ``DataDirError`` when their file
    cannot be read."""
    return _allowed(_read(home))


def load(home: Path, categories: Sequence[str]) -> Policy:
    """The policy in force for data dir ``home`` with ``categories`` on (the
    ``redact`` setting); never raises: a file it cannot read is its problem.
    Only reads (``noru mcp`` calls it)."""
    if not categories:
        return Policy()
    try:
        data = _read(home)
        patterns, allowed = _patterns(data), _allowed(data)
    except DataDirError as exc:
        return Policy(frozenset(categories), problem=str(exc))
    return Policy.of(categories, patterns, allowed)


def _save(home: Path, patterns: Sequence[Pattern], allowed: Sequence[AllowedValue]) -> None:
    body = {
        "patterns": [{"pattern": p.pattern, "kind": p.kind} for p in dict.fromkeys(patterns)],
        "allowed": [{"digest": a.digest, "hint": a.hint} for a in _unique(allowed)],
    }
    replace_text(home / FILE, json.dumps(body, indent=1), mode=0o600)


def _unique(allowed: Sequence[AllowedValue]) -> list[AllowedValue]:
    return list({a.digest: a for a in allowed}.values())


def add(home: Path, pattern: Pattern) -> None:
    """Add one of the person's patterns (only their commands call this)."""
    data = _read(home)
    _save(home, [*_patterns(data), pattern], _allowed(data))


def remove(home: Path, pattern: str) -> bool:
    """Remove the person's pattern(s) written ``pattern``; False when none is."""
    data = _read(home)
    current = _patterns(data)
    kept = [p for p in current if p.pattern != pattern]
    if len(kept) == len(current):
        return False
    _save(home, kept, _allowed(data))
    return True


def allow(home: Path, value: str) -> AllowedValue:
    """Never redact ``value`` (only the person's commands call this); its
    digest is kept, with a hint."""
    data = _read(home)
    allowed = AllowedValue.of(value)
    _save(home, _patterns(data), [*_allowed(data), allowed])
    return allowed


def disallow(home: Path, value: str) -> bool:
    """Redact ``value`` again where the rules find it; False when it was
    not allowed."""
    data = _read(home)
    current = _allowed(data)
    digest = allowed_digest(value)
    kept = [a for a in current if a.digest != digest]
    if len(kept) == len(current):
        return False
    _save(home, _patterns(data), kept)
    return True
