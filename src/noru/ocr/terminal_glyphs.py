"""A terminal grid's cells told by the glyphs of its font (``noru.ocr.glyphs``),
for ``noru.ocr.terminal``, which reads the rows.

``decide`` finds the font from what the engine read in a few parts of the
grid (``claims``), then gives each inked cell its nearest glyph. A cell's
ink is scaled to the deepest ink of its colour on the grid: the glyphs of
one colour have one full depth, and a thin glyph that never reaches it
(``|``, ``.``, ``'``) keeps its faintness. A cell left unsure is decided
again with what the sure glyphs around it leave in it taken off (a ``|``
taller than its row, an ``m`` wider than a tight cell).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from noru.ocr import font, glyphs
from noru.ocr.glyphs import Decision, Font, Fonts, Shapes
from noru.ocr.ligatures import with_ligatures
from noru.ocr.terminal_grid import Cells
from noru.ocr.terminal_ink import darkest
from noru.ocr.terminal_votes import Votes, bar
from noru.ocr.wide import near_hangul, sure, wide_shapes

if TYPE_CHECKING:
    from PIL import Image

    from noru.ocr.glyphs import Array

__all__ = ["BLANK", "Band", "claimed", "decide", "runs_of"]

# A glyph the engine read with this confidence or more is one it was sure
# of; the font is looked for again by those alone when at least this share
# of the claims it was first looked for by were not.
SURE_GLYPH = 0.99
UNSURE_SHARE = 0.2
# Wide letters are looked for where a grid shows at least this many pairs
# of inked cells side by side that no glyph of its font settles, one of
# them at least not near (``LATIN_NEAR``) an ASCII glyph: drawing them
# takes a second or more a font, and a screen of Latin text rarely shows
# two such pairs. Its letters the glyphs leave unsure (a bold ``e`` by a
# regular one, a reverse-video header) are near their own.
WIDE_LEAST = 2
LATIN_NEAR = 0.2
# A font so found is kept where the wide letters' drawings fit at least this
# share of the pairs of cells it leaves.
WIDE_FIT = 0.1
# Steps a colour's direction is told in, per channel: words of colours this
# far apart have each their own full ink.
COLOUR_STEPS = 8
# A stroke crosses from a cell into the next where both edge pixel columns
# hold this much ink in one pixel row; a glyph's drawing reaches its cell's
# edge where it holds this much there.
STROKE = 0.5
EDGE_INK = 0.25
# The glyphs half of a wide letter drawn as strokes across is nearest.
STROKES = frozenset("-‐–—_=~")
# A cell whose ink is all the glyphs beside it left there, but for this much
# coverage, holds no glyph: a space (``BLANK``), not a phantom character.
BLANK_INK = 0.25
# Box drawing no wide letter's half is: a line from a cell's top to its
# bottom (a tree's ``│`` beside a blank cell drew like ``ㅏ``). A joint may
# be: the right half of ``배`` is drawn like ``┘``.
DOWN_LINES = frozenset({"│"})
BLANK = Decision(" ", 0.0, 1.0, -1)
# The cells around a cell, as (rows below, columns right).
_AROUND = [(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0)]


class Band(Protocol):
    """What ``decide`` needs of one inked row of the grid."""

    row: int
    dark: Image.Image  # its ink, dark on white
    keys: dict[int, bytes]  # its inked cells' images by column
    rgb: Image.Image  # its pixels as they are
    paper: tuple[int, int, int]  # the colour its ink is measured from


# A cell's ink scaled to its colour's full depth: its image, and the depth
# (0-255) it is scaled by.
_Scaled = tuple[bytes, int]


def runs_of(columns: Sequence[int]) -> list[list[int]]:
    """Sorted columns as runs of neighbours: a row's words."""
    runs: list[list[int]] = []
    for column in columns:
        if runs and column == runs[-1][-1] + 1:
            runs[-1].append(column)
        else:
            runs.append([column])
    return runs


def claimed(votes: Votes, key: bytes, *, sure: bool = False) -> str:
    """What the engine read a cell image as, in words it read one cell a
    glyph (and, with ``sure``, was sure of): what its copies agree on, else
    what it was read as most often ("" when never so read)."""
    read = (votes.sure if sure else votes.trusted).get(key)
    if not read:
        return ""
    agreed = votes.agreed(key)
    return agreed if agreed is not None and agreed in read else read.most_common(1)[0][0]


def claims(bands: Sequence[Band], votes: Votes) -> int:
    """How many of the grid's cell images the engine read as a character a
    font is found by (``font.SAMPLED``)."""
    keys = {key for band in bands for key in band.keys.values()}
    return sum(claimed(votes, key) in font.SAMPLED for key in keys)


def decide(
    bands: Sequence[Band], cells: Cells, votes: Votes, fonts: Fonts
) -> tuple[dict[tuple[int, int], Decision], dict[tuple[int, int], Decision], Shapes | None]:
    """Each inked cell's nearest glyph in the grid's font, by (band index,
    column), the wide letters among the cells it leaves (``_wide``) and the
    font's drawings, when an installed font fits what the engine read; else
    none."""
    import numpy as np

    scaled = _scaled(bands, cells)
    unique = sorted(set(scaled.values()))
    arrays = [
        np.clip(glyphs.coverage(key, cells.width, cells.height) * (255.0 / depth), 0.0, 1.0)
        for key, depth in unique
    ]
    read_as = [claimed(votes, key) for key, _ in unique]
    fitting = font.identify(
        arrays, read_as, width=cells.width, height=cells.height, known=fonts.recent()
    )
    by_sure = False
    if fitting is None:
        # A screen mostly of wide letters: the engine's readings of their
        # halves as Latin letters outnumber the Latin cells; it is less sure
        # of them, so the font is looked for again by the glyphs it was sure of.
        sure = [claimed(votes, key, sure=True) for key, _ in unique]
        dropped = sum(a in font.SAMPLED and not b for a, b in zip(read_as, sure, strict=True))
        if dropped >= UNSURE_SHARE * sum(a in font.SAMPLED for a in read_as):
            fitting = font.identify(
                arrays, sure, width=cells.width, height=cells.height, known=fonts.recent()
            )
            by_sure = True
    if fitting is None:
        return {}, {}, None
    shapes = fonts.shapes(fitting)
    decisions = dict(zip(unique, shapes.decide(arrays), strict=True))
    found = {
        where: decision
        for where, item in scaled.items()
        if (decision := decisions[item]) is not None
    }
    array_of = dict(zip(unique, arrays, strict=True))
    band_of = {band.row: i for i, band in enumerate(bands)}
    for (i, column), item in scaled.items():
        decision = found.get((i, column))
        if decision is not None and decision.sure:
            continue
        cell = array_of[item].copy()
        bled = False
        for rows, columns in _AROUND:
            j = band_of.get(bands[i].row + rows)
            beside = found.get((j, column + columns)) if j is not None else None
            if beside is not None and beside.sure and beside is not BLANK:
                ink = shapes.bleed(beside.glyph, rows, columns)
                if ink is not None:
                    cell -= ink
                    bled = True
        if bled and float(np.clip(cell, 0.0, 1.0).max()) < BLANK_INK:
            found[i, column] = BLANK  # only what the glyphs beside it left there
            continue
        if decision is None:
            continue
        (again,) = shapes.decide([np.clip(cell, 0.0, 1.0)])
        if again is not None and again.sure:
            found[i, column] = again
    found = _without_crossings(found, scaled, array_of, shapes, cells)
    blank = np.zeros((cells.height, cells.width), np.float32)

    def ink_of(i: int, column: int) -> Array:
        item = scaled.get((i, column))
        return array_of[item] if item is not None else blank

    found = with_ligatures([sorted(band.keys) for band in bands], found, ink_of, shapes)
    letters, pairs = _wide(bands, found, fitting, cells, ink_of)
    if by_sure and fitting.x < 0 and len(letters) < WIDE_FIT * pairs:
        # Found by fewer cells, its pen left of its cells: the wide letters
        # may have led the grid's phase astray (a face so drawn fits a grid
        # a few pixels off all the same). Kept only where the wide letters'
        # drawings then fit the pairs of cells it leaves.
        return {}, {}, None
    fonts.keep(fitting, shapes)
    return found, letters, shapes


def with_claims(
    bands: Sequence[Band],
    drawn: dict[tuple[int, int], Decision],
    votes: Votes,
    shapes: Shapes,
    cells: Cells,
) -> dict[tuple[int, int], Decision]:
    """``drawn``, each cell its glyphs left unsure and whose copies the
    engine read alike as another character than its nearest with its
    distance to that character's drawing (``Decision.claim``): once every
    part has been read, what the copies agree on is known."""
    out = dict(drawn)
    for (i, column), decision in drawn.items():
        if decision.sure:
            continue
        key = bands[i].keys.get(column)
        claim = votes.agreed(key) if key is not None else None
        if key is None or claim is None or claim == decision.char:
            continue
        cell = glyphs.coverage(key, cells.width, cells.height)
        out[i, column] = replace(decision, claim=shapes.distance(cell, claim))
    return out


def _wide(
    bands: Sequence[Band],
    drawn: dict[tuple[int, int], Decision],
    font: Font,
    cells: Cells,
    cell: Callable[[int, int], Array],
) -> tuple[dict[tuple[int, int], Decision], int]:
    """The wide letters (``noru.ocr.wide``) among the cells the font left
    unsure, by (band index, first of their two columns): pairs of cells one
    of which at least no glyph of the font decides, each the wide letter
    nearest it beyond doubt; where two such pairs overlap, the nearer. With
    them, how many pairs were looked at. ``cell``: a cell's ink (0-1) by
    (band index, column), blank where it has no ink."""
    import numpy as np

    def settled(i: int, column: int) -> bool:
        decision = drawn.get((i, column))
        return decision is not None and decision.sure and decision is not BLANK

    def boxed(i: int, column: int) -> bool:  # a line down the cell
        key = bands[i].keys.get(column)
        return key is not None and bar(key, cells) in DOWN_LINES

    starts = sorted(
        {
            (i, start)
            for i, band in enumerate(bands)
            for column in band.keys
            if not settled(i, column)
            for start in (column - 1, column)
            if not (settled(i, start) and settled(i, start + 1))
            and (start in band.keys or start + 1 in band.keys)
            and not (boxed(i, start) or boxed(i, start + 1))
        }
    )

    def latin(i: int, column: int) -> bool:  # near an ASCII glyph, if unsure
        decision = drawn.get((i, column))
        return (
            decision is not None
            and decision.char.isascii()
            and decision.char.strip() != ""
            and decision.distance <= LATIN_NEAR
        )

    if _both_unsure(bands, settled, latin) < WIDE_LEAST:
        return {}, len(starts)  # no wide letters to draw ~13,000 letters for
    pairs = [np.hstack([cell(i, start), cell(i, start + 1)]) for i, start in starts]
    decisions = wide_shapes(font).decide(pairs)
    found: dict[tuple[int, int], Decision] = {}
    taken: set[tuple[int, int]] = set()
    # The sure first, nearest first; then Hangul nearest a pair but not
    # beyond doubt (no engine here reads Hangul: its nearest drawing is the
    # best reading there is, served as unsure as it is, ``near_hangul``).
    ranked = sorted(
        (not sure(d), d.distance, where, d)
        for where, d in zip(starts, decisions, strict=True)
        if d is not None and (sure(d) or near_hangul(d))
    )
    for _, _, (i, start), decision in ranked:
        if (i, start) in taken or (i, start + 1) in taken:
            continue
        taken.update({(i, start), (i, start + 1)})
        found[i, start] = decision
    return found, len(starts)


def _without_crossings(
    found: dict[tuple[int, int], Decision],
    scaled: dict[tuple[int, int], _Scaled],
    array_of: dict[_Scaled, Array],
    shapes: glyphs.Shapes,
    cells: Cells,
) -> dict[tuple[int, int], Decision]:
    """``found`` without the dashes (``STROKES``) beside cells no glyph
    explains that a stroke crosses out of their cell where the glyph's
    drawing has no ink at that edge: half of a wide letter (``ー``, ``一``)
    is nearest a ``-``, but its stroke runs on into the next cell, as no
    ``-`` of the font does."""
    import numpy as np

    def crossing(left: Array, right: Array) -> bool:
        # Two pixel columns deep on each side: not a neighbour's edge
        # anti-aliased into a cell (faces whose glyphs fill their cells).
        deep = (left[:, -2:] >= STROKE).all(axis=1) & (right[:, :2] >= STROKE).all(axis=1)
        return bool(deep.any())

    def edge_ink(decision: Decision, side: int) -> bool:
        drawing = shapes.glyphs[decision.glyph].reshape(cells.height, cells.width)
        return bool(np.asarray(drawing)[:, side].max() >= EDGE_INK)

    def among_unexplained(i: int, column: int) -> bool:
        # A wide letter's half sits among letters the font does not draw; a
        # ligature's (``==``, ``->``) among the font's own glyphs.
        return any(
            (i, column + d) in scaled
            and not ((near := found.get((i, column + d))) is not None and near.sure)
            for d in (-2, -1, 1, 2)
        )

    kept = dict(found)
    for (i, column), decision in found.items():
        if not decision.sure or decision.char not in STROKES:
            continue
        if not among_unexplained(i, column):
            continue
        here = array_of[scaled[i, column]].reshape(cells.height, cells.width)
        for step, side in ((1, -1), (-1, 0)):
            beside = scaled.get((i, column + step))
            if beside is None:
                continue
            there = array_of[beside].reshape(cells.height, cells.width)
            pair = (here, there) if step == 1 else (there, here)
            if crossing(*pair) and not edge_ink(decision, side):
                del kept[i, column]
                break
    return kept


def _both_unsure(
    bands: Sequence[Band],
    settled: Callable[[int, int], bool],
    latin: Callable[[int, int], bool],
) -> int:
    """How many pairs of inked cells side by side, neither of them settled
    and not both near ASCII glyphs (``latin``), a row holds (each cell in
    one pair at most): the mark of wide letters, which a screen of Latin
    text rarely shows (a ligature, an icon)."""
    count = 0
    for i, band in enumerate(bands):
        used: set[int] = set()
        for column in sorted(band.keys):
            if column in used or column + 1 not in band.keys:
                continue
            if settled(i, column) or settled(i, column + 1):
                continue
            if latin(i, column) and latin(i, column + 1):
                continue
            count += 1
            used.update((column, column + 1))
    return count


def _scaled(bands: Sequence[Band], cells: Cells) -> dict[tuple[int, int], _Scaled]:
    """Each inked cell's image and the full depth of its colour's ink."""
    words: list[tuple[int, list[int], tuple[int, ...], int]] = []
    for i, band in enumerate(bands):
        for word in runs_of(sorted(band.keys)):
            words.append((i, word, *_colour(band, word, cells)))
    # Words of one colour share its full ink: the deepest any of them shows.
    full: dict[tuple[int, ...], int] = {}
    for _, _, colour, depth in words:
        full[colour] = max(full.get(colour, 0), depth)
    scaled: dict[tuple[int, int], _Scaled] = {}
    for i, word, colour, _ in words:
        for column in word:
            scaled[i, column] = (bands[i].keys[column], max(1, full[colour]))
    return scaled


def _colour(band: Band, word: Sequence[int], cells: Cells) -> tuple[tuple[int, ...], int]:
    """A word's colour, as the direction from the paper to its deepest pixel
    (coarsely: a colour's anti-aliased edges point the same way), and that
    pixel's depth of ink (0-255)."""
    left, right = word[0] * cells.width, (word[-1] + 1) * cells.width
    dark = band.dark.crop((left, 0, right, band.dark.height))
    low = darkest(dark)
    at = dark.tobytes().index(bytes([low]))
    pixel = band.rgb.getpixel((left + at % dark.width, at // dark.width))
    assert isinstance(pixel, tuple)
    towards = [p - q for p, q in zip(pixel, band.paper, strict=True)]
    length = max(1.0, sum(v * v for v in towards) ** 0.5)
    return tuple(round(COLOUR_STEPS * v / length) for v in towards), 255 - low
