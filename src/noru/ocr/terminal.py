"""Terminal text read as lines: a monospace cell grid found in the pixels,
each of its rows read on its own.

An engine's page layout cuts a terminal whose rows share aligned gaps (a log
with fixed-width fields, ``ls -l``, a table, code with aligned comments)
into columns, and gives them one after another: the rows are gone, and with
them what the screen says. A terminal draws text on a grid of cells, so here
the grid comes first:

1. The grid: the region as ink, light on dark and coloured text alike
   (``noru.ocr.terminal_ink``), and its row pitch, column advance and
   origin (``noru.ocr.terminal_grid``).
2. ``read``: each row cut into parts of whole words (``_parts``), and the
   parts the engine must read chosen by their cells (``_to_read``): a part
   is read while one of its cell images has been seen in fewer than
   ``NEEDED`` parts before it. Each glyph read goes to its cell, so a gap of
   five cells stays five spaces.
3. What each cell is (``noru.ocr.terminal_votes``): the readings of one cell
   image agree across its copies, so a cell not read is what its copies
   were read as.

Reading depends on the region's pixels alone: which parts are read, and what
each part reads as, which is kept by its pixels (``Rows``, bounded:
``noru.ocr.terminal_rows``, which also places each glyph at its cell). A
terminal that scrolled reads again only its new row's parts, a changed line
only itself, and what is read is what reading again would give. Pure Pillow;
the engine is behind ``RowReader``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.geometry import Rect, clip
from noru.ocr import box_joints, terminal_glyphs
from noru.ocr.base import OcrLine
from noru.ocr.glyphs import Decision, Fonts, Shapes
from noru.ocr.terminal_chrome import off_paper, own_backgrounds, true_rows, without_chrome
from noru.ocr.terminal_glyphs import runs_of
from noru.ocr.terminal_grid import Cells, find_cells
from noru.ocr.terminal_ink import background, in_rgb, ink, ink_left_of, ink_of, row_ink
from noru.ocr.terminal_lines import DASHES, lines_of
from noru.ocr.terminal_rows import Glyph, RowReader, Rows, place
from noru.ocr.terminal_span import span
from noru.ocr.terminal_spill import without_spilt_arms, without_spilt_glyphs, without_spilt_lines
from noru.ocr.terminal_votes import Votes, bar, inked_columns

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["Read", "background", "find_cells", "in_rgb", "ink", "read"]

# A part of a row is read by the engine while one of its cell images was
# shown in fewer than this many parts read before it; the rest are known by
# their copies.
NEEDED = 3
# Parts read at a time until the engine has read this many cell images as
# characters a font is found by (``noru.ocr.glyphs``), or this share of the
# grid's cell images (at least this many).
SAMPLE_PARTS = 4
SAMPLE_CLAIMS = 40
SAMPLE_SHARE = 0.3
SAMPLE_LEAST = 8
# When no font fits what was read, the font is looked for once more after
# this many times as many claims: the first parts read may be few kinds of
# character misread alike (a compiler's ``^~~~`` lines read ``Aw``).
SAMPLE_AGAIN = 2
# A glyph whose box holds two inked cells of its word or more is no
# character of one cell (a CJK letter, drawn over two, read as a Latin one);
# where a word has this many, the font is not looked for by the claims of
# its cells (one is an ``@`` spilling over its cell's edge). A dash does not
# count: a run of box drawing's ``───`` is read as a dash or two.
WIDE_GLYPHS = 2
DRAWN_DASHES = DASHES | frozenset("_─━")
# A row is read in parts of at least this many cells, where it has them.
CONTEXT = 24


@dataclass(frozen=True)
class Read:
    """A region read as a terminal: its lines, and the bands (in the original's
    pixels) that are not its grid (a title bar), for the engine to read."""

    lines: list[OcrLine]
    rest: list[Rect]


def _cell_images(band: Image.Image, cells: Cells, columns: Sequence[int]) -> dict[int, bytes]:
    """The pixels of each of ``columns``' cells in a row band, column by
    column (each pixel column top to bottom): the band transposed once, a
    cell is then one slice of its bytes."""
    from PIL import Image

    data = band.transpose(Image.Transpose.TRANSPOSE).tobytes()
    size = cells.width * band.height
    return {c: data[c * size : (c + 1) * size] for c in columns}


def _parts(columns: Sequence[int]) -> list[list[int]]:
    """A row's inked columns as the parts it is read in: runs of inked cells
    (words), a word with the ones after it until the part is ``CONTEXT``
    cells long, and a last part too short joined to the one before. A word
    is read in its line's context: alone, ``INFO`` or a lone ``S`` has no
    small letter beside it to tell ``O`` from ``o``. The parts depend on the
    row's own ink alone, so a row is cut the same wherever it is on screen."""
    parts: list[list[int]] = []
    for word in runs_of(columns):
        if parts and parts[-1][-1] - parts[-1][0] + 1 < CONTEXT:
            parts[-1].extend(word)
        else:
            parts.append(list(word))
    if len(parts) > 1 and parts[-1][-1] - parts[-1][0] + 1 < CONTEXT:
        parts[-2].extend(parts.pop())
    return parts


@dataclass
class _Band:
    """One inked row of the grid: its pixels as ink, its inked cells' images
    by column, the parts it is read in, and what the engine read in them."""

    row: int
    dark: Image.Image
    keys: dict[int, bytes]
    parts: list[list[int]]
    placed: dict[int, Glyph]
    rgb: Image.Image  # the band's pixels as they are
    paper: tuple[int, int, int]  # the colour its ink is measured from


# A part of a band: (band, part) by their indexes.
_Part = tuple[int, int]


def _order(bands: Sequence[_Band]) -> list[_Part]:
    """Every part of the grid, in an order set by each part's own pixels (not
    its place: a screen that scrolled orders its parts as before)."""
    return [
        (i, p)
        for _, i, p in sorted(
            (hashlib.blake2b(b"".join(band.keys[c] for c in part), digest_size=8).digest(), i, p)
            for i, band in enumerate(bands)
            for p, part in enumerate(band.parts)
        )
    ]


def _to_read(bands: Sequence[_Band], votes: Votes, done: set[_Part]) -> set[_Part]:
    """The parts to read first: for each cell image (by its core), the first
    ``NEEDED`` parts that show it, in an order set by each part's own pixels;
    the other parts' cells are known from their copies.

    What is read depends on the region's pixels alone, never on what was read
    before. And as the order is the parts' own, not their place, a screen
    that scrolled, or one line changed, chooses the parts it chose before,
    but where a part that went away or came in was among a cell image's
    first: the parts it reads are those it read then, kept, and a few more.
    Parts read already (``done``: the first few, for the font) count as chosen."""
    seen: Counter[bytes] = Counter()
    chosen: set[_Part] = set()
    for i, p in _order(bands):
        keys = bands[i].keys
        cores = {votes.core(keys[c]) for c in bands[i].parts[p]}
        if (i, p) in done or any(seen[k] < NEEDED for k in cores):
            chosen.add((i, p))
            seen.update(cores)
    return chosen


def _read_segments(
    bands: Sequence[_Band],
    segments: Sequence[tuple[int, int, int]],
    cells: Cells,
    votes: Votes,
    read_rows: Callable[[list[Image.Image]], list[tuple[Glyph, ...]]],
    *,
    into_empty: bool = False,
) -> None:
    """Read each ``(band, first column, last column)`` with a cell of margin,
    each glyph to its cell (``placed``; with ``into_empty``, only a cell that
    has none) and its vote."""
    lefts = [max(0, first - 1) * cells.width for _, first, _ in segments]
    crops = [
        bands[i].dark.crop(
            (left, 0, min(bands[i].dark.width, (last + 2) * cells.width), cells.height)
        )
        for (i, _, last), left in zip(segments, lefts, strict=True)
    ]
    for (i, first, last), left, read in zip(segments, lefts, read_rows(crops), strict=True):
        band = bands[i]
        shifted = [Glyph(g.text, g.left + left, g.right + left, g.confidence) for g in read]
        words = runs_of([c for c in sorted(band.keys) if first <= c <= last])
        placed = place(shifted, cells.width, words)
        doubted = {
            column
            for word in words
            if sum(
                g.text not in DRAWN_DASHES and _covers(g, word, cells.width) >= 2 for g in shifted
            )
            >= WIDE_GLYPHS
            for column in word
        }
        for column, glyph in placed.items():
            if not first <= column <= last or column not in band.keys:
                continue
            if into_empty and column in band.placed:
                continue
            band.placed[column] = glyph
            votes.add(
                band.keys[column],
                glyph.text,
                trusted=column not in doubted,
                sure=glyph.confidence >= terminal_glyphs.SURE_GLYPH,
            )


def _covers(glyph: Glyph, word: Sequence[int], width: int) -> int:
    """How many of ``word``'s inked cells ``glyph``'s box holds half of or
    more: a character of one cell holds one (its box may run on over the
    spaces after it), a CJK letter read as a Latin one two."""
    return sum(
        min(glyph.right, (c + 1) * width) - max(glyph.left, c * width) >= width / 2 for c in word
    )


def _read_parts(
    bands: Sequence[_Band],
    todo: set[_Part],
    cells: Cells,
    votes: Votes,
    known: Callable[[bytes], str | None],
    read_rows: Callable[[list[Image.Image]], list[tuple[Glyph, ...]]],
    *,
    done: set[_Part] = frozenset(),  # type: ignore[assignment]
) -> None:
    """Read the parts ``todo`` names; then, round after round, the parts not
    read whose cells are not all ``known`` yet; last, each word still with a
    cell that nothing was read in nor is known, on its own: the engine
    leaves a lone letter out of a line of wide gaps (``top``'s state column,
    ``S`` between two numbers), and reads it alone."""
    unread = {(i, p) for i, band in enumerate(bands) for p in range(len(band.parts))} - done
    todo = todo - done
    while todo:
        unread -= todo
        segments = sorted((i, bands[i].parts[p][0], bands[i].parts[p][-1]) for i, p in todo)
        _read_segments(bands, segments, cells, votes, read_rows)
        # Whether each cell image is still not known, asked once a round.
        open_keys = {
            key
            for key in {bands[i].keys[c] for i, p in unread for c in bands[i].parts[p]}
            if known(key) is None
        }
        todo = {
            (i, p)
            for i, p in unread
            if any(bands[i].keys[c] in open_keys for c in bands[i].parts[p])
        }
    lone = [
        (i, word[0], word[-1])
        for i, band in enumerate(bands)
        for word in runs_of(sorted(band.keys))
        if any(c not in band.placed and known(band.keys[c]) is None for c in word)
    ]
    if lone:
        _read_segments(bands, lone, cells, votes, read_rows, into_empty=True)


def read(
    rgb: Image.Image,
    *,
    origin: tuple[int, int],
    reader: RowReader,
    rows: Rows,
    how: str,
    agree_cells: bool = True,
    fonts: Fonts | None = None,
) -> Read | None:
    """The text of ``rgb`` (a region's pixels, at ``origin`` in the original)
    read row by row on its monospace grid, boxes in the original's pixels;
    None when it has no such grid (the engine's layout reads it).

    Each glyph the engine read goes to its cell: a space between two cells
    of ink is a space, a gap of five cells five spaces, and a glyph in a
    cell with no ink (a rule the engine read in a gap) is no text. With
    ``agree_cells``, a cell image read as one character in most of its
    copies reads so everywhere (a ``0`` among ``0``s read ``9``), and an
    inked cell the engine read nothing in gets that character too.

    With ``fonts``, the grid's font is looked for among the installed ones
    (``noru.ocr.glyphs``), and where it is found a cell whose pixels are
    clearly one of its glyphs is that glyph's character, whatever was read.
    Where no font fits the cells the spaces between words placed and the
    glyphs' thinnest column places them otherwise (``Cells.other``: wide
    letters' gaps outvoted the spaces), the grid there is read too, and
    kept where a font fits it.
    """
    rgb = in_rgb(rgb)  # read, never drawn on: what is drawn on is its copy below
    paper = background(rgb)
    whole, sub_pixel = ink_of(rgb, paper)
    found = span(whole, rgb)
    if found is None:
        return None
    top, bottom, cells = found
    on = functools.partial(
        _read_on,
        rgb,
        whole,
        sub_pixel,
        paper,
        top,
        bottom,
        origin=origin,
        reader=reader,
        rows=rows,
        how=how,
        agree_cells=agree_cells,
        fonts=fonts,
    )
    read, fitted = on(cells)
    if fonts is not None and agree_cells and not fitted and cells.other is not None:
        # No font fits the cells the spaces placed: the glyphs' thinnest
        # column may have been right (wide letters' gaps outvote spaces).
        x = cells.x + cells.other
        # Ink left of its first whole cell (short of the pixel column just
        # before it) is a first column the shift would leave out.
        if ink_left_of(whole.crop((0, top, max(0, x), bottom)), x):
            x -= cells.width
        columns = min(cells.columns + (x < cells.x), (whole.width - x) // cells.width)
        again, fits = on(dataclasses.replace(cells, x=x, columns=columns, other=None))
        if fits:
            return again
    return read


def _read_on(
    rgb: Image.Image,
    whole: Image.Image,
    sub_pixel: bool,
    paper: tuple[int, int, int],
    top: int,
    bottom: int,
    cells: Cells,
    *,
    origin: tuple[int, int],
    reader: RowReader,
    rows: Rows,
    how: str,
    agree_cells: bool,
    fonts: Fonts | None,
) -> tuple[Read | None, bool]:
    """``read`` on the grid ``cells`` of the rows ``top`` to ``bottom`` of
    ``rgb`` (``whole``: its ink), and whether a font was found to fit it."""
    # A row whose cells reach past the region's edge (its first row starting
    # above it, a band of a bigger region cut close to a line) is cut with
    # paper beyond the edge: its ink is all there.
    from PIL import ImageOps

    pad, side = cells.height, cells.width
    border = (side, pad, 0, pad)
    rgb = ImageOps.expand(rgb.crop((0, top, rgb.width, bottom)), border, fill=paper)
    inked = ImageOps.expand(whole.crop((0, top, whole.width, bottom)), border, fill=255)
    first = (cells.y + pad) % cells.height
    cells = dataclasses.replace(
        cells, x=cells.x + side, y=first, rows=(rgb.height - first) // cells.height
    )
    # Cells of their own colour (a line number shown in reverse) are ink from
    # it; the cursor and a scrollbar are no characters: their cells are spaces.
    off = off_paper(rgb, paper, margin=pad)
    cells = true_rows(off, cells)
    inked = own_backgrounds(rgb, inked, off, cells, sub_pixel=sub_pixel)
    inked = without_spilt_lines(without_chrome(inked, off, cells, margin=pad), cells)
    inked = without_spilt_arms(without_spilt_glyphs(inked, cells), cells)
    ox, oy = origin[0] - side, origin[1] + top - pad
    rest = [
        (origin[0], origin[1] + y, whole.width, h)
        for y, h in ((0, top), (bottom, whole.height - bottom))
        if h > 0
    ]
    bands: list[_Band] = []
    for row in range(cells.rows):
        where = cells.band(row)
        if clip(where, (0, 0, *rgb.size)) != where:
            continue
        dark, band_paper = row_ink(rgb, where, inked, sub_pixel=sub_pixel, paper=paper)
        columns = inked_columns(dark, cells)
        if columns:
            keys = _cell_images(dark, cells, columns)
            x, y, w, h = where
            piece = rgb.crop((x, y, x + w, y + h))
            bands.append(_Band(row, dark, keys, _parts(columns), {}, piece, band_paper))
    votes = Votes(cells.width)
    shapes: dict[bytes, str | None] = {}

    def bars(key: bytes) -> str | None:
        if key not in shapes:
            shapes[key] = bar(key, cells)
        return shapes[key]

    drawn: dict[tuple[int, int], Decision] = {}
    wide: dict[tuple[int, int], Decision] = {}  # wide letters where the font left pairs of cells
    drawings: Shapes | None = None  # the found font's

    def agreed(key: bytes) -> str | None:
        if not agree_cells:
            return None
        # Where the font is known, a cell it leaves unsure is what its own
        # copies were read as, never what another image it looks like was:
        # the glyphs already told every cell that looks like one.
        return votes.agreed(key) or (None if drawn else votes.like(key))

    def known(key: bytes) -> str | None:
        return bars(key) or agreed(key)

    read_rows = functools.partial(rows.read, how=how, reader=reader)
    done: set[_Part] = set()
    if fonts is not None and agree_cells:
        # A few parts read first (in the parts' own order), enough for the
        # font to be found by; then only what its glyphs leave unsure.
        order = _order(bands)
        # A screen of few cell images (a log repeating its words) has fewer
        # to find the font by: a share of them is enough.
        images = len({key for band in bands for key in band.keys.values()})
        enough = min(SAMPLE_CLAIMS, max(SAMPLE_LEAST, round(SAMPLE_SHARE * images)))
        for more in (1, SAMPLE_AGAIN):
            while len(done) < len(order):
                if terminal_glyphs.claims(bands, votes) >= more * enough:
                    break
                batch = order[len(done) : len(done) + SAMPLE_PARTS]
                segments = sorted(
                    (i, bands[i].parts[p][0], bands[i].parts[p][-1]) for i, p in batch
                )
                _read_segments(bands, segments, cells, votes, read_rows)
                done.update(batch)
            drawn, wide, drawings = terminal_glyphs.decide(bands, cells, votes, fonts)
            if drawn or len(done) == len(order):
                break
    if cells.few and not drawn:
        return None, False  # a few lines no installed font draws: the engine's layout
    sure = {bands[i].keys[c] for (i, c), decision in drawn.items() if decision.sure}

    def settled(key: bytes) -> str | None:
        return "" if key in sure else known(key)

    if drawn:
        todo = {
            (i, p)
            for i, band in enumerate(bands)
            for p, part in enumerate(band.parts)
            if any(not (d := drawn.get((i, c))) or not d.sure for c in part)
        }
    elif agree_cells:
        todo = _to_read(bands, votes, done)
    else:
        todo = {(i, p) for i, band in enumerate(bands) for p in range(len(band.parts))}
    _read_parts(bands, todo, cells, votes, settled, read_rows, done=done)
    if drawings is not None:
        drawn = terminal_glyphs.with_claims(bands, drawn, votes, drawings, cells)
    lines = _with_joints(
        lines_of(bands, cells, votes, bars, agreed, drawn, (ox, oy), wide), cells, oy
    )
    return Read(lines, rest), drawings is not None


def _with_joints(lines: list[OcrLine], cells: Cells, oy: int) -> list[OcrLine]:
    """``lines`` (one a row of ``cells``) with their box drawing joined from
    row to row (``noru.ocr.box_joints``)."""
    rows = {(line.box[1] - oy - cells.y) // cells.height: line.text for line in lines}
    texts = box_joints.join(rows)
    return [
        dataclasses.replace(line, text=texts[row]) if texts[row] != line.text else line
        for line, row in zip(lines, rows, strict=True)
    ]
