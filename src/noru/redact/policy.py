"""What is redacted for agents: the person's setting and their own patterns.

- ``redact`` in ``config.toml``: the categories on, ``["secrets", "cards"]``
  by default, ``"emails"`` and ``"phones"`` besides; ``redact = []`` turns
  redaction off, the person's own patterns too (``noru doctor`` and
  ``get_status`` say so).
- ``redactions.json`` in the data dir (0600), written only by the person's
  ``noru redact add / remove``: their own regular expressions, each with the
  kind it is shown as (``[redacted: KIND]``).

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
from noru.redact.detect import Own
from noru.redact.rules import CATEGORIES

__all__ = [
    "FILE",
    "Pattern",
    "Policy",
    "add",
    "check_kind",
    "check_pattern",
    "load",
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
class Policy:
    """The categories on, the person's patterns, and why redaction cannot run
    (``problem``), if it cannot."""

    categories: frozenset[str] = frozenset()
    patterns: tuple[Pattern, ...] = ()
    problem: str | None = None

    @property
    def on(self) -> bool:
        return bool(self.categories) or self.problem is not None

    @cached_property
    def own(self) -> tuple[Own, ...]:
        """The person's patterns compiled (once per policy: each is checked
        to compile when it is added and when its file is read)."""
        return tuple(pattern.compiled() for pattern in self.patterns)

    def describe(self) -> str:
        """In words, for ``noru doctor``, ``get_status`` and the person."""
        if self.problem:
            return f"cannot run: {self.problem}; no capture is served to agents until it is fixed"
        if not self.categories:
            return "off (redact = [] in config.toml): agents get secrets on screen as shown"
        on = ", ".join(c for c in CATEGORIES if c in self.categories)
        mine = len(self.patterns)
        return on + (f", and {mine} pattern{'s' if mine != 1 else ''} of yours" if mine else "")

    @classmethod
    def of(cls, categories: Sequence[str], patterns: Sequence[Pattern] = ()) -> Policy:
        if not categories:
            return cls()
        return cls(frozenset(categories), tuple(patterns))


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


def load_patterns(home: Path) -> list[Pattern]:
    """The person's patterns; ``DataDirError`` when their file cannot be read."""
    path = home / FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "it is not text"
        raise DataDirError(f"{FILE} cannot be read ({reason})") from exc
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    items = data.get("patterns") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise DataDirError(f"{FILE} is damaged")
    found = []
    for item in items:
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


def load(home: Path, categories: Sequence[str]) -> Policy:
    """The policy in force for data dir ``home`` with ``categories`` on (the
    ``redact`` setting); never raises: a file it cannot read is its problem."""
    if not categories:
        return Policy()
    try:
        patterns = load_patterns(home)
    except DataDirError as exc:
        return Policy(frozenset(categories), problem=str(exc))
    return Policy.of(categories, patterns)


def _save(home: Path, patterns: Sequence[Pattern]) -> None:
    body = {"patterns": [{"pattern": p.pattern, "kind": p.kind} for p in dict.fromkeys(patterns)]}
    replace_text(home / FILE, json.dumps(body, indent=1), mode=0o600)


def add(home: Path, pattern: Pattern) -> None:
    """Add one of the person's patterns (only their commands call this)."""
    _save(home, [*load_patterns(home), pattern])


def remove(home: Path, pattern: str) -> bool:
    """Remove the person's pattern(s) written ``pattern``; False when none is."""
    current = load_patterns(home)
    kept = [p for p in current if p.pattern != pattern]
    if len(kept) == len(current):
        return False
    _save(home, kept)
    return True
