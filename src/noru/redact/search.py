"""The rules of formats (``rules.RULES``, ``rules.OPTIONAL_RULES``)
compiled for searching lines: each rule's needles, whole and cut by a
stray space, looked up all at once (and ``rules.PLACED``'s with them), so
that a line is searched only by the rules whose needles it holds
(``searched``, ``placed_searched``), a rule with a gate only where its
gate is; what those rules find in it (``matched``), a token's pieces after
a stray space joined when together they are the format's length.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Collection, Iterable

from noru.redact.rules import ALL_RULES, CATEGORY_OF, PLACED, Rule
from noru.redact.shapes import LONG_FORMAT, Finding, canon, name_like, piece_like, word_like
from noru.redact.widths import least

__all__ = [
    "LEAST",
    "NEEDLES_CUT",
    "category",
    "credential_like",
    "formats",
    "matched",
    "placed_searched",
    "searched",
]


def category(kind: str) -> str:
    """The setting a kind is turned on by: "cards", "emails", "phones", or
    "secrets" (every other kind)."""
    return CATEGORY_OF.get(kind, "secrets")


def formats(line: str, folded: str, categories: Collection[str]) -> list[Finding]:
    """What the rules of formats (``RULES``, ``OPTIONAL_RULES``) find in
    ``line``; ``folded``: its ``canon``."""
    return matched(line, searched(folded, categories))


def searched(folded: str, categories: Collection[str]) -> list[int]:
    """Which of ``_RULES`` a line whose ``canon`` is ``folded`` is searched
    by: those on under ``categories`` whose needles it holds, and those
    with none."""
    on = frozenset(categories)
    hit = [i for i in _held(folded, on) if i < len(_RULES)]
    always = _plan(on)[0]
    return sorted({*hit, *always}) if hit else always


def placed_searched(folded: str, categories: Collection[str]) -> list[int]:
    """Which of ``rules.PLACED`` (by index) a line whose ``canon`` is
    ``folded`` is searched by: those whose needles it holds, and those with
    none; found in the same look as ``searched``'s (``_held``)."""
    on = frozenset(categories)
    hit = [i - len(_RULES) for i in _held(folded, on) if i >= len(_RULES)]
    always = _PLACED_ALWAYS
    return sorted({*hit, *always}) if hit else always


@functools.lru_cache(maxsize=16)
def _held(folded: str, on: frozenset[str]) -> tuple[int, ...]:
    """The rules whose needles ``folded`` holds, one look for them all: of
    ``_RULES`` by index, of ``PLACED`` after them. Kept for the few lines
    last looked at: ``searched`` and ``placed_searched`` ask for one line
    in turn."""
    _, needles, rules_of = _plan(on)
    hit: set[int] = set()
    for needle in set(needles.findall(folded)):
        hit.update(rules_of[needle])
    return tuple(hit)


def matched(line: str, searched: Iterable[int]) -> list[Finding]:
    """What the rules ``searched`` (indices of ``_RULES``) find in ``line``."""
    found = []
    size = len(line)
    for i in searched:
        if size < LEAST[i]:
            continue  # too short for the pattern: no search (most of one_space's joins)
        rule = _RULES[i]
        if rule.gate is not None and rule.gate.search(line) is None:
            continue
        for m in rule.pattern.finditer(line):
            end = _joined(line, m, rule) if rule.high else m.end("v")
            if "more" in rule.pattern.groupindex:
                end = _without_words(line, m.start("more"), end)
            if end is None:
                continue
            if rule.kind == "phone" and not 9 <= sum(c.isdigit() for c in m["v"]) <= 15:
                continue
            if rule.kind == "bearer-token" and not credential_like(m["v"]):
                continue
            if rule.kind == "kubeadm-token" and not _kubeadm_like(m["v"]):
                continue
            start = m.start("v") if not rule.high else m.end("p") if rule.outside else m.start("p")
            found.append(Finding(start, end, rule.kind))
    return found


_RULES = ALL_RULES
# Of ``PLACED``, those searched in every line (no needles).
_PLACED_ALWAYS = [k for k, rule in enumerate(PLACED) if not rule.needles]


def _cuts(needle: str) -> tuple[str, ...]:
    """``needle`` (4 characters or more) with a space inside it, as
    ``canon`` folds one (``_``): the engine put a stray space inside a
    format's fixed part (``...atl asv1...``, ``AAAAAAA AAAAAAAA...``)."""
    return tuple(
        needle[:k] + "_" + needle[k:] for k in range(1, len(needle) if len(needle) >= 4 else 1)
    )


def _doubled(needle: str) -> tuple[str, ...]:
    """``needle`` with one of its letters read as two (``shapes.fixed``
    takes them: a stroke or a round glyph, ``pplIx-``, ``dtO0cO1.``; a
    letter as itself and its other case, ``FLWSECkK-``), as ``canon``
    folds them."""
    return tuple(needle[: k + 1] + needle[k:] for k, c in enumerate(needle) if c.isalpha())


# What ``shapes.fixed`` takes for a fixed part's ``j``, ``r``, round ``o``
# and ``c`` (as ``canon`` folds them): a ``J`` read as a bracket or a
# stroke, an ``r`` as a ``1``, a round glyph as a ``Q`` or a ``Q`` and
# itself, a ``c`` as an ``e`` or a ``c`` and an ``e``.
_MISREAD = {"j": tuple(")]}|/"), "r": ("1",), "o": ("q", "qo"), "c": ("e", "ce")}


def _misread(needle: str) -> tuple[str, ...]:
    """``needle`` with one of its ``j``, ``r``, ``o`` or ``c`` read as
    ``shapes.fixed`` takes it (``sk.ey)`` for ``sk.eyj``, ``18_`` for
    ``r8_``, ``sqq0atp-`` for ``sq0atp-``, ``pcesk_`` for ``pcsk_``), as
    ``canon`` folds it."""
    return tuple(
        canon(needle[:k] + other + needle[k + 1 :])
        for k, c in enumerate(needle)
        for other in _MISREAD.get(c, ())
    )


def _dots_read_as_spaces(needle: str) -> tuple[str, ...]:
    """``needle`` with its dots after its first character read as spaces
    (``shapes.MARK_READ``: ``sl pTY...`` for ``sl.pTY...``, ``dp pt
    ...``), each or all, as ``canon`` folds a space (``_``)."""
    dots = [k for k, c in enumerate(needle) if c == "." and k]
    return tuple(
        "".join("_" if k in chosen else c for k, c in enumerate(needle))
        for n in range(1, len(dots) + 1)
        for chosen in itertools.combinations(dots, n)
    )


def _underscores_read_as_strokes(needle: str) -> tuple[str, ...]:
    """``needle`` with one of its ``_`` read as ``|`` (``shapes.MARK_READ``:
    ``lin|api_...``, ``...|mmk``), as ``canon`` folds it (``l``)."""
    return tuple(needle[:k] + "l" + needle[k + 1 :] for k, c in enumerate(needle) if c == "_")


# Each rule's needles (by its index in ``_RULES``), whole, cut by a space,
# with a glyph read as two, with a ``j`` or ``r`` misread, with a dot read
# as a space and with an ``_`` read as a stroke.
NEEDLES_CUT = [
    (
        *r.needles,
        *(
            c
            for n in r.needles
            for c in (
                *_cuts(n),
                *_doubled(n),
                *_misread(n),
                *_dots_read_as_spaces(n),
                *_underscores_read_as_strokes(n),
            )
        ),
    )
    for r in _RULES
]


@functools.cache
def _plan(categories: frozenset[str]) -> tuple[list[int], re.Pattern[str], dict[str, list[int]]]:
    """Which of ``_RULES`` are on under ``categories``: those searched in
    every line; all their needles (and ``PLACED``'s) as one pattern that finds, at each place
    of a line, the longest needle there (``_trie``: one scan of the line
    in the pattern's own code, whatever the count of needles); and per
    needle the rules a line holding it is searched by, its own and those
    of the needles it begins with (held there too)."""
    always = []
    own: dict[str, set[int]] = {}
    for i, rule in enumerate(_RULES):
        if category(rule.kind) not in categories:
            continue
        if not rule.needles:
            always.append(i)
        for needle in NEEDLES_CUT[i]:
            own.setdefault(needle, set()).add(i)
    for k, rule in enumerate(PLACED):
        for needle in rule.needles:  # as they are: a place is no format misread
            own.setdefault(needle, set()).add(len(_RULES) + k)
    rules_of = {
        needle: sorted(set().union(*(own.get(needle[:k], ()) for k in range(1, len(needle) + 1))))
        for needle in own
    }
    return always, re.compile(f"(?=({_trie(own)}))"), rules_of


# Words as a tree of their characters ("" marks a word's end).
_Tree = dict[str, "_Tree"]


def _trie(words: Iterable[str]) -> str:
    """A pattern that matches the longest of ``words`` at a place: their
    characters as a tree, each branch one character's (the pattern's
    alternatives tried there are those of one character, not every word)."""
    tree: _Tree = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: _Tree) -> str:
        branches = [re.escape(char) + pattern(node[char]) for char in sorted(node) if char]
        if not branches:
            return ""
        either = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{either})?" if "" in node else either

    return pattern(tree)


# A token's fixed part at least this long is no word's (``_joined``).
STRONG_PREFIX = 5
# A token's first piece this long, after its prefix, is no word's (``_joined``).
LONG_BODY = 16
# A token's first piece this short, after a prefix of ``STRONG_PREFIX``
# characters or more, tells no word (``_joined``): random characters make
# a two-letter word one time in a few dozen.
SHORT_BODY = 2
# A format of one length read in a proportional font: one character more in
# this many, at most, beside two (``_joined``).
ADDED_IN = 10


def _joined(line: str, m: re.Match[str], rule: Rule) -> int | None:
    """Where a token of ``rule`` ends, its pieces joined: the engine put a
    space inside it (``gho_29t3DL70EurYGs rbwc...``). A piece after the
    first is joined when the token is then still within its length and the
    piece looks like a token's (of a format of one length, any piece that
    makes it up), but not a word of a natural language after a prefix
    alone or a word (``ASIA PACIFIC SOUTHEAST`` is three words, not an AWS
    key id; hexadecimal letters glued to a prefix, ``shpca_eafd aec 5
    ...``, are no word); None when no run of pieces is the format's length. A
    format of one length of 20 or more takes two characters fewer, and two
    more or one in ``ADDED_IN`` of its length if that is more (of 16 or
    more, one fewer and two more); a format of a range of lengths, its
    least 20 or more, takes two fewer than its least: in a proportional
    font the engine drops a character now and then (a run of ``_`` drawn
    as one line read one short), and adds more (a capital read as its
    small letter and itself, ``dD``; a ``9`` as ``OIA``). After
    a prefix of ``STRONG_PREFIX`` characters or more (``tskey-``, a Twitter
    bearer token's ``AAAA...``), any piece is joined while the token is
    still short of its format's length: such a prefix is no word's, and
    the engine cuts a long token read in a proportional font into pieces of
    any look (``...ZfT fa lVMIKFHIE6 LHaUYuW8 ...``). So too for a format
    of ``LONG_FORMAT`` characters or more, whatever its prefix (Dropbox's
    ``sl.``, read in a terminal's row as ``...9pzYUESbe3 f gNyMg...``): no
    run of words is joined so long, the first a word ending it. So too after a first
    piece of ``LONG_BODY`` characters or more that looks like a token's: a
    long base64 body (a Bedrock key's ``ABSK...``) is no word, and what the
    engine cuts from it (``...vLAqY pKKFaDOES pOvBrOs+cY/...``) is joined
    whatever it looks like, and past the format's least length too up to
    its most, but for a word of prose (``... 7 38WLd...``, ``... DVkFEOD0=``
    are the token's; ``... for this session`` is not). While a token is
    short of its least length, a fragment of up to 3 characters before a
    piece that looks like a token's is joined (``glc_yma0IqA2/rI IYg
    o5vrNuTH...``), and so is one between two pieces of ``LONG_BODY``
    characters or more past it, word or not, the second with digits
    (``...cajlpZ2 bel HhNOLVzx...``): a word of prose seldom stands between
    two runs so long, nor a name of code after it (``in myConfigName``).
    A base64 body's ``+`` is read apart now and then (``...t2oZjt +
    +1XW6J3...AG + OvSLZ...``): a piece that begins with one, or follows
    one that ends with one, is the token's (no word is). A
    piece after an ``_`` of a body that has none (``Rule.apart``: the gap
    between two glyphs read so) is joined only after ``LONG_BODY`` of the
    body's characters or more: after fewer, the ``_`` is a name's
    (``npm_config_...``). A piece after a ``.`` of a body that has none (a
    speck read so) is joined when it looks like a token's and, in a format
    of one length, so does the piece before it; in a format of a range of
    lengths, while the token is still short of its least (``...PBY
    1e4.q8f8qjQ...``): a dotted name (``.json``) is neither."""
    at, size = m.start("p"), -len(m["p"])
    end = None
    first = m["p"] + m["b"]
    # the pieces and what parts each from the one before (a space, an ``_``)
    parts = re.split(f"([{rule.apart}])", m["rest"])
    pieces, parted = [first, *parts[2::2]], ["", *parts[1::2]]
    one_length = rule.high - rule.low <= 4
    low, high = _read_lengths(rule)
    # after a prefix alone or a word; a body of hexadecimal letters alone
    # glued to its prefix is a hexadecimal token's start (``shpca_eafd``),
    # and so is one of two characters after a prefix no word has
    # (``lin_api_bo Wander...``: too short to tell a word)
    words = not m["b"] or (
        word_like(m["b"])
        and _HEX_LETTERS.fullmatch(m["b"]) is None
        and not (len(m["b"]) <= SHORT_BODY and len(m["p"]) >= STRONG_PREFIX)
    )
    strong = (
        len(m["p"]) >= STRONG_PREFIX
        or rule.low >= LONG_FORMAT
        or (len(m["b"]) >= LONG_BODY and piece_like(m["b"]) and not one_length)
    )
    for k, piece in enumerate(pieces):
        plus = k and (piece.startswith("+") or pieces[k - 1].endswith("+"))
        long_run = strong and (size < low or not word_like(piece))
        # a fragment of a few characters between pieces of a token still
        # short, or between two long ones
        after = pieces[k + 1] if k + 1 < len(pieces) else ""
        bridge = (
            len(piece) <= 3
            and piece_like(after)
            and (size < low or (_long_run(after) and len(pieces[k - 1]) >= LONG_BODY))
        )
        if k and not (one_length or piece_like(piece) or long_run or plus or bridge):
            break
        if k and not bridge and (words or size >= low) and word_like(piece):
            break  # words after a prefix or a word; a word after a whole token
        if parted[k] == "_" and size < LONG_BODY:
            break  # a name's words (``npm_config_...``), not a gap in a long token
        if parted[k] == "." and not (
            piece_like(piece) and (piece_like(pieces[k - 1]) if one_length else size < low)
        ):
            break  # a dotted name after a token (``.json``), not a speck read inside it
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


def _read_lengths(rule: Rule) -> tuple[int, int]:
    """The least and most a token's body of ``rule`` is taken at as read
    (``_joined``): its ``low`` and ``high``, widened by what the engine
    drops and adds."""
    low, high = rule.low, rule.high
    one_length = high - low <= 4
    if one_length and low >= 20:
        # characters the engine dropped or added (a glyph read as two:
        # ``dD``, ``mM``, ``OIA`` for ``9``; a mark read in a gap)
        return low - 2, high + max(2, low // ADDED_IN)
    if one_length and low >= 16:
        return low - 1, high + 2
    if low >= 20:
        # a format of a range of lengths read short of its least (a run of
        # ``_`` drawn as one line read one short: ``figd__Rc...`` for
        # ``figd___Rc...``; a character dropped)
        return low - 2, high
    return low, high


_HEX_LETTERS = re.compile(r"[a-fA-F]+", re.ASCII)


def _least(rule: Rule) -> int:
    """The fewest characters a text holding a finding of ``rule`` has: what
    its pattern matches at least (``widths.least``), and for a
    token (``rule.high``), its body at the least ``_joined`` takes after it
    (the pattern matches its prefix alone)."""
    width = least(rule.pattern.pattern)
    return width + _read_lengths(rule)[0] if rule.high else width


# Per rule of ``_RULES``: a text shorter is not searched by it (a Discord
# token's 59; most of ``spaces.one_space``'s joins).
LEAST = tuple(_least(rule) for rule in _RULES)


def _without_words(line: str, start: int, end: int | None) -> int | None:
    """Where a value ends whose pieces after a space from ``start`` on
    (a pattern's group ``more``: a token's pieces the engine read apart)
    are taken up to ``end``, but for those at its end that read as words
    of prose, hyphenated or not (``... expired yesterday``, ``...
    Content-Type``): a token's random pieces seldom do, and a word after
    a token is the line's."""
    if end is None or end <= start:
        return end
    pieces = line[start:end].split(" ")
    while len(pieces) > 1 and all(word_like(part) for part in pieces[-1].split("-")):
        pieces.pop()
    return start + len(" ".join(pieces))


def _long_run(piece: str) -> bool:
    """Whether ``piece`` is a long run of a token's (``LONG_BODY``
    characters or more, two digits or more among letters), as a name of
    code seldom is."""
    return len(piece) >= LONG_BODY and piece_like(piece) and sum(c.isdigit() for c in piece) >= 2


def _kubeadm_like(value: str) -> bool:
    """A kubeadm token as read (``formats``): its second part no name of
    code made of words (``module.Subpackage2module``); with no digit in
    it as read, a glyph read for its ``1`` in it and a digit in its first
    part (``x8d4n2.cqmvlpbnrxhwkeyt``; ``window.getComputedStyle`` is
    code)."""
    first, _, second = value.rpartition(".")
    if name_like(second):
        return False
    return any(c.isdigit() for c in second) or (
        any(c.isdigit() for c in first) and any(c in "lI|!" for c in second)
    )


def credential_like(value: str) -> bool:
    """A credential after ``Bearer`` or ``Basic``: a digit, both cases, or a
    token's punctuation in it; a word of prose has none of them, nor words
    joined by hyphens, slashes or dots, as prose, paths and file names
    join them (``Multilingual``, ``sub-variants.``: a sentence's full stop
    after them is no token's; ``username/password``, ``package.json``:
    ``_words_joined``)."""
    value = value.rstrip(".")
    if _words_joined(value):
        return False
    return (
        any(c.isdigit() for c in value)
        or (any(c.islower() for c in value) and any(c.isupper() for c in value))
        or any(c in "._~+/=" for c in value)
    )


# What joins words in prose and paths: a hyphen, a slash, a dot.
_JOINS = re.compile(r"[-/.]", re.ASCII)
# A file name's extension (``json``, ``py``): a few small letters after its
# dot, which need not read as a word.
_EXTENSION = re.compile(r"\.[a-z]{1,4}$", re.ASCII)


def _words_joined(value: str) -> bool:
    """Whether ``value`` is words joined by hyphens, slashes or dots
    (``readability/style``, ``username/password``, ``/usr/share/doc``),
    a file's extension after them (``package.json``): each part a word of
    prose (``word_like``), none a token's random run."""
    ending = _EXTENSION.search(value)
    if ending is not None and ending.start():
        value = value[: ending.start()]
    parts = [part for part in _JOINS.split(value) if part]
    return bool(parts) and all(word_like(part) for part in parts)
