"""Tokens the OCR engine cut with a stray space (``gho_29t3 DL70...``,
``dckr_p at_...``): which spaces in a line may be inside a token and the
line with them taken out (``despaced``), what a format finds across
one space between two runs of a token's characters, or two about a
fragment (``one_space``), and
an Azure storage key's pieces joined back from its ``==``
(``padded_pieces``) or between its quotes, its ``==`` not read
(``quoted_pieces``).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence

from noru.redact.formats import STORAGE_KEY
from noru.redact.rules import ALL_RULES, RULES, canon
from noru.redact.search import LEAST, NEEDLES_CUT, matched
from noru.redact.shapes import (
    PIECE_SIZE,
    Finding,
    all_classes,
    piece_like,
    random_key,
    word_like,
)

__all__ = ["despaced", "mixed_run", "one_space", "padded_pieces", "quoted_pieces"]


# A line's characters as their classes: an ASCII letter ``a``, a digit ``0``,
# any other ASCII character a space (``mixed_run``).
_CLASSES = str.maketrans(
    {chr(c): "a" if chr(c).isalpha() else "0" if chr(c).isdigit() else " " for c in range(128)}
)
_LETTERS_ABOUT_DIGITS = re.compile("a0+a")
_DIGITS_ABOUT_LETTERS = re.compile("0a+0")


def mixed_run(line: str) -> bool:
    """Whether ``line`` holds what a piece of a token after a stray space
    nearly always holds (``_GAP`` looks for it): digits between two letters
    or letters between two digits; a line with none is not searched for
    spaces to take out. Looked for in the line's classes (``_CLASSES``),
    where each of the two is a search for two characters."""
    classes = line.translate(_CLASSES)
    return ("a0" in classes and _LETTERS_ABOUT_DIGITS.search(classes) is not None) or (
        "0a" in classes and _DIGITS_ABOUT_LETTERS.search(classes) is not None
    )


# A space between two runs of a token's characters: the engine may have put
# it inside one token.
# (what follows it mixes letters and digits, or cases, as a token's does).
_GAP = re.compile(
    r"(?<=[A-Za-z0-9_+/=.:~|-]) (?=[A-Za-z0-9_+/=~|-]*?"
    r"(?:[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]|[a-z][A-Z]+[a-z]+[A-Z]|[A-Z][a-z]+[A-Z]+[a-z]))",
    re.ASCII,
)


_RUN = re.compile(r"[A-Za-z0-9_+/=.:~|-]+", re.ASCII)

# One of a token's marks with a space on each side, between two runs.
_LONE_MARK = re.compile(r"(?<=[A-Za-z0-9_.:-]) ([+/=_-]|[A-Za-z0-9]) (?=[A-Za-z0-9])", re.ASCII)


def despaced(line: str) -> tuple[str, list[int]] | None:
    """``line`` with the single spaces the engine may have put inside a
    token taken out, and where each of its characters is in ``line``; None
    when there are none. A space is taken out between two runs that each
    look like a token's (a digit and a letter, or many changes of case),
    or after a run that ends as a token's prefix does (``-``, ``_``, ``.``,
    ``:``) or inside a format's prefix (``dckr_p at_...``) before one that
    does; and both spaces around one of a token's marks between two such
    runs (``...9bSuy + jiioXH...``), or around one character after a run
    that ends as a prefix does (``AGE-SECRET-KEY- 1 R9AEU...``)."""
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
    for mark in _LONE_MARK.finditer(line):
        # ``...9bSuy + jiioXH...``: a base64 mark read apart from both sides;
        # ``AGE-SECRET-KEY- 1 R9AEU...``: a prefix's last character.
        at = mark.start()
        right = _RUN.match(line, at + 3)
        left = line[_run_start(line, at) : at]
        if right is None or not piece_like(right[0]):
            continue
        if piece_like(left) if not mark[1].isalnum() else len(left) >= 3 and left[-1] in "-_.:":
            gaps += [at, at + 2]
    if not gaps:
        return None
    gaps = sorted(set(gaps))
    text = "".join(line[a + 1 : b] for a, b in itertools.pairwise([-1, *gaps, len(line)]))
    cut = set(gaps)
    return text, [i for i in range(len(line)) if i not in cut]


# A run of a token's characters (``one_space`` joins two of them).
_TOKEN_RUN = re.compile(r"[^\s\"'`()<>\[\]{},;]+")

# Rules anchored on a word or a URL before their value, not on a token's
# own shape: a space after their fixed part is the line's own.
_RULES = ALL_RULES
_NOT_ACROSS = frozenset(
    i for i, rule in enumerate(_RULES) if rule.kind in ("bearer-token", "url-password")
)

# The fewest characters two runs joined across a space must hold to be
# tried as one token (an AWS key id's 20 the shortest format so cut).
_JOINED_AT_LEAST = 16
# A fragment this short at most, read apart between two stray spaces inside
# a token (``...NTY 4M Tcy.ABEB5b...``, a Discord token's user id): the
# runs on both sides of it are joined with it (``one_space``).
_FRAGMENT = 4


def one_space(
    line: str, folded: str, searched: Sequence[int], found: Sequence[Finding]
) -> list[Finding]:
    """What a format finds across one space between two runs of a token's
    characters, the two runs alone joined (``NjM5...ND A0.yGqSei...``,
    ``gi0nba .i7tq...``), or across two about a fragment of up to
    ``_FRAGMENT`` characters between them, the three joined
    (``NZUSMTI3NTEOOTY2NTY 4M Tcy.ABEB5b...``): the format's own shape (its
    fixed part, its length, its alphabet) is what tells a token cut by a
    stray space from two words, whatever its pieces look like; what it
    finds holds every space joined. Only the rules ``searched``
    (the line holds their needles; ``folded``: its ``canon``) whose needles
    the two runs hold are tried. A space already inside a finding is passed
    by, and so is one after a run a format found alone (a token of a range
    of lengths would take the next word), and one between a word of prose
    and a run a format found alone (``echo ceH3...==``: a format of one
    length, read a few characters long, would take the word before)."""
    across = [i for i in searched if i not in _NOT_ACROSS]
    gated = [i for i in across if _RULES[i].gate is not None]
    if gated:
        # A text joined from the line's runs is the line less some spaces:
        # a rule whose gate the line without spaces lacks finds nothing in it.
        bare = line.replace(" ", "")
        shut = {i for i in gated if _RULES[i].gate.search(bare) is None}  # type: ignore[union-attr]
        across = [i for i in across if i not in shut]
    held = _needles_at(folded, across)
    if not held:
        return []
    # A join shorter than every pattern held cannot be found (``LEAST``).
    least = max(_JOINED_AT_LEAST, min(LEAST[i] for _, _, i in held))
    backwards = line[::-1]
    size = len(line)

    def run_start(at: int) -> int:  # of the run that ends at ``at``
        m = _TOKEN_RUN.match(backwards, size - at)
        return at if m is None else size - m.end()

    def run_end(at: int) -> int:  # of the run that starts at ``at``
        m = _TOKEN_RUN.match(line, at)
        return at if m is None else m.end()

    def before(start: int) -> int | None:  # where the run before a space before ``start`` starts
        return run_start(start - 1) if start > 1 and line[start - 1] == " " else None

    def after(end: int) -> int | None:  # where the run after a space after ``end`` ends
        return run_end(end + 1) if line.startswith(" ", end) else None

    # each join: where its runs start and end, the spaces between them
    joins: set[tuple[int, tuple[int, ...], int]] = set()
    for pos in {pos for pos, _, _ in held}:  # each place once (rules share needles)
        start, end = run_start(pos), run_end(pos)
        if (right := after(end)) is not None:
            joins.add((start, (end,), right))
            if 0 < right - end - 1 <= _FRAGMENT and (farther := after(right)) is not None:
                joins.add((start, (end, right), farther))
        if (left := before(start)) is not None:
            joins.add((left, (start - 1,), end))
            if 0 < start - 1 - left <= _FRAGMENT and (farther := before(left)) is not None:
                joins.add((farther, (left - 1, start - 1), end))
    out: list[Finding] = []
    for start, cuts, end in sorted(joins):
        at, last = cuts[0], cuts[-1]
        joined = end - start - len(cuts)  # the text joined's length
        if joined < least or at - start < 2 or end - last - 1 < 2:
            continue
        if any(f.start <= cut and cut - 1 < f.end for f in found for cut in cuts):
            continue
        if any(f.start == at + 1 for f in found) and word_like(line[start:at]):
            continue
        first, stop = bisect.bisect_left(held, (start,)), bisect.bisect_left(held, (end,))
        tried = {i for _, until, i in held[first:stop] if until <= end and LEAST[i] <= joined}
        if not tried:
            continue
        text = "".join(line[a + 1 : b] for a, b in itertools.pairwise([start - 1, *cuts, end]))
        for f in matched(text, sorted(tried)):
            if f.start < at - start and last + 1 - start - len(cuts) < f.end:
                where = [i for i in range(start, end) if i not in cuts]
                out.append(Finding(where[f.start], where[f.end - 1] + 1, f.kind))
    return out


def _needles_at(folded: str, searched: Iterable[int]) -> list[tuple[int, int, int]]:
    """Where ``folded`` holds the needles of the rules ``searched``, whole or
    cut by a space: (start, end, the rule's index), in order."""
    held = []
    for i in searched:
        for needle in NEEDLES_CUT[i]:
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


# Pieces of it joined at most: as many as a token of its length
# (``shapes.PIECE_SIZE``: a key read in five pieces has been seen).
_STORAGE_PIECES = STORAGE_KEY[0] // PIECE_SIZE
# A piece this short that reads as a word (``On``, ``skv``, ``Pmdy``) may
# be the key's; a longer one is prose's (``Copied``, ``Using``).
_WORD_PIECE = 4
# The key's last piece and its padding, read apart from it now and then
# (``...ViNg7 ==``); a piece before it (a ``J`` read as ``)``, ``]`` or
# ``}`` is the key's).
_PADDED = re.compile(
    r"(?<![A-Za-z0-9+/|)\]}])([A-Za-z0-9+/|)\]}]+)( ?)==(?![A-Za-z0-9+/=])", re.ASCII
)
_B64_CHAR = re.compile(r"[A-Za-z0-9+/|)\]}]", re.ASCII)
# What may stand before the key's first piece: a space, a quote (a straight
# one read as a typographic one or as ``*`` too: ``‘Ib30...``,
# ``*MB1n...``), a field's edge.
_KEY_EDGE = " \t\"'`*=:(<[{,;‘’“”„«»"


def padded_pieces(line: str) -> list[Finding]:
    """Azure storage keys cut by stray spaces (``...Jgc7 FueqmzXb7
    UyvEv...J+==``): from a run of base64 that ends with ``==`` (read
    apart from it too: ``...O9ag VVCVUISOrwStCGUdViNg7 ==``), the runs
    before it, one space apart, are joined back while the key is short of
    ``STORAGE_KEY``, up to ``_STORAGE_PIECES`` of them; found when
    together they make its length, mixing capitals, small letters and
    digits as 64 random bytes do. The one-space join (``one_space``) needs
    the pieces to look like a token's; these need not (``db``, ``DwgF``):
    the key's length and its ``==`` tell them. A word of prose
    (``Copied``) ends the key; one of ``_WORD_PIECE`` letters or fewer
    (``On``, ``Pmdy``) is the key's while it is short of its length."""
    out = []
    low, high = STORAGE_KEY
    for m in _PADDED.finditer(line):
        starts, total = [m.start(1)], len(m[1])
        while (
            total < low
            and len(starts) < _STORAGE_PIECES
            and line[starts[-1] - 1 : starts[-1]] == " "
        ):
            end = at = starts[-1] - 1
            while at and _B64_CHAR.match(line[at - 1]):
                at -= 1
            piece = line[at:end]
            if not piece or (at and line[at - 1] not in _KEY_EDGE):
                break
            if word_like(piece) and len(piece) > _WORD_PIECE:
                break
            starts.append(at)
            total += len(piece)
        key = line[starts[-1] : m.end(1)]
        if (len(starts) > 1 or m[2]) and low <= total <= high and all_classes(key):
            out.append(Finding(starts[-1], m.end(), "azure-storage-key"))
    return out


# A storage key between quotes or brackets, its ``==`` not read (an input's
# value in a page's source in Firefox: ``value="Y3hj...bSuy +IWZ+AjnL6F...A0n
# + jiioXH+6Nj79Z6nNWW>``, its ``=="`` gone), or its ``==`` and what closes
# it not read at the line's end (Firefox: ``[LUEQ6k...GSy + BF9I...hu3
# +JGRe...5nbM``, its ``==]`` gone): a run of base64 in pieces one space
# apart, right after an opening quote or bracket, up to a closing one, a
# tag's ``>`` or the line's end.
_QUOTED = re.compile(
    r"(?<=[\"'‘“\[({])(?P<v>[A-Za-z0-9+/|]+(?: [A-Za-z0-9+/|)\]}]+)*)(?=[\"'’”>\])}]|\s*$)",
    re.ASCII,
)
# What ``_QUOTED`` needs before a key: one of its openers.
_OPENERS = "\"'‘“[({"
# Its longest piece this long at least (no word of prose is).
_QUOTED_PIECE = 16


def quoted_pieces(line: str) -> list[Finding]:
    """Azure storage keys between quotes or brackets whose ``==`` the engine
    did not read, or after an opening one at the line's end (``_QUOTED``):
    the run's pieces, up to ``_STORAGE_PIECES`` of them, together of
    ``STORAGE_KEY``'s length (its ``==`` aside), with capitals, small
    letters and digits, as varied as random bytes, one piece of
    ``_QUOTED_PIECE`` characters or more and none a word of prose longer
    than ``_WORD_PIECE``."""
    out: list[Finding] = []
    if not any(opener in line for opener in _OPENERS):
        return out  # many lines: no opener, no search
    low, high = STORAGE_KEY
    for m in _QUOTED.finditer(line):
        pieces = m["v"].split(" ")
        key = "".join(pieces)
        if not (low <= len(key) <= high and len(pieces) <= _STORAGE_PIECES):
            continue
        if max(map(len, pieces)) < _QUOTED_PIECE or any(
            len(p) > _WORD_PIECE and word_like(p) for p in pieces
        ):
            continue
        if random_key(key):
            out.append(Finding(m.start("v"), m.end("v"), "azure-storage-key"))
    return out
