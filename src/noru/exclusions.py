"""Windows the person never lets Noru capture: apps and window-title patterns.

An exclusion names an app (matched on a window's ``app_id`` or ``app_name``,
case-insensitively, whole) or a window title (a shell-style glob,
case-insensitive, matched against the whole title; ``re:`` before a pattern
makes it a regular expression, searched anywhere in the title).

Where they come from, all joined:

- ``exclusions.json`` in the data dir (0600), written only by the person's
  ``noru exclude add / remove``;
- ``exclude_apps`` / ``exclude_titles`` in ``config.toml``;
- the built-in ones, on unless the person removes them (``noru exclude remove
  --builtin NAME``): see ``BUILTIN``.

A file that cannot be read or parsed fails closed: ``load`` raises
``DataDirError``, and a capture is then refused, never taken unprotected.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from noru.atomic import replace_text
from noru.errors import DataDirError

__all__ = [
    "BUILTIN",
    "Exclusions",
    "Rule",
    "add",
    "already",
    "builtin_name",
    "load",
    "remove",
    "save",
    "turn_off",
]

FILE = "exclusions.json"


@dataclass(frozen=True)
class Rule:
    """One exclusion: ``kind`` "app" or "title", and its pattern."""

    kind: str
    pattern: str

    def matches(self, app_id: str | None, app_name: str | None, title: str | None) -> bool:
        if self.kind == "app":
            wanted = self.pattern.casefold()
            return any(v is not None and v.casefold() == wanted for v in (app_id, app_name))
        if title is None:
            return False
        if self.pattern.startswith("re:"):
            return re.search(self.pattern[3:], title, re.IGNORECASE) is not None
        return fnmatch.fnmatchcase(title.casefold(), self.pattern.casefold())

    def __str__(self) -> str:
        return f"{self.kind} {self.pattern}"

    def same_as(self, other: Rule) -> bool:
        """Whether ``other`` excludes the same windows (both match any case)."""
        return self.kind == other.kind and self.pattern.casefold() == other.pattern.casefold()


# Built in and on by default. What they recognise, and what they cannot, is in
# docs/cli.md ("noru exclude"): X11 gives Noru a window's class and title only.
BUILTIN: dict[str, Rule] = {
    # Firefox names a private window "... — Mozilla Firefox Private Browsing".
    "firefox-private": Rule("title", "*Private Browsing*"),
    "keepassxc": Rule("app", "KeePassXC"),
    "1password": Rule("app", "1Password"),
    "bitwarden": Rule("app", "Bitwarden"),
    # GNOME Keyring's password prompts (gcr's prompter).
    "gnome-keyring-prompt": Rule("app", "Gcr-prompter"),
}


@dataclass(frozen=True)
class Exclusions:
    """The person's rules, the config's, and the built-in ones left on."""

    rules: tuple[Rule, ...] = ()
    builtin_off: frozenset[str] = field(default_factory=frozenset)

    @property
    def active(self) -> tuple[Rule, ...]:
        builtin = tuple(r for name, r in BUILTIN.items() if name not in self.builtin_off)
        return (*self.rules, *builtin)

    def excludes(self, app_id: str | None, app_name: str | None, title: str | None) -> bool:
        return any(rule.matches(app_id, app_name, title) for rule in self.active)

    def __bool__(self) -> bool:
        return bool(self.active)


def check_pattern(kind: str, pattern: str) -> str | None:
    """What is wrong with a rule the person typed, or None."""
    if kind not in ("app", "title"):
        return f"unknown kind {kind!r} (app or title)"
    if not pattern.strip():
        return "an empty pattern would match nothing"
    if kind == "title" and pattern.startswith("re:"):
        try:
            re.compile(pattern[3:])
        except re.error as exc:
            return f"not a regular expression: {exc}"
    return None


def _read(home: Path) -> dict[str, object]:
    path = home / FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise DataDirError(f"{FILE} cannot be read ({exc.strerror}): captures are refused") from exc
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise DataDirError(f"{FILE} is damaged: captures are refused until it is fixed or removed")
    return data


def _rules(items: object, where: str) -> list[Rule]:
    if not isinstance(items, list):
        raise DataDirError(f"{where} is damaged: captures are refused until it is fixed")
    found = []
    for item in items:
        kind, pattern = (
            (item.get("kind"), item.get("pattern")) if isinstance(item, dict) else (None, None)
        )
        if (
            not isinstance(kind, str)
            or not isinstance(pattern, str)
            or check_pattern(kind, pattern)
        ):
            raise DataDirError(f"{where} holds a rule Noru cannot read: captures are refused")
        found.append(Rule(kind, pattern))
    return found


def load(home: Path, *, apps: Iterable[str] = (), titles: Iterable[str] = ()) -> Exclusions:
    """The exclusions in force: the data dir's file, plus ``apps`` and ``titles``
    from the configuration, plus the built-in ones the person left on."""
    data = _read(home)
    rules = _rules(data.get("rules", []), FILE)
    rules += [Rule("app", a) for a in apps] + [Rule("title", t) for t in titles]
    off = data.get("builtin_off", [])
    if not isinstance(off, list) or not all(isinstance(n, str) for n in off):
        raise DataDirError(f"{FILE} is damaged: captures are refused until it is fixed")
    return Exclusions(tuple(dict.fromkeys(rules)), frozenset(off))


def save(home: Path, rules: Iterable[Rule], builtin_off: Iterable[str]) -> None:
    """Write the person's own rules (atomic, 0600). Only the person's CLI calls this."""
    body = {
        "rules": [{"kind": r.kind, "pattern": r.pattern} for r in dict.fromkeys(rules)],
        "builtin_off": sorted(set(builtin_off)),
    }
    replace_text(home / FILE, json.dumps(body, indent=1), mode=0o600)


def already(
    home: Path, rule: Rule, *, apps: Iterable[str] = (), titles: Iterable[str] = ()
) -> str | None:
    """The rule in force that excludes what ``rule`` would, in words (whose
    it is), or None: the person's, the configuration's (``apps``,
    ``titles``), or a built-in one left on."""
    current = load(home)
    if any(rule.same_as(r) for r in current.rules):
        return f"{rule} is one of your exclusions"
    config = [Rule("app", a) for a in apps] + [Rule("title", t) for t in titles]
    if any(rule.same_as(r) for r in config):
        return f"{rule} is excluded by config.toml"
    for name, builtin in BUILTIN.items():
        if name not in current.builtin_off and rule.same_as(builtin):
            return f"{rule} is excluded by the built-in rule {name}"
    return None


def add(home: Path, rule: Rule) -> bool:
    """Add one of the person's rules (the CLI's and the console's one way);
    False when they have it already (in any case)."""
    current = load(home)
    if any(rule.same_as(r) for r in current.rules):
        return False
    save(home, [*current.rules, rule], current.builtin_off)
    return True


def remove(home: Path, rule: Rule) -> bool:
    """Remove one of the person's rules; False when there is no such rule."""
    current = load(home)
    if rule not in current.rules:
        return False
    save(home, [r for r in current.rules if r != rule], current.builtin_off)
    return True


def builtin_name(name: str) -> str | None:
    """The built-in rule ``name`` means, in any case (``KeePassXC``), or None."""
    wanted = name.strip().casefold()
    return next((known for known in BUILTIN if known.casefold() == wanted), None)


def turn_off(home: Path, name: str) -> bool:
    """Turn a built-in rule off (named in any case); False when there is no
    built-in ``name``."""
    known = builtin_name(name)
    if known is None:
        return False
    current = load(home)
    save(home, current.rules, {*current.builtin_off, known})
    return True
