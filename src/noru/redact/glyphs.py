"""Glyphs the engine reads as no token's character inside a token: a
proportional font's ``J`` read as ``)``, ``]``, ``}`` or ``/``, an ``l`` or
an ``I`` as ``!``, a ``4`` as ``€``, a ``6`` as ``é``, a ``c`` as ``¢``.

Each such glyph between two of a token's characters ends the token for
every rule (its alphabet holds none of them), so the rest is too short
for its format and is served. ``unconfused`` gives the line with each
such glyph there read as a character of a token's alphabet (one for one,
so a finding's span is the same in the line as read), for the rules of
formats to be searched in again: what a format finds only there is the
engine's misread of it. Only the formats' own shapes (a fixed part, a
length, an alphabet) are searched so, not labels: a mark between two
letters in prose (``(s)he``, ``a/b``) is made a letter, and no format's
fixed part and length come of that.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["unconfused"]

# A mark read for a token's character, and the character it stands for
# (any of a token's alphabet does: the rules take a body's length and
# alphabet, and a misread one is no better known).
_MARKS = {
    "!": "l",
    "¡": "i",
    ")": "J",
    "]": "J",
    "}": "J",
    "/": "J",
    "\\": "l",
    "€": "E",
    "£": "E",
    "¢": "c",
    "¥": "Y",
    "§": "S",
    "©": "c",
    "®": "R",
    "°": "o",
    "ß": "B",
    "µ": "u",
    "«": "K",
    "»": "x",
    "—": "-",
    "–": "-",
}

# A glyph that may be a misread (a mark of ``_MARKS``, or a letter no token
# holds: ``é``, ``ü``); only a line holding one is searched again.
_MAYBE = re.compile(r"[!¡)\]}/\\€£¢¥§©®°ßµ«»—–]|[^\x00-\x7f]")
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9]")
# A token's marks: beside one, the glyph is read as a token's too when a
# letter or a digit is on its other side (``...PSh}_mmk``).
_TOKEN_MARK = frozenset("_-+/=.")
# A run of a token's characters at least this long before a glyph that a
# space follows: the glyph ends a long token, read as the token's
# (``...AAAAAE] Ofgb9...``).
_LONG_RUN = 16


def _as_token_char(char: str) -> str | None:
    if char in _MARKS:
        return _MARKS[char]
    if char.isascii():
        return None
    base = unicodedata.normalize("NFKD", char)[:1]
    return base if base.isascii() and base.isalnum() else None


def unconfused(line: str) -> str | None:
    """``line`` with each glyph no token holds that lies between two of a
    token's characters (letters, digits, or such glyphs; a token's mark on
    one side), or that ends a long run of them before a space, read as
    the token's character it likely was; None when there is none."""
    if _MAYBE.search(line) is None:
        return None
    chars = list(line)
    stands = [_as_token_char(c) for c in chars]

    def tokenish(at: int) -> bool:
        return 0 <= at < len(chars) and (
            _TOKEN_CHAR.match(chars[at]) is not None or stands[at] is not None
        )

    def marked(at: int) -> bool:
        return 0 <= at < len(chars) and chars[at] in _TOKEN_MARK

    changed = False
    for at, char in enumerate(stands):
        if char is None:
            continue
        before, after = tokenish(at - 1), tokenish(at + 1)
        if (
            (before and after)
            or (before and marked(at + 1))
            or (marked(at - 1) and after)
            or (before and line[at + 1 : at + 2] == " " and _long_run_before(line, at))
        ):
            chars[at] = char
            changed = True
    return "".join(chars) if changed else None


def _long_run_before(line: str, at: int) -> bool:
    """Whether ``_LONG_RUN`` letters and digits (or more) end at ``at``."""
    start = max(0, at - _LONG_RUN)
    return at - start == _LONG_RUN and line[start:at].isascii() and line[start:at].isalnum()
