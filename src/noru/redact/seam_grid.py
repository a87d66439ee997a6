"""A terminal's rows a display's seam cuts, put together whole.

A terminal's rows cut by the seam are one grid on both sides (its pitch,
and its columns in phase): the rows of that grid are put together whole
(``grid_rows``), to be searched as the terminal wrapped them
(``noru.redact.wrap``), so a token cut at the last column and at the seam
is found whole too. The seam usually cuts a cell in two: the engine reads
half a glyph as something else (a ``\\`` for an ``h``), or on neither
side. That cell is taken as a token's character (``CUT_AS``) between two
of a token's, and as the mark no token has beside it when no letter or
digit is on the other side (a masked password's ``*``: a ``\\`` there
would be a value, and so would an ``l``, a stroke of it). A long run of a token's
characters across the seam is also tried with it as each of
``CUT_VARIANTS`` (a digit, hexadecimal and base32's too, and a prefix's
``_`` or ``-``), and as read but for a ``\\`` (a ``|`` is an ``l`` in a
token, a ``:`` ends a label). Between a card number's digits it is also
tried as the digit its check wants: any one digit of a card can be put
back from the others. Inside a format's fixed part (``gh|p_...``, a
Telegram bot token's ``:``) it is also tried as the character that makes
the part whole (``completing``): no one character stands for them all.

The left image's rows of such a grid are not at its last column at the
left display's edge: their grid's width is counted on across the seam
(``beyond``), so they are not taken as wrapped there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from noru.redact.rules import ALL_RULES, CARD, CARD_DIGITS
from noru.redact.seam_pairs import Placed, placed, scale
from noru.redact.search import matched
from noru.redact.shapes import canon
from noru.store import ImageRecord, OcrLine

__all__ = [
    "CUT_AS",
    "CUT_VARIANTS",
    "STROKES",
    "TOKEN_RUN",
    "Grids",
    "Joined",
    "Part",
    "beyond",
    "completing",
    "grid_rows",
    "lead",
    "run_across",
]

# What a cell the seam cuts counts as between two of a token's characters.
CUT_AS = "x"
# A run of a token's characters across the seam at least this long is also
# tried with the cut cell (or the junction) as each of these.
TOKEN_RUN = 8
# ``2``: a digit, a hexadecimal digit and base32's, so a token of any of
# their alphabets; ``x`` (``CUT_AS``) is none of them.
CUT_VARIANTS = ("2", "_", "-", ".")
# What the engine reads a half glyph's one stroke as.
STROKES = "lI|"
_TOKENISH = re.compile(r"[A-Za-z0-9_\-.+/=~]")

# Per image, each OCR line's grid (pitch, first column's x) or None.
Grids = dict[int, list[tuple[int, int] | None]]


@dataclass(frozen=True)
class Part:
    """A part of a joined line: line ``index`` of ``image``, whose first
    ``length`` characters are at ``offset`` in the joined text."""

    image: int
    index: int
    offset: int
    length: int


@dataclass(frozen=True)
class Joined:
    """A line put together across a seam: its text and where its parts lie
    in it; ``variants``: the same line with the cut cell or the junction
    read otherwise (the parts where they are)."""

    text: str
    parts: tuple[Part, ...]
    variants: tuple[str, ...] = ()

    @property
    def joins(self) -> list[int]:
        """Where in the text each part after the first starts."""
        return [max(part.offset, 0) for part in self.parts[1:]]


def beyond(
    images: Sequence[ImageRecord], grids: Grids, left: int, right: int
) -> dict[tuple[int, int], int]:
    """The grid rows of image ``left`` in a window the seam cuts (a window
    of each image touching it, at one top and height), each with its grid's
    width counted on to the window's far edge on the right."""
    image, other = images[left], images[right]
    if not image.windows or not other.windows:
        return {}
    assert image.screen_rect is not None and other.screen_rect is not None
    fx, fy = scale(image)
    fx_other, fy_other = scale(other)
    # Each window of the right image at the seam: its top, height and width (root).
    cut = [
        (other.screen_rect[1] + y * fy_other, h * fy_other, w * fx_other)
        for x, y, w, h in other.windows
        if x == 0
    ]
    out: dict[tuple[int, int], int] = {}
    for x, y, w, h in image.windows:
        top, height = image.screen_rect[1] + y * fy, h * fy
        widths = [
            width
            for other_top, other_height, width in cut
            if abs(other_top - top) <= 1.5 and abs(other_height - height) <= 1.5
        ]
        if x + w != image.width or not widths:
            continue
        for i, line in enumerate(image.ocr_lines or ()):
            cells = grids[left][i]
            lx, ly, _, lh = line.box
            if cells is not None and x <= lx and y <= ly + lh / 2 <= y + h:
                more = math.ceil(widths[0] / (cells[0] * fx))
                out[(left, i)] = (line.columns or len(line.text)) + more
    return out


def lead(text: str) -> int:
    """How many spaces ``text`` starts with."""
    return len(text) - len(text.lstrip(" "))


def _first_column(p: Placed, pitch: float) -> float:
    """The root x of the first column of a grid row (its indentation included)."""
    return p.left - lead(p.line.text) * pitch


def _grid_pitch(images: Sequence[ImageRecord], grids: Grids, p: Placed) -> float | None:
    """A grid row's pitch in root units; None for a line not on a grid."""
    cells = grids[p.image][p.index]
    if cells is None:
        return None
    return cells[0] * scale(images[p.image])[0]


def run_across(text: str, at: int) -> int:
    """How many of a token's characters run on either side of ``at``."""
    start = at
    while start > 0 and _TOKENISH.match(text[start - 1]):
        start -= 1
    end = at
    while end < len(text) and _TOKENISH.match(text[end]):
        end += 1
    return end - start


def _card_digit(text: str, at: int) -> str | None:
    """The digit the cell at ``at`` must be for the card number it lies in
    to pass Luhn; None when it lies in none. Any one digit of a card can be
    put back from the others, so a card cut inside a group is found."""
    probe = text[:at] + "0" + text[at + 1 :]
    for m in CARD.finditer(probe):
        if not m.start("v") <= at < m.end("v"):
            continue
        digits = re.sub(r"[ -]", "", m["v"]).translate(CARD_DIGITS)
        place = len(re.sub(r"[ -]", "", probe[m.start("v") : at]))
        return next(
            (d for d in "0123456789" if _luhn(digits[:place] + d + digits[place + 1 :])), None
        )
    return None


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        total += (value * 2 - 9 if value > 4 else value * 2) if i % 2 else value
    return total % 10 == 0


def _mark_around(before: str, after: str) -> str | None:
    """The mark no token has (a mask's ``*``) beside a cell, the other
    side no letter or digit: the same mark, a space, or a label's ``=``
    or ``:``; the cell is taken as it (a mask cut at its end or start)."""
    if before.isalnum() or after.isalnum():
        return None
    marks = {c for c in (before, after) if not c.isspace() and not _TOKENISH.match(c) and c != ":"}
    return marks.pop() if len(marks) == 1 else None


def _cut_cell(text: str, at: int) -> tuple[str, tuple[str, ...]]:
    """``text`` with the cell at ``at`` the seam cut taken as a token's
    character between two of a token's (as the mark beside it, see
    ``_mark_around``); and its variants: the digit a
    card's check wants, and for a long run those of ``CUT_VARIANTS`` and
    the cell as read (see the module's doc)."""
    if at < 0 or at >= len(text):
        return text, ()
    read = text[at]
    before = text[at - 1] if at > 0 else " "
    after = text[at + 1] if at + 1 < len(text) else " "
    tokenish = bool(_TOKENISH.match(before)) and bool(_TOKENISH.match(after))
    main = text
    if tokenish and not read.isalnum():
        main = text[:at] + CUT_AS + text[at + 1 :]
    elif (not read.isalnum() or read in STROKES) and (mark := _mark_around(before, after)):
        # A mask's mark, not the first character of a value before it.
        return text[:at] + mark + text[at + 1 :], ()
    # A card's digit: the one its check wants (its groups are short runs).
    card = _card_digit(main, at) if before.isdigit() or after.isdigit() else None
    tried = {card} if card is not None else set()
    if run_across(main, at) >= TOKEN_RUN:
        # As read too (a ``|`` is an ``l`` in a token, a ``:`` ends a label),
        # but as the half glyph the engine reads most, a ``\\``: in no token.
        tried |= {*CUT_VARIANTS, *(() if read == "\\" else (read,))}
    extra = completing(main, at)
    if extra and run_across(main[:at] + CUT_AS + main[at + 1 :], at) >= TOKEN_RUN:
        # Beside a label's ``:`` or a space too: a token's fixed part may end
        # or start there (a Telegram bot token's ``:``).
        tried |= set(extra)
    others = sorted(tried - {main[at], " "})
    return main, tuple(text[:at] + c + text[at + 1 :] for c in others)


# Each rule's needle (its fixed part, as ``canon`` folds it) with one of
# its characters left out, looked up by what is before the gap and the
# first character after it: (what is after it, the character left out).
# Two of its characters must be read, one where the needle holds a mark (a
# Telegram bot token's ``:A``, an Entra ID secret's ``Q~``): a letter
# beside any one letter would be tried on most rows.
_GAPPED: dict[tuple[str, str], list[tuple[str, str]]] = {}
for _needle in sorted({n for r in ALL_RULES for n in r.needles if len(n) >= 2}):
    for _k in range(len(_needle)):
        if len(_needle) >= 3 or not _needle.isalnum():
            _after = _needle[_k + 1 :]
            _GAPPED.setdefault((_needle[:_k], _after[:1]), []).append((_after, _needle[_k]))
_LONGEST = max(len(before) for before, _ in _GAPPED) + 1
# The characters ``canon`` folds into one, as the rules' fixed parts may
# hold them.
_UNFOLDED = {"l": "l1iIL", "o": "o0O", "s": "s5S", "z": "z2Z", "a": "a4A", "b": "b8B", "_": "_"}


def completing(text: str, at: int) -> list[str]:
    """The characters that, at ``at`` in ``text``, make a format's fixed
    part whole around it (``h`` in ``g?p_``, ``:`` in ``7312457780?AA``):
    the cell the seam cut was one of them, whatever it was read as."""
    start = max(0, at - _LONGEST)
    folded, at = canon(text[start : at + _LONGEST]), at - start
    found: set[str] = set()
    next_one = folded[at + 1 : at + 2]
    for k in range(min(at, _LONGEST - 1) + 1):
        before = folded[at - k : at]
        for key in ((before, next_one), (before, "")):
            for after, char in _GAPPED.get(key, ()):
                if folded.startswith(after, at + 1):
                    found.add(char)
    found.update(_short_prefix(text, start + at))
    out: list[str] = []
    for char in sorted(found):
        out += _UNFOLDED.get(char, char if not char.isalpha() else char + char.upper())
    return out


# The rules whose fixed part is two letters (Twilio's ``SK``), by index in
# ``search``'s table: one of them read beside the cut cell is no sign of the
# format (a letter beside any one letter would be tried on most rows), so
# the cell is completed only where the format's whole body follows.
_SHORT = [
    (needle, i, rule.high)
    for i, rule in enumerate(ALL_RULES)
    for needle in rule.needles
    if len(needle) == 2 and needle.isalnum()
]


def _short_prefix(text: str, at: int) -> set[str]:
    """The letters that, at ``at`` in ``text``, make a two letters' fixed
    part (``S|K`` then 32 hexadecimal digits) whose format then matches
    there."""
    found: set[str] = set()
    for needle, i, high in _SHORT:
        for k, char in enumerate(needle):
            other = at + 1 - 2 * k  # the needle's other letter
            if not 0 <= other < len(text) or canon(text[other]) != needle[1 - k]:
                continue
            begin = max(0, at - k - 1)
            tried = text[begin:at] + char + text[at + 1 : at + 2 + 3 * high]
            if any(f.start == at - k - begin for f in matched(tried, [i])):
                found.add(char)
    return found


@dataclass(frozen=True)
class _Grid:
    """A terminal's grid across a seam: its cells on each side (pitch and
    first column, image pixels), its pitch and first column on the whole
    screen, and where the right side's first column is in its cells."""

    left: int
    left_cells: tuple[int, int]
    right: int
    right_cells: tuple[int, int]
    pitch: float
    x0: float
    shift: int


def _shared_grids(
    images: Sequence[ImageRecord], grids: Grids, pairs: list[tuple[Placed, Placed]]
) -> list[_Grid]:
    """The grids the pairs' parts share across the seam (same pitch, in phase)."""
    out: list[_Grid] = []
    for a, b in pairs:
        pitch, pitch_b = _grid_pitch(images, grids, a), _grid_pitch(images, grids, b)
        if pitch is None or pitch_b is None or abs(pitch - pitch_b) > 0.5:
            continue
        x0, x0_b = _first_column(a, pitch), _first_column(b, pitch)
        shift = round((x0_b - x0) / pitch)
        if shift < 0 or abs(x0_b - x0 - shift * pitch) > pitch / 4:
            continue  # not in phase: not one grid
        cells_a, cells_b = grids[a.image][a.index], grids[b.image][b.index]
        assert cells_a is not None and cells_b is not None
        grid = _Grid(a.image, cells_a, b.image, cells_b, pitch, x0, shift)
        if all(
            (g.left, g.left_cells, g.right, g.right_cells) != (a.image, cells_a, b.image, cells_b)
            for g in out
        ):
            out.append(grid)
    return out


def _rows_of(
    images: Sequence[ImageRecord],
    grids: Grids,
    grid: _Grid,
    paired: dict[tuple[int, int], Placed],
) -> list[tuple[Placed | None, Placed | None]]:
    """Every row of ``grid`` on either side, top to bottom, the parts of a
    row the seam cuts together."""
    rows: list[tuple[float, Placed | None, Placed | None]] = []
    taken = set()
    for p in placed(grid.left, images[grid.left]):
        if grids[grid.left][p.index] == grid.left_cells:
            b = paired.get((p.image, p.index))
            if b is not None and b.image == grid.right:
                taken.add(b.index)
                rows.append((p.top, p, b))
            else:
                rows.append((p.top, p, None))
    for p in placed(grid.right, images[grid.right]):
        if grids[grid.right][p.index] == grid.right_cells and p.index not in taken:
            rows.append((p.top, None, p))
    rows.sort(key=lambda r: r[0])
    return [(a, b) for _, a, b in rows]


def grid_rows(
    images: Sequence[ImageRecord],
    grids: Grids,
    pairs: list[tuple[Placed, Placed]],
    seam: float,
    columns: dict[tuple[int, int], int],
) -> tuple[list[OcrLine], list[Joined]]:
    """The rows of the terminals the seam cuts, each put together whole
    (a row on one side only as it lies there), as lines for ``find_written``
    (in root coordinates), and where each row's parts lie in it. The left
    image's rows of such a grid get its width in ``columns``."""
    lines: list[OcrLine] = []
    joined: list[Joined] = []
    paired = {(a.image, a.index): b for a, b in pairs}
    for grid in _shared_grids(images, grids, pairs):
        right_lines = images[grid.right].ocr_lines or ()
        width = grid.shift + max(
            (
                line.columns or len(line.text)
                for i, line in enumerate(right_lines)
                if grids[grid.right][i] == grid.right_cells
            ),
            default=0,
        )
        step = round(grid.pitch)
        at = (seam - grid.x0) / grid.pitch
        cut = math.floor(at) if 0.5 / grid.pitch < at % 1 < 1 - 0.5 / grid.pitch else None
        for a, b in _rows_of(images, grids, grid, paired):
            parts, text = [], ""
            if a is not None:
                columns.setdefault((a.image, a.index), width)
                used = min(len(a.line.text), grid.shift)
                text = a.line.text[:used]
                parts.append(Part(a.image, a.index, 0, used))
            if b is not None:
                parts.append(Part(b.image, b.index, grid.shift, len(b.line.text)))
                text = text.ljust(grid.shift) + b.line.text
            variants: tuple[str, ...] = ()
            if cut is not None and a is not None and b is not None:
                text, variants = _cut_cell(text, cut)
            row = a if a is not None else b
            assert row is not None
            indent = lead(text)
            drawn = len(text) - indent
            box = (
                round(grid.x0) + indent * step,
                round(row.top),
                drawn * step,
                round(row.height),
            )
            lines.append(OcrLine(text, box, row.line.confidence, width))
            joined.append(Joined(text, tuple(parts), variants))
    return lines, joined
