"""What a terminal draws that is not text, found and left out of its grid
(``noru.ocr.terminal`` reads the rows).

- ``true_rows``: the grid's rows as the terminal's own. Found by the gaps
  between lines, a grid's rows start a pixel or two off the terminal's,
  which a glyph never minds and a block's edge does. Blocks of another
  colour than the paper (a cursor, a line number in reverse video, a
  highlighted row) end on the terminal's cells: their edges place the rows.
- ``own_backgrounds``: a cell on a colour of its own (a line number in
  reverse video, a selected word) is ink measured from that colour.
- ``without_chrome``: solid blocks of ink (a block cursor, a scrollbar's
  thumb) and bars down the whole region beside the text (a scrollbar's edge
  and trough) are no ink at all; a bar as thin as a stroke with text on
  both sides is a character drawn in the cells (tmux's pane border, a
  pager's gutter ``│``) and stays.

Ink a glyph or a line draws past its cell is ``noru.ocr.terminal_spill``'s.

Blocks are looked for only in rows of the grid that hold a cell mostly off
the paper: a screen of text has none, or one (its cursor), and a 2560x1600
region is not scanned whole.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from noru.ocr.terminal_grid import BAR, Cells
from noru.ocr.terminal_ink import INK, PAPER, fits, ink

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "off_paper",
    "own_backgrounds",
    "true_rows",
    "without_chrome",
]

# Ink (0-255) that counts where bars are looked for: a scrollbar's trough is
# a shade off the paper, and so is a pane's border.
CHROME_INK = 24
# Bars down the region are looked for in regions of at least this many rows.
BAR_ROWS = 3
# A bar at most this share of a cell wide, with text on both sides, is a
# character's stroke drawn down the cells (``│``), not a scrollbar.
STROKE = 0.34
# Text on a side of such a bar is ink in at least this many rows' height,
# and this share of the pixel rows that hold text.
TEXT_ROWS = 3
TEXT_SHARE = 0.25
# A scrollbar at the region's right is at most this many cells wide
# (Konsole's at 192 dpi in a narrow face, about two and a half).
SCROLLBAR = 4
# A block of ink (a cursor) holds a box of this share of a cell's width and
# height: no glyph's strokes are that thick, even a wide one crowded into a
# small cell.
BLOCK = 0.6
# A cell is on a colour of its own when this share of its top and bottom
# pixel rows is not the paper; a row may hold a block when one of its cells
# has this share.
OWN_CELL = 0.8
MAY_HOLD = 0.4
# Where no block's box fits, a cell whose colour runs place the rows is this
# share off the paper at least: a badge's colour about its letters, not a
# glyph's ink (at most about a third of its cell).
COLOURED = 0.5


def off_paper(rgb: Image.Image, paper: tuple[int, int, int], *, margin: int = 0) -> Any:
    """Where ``rgb``'s pixels are not the paper's colour (a bool array), but
    in bars down the whole region (a scrollbar): those are no cells' colour.
    ``margin``: rows of paper added above and below the region, which no bar
    crosses."""
    import numpy as np

    # A channel at a time, in its own bytes: a screen's pixels as 16-bit
    # differences took some 50 MB at once.
    pixels = np.asarray(rgb, dtype=np.uint8)
    off = np.zeros(pixels.shape[:2], dtype=bool)
    for channel, value in enumerate(paper):
        if value + PAPER < 255:
            off |= pixels[..., channel] > value + PAPER
        if value - PAPER > 0:
            off |= pixels[..., channel] < value - PAPER
    off[:, _bars(off, margin)] = False
    return off


def _bars(inked: Any, margin: int) -> Any:
    """The pixel columns inked down the region (``BAR`` of its rows, the
    ``margin`` rows at its top and bottom left out): a scrollbar, a pane's
    border. A region of fewer than ``BAR_ROWS`` rows of ``margin`` pixels
    has none: a line on a colour of its own (a prompt's segment) is inked
    from its top to its bottom."""
    import numpy as np

    inside = inked[margin : inked.shape[0] - margin] if margin else inked
    if margin and inside.shape[0] < BAR_ROWS * margin:
        return np.zeros(inked.shape[1], dtype=bool)
    return inside.mean(axis=0) >= BAR


def _shares(off: Any, cells: Cells) -> Any:
    """Each grid cell's share of its top and bottom pixel rows off the paper
    (rows x columns): a glyph seldom reaches them, another background fills
    them."""
    import numpy as np

    rows = (off.shape[0] - cells.y) // cells.height
    if rows <= 0 or cells.columns <= 0:
        return np.zeros((0, 0))
    grid = off[
        cells.y : cells.y + rows * cells.height,
        cells.x : cells.x + cells.columns * cells.width,
    ].reshape(rows, cells.height, cells.columns, cells.width)
    return (grid[:, 0].mean(axis=2) + grid[:, -1].mean(axis=2)) / 2


def _rows_with(shares: Any, least: float, cells: Cells, height: int) -> tuple[int, int] | None:
    """The pixel rows, a grid row beyond, of the grid rows holding a cell
    with at least ``least`` of it off the paper; None when there are none."""
    import numpy as np

    found = np.nonzero((shares >= least).any(axis=1))[0]
    if not len(found):
        return None
    top = max(0, cells.y + (int(found[0]) - 1) * cells.height)
    bottom = min(height, cells.y + (int(found[-1]) + 2) * cells.height)
    return top, bottom


def true_rows(off: Any, cells: Cells) -> Cells:
    """``cells`` with its rows starting where the terminal's do, where blocks
    of another colour show them: each column's runs of block a whole number
    of rows long (not a scrollbar's thumb) start on the terminal's grid.
    Where no block holds a box (``_box``: a short word on its own colour,
    npm's ``WARN``, its letters leaving no room between them), the runs off
    the paper down its cells' columns are looked at: those between its
    letters run its whole height."""
    import numpy as np

    shares = _shares(off, cells)
    span = _rows_with(shares, MAY_HOLD, cells, off.shape[0])
    if span is None:
        return cells
    top, bottom = span
    high, wide = _box(cells)
    corners = fits(off[top:bottom], high, wide)
    phases = np.zeros(cells.height, dtype=np.int64)
    if corners.any():
        _vote_phases(phases, fits(corners, high, wide, grow=True), top, cells)
    if not phases.any():
        # Only in the cells of another colour (and a row beside them, the
        # grid's rows being unsure): a glyph's stroke as tall as a row
        # elsewhere (a ``(``, a ``|``) is no block, nor is a tree's ``│``
        # beside a glyph reaching its cell's edge (its run from a ``┬`` to a
        # ``└`` is whole rows long, from the middle of one).
        held = np.zeros(off.shape, dtype=bool)
        for row, column in np.argwhere(shares >= MAY_HOLD):
            x = cells.x + int(column) * cells.width
            y = cells.y + (int(row) - 1) * cells.height
            if off[y + cells.height : y + 2 * cells.height, x : x + cells.width].mean() < COLOURED:
                continue
            held[max(0, y) : max(0, y + 3 * cells.height), max(0, x) : x + cells.width] = True
        _vote_phases(phases, (off & held)[top:bottom], top, cells)
    if not phases.any():
        return cells
    phase = int(phases.argmax())
    return dataclasses.replace(cells, y=phase, rows=(off.shape[0] - phase) // cells.height)


def _vote_phases(phases: Any, blocks: Any, top: int, cells: Cells) -> None:
    """Add to ``phases`` (one count per pixel row of a cell) where each run
    of ``blocks`` down a pixel column a whole number of rows long starts,
    twice for a run exactly that long."""
    import numpy as np

    for column in np.nonzero(blocks.any(axis=0))[0]:
        edges = np.diff(np.concatenate(([0], blocks[:, column].astype(np.int8), [0])))
        for start, end in zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0], strict=True):
            if start == 0 or end == len(blocks):
                continue  # cut by the rows looked at (a scrollbar): its length is unknown
            rows = round((end - start) / cells.height)
            off_by = abs(end - start - rows * cells.height)
            if rows >= 1 and off_by <= 1:
                # A run a pixel short or long may have missed its first
                # pixel: one that is exactly whole rows tells more.
                phases[(top + start) % cells.height] += 2 - off_by


def own_backgrounds(
    rgb: Image.Image, dark: Image.Image, off: Any, cells: Cells, *, sub_pixel: bool
) -> Image.Image:
    """``dark`` (``ink`` of ``rgb`` from its paper) with each cell drawn on a
    colour of its own (its top and bottom pixel rows off the paper: a glyph
    seldom reaches them) measured from that colour, the commonest there;
    where two are as common, the top row's (an underscore along the whole
    bottom row is the glyph's).
    Whole rows of their own colour are measured so by
    ``terminal_ink.row_ink``."""
    import numpy as np

    owned = np.argwhere(_shares(off, cells) >= OWN_CELL)
    if not len(owned):
        return dark
    dark = dark.copy()
    pixels = np.asarray(rgb, dtype=np.uint32)
    packed = (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]
    for row, column in owned:
        x, y = cells.x + int(column) * cells.width, cells.y + int(row) * cells.height
        box = packed[y : y + cells.height, x : x + cells.width]
        colour = _commonest(np.concatenate((box[0], box[-1])), first=box[0])
        own = ((colour >> 16) & 255, (colour >> 8) & 255, colour & 255)
        cell = rgb.crop((x, y, x + cells.width, y + cells.height))
        measured = ink(cell, own, sub_pixel=sub_pixel)
        # A pixel column of the paper down the whole cell at its side is
        # the page beside the block (the grid a pixel off the block's edge),
        # not a stroke: no glyph's ink is so tall.
        for side in (0, 1, cells.width - 2, cells.width - 1):
            if 0 <= side < cells.width and not off[y : y + cells.height, x + side].any():
                measured.paste(255, (side, 0, side + 1, cells.height))
        dark.paste(measured, (x, y))
    return dark


def _commonest(colours: Any, *, first: Any) -> int:
    """The commonest of ``colours`` (packed RGB); of two as common, the
    commonest in ``first``."""
    import numpy as np

    values, counts = np.unique(colours, return_counts=True)
    tied = values[counts == counts.max()]
    if len(tied) == 1:
        return int(tied[0])
    among = first[np.isin(first, tied)]
    kinds, many = np.unique(among, return_counts=True)
    return int(kinds[many.argmax()]) if len(kinds) else int(tied[0])


def without_chrome(dark: Image.Image, off: Any, cells: Cells, *, margin: int = 0) -> Image.Image:
    """``dark`` (``ink``'s image) without solid blocks of ink (a block cursor
    and, where the grid's rows straddle the terminal's, its sliver in the
    row above; a scrollbar's thumb), and without bars down the whole region
    (faint ink counts there: a scrollbar's trough is a shade off the paper;
    ``margin`` as ``off_paper``'s)."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    found = np.zeros(pixels.shape, dtype=bool)
    span = _rows_with(_shares(off, cells), MAY_HOLD, cells, pixels.shape[0])
    if span is not None:
        top, bottom = span
        high, wide = _box(cells)
        solid = fits(pixels[top:bottom] < 255 - INK, high, wide)
        if solid.any():
            found[top:bottom] |= fits(solid, high, wide, grow=True)
    bars = _bars(pixels < 255 - CHROME_INK, margin)
    drawn, end = _drawn(bars, pixels < 255 - INK, cells)
    found[:, bars & ~drawn] = True
    found[:, end:] = True
    if not found.any():
        return dark
    return Image.fromarray(np.where(found, np.uint8(255), pixels))


def _drawn(bars: Any, inked: Any, cells: Cells) -> tuple[Any, int]:
    """Of the ``bars`` pixel columns, those that are a character drawn down
    the grid's cells (tmux's pane border, a pager's gutter ``│``, box
    drawing): a run of them as thin as a stroke (at most ``STROKE`` of a
    cell's width) with text on both sides, in rows enough (``TEXT_ROWS``,
    ``TEXT_SHARE``), or within the grid's columns with text after it (a
    tree's ``│`` down its first column). A scrollbar's trough and edges
    stand beside the text, at its end or outside the grid, with at most
    its arrows beyond them (Konsole's, a line a pixel wide at the grid's
    right). Returned with the pixel column where the text ends: past the
    first bar that is no character, with text before it but none after and
    at most ``SCROLLBAR`` cells from the region's right, what stands is the
    scrollbar's (its arrows), wherever the grid's columns reach (the
    region's width when there is no such bar; a pane beside a border, wider
    than a scrollbar, keeps its few lines)."""
    import numpy as np

    drawn = np.zeros(bars.shape, dtype=bool)
    end = len(bars)
    columns = np.nonzero(bars)[0]
    if not len(columns):
        return drawn, end
    text = inked & ~bars  # ink that is no bar's
    rows = text.any(axis=1).sum()  # pixel rows with text
    # Text beside a bar is in rows enough (a scrollbar's arrows, beyond its
    # edge, are in two rows of half a cell).
    least = max(TEXT_ROWS * cells.height, TEXT_SHARE * rows)
    widest = max(1, round(STROKE * cells.width))
    for run in np.split(columns, np.nonzero(np.diff(columns) > 1)[0] + 1):
        first, last = int(run[0]), int(run[-1])
        left = text[:, :first].any(axis=1).sum()
        right = text[:, last + 1 :].any(axis=1).sum()
        inside = cells.x <= first and last < cells.x + cells.columns * cells.width
        if last - first + 1 <= widest and right >= least and (left >= least or inside):
            drawn[first : last + 1] = True
        elif left >= least and right < least and len(bars) - first <= SCROLLBAR * cells.width:
            end = min(end, first)
    return drawn, end


def _box(cells: Cells) -> tuple[int, int]:
    """The box a block of ink holds, high and wide."""
    return max(3, round(BLOCK * cells.height)), max(3, round(BLOCK * cells.width))
