"""Finding secrets in lines of text (``noru.redact``'s rules applied): the
formats of ``rules.RULES`` (searched as ``search`` plans, their stray
spaces joined by ``spaces``), what ``places`` finds where secrets stand,
cards, the person's own patterns, less what they allowed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from noru.redact.glyphs import unconfused
from noru.redact.places import (
    MIN_TOKEN,
    NUMBER_DIGITS,
    columns,
    key_bodies,
    labelled,
    placed,
)
from noru.redact.rules import CARD, CARD_DIGITS, DEFAULT_CATEGORIES, canon
from noru.redact.search import category, credential_like, formats, matched, searched
from noru.redact.shapes import Finding
from noru.redact.spaces import despaced, mixed_run, one_space, padded_pieces, quoted_pieces
from noru.redact.unlabelled import aws_secrets, bare_keys, field_values

__all__ = [
    "MIN_TOKEN",
    "NEAR",
    "NUMBER_DIGITS",
    "Allowed",
    "Finding",
    "Own",
    "allowed_digest",
    "category",
    "find",
    "find_lines",
    "find_near",
]


@dataclass(frozen=True)
class Own:
    """One of the person's own patterns (``noru redact add``): what it
    matches (its group ``v`` if it has one, else the whole match) is
    redacted as ``kind``."""

    pattern: re.Pattern[str]
    kind: str


@dataclass(frozen=True)
class Allowed:
    """The values the person said are no secret (``noru redact allow``),
    as the digests of their ``allowed_digest``: a finding whose value is
    one of them is not redacted."""

    digests: frozenset[str]

    def allows(self, value: str) -> bool:
        return allowed_digest(value) in self.digests


# What the engine confuses, brought to one character: an allowed value is
# still allowed when it is misread.
_SAME = str.maketrans("oil|szb", "0111528")


def allowed_digest(value: str) -> str:
    """The digest an allowed value is kept as: SHA-256 of it without spaces,
    in small letters, with the characters the engine confuses made one
    (``O`` and ``0``; ``I``, ``l``, ``1`` and ``|``; ...)."""
    canonical = "".join(value.split()).lower().translate(_SAME)
    return hashlib.sha256(b"noru-allowed\0" + canonical.encode()).hexdigest()


def find(
    line: str,
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own | Allowed] = (),
) -> list[Finding]:
    """What ``categories`` and the person's ``own`` patterns find in one
    line, left to right, none overlapping; none whose value the person
    allowed (``own``'s ``Allowed``)."""
    return _apart(_allowed(line, _found(line, categories, own), own))


def _found(line: str, categories: Collection[str], own: Sequence[Own | Allowed]) -> list[Finding]:
    """Every finding in ``line``, most specific first, overlaps and all."""
    folded = canon(line)
    found = _shaped(line, folded, categories)
    if "secrets" in categories:
        for text, at in unconfused(line):
            # A glyph no token holds, read inside one (``sk.ey)1Ijoi...``);
            # a credential after ``Bearer`` as read, not as made so (a
            # path's ``/`` made a ``J`` makes no token of ``username/password``).
            found += [
                f
                for f in (_in_line(f, at) for f in _shaped(text, canon(text), categories))
                if f.kind != "bearer-token" or credential_like(line[f.start : f.end])
            ]
        found += placed(line, folded, categories)
        if "==" in line:
            found += padded_pieces(line)
        found += quoted_pieces(line)
        if any(f.kind == "aws-key" for f in found):
            found += aws_secrets(line)
        found += labelled(line)
        if "ey" in folded:
            found += bare_keys(line)
        if any(name in folded for name in _FIELD_NAMES):
            found += field_values(line)
    if "cards" in categories:
        found += _cards(line)
    for mine in own:
        if isinstance(mine, Own):
            for m in mine.pattern.finditer(line):
                group = "v" if "v" in mine.pattern.groupindex else 0
                if m.end(group) > m.start(group):
                    found.append(Finding(m.start(group), m.end(group), mine.kind))
    return found


# What a line holds, in ``canon``'s form (``credentlal``: its ``i`` folded),
# wherever ``field_values`` may find a field beside its label.
_FIELD_NAMES = ("key", "tok", "ecret", "pass", "credent")


def _shaped(line: str, folded: str, categories: Collection[str]) -> list[Finding]:
    """What the formats find in ``line`` (``folded``: its ``canon``), its
    tokens' pieces after stray spaces joined."""
    rules = searched(folded, categories)
    found = matched(line, rules)
    mixed = "secrets" in categories and mixed_run(line)
    joined = despaced(line) if mixed else None
    if joined is not None:
        # Found across a stray space only (else the line's own search found it).
        text, at = joined
        for f in formats(text, canon(text), categories):
            there = _in_line(f, at)
            if there.end - there.start > f.end - f.start:
                found.append(there)
    if "secrets" in categories:
        found += one_space(line, folded, rules, found)
    return found


def _in_line(found: Finding, at: Sequence[int]) -> Finding:
    """``found`` in a line made from one as read (its stray spaces taken
    out, its glyphs read as a token's), as a span of the line as read
    (``at``: where each character of the one made is in it): what it was
    read from, the characters left out inside it too."""
    return Finding(at[found.start], at[found.end - 1] + 1, found.kind)


def _allowed(line: str, found: list[Finding], own: Iterable[Own | Allowed]) -> list[Finding]:
    """``found`` without the values the person allowed (a value quoted or
    bracketed counts as itself)."""
    allowed = [a for a in own if isinstance(a, Allowed)]
    if not allowed or not found:
        return found
    return [
        f
        for f in found
        if not any(
            a.allows(value) or a.allows(value.strip(_AROUND))
            for value in [line[f.start : f.end]]
            for a in allowed
        )
    ]


_AROUND = "\"'`<>()[]{},;."


def find_lines(
    lines: Sequence[str],
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own | Allowed] = (),
) -> list[list[Finding]]:
    """What ``find`` finds in each of ``lines`` (a capture's, top to
    bottom), and with "secrets", what only lines together show: a private
    key's body lines (between a PEM key's BEGIN and END lines, after a
    PuTTY key's ``Private-Lines``), each whole, and a CSV's values in a
    column whose header names a secret (``Secret access key``)."""
    found = [_found(line, categories, own) for line in lines]
    return _with_lines_together(lines, found, categories, own)


def _with_lines_together(
    lines: Sequence[str],
    found: list[list[Finding]],
    categories: Collection[str],
    own: Sequence[Own | Allowed],
) -> list[list[Finding]]:
    """``found`` (each line's findings alone) with what only lines together
    show, when "secrets" is on (a private key's body lines, a CSV's columns
    under a secret's header), less the allowed values, overlaps resolved."""
    if "secrets" in categories:
        for i, extra in key_bodies(lines):
            found[i].append(extra)
        for i, extra in columns(lines):
            found[i].append(extra)
    return [
        _apart(_allowed(line, spans, own)) if spans else []
        for line, spans in zip(lines, found, strict=True)
    ]


# How many characters either side of a point a line is searched around it
# (``find_near``), then on to whole words: a label and its value, a token's
# pieces after stray spaces, a card's groups.
NEAR = 48


def find_near(
    lines: Sequence[str],
    near: Sequence[Sequence[int] | None],
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own | Allowed] = (),
    *,
    reach: int = NEAR,
) -> list[list[Finding]]:
    """What ``find_lines`` finds in ``lines`` around the points ``near``
    each (where a line was joined from parts read apart, the rest of it
    searched already in its parts): each line only from ``reach`` characters
    before a point to ``reach`` after it, on to whole words; from its start
    where a quote opened before (whether a quote closes a string or opens
    a value depends on the quotes before it). A line whose points are None
    is searched whole; one with no points is not searched. What only lines
    together show (a private key's body lines, a
    CSV's columns) is looked for in the lines whole."""
    found: list[list[Finding]] = []
    for line, points in zip(lines, near, strict=True):
        spans: list[Finding] = []
        spans_of = [(0, len(line))] if points is None else _around(line, points, reach)
        for start, end in spans_of:
            spans += [
                Finding(f.start + start, f.end + start, f.kind)
                for f in _found(line[start:end], categories, own)
            ]
        found.append(spans)
    return _with_lines_together(lines, found, categories, own)


def _around(line: str, points: Iterable[int], reach: int) -> list[tuple[int, int]]:
    """The spans of ``line`` ``find_near`` searches around ``points``,
    overlapping ones as one."""
    spans: list[tuple[int, int]] = []
    for at in sorted(points):
        start, end = max(0, at - reach), min(len(line), at + reach)
        while start > 0 and not line[start - 1].isspace():
            start -= 1
        while end < len(line) and not line[end].isspace():
            end += 1
        if any(line.count(quote, 0, start) % 2 for quote in "\"'`"):
            start = 0
        if spans and start <= spans[-1][1]:
            spans[-1] = (min(start, spans[-1][0]), max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


# A line's characters as a card's: a digit (or what the engine reads for
# one, ``CARD_DIGITS``) ``0``, a space and a ``-`` as themselves, any other
# ASCII character ``.``; a card's number holds 8 digits about one space or
# ``-`` at most (``_CARD_GATE``): most lines have none, and are not searched.
_CARD_CLASSES = str.maketrans(
    {
        chr(c): "0" if chr(c).isdigit() or chr(c) in "OlISB" else chr(c) if chr(c) in " -" else "."
        for c in range(128)
    }
)
_CARD_GATE = re.compile("0000[ -]?0000")


def _cards(line: str) -> list[Finding]:
    found: list[Finding] = []
    if _CARD_GATE.search(line.translate(_CARD_CLASSES)) is None:
        return found
    for m in CARD.finditer(line):
        digits = re.sub(r"[ -]", "", m["v"]).translate(CARD_DIGITS)
        if 13 <= len(digits) <= 19 and _luhn(digits) and not _one_digit(digits):
            found.append(Finding(m.start("v"), m.end("v"), "card"))
    return found


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        if i % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _one_digit(digits: str) -> bool:
    """``0000 0000 0000 0000`` passes Luhn and is no card."""
    return len(set(digits)) == 1


def _apart(found: list[Finding]) -> list[Finding]:
    """Findings left to right, an overlapping one merged into the one it
    overlaps: the span of both, the kind of the one earlier in ``found``
    (the most specific)."""
    rank = {id(f): i for i, f in enumerate(found)}
    merged: list[Finding] = []
    ranks: list[int] = []
    for finding in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            kind = finding.kind if rank[id(finding)] < ranks[-1] else last.kind
            merged[-1] = Finding(last.start, max(last.end, finding.end), kind)
            ranks[-1] = min(ranks[-1], rank[id(finding)])
        else:
            merged.append(finding)
            ranks.append(rank[id(finding)])
    return merged
