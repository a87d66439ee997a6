"""A terminal's monospace cell grid, found in its pixels (``noru.ocr.terminal``
reads its rows).

1. The region as dark ink on white (``noru.ocr.terminal_ink``).
2. ``find_cells``: the grid's row pitch and column advance, and where they
   start, from the folded profiles of that ink. Proportional type has no
   column advance, and is left to the engine's own layout.
3. The pixel rows that are the terminal's, not its title bar or toolbar
   (``noru.ocr.terminal_span``).

Pure Pillow.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.geometry import Rect
from noru.ocr.monospace import Grid, fold
from noru.ocr.terminal_baselines import (
    FEW_LINES,
    MIN_ROWS,
    PHASE_SLACK,
    ROW_GAP,
    ROW_PITCH,
    by_baselines,
    halved,
    in_step,
    line_height,
    line_runs,
    parted,
    run_height,
)
from noru.ocr.terminal_ink import INK, darker_than, darkest, fits
from noru.ocr.terminal_phase import lines_down_phase, space_phase
from noru.ocr.terminal_pitch import gap_middle, half_advance, rows_fold_at_half, whole_advance
from noru.ocr.terminal_pitch import pitch as repeating

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["BAR", "Cells", "few_lines", "find_cells", "measures_pitch"]

# Ink unbroken along a pixel row for this many rows' heights is a line drawn
# across cells, no glyph's.
LINE_CELLS = 3
# A line down the region longer than this many times its runs of ink are
# tall is box drawing (a tree's ``│``), at most this many pixel columns wide.
DOWN_LINES = 1.5
DOWN_LINE_WIDE = 4
# Two lines measure the pitch between them when their tops lie at most this
# many of their heights apart (a line's ink is most of its row: two blank
# rows between them are about four).
NEAR_LINES = 5

# Column advances looked for, in pixels (terminal fonts from 6 pt to HiDPI
# 2x at 16 pt).
ADVANCE = (4, 40)
# A monospace advance is this share of the row pitch (DejaVu Sans Mono and
# its kin: about 0.5; Terminus and xterm's 9x15 0.6; the narrowest bitmap
# cells 0.7). More is two cells: the period of double-width glyphs (CJK).
ADVANCE_SHARE = (0.3, 0.75)
# The emptiest phase of the folded column profile holds at most this share of
# the mean phase's ink: the gap between cells.
COLUMN_GAP = 0.35
# Ink this share of a line's height (and at least this many pixels) high and
# wide, wholly inked, is a block (a highlighted row, a prompt's coloured
# segment), not a glyph's stroke: a stem is a sixth of a line at most.
SOLID = 0.2
LEAST_SOLID = 5
# A column inked in this share of the region's pixel rows is a bar (a
# scrollbar, a window edge), not text: it is left out of the grid.
BAR = 0.9
THIN_BAR = 3


def _profile(dark: Image.Image, *, rows: bool) -> bytes:
    """The ink (0-255) in each row or column of a dark-on-white "L" image."""
    from PIL import Image

    inked = dark.point(darker_than(256 - INK))
    size = (1, dark.height) if rows else (dark.width, 1)
    return inked.resize(size, Image.Resampling.BOX).tobytes()


@dataclass(frozen=True)
class Cells:
    """The grid: cells ``width`` x ``height`` from ``(x, y)``, ``columns`` x
    ``rows`` of them, in the pixels of the image it was found in. ``few``:
    its rows were placed by the baselines of a few lines, not by their
    repeats, so that only the font's glyphs fitting its cells say it is a
    terminal's grid (proportional text folds into cells as well).
    ``other``: where the spaces between words placed the cells and the
    thinnest column of the glyphs' gaps says otherwise (a screen mostly of
    wide letters, whose gaps mislead the spaces' count), how many pixels
    right of ``x`` that column says they start: the grid to try where no
    font fits this one."""

    x: int
    y: int
    width: int
    height: int
    columns: int
    rows: int
    few: bool = False
    other: int | None = None

    @property
    def grid(self) -> Grid:
        return Grid(self.x, self.y, self.width, self.height)

    def band(self, row: int) -> Rect:
        return (self.x, self.y + row * self.height, self.columns * self.width, self.height)


def find_cells(dark: Image.Image) -> Cells | None:
    """The monospace cell grid of ``dark`` (``ink``'s image), or None. Its
    first row (or column) may start a few pixels above (left of) the image,
    ``y`` (``x``) < 0, when text lies at the image's edge."""
    import numpy as np
    from PIL import ImageDraw

    columns_profile = list(_profile(dark, rows=False))
    # Bars (a scrollbar, an edge) ink every pixel row: they are no cells, and
    # no part of the rows' profile either (a scrollbar beside a few lines of
    # text would fill every row's gap); nor are solid blocks (a highlighted
    # row, the cursor), which fill a row's gap to the next.
    bars = _bars(dark, columns_profile)
    plain = _without_blocks(dark, bars)
    # Nor is a block any part of the columns' profile (a prompt's coloured
    # segments fill the gaps between cells).
    text = [
        0 if bar else value for value, bar in zip(_profile(plain, rows=False), bars, strict=True)
    ]
    if any(bars):
        plain = plain.copy()
        drawing = ImageDraw.Draw(plain)
        for column, bar in enumerate(bars):
            if bar:
                drawing.line((column, 0, column, dark.height - 1), fill=255)
    rows_profile = _profile(plain, rows=True)
    runs = line_runs(rows_profile)
    # A tree's ``│`` drawn down the rows fills the gaps between its lines,
    # and a short screen's lines, run together, are too few to place the
    # rows: they are placed without such lines (each longer than half as
    # much again as the runs of ink are tall, most of them one line each).
    if len(runs) <= FEW_LINES:
        unlined = _without_lines_down(plain, round(DOWN_LINES * run_height(rows_profile)))
        if unlined is not plain:
            rows_profile = _profile(unlined, rows=True)
            runs = line_runs(rows_profile)
        runs = parted(rows_profile, runs)
    # A few lines of text (a command and its one-line error) repeat too few
    # times for a pitch: their rows are placed by their baselines.
    few = by_baselines(rows_profile, runs)
    crossings = _crossings(plain)
    least = line_height(rows_profile)
    high = min(ROW_PITCH[1], dark.height // 2)
    found = few or repeating(crossings, ROW_PITCH[0], high, ROW_GAP, least=least)
    if found is None:
        return None
    if few is None:
        few = by_baselines(rows_profile, runs, than=found[0])
        found = few or halved(crossings, runs, in_step(runs, crossings, found, least, high))
    height, y = found
    y = lines_down_phase(np.asarray(plain) < 255 - INK, height, y)
    # Ink above the first whole row, which a row starting a pixel or two
    # above the region holds: a terminal drawn without padding (alacritty's
    # first line at its window's very top).
    if (
        height - round(PHASE_SLACK * height) <= y < height
        and darkest(plain.crop((0, 0, plain.width, y))) < 255 - INK
    ):
        y -= height
    # The advance from the glyphs' gaps, lines across cells left out; what
    # lies left of the first cell is any ink (a line starting in column 0).
    lined = _without_lines(plain, LINE_CELLS * height)
    glyphs = text
    if lined is not plain:
        glyphs = [
            0 if bar else value
            for value, bar in zip(_profile(lined, rows=False), bars, strict=True)
        ]
    low = max(ADVANCE[0], int(height * ADVANCE_SHARE[0]))
    high = min(ADVANCE[1], int(height * ADVANCE_SHARE[1]) + 1)
    found = repeating(glyphs, low, high, COLUMN_GAP, wide=True)
    if found is None:
        return None
    width, x = half_advance(glyphs, low, whole_advance(glyphs, high, found))
    if (
        width == found[0]
        and width // 2 >= low
        and rows_fold_at_half(_row_profiles(lined, y, height, bars), width)
    ):
        width, x = width // 2, gap_middle(glyphs, width // 2)
    other = None
    if fold(glyphs, width)[0] > COLUMN_GAP:
        # Glyphs as wide as their cells: the thinnest phase is no sure edge
        # (a glyph's middle may be thin); the spaces between words are, and
        # where they do not agree the text is no grid's.
        spaced = space_phase(plain, y, height, width, bars, thinnest=x)
        if spaced is None:
            return None
        other = (x - spaced) % width or None
        x = spaced
    # The grid starts after the bars at its left (rxvt-unicode's scrollbar)
    # and spans the columns up to the first bar at its right.
    while x + width <= len(bars) and any(bars[x : x + width]):
        x += width
    # Ink left of the first whole cell: the first column starts left of the
    # region (a terminal drawn without padding). Not ink in the pixel column
    # just before it: a glyph or a reverse block reaching a pixel out of its cell.
    if 1 < x < width and any(text[: x - 1]) and not any(bars[:x]):
        x -= width
    right = next((i for i in range(len(bars) - 1, x, -1) if not bars[i]), dark.width - 1)
    columns = (right + 1 - x) // width
    # The last row may end a pixel or two past the region (a highlighted row
    # below it, drawn from a little above its cells).
    rows = (dark.height - y + round(PHASE_SLACK * height)) // height
    inked_rows = sum(
        darkest(dark.crop((x, y + r * height, x + columns * width, y + (r + 1) * height)))
        < 255 - INK
        for r in range(rows)
    )
    if columns < 8 or inked_rows < (1 if few else MIN_ROWS):
        return None
    return Cells(x, y, width, height, columns, rows, few=few is not None, other=other)


def _row_profiles(dark: Image.Image, y: int, height: int, bars: list[bool]) -> list[list[int]]:
    """The columns' profile of each row of the grid in ``dark``, the
    ``bars`` left out."""
    profiles = []
    for top in range(y, dark.height - height + 1, height):
        if top < 0:
            continue
        band = _profile(dark.crop((0, top, dark.width, top + height)), rows=False)
        profiles.append([0 if bar else value for value, bar in zip(band, bars, strict=True)])
    return profiles


def _bars(dark: Image.Image, profile: Sequence[int]) -> list[bool]:
    """The pixel columns inked in ``BAR`` of the region's rows: a scrollbar
    or a window's edge, no cells. A run of them at most ``THIN_BAR`` wide,
    clear of the region's sides, down at least ``MIN_ROWS`` lines of text,
    is a line the text draws down its cells (a tree's ``│`` that a terminal
    drawing box drawing itself runs unbroken from row to row): cells, not
    chrome (scrollbars are eight pixels wide or more). Down a line or two,
    a stroke or a coloured segment's edge fills as many rows."""
    import numpy as np
    from PIL import Image

    bars = [value >= BAR * 255 for value in profile]
    thin = []
    start = 0
    while start < len(bars):
        if not bars[start]:
            start += 1
            continue
        end = start
        while end < len(bars) and bars[end]:
            end += 1
        if end - start <= THIN_BAR and start > 0 and end < len(bars):
            thin.append((start, end))
        start = end
    if not thin:
        return bars
    pixels = np.array(dark, dtype=np.uint8)
    pixels[:, np.asarray(bars, dtype=bool)] = 255
    if len(line_runs(_profile(Image.fromarray(pixels), rows=True))) < MIN_ROWS:
        return bars
    for start, end in thin:
        bars[start:end] = [False] * (end - start)
    return bars


def _crossings(dark: Image.Image) -> bytes:
    """Each pixel row's count of edges between ink and paper (at most 255): a
    line of text crosses many, a highlight's or cursor's block only its own
    two sides where no letter is, so a highlighted row keeps its gap to the
    next as a row of text does."""
    import numpy as np

    inked = np.asarray(dark, dtype=np.uint8) < 255 - INK
    edges = (inked[:, 1:] != inked[:, :-1]).sum(axis=1)
    return bytes(np.minimum(edges, 255).astype(np.uint8))


def few_lines(dark: Image.Image) -> bool:
    """Whether ``dark``'s ink lies in at most ``FEW_LINES`` runs of pixel
    rows: a prompt or two, not a page of text (a dialog, a document)."""
    return lines_in(dark) <= FEW_LINES


def lines_in(dark: Image.Image) -> int:
    """How many lines ``dark``'s ink lies in (runs of pixel rows)."""
    return len(line_runs(_profile(dark, rows=True)))


def measures_pitch(dark: Image.Image) -> bool:
    """Whether two of ``dark``'s lines lie near enough to measure the pitch
    between them: at most ``NEAR_LINES`` of the taller one's heights apart
    (a blank row or two between them). A line and a mark far below it (a
    scrollbar's arrow in the window's corner) measure nothing."""
    runs = line_runs(_profile(dark, rows=True))
    return any(
        b[0] - a[0] <= NEAR_LINES * max(a[1] - a[0], b[1] - b[0])
        for a, b in itertools.pairwise(runs)
    )


def _without_blocks(dark: Image.Image, bars: list[bool]) -> Image.Image:
    """``dark`` without solid blocks of ink, for the rows' profile: a
    highlighted row has no gap to the next. A block holds a square of
    ``SOLID`` of a line's height: a large font's strokes are thick too (a
    window's one line of 40 px text was cut into 8 px rows). A line's height
    is measured beside the ``bars`` (pixel columns inked in every row, a
    scrollbar), which would make the whole region one line."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    heights = []
    start = None
    beside = pixels[:, ~np.asarray(bars, dtype=bool)] if any(bars) else pixels
    inked = [bool(v) for v in np.any(beside < 255 - INK, axis=1).tolist()]
    rows = [*inked, False]
    for y, value in enumerate(rows):
        if value and start is None:
            start = y
        elif not value and start is not None:
            heights.append(y - start)
            start = None
    side = max(LEAST_SOLID, round(SOLID * sorted(heights)[len(heights) // 2])) if heights else 0
    if not side:
        return dark
    solid = fits(pixels < 255 - INK, side, side)
    if not solid.any():
        return dark
    blocks = fits(solid, side, side, grow=True)
    return Image.fromarray(np.where(blocks, np.uint8(255), pixels))


def _without_lines_down(dark: Image.Image, long: int) -> Image.Image:
    """``dark`` without the thin lines drawn down it (box drawing's ``│``:
    ink unbroken for ``long`` pixels down a pixel column, at most
    ``DOWN_LINE_WIDE`` columns wide), for the rows' profile: such a line
    fills the gaps between the rows it crosses, and a short screen's lines
    of a tree were one line four rows tall."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    if long < 2 or pixels.shape[0] < long:
        return dark
    inked = pixels < 255 - INK
    down = fits(inked, long, 1)
    if not down.any():
        return dark
    lines = fits(down, long, 1, grow=True)
    wider = fits(fits(inked, long, DOWN_LINE_WIDE + 1), long, DOWN_LINE_WIDE + 1, grow=True)
    lines &= ~wider  # a block or a bar down the region is no line of box drawing
    if not lines.any():
        return dark
    return Image.fromarray(np.where(lines, np.uint8(255), pixels))


def _without_lines(dark: Image.Image, long: int) -> Image.Image:
    """``dark`` without the lines drawn across cells (box drawing, a progress
    bar: ink unbroken for ``long`` pixels along a pixel row), for the
    columns' profile: such a line fills the gaps between the cells it
    crosses, and on a short screen leaves too few for the advance."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    if pixels.shape[1] < long:
        return dark
    across = fits(pixels < 255 - INK, 1, long)
    if not across.any():
        return dark
    return Image.fromarray(np.where(fits(across, 1, long, grow=True), np.uint8(255), pixels))
