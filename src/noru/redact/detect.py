"""Finding secrets in lines of text (``noru.redact``'s rules applied): the
formats of ``rules.RULES`` (their stray spaces joined), what ``places``
finds where secrets stand, cards, the person's own patterns, less what
they allowed.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from noru.redact.places import (
    MIN_TOKEN,
    NUMBER_DIGITS,
    aws_secrets,
    columns,
    key_bodies,
    labelled,
    placed,
)
from noru.redact.rules import (
    CARD,
    CARD_DIGITS,
    CATEGORY_OF,
    DEFAULT_CATEGORIES,
    OPTIONAL_RULES,
    RULES,
    Rule,
    canon,
)
from noru.redact.shapes import Finding, piece_like

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


def category(kind: str) -> str:
    """The setting a kind is turned on by: "cards", "emails", "phones", or
    "secrets" (every other kind)."""
    return CATEGORY_OF.get(kind, "secrets")


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
    searched = _searched(folded, categories)
    found = _matched(line, searched)
    mixed = "secrets" in categories and _MIXED_RUN.search(line) is not None
    joined = _despaced(line) if mixed else None
    if joined is not None:
        # Found across a stray space only (else the line's own search found it).
        text, at = joined
        for f in _formats(text, canon(text), categories):
            start, end = at[f.start], at[f.end - 1] + 1
            if end - start > f.end - f.start:
                found.append(Finding(start, end, f.kind))
    if "secrets" in categories:
        found += _one_space(line, folded, searched, found)
        found += placed(line, folded)
        if any(f.kind == "aws-key" for f in found):
            found += aws_secrets(line)
        found += labelled(line)
    if "cards" in categories:
        found += _cards(line)
    for mine in own:
        if isinstance(mine, Own):
            for m in mine.pattern.finditer(line):
                group = "v" if "v" in mine.pattern.groupindex else 0
                if m.end(group) > m.start(group):
                    found.append(Finding(m.start(group), m.end(group), mine.kind))
    return found


def _formats(line: str, folded: str, categories: Collection[str]) -> list[Finding]:
    """What the rules of formats (``RULES``, ``OPTIONAL_RULES``) find in
    ``line``; ``folded``: its ``canon``."""
    return _matched(line, _searched(folded, categories))


def _searched(folded: str, categories: Collection[str]) -> list[int]:
    """Which of ``_RULES`` a line whose ``canon`` is ``folded`` is searched
    by: those on under ``categories`` whose needles it holds, and those
    with none."""
    on = frozenset(categories)
    always, short, grams = _plan(on)
    hit = {i for needle, rules in short if needle in folded for i in rules}
    for gram in _keys_of(on).intersection(zip(folded, folded[1:], folded[2:], strict=False)):
        hit.update(i for needle, rules in grams[gram] if needle in folded for i in rules)
    return sorted(hit.union(always)) if hit else always


def _matched(line: str, searched: Iterable[int]) -> list[Finding]:
    """What the rules ``searched`` (indices of ``_RULES``) find in ``line``."""
    found = []
    for i in searched:
        rule = _RULES[i]
        for m in rule.pattern.finditer(line):
            end = _joined(line, m, rule) if rule.high else m.end("v")
            if end is None:
                continue
            if rule.kind == "phone" and not 9 <= sum(c.isdigit() for c in m["v"]) <= 15:
                continue
            if rule.kind == "bearer-token" and not _credential_like(m["v"]):
                continue
            start = m.start("v") if not rule.high else m.end("p") if rule.outside else m.start("p")
            found.append(Finding(start, end, rule.kind))
    return found


# What a piece of a token after a stray space nearly always holds (``_GAP``
# looks for it): a line with none is not searched for spaces to take out.
_MIXED_RUN = re.compile(r"[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]", re.ASCII)


# A space between two runs of a token's characters: the engine may have put
# it inside one token.
# (what follows it mixes letters and digits, or cases, as a token's does).
_GAP = re.compile(
    r"(?<=[A-Za-z0-9_+/=.:~|-]) (?=[A-Za-z0-9_+/=~|-]*?"
    r"(?:[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]|[a-z][A-Z]+[a-z]+[A-Z]|[A-Z][a-z]+[A-Z]+[a-z]))",
    re.ASCII,
)


_RUN = re.compile(r"[A-Za-z0-9_+/=.:~|-]+", re.ASCII)


def _despaced(line: str) -> tuple[str, list[int]] | None:
    """``line`` with the single spaces the engine may have put inside a
    token taken out, and where each of its characters is in ``line``; None
    when there are none. A space is taken out between two runs that each
    look like a token's (a digit and a letter, or many changes of case),
    or after a run that ends as a token's prefix does (``-``, ``_``, ``.``,
    ``:``) or inside a format's prefix (``dckr_p at_...``) before one that
    does."""
    gaps = []
    for gap in _GAP.finditer(line):
        at = gap.start()
        right = _RUN.match(line, at + 1)
        if right is None or not piece_like(right[0]):
            continue
        left = line[_run_start(line, at) : at]
        if (
            piece_like(left)
            or (len(left) >= 3 and left[-1] in "-_.:")
            or _splits_a_needle(left, right[0])
        ):
            gaps.append(at)
    if not gaps:
        return None
    text = "".join(line[a + 1 : b] for a, b in itertools.pairwise([-1, *gaps, len(line)]))
    cut = set(gaps)
    return text, [i for i in range(len(line)) if i not in cut]


# A run of a token's characters (``_one_space`` joins two of them).
_TOKEN_RUN = re.compile(r"[^\s\"'`()<>\[\]{},;]+")

# Rules anchored on a word or a URL before their value, not on a token's
# own shape: a space after their fixed part is the line's own.
_NOT_ACROSS = frozenset(
    i
    for i, rule in enumerate((*RULES, *OPTIONAL_RULES))
    if rule.kind in ("bearer-token", "url-password")
)

# The fewest characters two runs joined across a space must hold to be
# tried as one token (an AWS key id's 20 the shortest format so cut).
_JOINED_AT_LEAST = 16


def _one_space(
    line: str, folded: str, searched: Sequence[int], found: Sequence[Finding]
) -> list[Finding]:
    """What a format finds across one space between two runs of a token's
    characters, the two runs alone joined (``NjM5...ND A0.yGqSei...``,
    ``gi0nba .i7tq...``): the format's own shape (its fixed part, its
    length, its alphabet) is what tells a token cut by a stray space from
    two words, whatever its pieces look like. Only the rules ``searched``
    (the line holds their needles; ``folded``: its ``canon``) whose needles
    the two runs hold are tried. A space already inside a finding is passed
    by, and so is one after a run a format found alone (a token of a range
    of lengths would take the next word)."""
    held = _needles_at(folded, (i for i in searched if i not in _NOT_ACROSS))
    if not held:
        return []
    backwards = line[::-1]
    size = len(line)

    def run_start(at: int) -> int:  # of the run that ends at ``at``
        m = _TOKEN_RUN.match(backwards, size - at)
        return at if m is None else size - m.end()

    def run_end(at: int) -> int:  # of the run that starts at ``at``
        m = _TOKEN_RUN.match(line, at)
        return at if m is None else m.end()

    pairs = set()
    for pos, _, _ in held:
        start, end = run_start(pos), run_end(pos)
        if line.startswith(" ", end):
            pairs.add((start, end, run_end(end + 1)))
        if start and line[start - 1] == " ":
            pairs.add((run_start(start - 1), start - 1, end))
    out: list[Finding] = []
    for start, at, end in sorted(pairs):
        if end - start - 1 < _JOINED_AT_LEAST or at - start < 2 or end - at - 1 < 2:
            continue
        if any(f.start <= at and at - 1 < f.end for f in found):
            continue
        first, last = bisect.bisect_left(held, (start,)), bisect.bisect_left(held, (end,))
        tried = {i for _, stop, i in held[first:last] if stop <= end}
        text = line[start:at] + line[at + 1 : end]
        for f in _matched(text, sorted(tried)):
            if f.start < at - start < f.end:
                out.append(Finding(start + f.start, start + f.end + 1, f.kind))
    return out


def _needles_at(folded: str, searched: Iterable[int]) -> list[tuple[int, int, int]]:
    """Where ``folded`` holds the needles of the rules ``searched``, whole or
    cut by a space: (start, end, the rule's index), in order."""
    held = []
    for i in searched:
        for needle in _NEEDLES_CUT[i]:
            at = folded.find(needle)
            while at != -1:
                held.append((at, at + len(needle), i))
                at = folded.find(needle, at + 1)
    return sorted(held)


# Rules' needles long enough to tell a prefix cut by a stray space, by their
# first three characters.
_NEEDLES: dict[tuple[str, ...], list[str]] = {}
for _needle in sorted({n for rule in RULES for n in rule.needles if len(n) >= 4}):
    _NEEDLES.setdefault(tuple(_needle[:3]), []).append(_needle)


def _splits_a_needle(left: str, right: str) -> bool:
    """Whether a stray space between ``left`` and ``right`` cuts a rule's
    needle (a format's fixed prefix) in two."""
    head = left[-12:]
    joined = canon(head + right[:12])
    grams = _NEEDLES.keys() & set(zip(joined, joined[1:], joined[2:], strict=False))
    for needle in (n for gram in grams for n in _NEEDLES[gram]):
        at = joined.find(needle)
        while -1 < at < len(head):
            if at + len(needle) > len(head):
                return True
            at = joined.find(needle, at + 1)
    return False


def _run_start(line: str, at: int) -> int:
    while at and line[at - 1] not in " \t\"'`(<[{,;":
        at -= 1
    return at


_RULES = (*RULES, *OPTIONAL_RULES)


def _cuts(needle: str) -> tuple[str, ...]:
    """``needle`` (4 characters or more) with a space inside it, as
    ``canon`` folds one (``_``): the engine put a stray space inside a
    format's fixed part (``...atl asv1...``, ``AAAAAAA AAAAAAAA...``)."""
    return tuple(
        needle[:k] + "_" + needle[k:] for k in range(1, len(needle) if len(needle) >= 4 else 1)
    )


# Each rule's needles, whole and cut by a space.
_NEEDLES_CUT = [(*r.needles, *(c for n in r.needles for c in _cuts(n))) for r in _RULES]


_Needles = list[tuple[str, list[int]]]


@functools.cache
def _plan(
    categories: frozenset[str],
) -> tuple[list[int], _Needles, dict[tuple[str, ...], _Needles]]:
    """Which of ``_RULES`` are on under ``categories``: those searched in
    every line; and the needles (with the rules a line holding one is
    searched by), the short ones alone and the others by three of their
    characters (``_gram``), so that a line is only looked at for the
    needles whose three characters it holds: most lines hold few needles
    and are searched by few rules."""
    always = []
    needles: dict[str, list[int]] = {}
    for i, rule in enumerate(_RULES):
        if category(rule.kind) not in categories:
            continue
        if not rule.needles:
            always.append(i)
        for needle in _NEEDLES_CUT[i]:
            needles.setdefault(needle, []).append(i)
    short = [(needle, rules) for needle, rules in needles.items() if len(needle) < 3]
    grams: dict[tuple[str, ...], _Needles] = {}
    for needle, rules in needles.items():
        if len(needle) >= 3:
            grams.setdefault(_gram(needle), []).append((needle, rules))
    return always, short, grams


@functools.cache
def _keys_of(categories: frozenset[str]) -> frozenset[tuple[str, ...]]:
    """The three characters ``_plan`` looks needles up by, as a set."""
    return frozenset(_plan(categories)[2])


def _gram(needle: str) -> tuple[str, ...]:
    """The three characters of ``needle`` a line is looked at for it by:
    its first three without a space (``_``) if it has any, else its first
    three (a space is in most lines, a needle's letters are not)."""
    grams = [needle[k : k + 3] for k in range(len(needle) - 2)]
    return tuple(next((gram for gram in grams if "_" not in gram), grams[0]))


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


def _joined(line: str, m: re.Match[str], rule: Rule) -> int | None:
    """Where a token of ``rule`` ends, its pieces joined: the engine put a
    space inside it (``gho_29t3DL70EurYGs rbwc...``). A piece after the
    first is joined when the token is then still within its length and the
    piece looks like a token's (of a format of one length, any piece that
    makes it up); None when no run of pieces is the format's length. A
    format of one length of 20 or more takes two characters fewer or more:
    in a proportional font the engine drops or adds one now and then."""
    at, size = m.start("p"), -len(m["p"])
    end = None
    first = m["p"] + m["b"]
    pieces = [first, *m["rest"][1:].split(" ")] if m["rest"] else [first]
    low, high = rule.low, rule.high
    one_length = high - low <= 4
    if one_length and low >= 20:
        low, high = low - 2, high + 2  # a character the engine dropped or added
    for k, piece in enumerate(pieces):
        if k and not (one_length or piece_like(piece)):
            break
        size += len(piece)
        if size > high:
            break
        at += len(piece) + (1 if k else 0)
        if size >= low:
            end = at
    if end is not None:
        while line[end - 1] in ".)]}" and end > m.end("p") + low:
            end -= 1  # a sentence's full stop after a token whose body takes dots
    return end


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
    if "secrets" in categories:
        for i, extra in key_bodies(lines):
            found[i].append(extra)
        for i, extra in columns(lines):
            found[i].append(extra)
    return [
        _apart(_allowed(line, spans, own)) if spans else []
        for line, spans in zip(lines, found, strict=True)
    ]


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


def _credential_like(value: str) -> bool:
    """A credential after ``Bearer`` or ``Basic``: a digit, both cases, or a
    token's punctuation in it; a word of prose has none of them."""
    return (
        any(c.isdigit() for c in value)
        or (any(c.islower() for c in value) and any(c.isupper() for c in value))
        or any(c in "._~+/=" for c in value)
    )


def _cards(line: str) -> list[Finding]:
    found = []
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
