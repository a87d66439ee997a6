"""The shapes rules are written in (``noru.redact.rules``' one table is
made of them): the characters the engine confuses, a format's fixed part
written to take them (``fixed``), the folded form a line is searched for
a rule's needles in (``canon``), the kinds of rule: a pattern
(``rule``) and a token of a prefix and a body whose stray spaces
``search`` joins (``token``, ``prefixed``); what a piece of a token looks
like (``piece_like``) and what a word looks like (``word_like``), and what
is found (``Finding``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass

from noru.redact.misreads import with_misreads

__all__ = [
    "A4",
    "ALNUM",
    "B8",
    "B64",
    "BODY",
    "HEX",
    "IL1",
    "J_READ",
    "LONG_FORMAT",
    "LOWER",
    "MARK_READ",
    "O0",
    "OPENED_J",
    "PIECE_SIZE",
    "S5",
    "TOKEN_CHARS",
    "UPPER",
    "Z2",
    "Finding",
    "Rule",
    "all_classes",
    "canon",
    "case_changes",
    "entropy",
    "fixed",
    "label_words",
    "name_like",
    "piece_like",
    "prefixed",
    "random_key",
    "read_forms",
    "rule",
    "token",
    "word_like",
]

# The characters the engine confuses, in the fixed parts of a format.
O0 = "[O0o]"
IL1 = r"[Il1i|!\]]"
S5 = "[S5s]"
A4 = "[A4]"
B8 = "[B8]"
Z2 = "[Z2]"
# A token's body: what a token holds, and what OCR reads it as.
BODY = "[A-Za-z0-9_|-]"
ALNUM = "[A-Za-z0-9|]"
B64 = "[A-Za-z0-9+/=|]"
# Hexadecimal, and what the engine reads for its 0, 1, 5 and 8 (and a case flip).
HEX = "[0-9a-fA-FOolI|SB]"
# Capitals and digits (an AWS key id's, New Relic's), and the small letters
# the engine reads for capitals of one shape; and small letters and digits.
UPPER = "[A-Z0-9l|ckopsuvwxz]"
LOWER = "[a-z0-9CKOPSUVWXZ]"
# Letters whose capital is their small letter drawn larger: the engine
# flips their case now and then.
_FLIPS = frozenset("ckopsuvwxz")
# Those the engine reads as two glyphs now and then, in a proportional font.
_DOUBLED = frozenset("oO0lI1")
# A round letter or digit of a fixed part: as ``O0``, or a ``Q`` (alone,
# or with itself: ``sqQ0atp-`` for ``sq0atp-``, in a proportional font).
_ROUND = "[O0oQ]"
# A proportional font's ``r`` before a digit is read as a ``1`` now and
# then (``18_`` for ``r8_``).
_CONFUSED = {
    "o": _ROUND,
    "O": _ROUND,
    "0": _ROUND,
    "l": IL1,
    "I": IL1,
    "1": IL1,
    "S": S5,
    "5": S5,
    "r": "[r1]",
}
# A digit of a fixed part read as a letter it looks like: a ``1`` as ``L``
# or ``T`` too (``L//O...``, ``"T//O...`` for Google's ``1//0...`` in
# Chromium), a ``2`` as ``Z``, a ``4`` as ``A``, a ``6`` as ``G``, a ``7``
# as ``T``, an ``8`` as ``B`` (the capitals of their shape, as a kubeadm
# token's are read).
_DIGIT_READ = {"1": r"[Il1i|!\]LT]", "2": Z2, "4": A4, "6": "[6G]", "7": "[7T]", "8": B8}
# Those ``canon`` does not fold into the digit (``needles_of``).
_UNFOLDED_READ = {"1": "T", "6": "G", "7": "T"}
# A ``J`` as a proportional font's is read: itself, its small letter
# (``eyjzdW...``), or a bracket or a stroke (``)``, ``]``, ``}``, ``|``,
# ``/``), a stray space after it now and then (``sk.ey) Lljoi...`` for
# ``sk.eyJ1Ijoi...``).
J_READ = r"(?:[Jj]|[)\]}|/] ?)"
# An opening bracket and a token's first ``j`` after it (whose hook runs
# under the bracket) read as one glyph: an ``L``, or the bracket alone
# (``Lytp5n...``, ``[ytp5n...`` for ``[jytp5n...``): where a token has no
# fixed part, its first character may be read so.
OPENED_J = r"[L\[(]"


# A fixed part's ``_`` or ``.`` after its first character (a vendor's
# prefix and its separator: ``ghp_``, ``sl.``, ``dp.pt.``) as the engine
# reads it: itself, apart from its neighbours (``whsec _ Ju...``), or a
# space (an ``_`` drawn under the line, a dot too small to be a glyph:
# ``sl pTY...``, ``atlasv1 Jalyb...``), an ``_`` as a stroke (``|``: its
# line read upright, ``fIGZ1|awAV...`` for MaxMind's ``fIGZ1l_awAV...``).
# The format's length and alphabet after it, not the mark, tell a token
# from a word there.
MARK_READ = {"_": "(?: ?[_|] ?| )", ".": r"(?: ?\. ?| )"}


# A fixed part's small ``c`` as a proportional font's is read: itself or
# its capital (``_FLIPS``), either read as both (``cC``), an ``e`` after it
# (``pcesk_`` for ``pcsk_``: its opening read as a glyph of its own), or
# an ``e`` alone.
_SMALL_C = "(?:[cC]{1,2}e?|e)"


def fixed(text: str) -> str:
    """A format's fixed part as a pattern that takes the engine's misreads
    of it: confused characters (a stroke or a round one read as two:
    ``pplIx-``), case flips of letters of one shape, a letter read as
    itself and its other case (a proportional font's glyph read as two:
    ``FLWSECkK-`` for ``FLWSECK-``), a small ``c`` read as ``ce`` or
    ``e`` (``_SMALL_C``), a ``J`` read as a bracket (``J_READ``), and an
    ``_`` or a ``.`` (not at its start) read as a space or apart from its
    neighbours (``MARK_READ``)."""
    if _LOSES_MARK.fullmatch(text):
        # its last ``_`` not read (``ghpXy...``): not after a base64 blob's
        # mark (its ``/``, ``+`` or ``=`` before a run of letters), and a
        # digit in the run after, as a token's body has and a name of code
        # seldom
        head = fixed(text[:-1])
        return f"(?:{head}{MARK_READ['_']}|(?<![+/]){head}(?={_LOST_BODY}))"
    out = []
    for i, char in enumerate(text):
        if char in _DIGIT_READ:
            out.append(_DIGIT_READ[char] + ("{1,2}" if char in _DOUBLED else ""))
        elif char in _CONFUSED:
            # ``l`` read as ``lI``, ``0`` as ``O0`` (``pplIx-``, ``dtO0cO1.``)
            out.append(_CONFUSED[char] + ("{1,2}" if char in _DOUBLED else ""))
        elif char == "c":
            out.append(_SMALL_C)
        elif char.lower() in _FLIPS:
            out.append(f"[{char.lower()}{char.upper()}]{{1,2}}")
        elif char == "J":
            out.append(J_READ)
        elif char.isascii() and char.isalpha():
            both = f"{char.lower()}{char.upper()}"
            out.append(f"(?:{char}|{both}|{both[::-1]})")
        elif char in "_." and i:
            out.append(MARK_READ[char])
        elif char == "~":
            out.append("[~-]")  # as the line read again has it (``glyphs``: ``sha256-...``)
        else:
            out.append(re.escape(char))
    return "".join(out)


# A fixed part whose last ``_`` the engine may leave unread: three
# characters or more before it (``ghp_``, ``lin_api_``; not ``hf_``: a base64
# blob's run of letters starts with any two now and then).
_LOSES_MARK = re.compile(r"[A-Za-z0-9._-]{3,}_")
_LOST_BODY = "[A-Za-z0-9|_+/-]{0,63}[0-9]"


def read_forms(text: str) -> list[str]:
    """A fixed part as the engine may read it, as far as ``canon`` does not
    fold it back into itself: each ``1`` as ``T`` (each ``6`` as ``G``, each
    ``7`` as ``T``: ``_DIGIT_READ``), and its last ``_`` left out
    (``_LOSES_MARK``); itself first. A rule's needles are all of these."""
    forms = [""]
    for char in text:
        forms = [f + c for f in forms for c in (char + _UNFOLDED_READ.get(char, ""))]
    if _LOSES_MARK.fullmatch(text):
        forms += [form[:-1] for form in forms]
    return forms


# The form a line is searched for a rule's fixed letters in (``canon``):
# small letters, and one character for those the engine confuses.
_CANON = str.maketrans(
    {
        "0": "o",
        "1": "l",
        "i": "l",
        "|": "l",
        "!": "l",
        "]": "l",
        "5": "s",
        "2": "z",
        " ": "_",
        "~": "-",
        "8": "b",
        "4": "a",
    }
)


def canon(text: str) -> str:
    """``text`` in small letters with the characters the engine confuses
    made one (``0`` and ``o``; ``1``, ``i``, ``l`` and ``|``; ``~`` and
    ``-``, as a line read again has them: ``glyphs``; ...) and a space as
    ``_``: a line holds a rule's ``needles`` in this form wherever the
    rule could match it."""
    return text.lower().translate(_CANON)


@dataclass(frozen=True)
class Rule:
    """A kind and its pattern (group ``v``: the value). A ``token``'s
    pattern matches its prefix (group ``p``) and looks ahead at its body
    (``b``) and up to five pieces after single spaces (``rest``), so that a
    piece it does not take is searched again; ``low`` and ``high`` are its
    body's length, spaces aside; with ``outside``, its prefix is where the
    value is (a webhook's URL), not part of it; ``apart``: the characters
    that part its pieces. ``needles``: a line can only match if its ``canon``
    holds one of them (none: any line can), so most lines are passed over by
    a substring search, not a pattern (``gate``: ``formats.gated``)."""

    kind: str
    pattern: re.Pattern[str]
    low: int = 0
    high: int = 0
    needles: tuple[str, ...] = ()
    outside: bool = False
    apart: str = " "
    gate: re.Pattern[str] | None = None


def rule(kind: str, pattern: str, flags: int = 0, *, needles: tuple[str, ...] = ()) -> Rule:
    return Rule(kind, re.compile(pattern, re.ASCII | flags), needles=tuple(map(canon, needles)))


def token(
    kind: str,
    prefix: str,
    body: str,
    low: int,
    high: int | None = None,
    *,
    needles: tuple[str, ...],
    outside: bool = False,
    glued: bool = False,
) -> Rule:
    """A token: ``prefix`` (a pattern; ``fixed`` of a literal), then ``low``
    to ``high`` characters of ``body``. Inside a body of letters, a ``)``,
    ``]``, ``}`` or ``|`` is the engine's reading of a ``J`` (or an ``l``,
    an ``I``: in a proportional font), a ``(`` between two of its
    characters its reading of a round letter's left side (``...Jd(OANOZ...``
    for ``...JdOANOZ...``), not the token's end, and so is one of the
    first four that ends the token before a space or the line's end
    (``...Vvlyaxr)``). The pieces after the body are parted by
    a space (the engine's, inside a long token), or in a body of letters
    with no ``_`` by an ``_`` too: the engine reads the gap between two of
    a proportional font's glyphs so now and then (``...Nitv7_LwUg...``),
    and in one with no ``-`` by a dash of another width (``DASHES``);
    in a body of letters of ``DOTTED_BODY`` or more, with no ``.``, by a
    ``.`` too: a speck read inside it (Airtable's ``...636f5ed4.af466...``,
    a Twitter bearer token's ``...PBY 1e4.q8f8...``). With ``glued``, one letter or digit may
    stand right before the prefix: the engine reads an input field's edge
    as one now and then (``Wwhsec_...``); a prefix that long is no part of
    a word."""
    letters = "A-Z" in body or "a-z" in body
    glyph = "[)\\]}|]"
    inside = f"(?<={body})\\((?={body})"  # not after a space: a parenthesis of prose opens so
    unit = f"(?:{body}|{glyph}(?={body})|{inside}|(?<={body}){glyph}(?=\\s|$))" if letters else body
    unit = with_misreads(unit, body)
    if "+/" in body:
        unit = f"(?:{unit}|-(?=\\+))"  # base64's ``+`` read as ``-+`` (in a proportional font)
    apart = " _" if letters and "_" not in body else " "
    if letters and re.fullmatch(body, "-") is None:
        apart += DASHES  # a gap between two glyphs read as a dash (``...zfl—EmOI...``)
    if letters and "." not in body and low >= DOTTED_BODY:
        apart += "."  # a speck between two glyphs read as a dot (``..5ed4.af46..``)
    before = "(?<![A-Za-z0-9]{2})" if glued else "(?<![A-Za-z0-9])"
    pieces = LONG_PIECES if low >= LONG_FORMAT else max(PIECES, low // PIECE_SIZE)
    pattern = (
        rf"{before}(?P<p>{prefix})"
        rf"(?=(?P<b>{unit}*)(?!{body})(?P<rest>(?:[{apart}]{unit}+(?!{body})){{0,{pieces}}}))"
    )
    return Rule(
        kind,
        re.compile(pattern, re.ASCII),
        low,
        low if high is None else high,
        tuple(map(canon, needles)),
        outside,
        apart,
    )


def prefixed(
    kind: str, prefix: str | tuple[str, ...], body: str, low: int, high: int | None = None
) -> Rule:
    """``token`` of literal prefixes (one, or any of a tuple)."""
    prefixes = (prefix,) if isinstance(prefix, str) else prefix
    pattern = "(?:" + "|".join(map(fixed, prefixes)) + ")"
    if low >= LONG_FORMAT:
        # Its fixed letters in either case: the engine reads a small letter
        # at a row's start as its capital now and then (``SL.`` for
        # Dropbox's ``sl.``), and a body so long makes any prefix its own.
        pattern = f"(?i:{pattern})"
    shortest = min(map(len, prefixes))
    glued = shortest >= GLUED_PREFIX
    if body == HEX and shortest >= WIDE_PREFIX:
        body = ALNUM
    needles = tuple(form for p in prefixes for form in read_forms(p))
    return token(kind, pattern, body, low, high, needles=needles, glued=glued)


# A token's body of one length at least this long takes a ``.`` the engine
# read inside it (``token``, ``search``): its pieces about the dot are
# joined when both look like a token's and together they are its length.
DOTTED_BODY = 32
# A format this long at least (``token``, ``search``): the engine cuts a
# token so long into many pieces (a Dropbox token read in a terminal's row,
# ``sl.WOoa0axVoE6Wr - 1-22155Vj 09pzYUESbe3 f gNyMg...``: ten), and a run
# of pieces so long is no prose, so its pieces are joined whatever they look
# like while it is short of its format's length.
LONG_FORMAT = 100
# Dashes of other widths than ``-``: in a body of letters with no ``-``,
# the engine's reading of the gap between two of a proportional font's
# glyphs (a Twitter bearer token's ``...Tv1zfl—EmOIZO0...`` in Firefox for
# ``...Tv1zflEmOlzO0...``), which parts its pieces as a space does.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
# The pieces after a token's body that are joined at most: of a format of
# ``LONG_FORMAT`` or more, and of any other, or one in ``PIECE_SIZE`` of its
# least length if that is more: the engine cuts a long token read in a
# proportional font into pieces of any length (a Twitter bearer token's 90
# in Chromium: ``...VBZ5 Ugg TkOkK3Y 1PM38...ZEW5 pR3 Fs 7 9PFBh...``,
# eight pieces), more pieces the longer the token.
LONG_PIECES, PIECES, PIECE_SIZE = 16, 5, 8
# A literal prefix at least this long may have a glyph glued before it (``token``).
GLUED_PREFIX = 5
# After a literal prefix at least this long, a hexadecimal body is taken
# as letters and digits (``prefixed``): the engine reads a digit of it as
# a letter no hexadecimal holds now and then (``NeS`` for ``0e5``), and
# its length is what counts after a prefix no word has.
WIDE_PREFIX = 6


@dataclass(frozen=True, order=True)
class Finding:
    """A secret value in a line: characters ``start`` to ``end`` (the value
    only), of ``kind`` (``aws-key``, ``password``, ``card``, ...)."""

    start: int
    end: int
    kind: str


def piece_like(text: str) -> bool:
    """Whether a piece of text after a space looks like a token's (letters
    and digits mixed, or many changes of case), not a word after it, nor a
    name with a number (``token_41``, ``x86_64``)."""
    if len(text) < 4 or not _PIECE_CHARS.fullmatch(text):
        return False
    return len(_MIXED.findall(text)) >= 2 or case_changes(text) >= 4


_MIXED = re.compile(r"[A-Za-z](?=[0-9])|[0-9](?=[A-Za-z])", re.ASCII)

_PIECE_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|)\]}-]+", re.ASCII)

TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|-]+", re.ASCII)


# Letter pairs that words (of English, and of most languages written in
# Latin letters) hardly ever hold: those fewer than 10 of the 13,493 words
# of small letters in Python 3.11's standard library hold. A random run of
# letters holds one now and then; a word seldom does.
_PAIRS = """
    AJ AO AQ AZ BG BH BK BQ BV BW BX BZ CB CJ CW CX CZ DJ DQ DW DX DZ FB FH FJ FK FQ FV FW
    FX FZ GB GJ GK GQ GW GX GY HB HG HH HJ HP HQ HV HW HX HZ IH IJ IU IW IY JB JC JD JF JG
    JH JI JJ JK JL JM JN JP JQ JR JS JT JV JW JX JY JZ KB KH KJ KK KM KQ KV KX KZ LJ LQ LW
    LX LZ MG MH MJ MQ MR MV MW MX MZ NX NZ OJ OQ PJ PQ PX PZ QA QB QC QD QE QF QG QH QI QJ
    QK QL QM QN QO QP QR QT QV QW QX QY QZ RJ RQ RX RZ SJ SX SZ TJ TK TQ UH UJ UK UQ UV UW
    UX UY UZ VD VF VH VJ VK VL VN VQ VT VU VW VX VY VZ WB WF WG WJ WK WM WP WQ WU WV WW WY
    WZ XG XJ XK XN XQ XU XV XW XZ YA YG YH YJ YK YQ YU YX YY ZB ZC ZD ZF ZG ZH ZJ ZK ZL ZM
    ZN ZP ZQ ZR ZS ZT ZU ZV ZW ZX ZY ZZ
"""
_NOT_IN_WORDS = frozenset(_PAIRS.split())

_CONSONANTS = re.compile(r"[B-DF-HJ-NP-TV-XZ]+")


def word_like(text: str) -> bool:
    """Whether ``text`` reads as a word of a natural language (``PACIFIC``,
    ``Southeast``), not a run of a token's random characters: letters only,
    in one case or capitalised, with vowels (``Y`` one) as words have them
    (a fifth to three quarters of its letters, no more than four consonants
    in a row) and no letter pair words hardly ever hold. Of random runs of
    an AWS key id's alphabet cut in two by a stray space, both pieces read
    as words in under 0.02 %."""
    if len(text) < 2 or not text.isascii() or not text.isalpha():
        return False
    if not (text.isupper() or text.islower() or text[1:].islower()):
        return False
    upper = text.upper()
    vowels = sum(c in "AEIOUY" for c in upper)
    if not len(upper) <= 5 * vowels <= 3.75 * len(upper):
        return False
    if max((len(run) for run in _CONSONANTS.findall(upper)), default=0) > 4:
        return False
    return all(a + b not in _NOT_IN_WORDS for a, b in itertools.pairwise(upper))


# A name of code made of words (``name_like``): its longest word this long
# at least, its others 3; one digit among them at most.
NAME_WORD = 6


def name_like(text: str) -> bool:
    """Whether ``text`` reads as a name of code made of words
    (``Subpackage2module``, ``getComputedStyle``), not a run of a token's
    random characters: cut at a digit and before a capital, each piece a
    word (``word_like``) of 3 letters or more, the longest of
    ``NAME_WORD`` or more, one digit at most; after an algorithm's name
    and number, if it starts with one (``X25519PrivateKey``,
    ``sha256Digest``). Of random runs of 16 of [a-z0-9],
    about 2 in 10,000 read so."""
    head = _ALGORITHM.match(text)
    if head is not None:
        text = text[head.end() :]
    if sum(c.isdigit() for c in text) > 1:
        return False
    pieces = [p for p in _NAME_CUT.split(text) if p]
    return (
        bool(pieces)
        and all(len(p) >= 3 and word_like(p) for p in pieces)
        and max(map(len, pieces)) >= NAME_WORD
    )


_NAME_CUT = re.compile(r"[0-9]|(?=[A-Z])", re.ASCII)

# An algorithm's name and number at the start of a name of code, a word
# after it (``X25519PrivateKey``, ``Ed25519PublicKey``, ``sha256Digest``):
# one to three letters and digits, then a capital. A random run of
# [a-z0-9] has no capital there but a case flip, and a word after that
# seldom.
_ALGORITHM = re.compile(r"[A-Za-z]{1,3}[0-9]+(?=[A-Z])", re.ASCII)


# How varied a storage key's characters are at least, in bits per character:
# 86 random characters of base64 hold 5.4 on average and hardly ever under
# 5; a run of words, or of a few characters repeated, holds far less.
KEY_ENTROPY = 4.9


def random_key(text: str) -> bool:
    """Whether ``text`` reads as a run of random base64 (an Azure storage
    key's): capitals, small letters and digits mixed (``all_classes``), as
    varied as random bytes (``KEY_ENTROPY``)."""
    return all_classes(text) and entropy(text) >= KEY_ENTROPY


def all_classes(text: str) -> bool:
    """Whether ``text`` holds a digit, a capital and a small letter, as a
    random run of a key's characters nearly always does and a word or a
    name seldom."""
    return (
        any(c.isdigit() for c in text)
        and any(c.isupper() for c in text)
        and any(c.islower() for c in text)
    )


def case_changes(text: str) -> int:
    letters = [c.isupper() for c in text if c.isalpha()]
    return sum(a != b for a, b in itertools.pairwise(letters))


def entropy(text: str) -> float:
    """Shannon entropy of ``text``'s characters, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def label_words(label: str) -> list[str]:
    """A label's words, lower case: ``tokenData.packages_and_scopes`` ->
    ``token data packages and scopes``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", label)
    return [part.lower() for part in re.split(r"[\s_.\-]+", spaced) if part] or [""]
