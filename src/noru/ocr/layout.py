"""Blocks of text in a piece of a screenshot, for a detector that wants them small.

Measured on PP-OCRv6's text detector (``noru.ocr.rapid``): it finds nothing
on a large, mostly blank image (a 900x420 window's text is found on its own
and lost once pasted into a 2600x1600 blank), and its memory grows with its
input. So a piece is cut into blocks of ink (``text_blocks``), a block with
no blank rows to cut it by is read in overlapping bands (``tiles``), and
each block is framed on its own background (``frame``).

Blocks are ``Rect``s in the piece's pixels. Pure Pillow; no engine is
imported here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from noru.geometry import Rect, order_boxes
from noru.ocr.band_cuts import split_rows
from noru.ocr.regions import histogram_mode

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["frame", "text_blocks", "tiles"]

# A pixel is ink when it differs this much from the background grey.
INK_CONTRAST = 32
# Pixels of the piece kept around a block's ink box.
BLOCK_EDGE = 2
# Bands of a block that cannot be cut between its lines overlap by this many
# pixels: more than a line of 20 px text at 200 % scaling.
TILE_OVERLAP = 64


def text_blocks(grey: Image.Image, *, gap: int = 32, max_area: int | None = None) -> list[Rect]:
    """The blocks of ink in a piece, in reading order.

    A piece is cut, recursively, at blank bands at least ``gap`` pixels
    wide: rows first, then columns (an XY cut). A block bigger than
    ``max_area`` is cut into bands between its text lines. The blocks come in
    reading order: top to bottom, and left to right within a band of rows,
    so a sidebar is read before the page beside it, not line by line across.
    """
    from PIL import Image, ImageChops

    background = histogram_mode(grey.histogram())
    flat = Image.new("L", grey.size, background)
    ink = ImageChops.difference(grey, flat).point(lambda v: 255 if v >= INK_CONTRAST else 0)
    # Pillow crops by corners, (x1, y1, x2, y2): the cut works in them.
    blocks: list[tuple[int, int, int, int]] = []

    def split(box: tuple[int, int, int, int]) -> None:
        found = ink.crop(box).getbbox()
        if found is None:
            return
        x1, y1 = box[0] + found[0], box[1] + found[1]
        x2, y2 = box[0] + found[2], box[1] + found[3]
        columns, rows = ink.crop((x1, y1, x2, y2)).getprojection()
        bands = _runs(rows, gap)
        if len(bands) > 1:
            for top, bottom in bands:
                split((x1, y1 + top, x2, y1 + bottom))
            return
        spans = _runs(columns, gap)
        if len(spans) > 1:
            for left, right in spans:
                split((x1 + left, y1, x1 + right, y2))
            return
        area = (x2 - x1) * (y2 - y1)
        if max_area is None or area <= max_area:
            blocks.append((x1, y1, x2, y2))
            return
        for bx, by, bw, bh in split_rows(grey, (x1, y1, x2 - x1, y2 - y1), -(-area // max_area)):
            found = ink.crop((bx, by, bx + bw, by + bh)).getbbox()
            if found is not None:
                blocks.append((bx + found[0], by + found[1], bx + found[2], by + found[3]))

    split((0, 0, *grey.size))
    # The cut finds the blocks, but its order is not always the reading
    # order: a title bar's text above a page, with less than ``gap`` between
    # them, is cut off as a column of its own to the right of the page. Read
    # by position instead: bands top to bottom, left to right within a band.
    boxes = [(x1, y1, x2 - x1, y2 - y1) for x1, y1, x2, y2 in blocks]
    return [boxes[i] for i in order_boxes(boxes)]


def tiles(block: Rect, *, max_area: int) -> Iterator[tuple[Rect, tuple[int, int] | None]]:
    """``block`` as is, or, when it is far bigger than ``max_area`` (no blank
    rows to cut it between its lines: a photo, a gradient), as overlapping
    bands with the rows (top, bottom) each one answers for. A line cut by a
    band's edge lies, whole, in the next band, and is kept only there."""
    x, y, width, height = block
    if width * height <= max_area * 3 // 2:
        yield block, None
        return
    end = y + height
    step = max(2 * TILE_OVERLAP, max_area // width)
    for top in range(y, end, step):
        bottom = min(end, top + step)
        above, below = max(y, top - TILE_OVERLAP), min(end, bottom + TILE_OVERLAP)
        yield (x, above, width, below - above), (top, bottom)


def _runs(flags: Sequence[int], gap: int) -> list[tuple[int, int]]:
    """Runs of set flags as (start, end), joined across fewer than ``gap`` unset ones."""
    runs: list[tuple[int, int]] = []
    for index, flag in enumerate(flags):
        if not flag:
            continue
        if runs and index - runs[-1][1] < gap:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


def frame(
    grey: Image.Image, block: Rect, *, margin: int, stride: int
) -> tuple[Image.Image, tuple[int, int]]:
    """The block alone on its own background, ``margin`` on every side and
    grown to multiples of ``stride`` so a detector that takes sides in those
    multiples reads it unresized; and where the framed image's top-left lies
    in the piece (it may be negative).

    The margin is blank rather than the piece around the block: a block cut
    from a bigger one between two text lines would otherwise bring the
    edges of its neighbours' glyphs, read as stray text."""
    from PIL import Image

    x, y, w, h = block
    # A few pixels past the ink box: a glyph's faint anti-aliased edge is not ink.
    x1, y1 = max(0, x - BLOCK_EDGE), max(0, y - BLOCK_EDGE)
    x2, y2 = min(grey.width, x + w + BLOCK_EDGE), min(grey.height, y + h + BLOCK_EDGE)
    crop = grey.crop((x1, y1, x2, y2))
    width = -(-(crop.width + 2 * margin) // stride) * stride
    height = -(-(crop.height + 2 * margin) // stride) * stride
    framed = Image.new("L", (width, height), histogram_mode(crop.histogram()))
    framed.paste(crop, (margin, margin))
    return framed, (x1 - margin, y1 - margin)
