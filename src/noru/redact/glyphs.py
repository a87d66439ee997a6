"""Glyphs the engine reads as no token's character inside a token: a
proportional font's ``J`` read as ``)``, ``]``, ``}`` or ``/``, a glyph's
edge as ``{`` or ``[`` (inside a long token only), an ``l`` or
an ``I`` as ``!``, a ``j`` as ``;`` and an ``S`` as ``$`` (between two of a
token's characters only), a digit as a mark it looks like (an ``8`` as
``&``, between two of a token's characters only; a ``6`` as ``é``, a ``4``
as ``€``: read as the digit, which every token's alphabet holds), a ``c``
as ``¢``; a
monospace font's dotted ``0`` as ``@`` where it is drawn small (a window
a HiDPI display's compositor scales down); a token's ``-`` as a dash of
another width, a ``~`` (between two of its characters only), or a ``~``
and itself (``fyz~-CMZ``, ``fyz-~CMZ``: the two read as the one ``-``); a
``J`` read as two glyphs, its hook a bracket and its stem another or a
stroke (``...Ijoit)/ LHW...``, ``)|``, ``})``: the two read as the one
``J``, before a stray space too).

A ``/`` beside another is no ``J`` (a URL's ``//``, Google's ``1//0``
prefix), nor one with another after it before a space (a path's, a
webhook's URL before its key), nor one after a piece of digits after
another (an id in a URL's path, before a webhook's key); one between two hexadecimal digits is
read as the ``7`` it likely was (``...35b/cc`` for ``...35b7cc``: a
hexadecimal token has no ``J``). Each such glyph between two of a
token's characters ends the token for every rule (its alphabet holds
none of them), so the rest is too short for its format and is served.
``unconfused`` gives the line with each such glyph there read as a
character of a token's alphabet (one for one, but a ``~`` beside a ``-``
left out), and where each of its characters is in the line as read, for
the rules of formats to be searched in again: what a format finds only
there is the engine's misread of it, its span in the line as read all the
characters it was read from.
Only the formats' own shapes (a fixed part, a length, an alphabet) are
searched so, not labels: a mark between two letters in prose (``(s)he``,
``a/b``) is made a letter, and no format's fixed part and length come
of that.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from noru.redact.shapes import piece_like

__all__ = ["unconfused"]

# A mark read for a token's character, and the character it stands for
# (any of a token's alphabet does: the rules take a body's length and
# alphabet, and a misread one is no better known).
_MARKS = {
    "!": "l",
    ";": "j",
    "$": "S",
    "@": "0",
    # a digit of a proportional font read as a mark it looks like: an
    # ``8`` as ``&`` (``GOCSPX-...NN&rP`` in Firefox), a ``6`` as ``é``
    # (``...hcéxvca...`` in Chromium), a ``4`` as ``€``; read as that
    # digit, which every token's alphabet holds (a capitals-and-digits
    # token's has no ``e``, a kubeadm token's no ``E``)
    "&": "8",
    "é": "6",
    "€": "4",
    "¡": "i",
    ")": "J",
    "]": "J",
    "}": "J",
    # a left bracket read for a glyph's edge inside a long token
    # (``...tfj{U57...`` for ``...tfjU57...`` in Chromium): a character of
    # every token's alphabet, an ``l``
    "{": "l",
    "[": "l",
    "/": "J",
    "\\": "l",
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
    # a token's ``-`` (Docker Hub's, Postman's, a JWT's) as a dash of
    # another width, or a ``~`` (also read beside it: ``_TILDE``)
    "—": "-",
    "–": "-",
    "‐": "-",
    "‑": "-",
    "‒": "-",
    "―": "-",
    "−": "-",
    "~": "-",
}
# A ``~`` the engine read beside a token's ``-`` (``fyz~-CMZ``, ``fyz-~CMZ``
# for ``fyz-CMZ``): the two are that ``-``, the ``~`` left out.
_TILDE = "~"
# Marks of a format's own that ``_MARKS`` reads as another character: a
# ``~`` (an Entra ID secret's ``Q~``), a ``/`` (a webhook's URL's path,
# which a stray space may cut: ``.../services/TI7 6£SLMZ/...``, its first
# ``/`` with no other after it before the space, read as a ``J``).
_OWN_MARKS = (_TILDE, "/")
# A ``J`` read as two glyphs: its hook as a bracket, its stem as another
# or as a stroke (``...Ijoit)/ LHW...``, ``)|``, ``})``; not ``//``): the
# two are that ``J``, the second left out.
_J_PAIR = re.compile(r"[)\]}][)\]}/|]")

# A glyph that may be a misread (a mark of ``_MARKS``, or a letter no token
# holds: ``é``, ``ü``); only a line holding one is searched again.
_MAYBE = re.compile(r"[!¡)\]}{\[/\\@&€£¢¥§©®°ßµ«»;$~]|[^\x00-\x7f]")
# ``_MAYBE``'s ASCII glyphs alone (a ``_J_PAIR`` holds one too): an ASCII
# line without one has nothing to read again (most lines), told by one
# search of one class.
_MAYBE_ASCII = re.compile(r"[!)\]}{\[/\\@&;$~]")
# A token's character beside a glyph: a letter, a digit, or a ``|`` (what
# the engine reads for an ``l``, an ``I`` or a ``J``: ``...tQ|/YoW...``).
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9|]")
# A token's marks: beside one, the glyph is read as a token's too when a
# letter or a digit is on its other side (``...PSh}_mmk``).
_TOKEN_MARK = frozenset("_-+/=.")
# The fewest characters between spaces a glyph is read in as a token's
# (a token cut by a stray space may leave a piece this short).
RUN_LEAST = 8
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


def unconfused(line: str) -> list[tuple[str, list[int]]]:
    """``line`` with each glyph no token holds that lies between two of a
    token's characters (letters, digits, or such glyphs; a token's mark on
    one side), or that ends a long run of them before a space, read as
    the token's character it likely was (a ``~`` beside a ``-`` between
    two of them left out), and where each of its characters is in
    ``line``; where a ``~`` was read as a ``-`` or a ``/`` as a ``J``, the
    line read so again with each ``~`` and ``/`` kept (a format's own: an
    Entra ID secret's ``Q~``; a webhook's URL's, its path cut by a stray
    space: ``.../services/TI7 6£SLMZ/...``). The readings; none when there
    is no such glyph."""
    if line.isascii() and _MAYBE_ASCII.search(line) is None:
        return []
    stands = {
        m.start(): char for m in _MAYBE.finditer(line) if (char := _as_token_char(m[0])) is not None
    }
    for m in _J_PAIR.finditer(line):
        stands[m.start()], stands[m.start() + 1] = "J", ""
    reading = _reread(line, stands) if stands else None
    if reading is None:
        return []
    if all(reading[0].count(mark) == line.count(mark) for mark in _OWN_MARKS):
        return [reading]
    kept = _reread(line, {at: char for at, char in stands.items() if line[at] not in _OWN_MARKS})
    return [reading] if kept is None else [reading, kept]


def _reread(line: str, stands: dict[int, str]) -> tuple[str, list[int]] | None:
    """``line`` with the glyphs at ``stands`` (where each is, and the
    token's character it may be) read so where they lie as a token's
    (``unconfused``), and where each character is in ``line``; None when
    none does."""
    size = len(line)

    def tokenish(at: int) -> bool:
        return 0 <= at < size and (_TOKEN_CHAR.match(line[at]) is not None or at in stands)

    def marked(at: int) -> bool:
        return 0 <= at < size and line[at] in _TOKEN_MARK

    chars: list[str] | None = None
    spaces = [i for i, c in enumerate(line) if c == " "]
    for at, char in stands.items():
        if not char:
            continue  # a J's second glyph: read with its first
        if stands.get(at + 1) == "":
            # a J read as two glyphs: the two between a token's characters
            # (or a mark of a token's on one side), or after them before a
            # space (a stray one after it)
            before, after = tokenish(at - 1), tokenish(at + 2)
            ends = line[at + 2 : at + 3] in ("", " ") or marked(at + 2)
            if ((before and (after or ends)) or (marked(at - 1) and after)) and _in_a_long_run(
                spaces, size, at
            ):
                chars = chars if chars is not None else list(line)
                chars[at], chars[at + 1] = "J", ""
            continue
        if line[at] == "/":
            if "/" in (line[at - 1 : at], line[at + 1 : at + 2]):
                continue  # ``//``: a URL's, or Google's ``1//0``; a J is one glyph
            if _parts_a_path(line, at):
                continue  # a path's, a URL's (a webhook's URL before its key)
            if _HEX_DIGIT.match(line[at - 1 : at]) and _HEX_DIGIT.match(line[at + 1 : at + 2]):
                char = "7"  # between two hexadecimal digits: a 7 (``...35b/cc``)
        before, after = tokenish(at - 1), tokenish(at + 1)
        if line[at] == _TILDE and "-" in (line[at - 1 : at], line[at + 1 : at + 2]):
            # ``~-`` or ``-~``: the ``-`` itself, between two of a token's characters
            dash = at + 1 if line[at + 1 : at + 2] == "-" else at - 1
            before, after = tokenish(min(at, dash) - 1), tokenish(max(at, dash) + 1)
            char = ""
        if line[at] in ";$~{[&" and not (before and after):
            # code's and a connection string's ``;`` ends a part, a shell's
            # ``$`` opens a name, its ``~`` is a home (a backup file's ends
            # one), a ``{`` or a ``[`` opens a block or a list, a ``&``
            # parts a query or joins commands: a j, an S, a ``-``, a glyph's
            # edge or an 8 has a token's characters about it
            continue
        piece = _fragment(line, spaces, at)
        if not (
            piece
            or (before and after)
            or (before and marked(at + 1))
            or (marked(at - 1) and after)
            or (before and line[at + 1 : at + 2] == " " and _long_run_before(line, at))
            or (line[at - 1 : at] in ("", " ") and after and _token_run_after(line, at))
        ):
            continue
        if piece or _in_a_long_run(spaces, size, at):
            chars = chars if chars is not None else list(line)
            chars[at] = char
    if chars is None:
        return None
    return "".join(chars), [i for i, c in enumerate(chars) if c]


_HEX_DIGIT = re.compile(r"[0-9a-fA-F]")


def _parts_a_path(line: str, at: int) -> bool:
    """Whether a ``/`` lies after ``at`` in the run of characters (between
    spaces) ``at`` is in, or a piece of digits after another just before
    it (an id in a URL's path, ``.../webhooks/1234567890/``): the ``/`` at
    ``at`` parts a path's pieces (a webhook's URL before its key)."""
    end = line.find(" ", at)
    return "/" in line[at + 1 : end if end != -1 else len(line)] or (
        _ID_IN_A_PATH.search(line, max(0, at - 40), at) is not None
    )


# A piece of digits after a ``/``, ending where it is searched to.
_ID_IN_A_PATH = re.compile(r"/[0-9]+$")


def _in_a_long_run(spaces: list[int], size: int, at: int) -> bool:
    """Whether ``at`` lies in a run of ``RUN_LEAST`` characters or more
    between spaces (``spaces``: where the line's are; ``size``: its length):
    a mark in a short word of prose (``(s)he``, ``a/b``) is passed over
    without searching the line again."""
    k = bisect.bisect_left(spaces, at)
    start = spaces[k - 1] + 1 if k else 0
    end = spaces[k] if k < len(spaces) else size
    return end - start >= RUN_LEAST


# A piece of a token this short at most, read apart between two stray
# spaces (``...PnjDR 1r¥ fgwiu...`` for ``...PnjDR1rYfgwiu...`` in Firefox):
# a glyph in it is read as the token's (``_fragment``).
_FRAGMENT = 3


def _fragment(line: str, spaces: list[int], at: int) -> bool:
    """Whether ``at`` lies in a piece of up to ``_FRAGMENT`` of a token's
    characters (letters, digits, its marks, glyphs ``_MARKS`` reads)
    between two single spaces, a piece of a token's characters on each
    side (letters, digits, its marks), the two together a token's run of twice
    ``_RUN_AFTER`` letters and digits or more (``shapes.piece_like``): a long
    token cut twice by stray spaces, the glyph in the piece between the
    cuts; words of prose about a short word make no such run."""
    k = bisect.bisect_left(spaces, at)
    if not 0 < k < len(spaces):
        return False
    start, end = spaces[k - 1] + 1, spaces[k]
    if not 0 < end - start <= _FRAGMENT:
        return False
    if not all(_TOKEN_CHAR.match(c) or c in _MARKS or c in _TOKEN_MARK for c in line[start:end]):
        return False
    left = line[spaces[k - 2] + 1 if k > 1 else 0 : start - 1]
    right = line[end + 1 : spaces[k + 1] if k + 1 < len(spaces) else len(line)]
    before, after = _PIECE_BEFORE.search(left), _PIECE_AFTER.match(right)
    if before is None or after is None:
        return False
    joined = re.sub(r"[^A-Za-z0-9]", "", before[0] + after[0])
    return len(joined) >= _RUN_AFTER * 2 and piece_like(joined)


# A glyph after a space (or at the line's start) opens a token's piece when
# at least this many letters and digits follow it, mixed as a token's are
# (``... @9pzYUESbe3 f ...``: a long token's piece after a stray space,
# its ``0`` read as ``@``); a handle or a word after one does not.
_RUN_AFTER = 8
_MIXED_RUN = re.compile(r"[A-Za-z]+[0-9]|[0-9]+[A-Za-z]", re.ASCII)
# A piece of a token about a fragment (``_fragment``): letters, digits and
# a token's marks.
_PIECE_BEFORE = re.compile(r"[A-Za-z0-9_.+/=~|-]*\Z", re.ASCII)
_PIECE_AFTER = re.compile(r"[A-Za-z0-9_.+/=~|-]*", re.ASCII)


def _token_run_after(line: str, at: int) -> bool:
    """Whether ``_RUN_AFTER`` letters and digits (or more) follow ``at``
    up to a space or the line's end, letters and digits alternating at
    least twice, as a token's random run does."""
    end = line.find(" ", at + 1)
    run = line[at + 1 : end if end != -1 else len(line)]
    return (
        len(run) >= _RUN_AFTER
        and run.isascii()
        and run.isalnum()
        and len(_MIXED_RUN.findall(run)) >= 2
    )


def _long_run_before(line: str, at: int) -> bool:
    """Whether ``_LONG_RUN`` letters and digits (or more) end at ``at``."""
    start = max(0, at - _LONG_RUN)
    return at - start == _LONG_RUN and line[start:at].isascii() and line[start:at].isalnum()
