"""The pixel rows of a region that are a terminal's, and its cell grid there
(``noru.ocr.terminal_grid``): not its title bar or toolbar, with the rows of
another background (a status line, a selection) that lie on its grid.

Pure Pillow.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from noru.ocr.terminal_baselines import PHASE_SLACK
from noru.ocr.terminal_grid import BAR, Cells, few_lines, find_cells, measures_pitch
from noru.ocr.terminal_ink import INK, PAPER, darkest, edges, ink_left_of, lighter_than

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["span"]

# A pixel row is the terminal's when this share of it is its background
# colour (within PAPER levels, anti-aliasing aside): a title bar above it,
# or a frame's edge, is not; its densest line of text still is.
BACKGROUND_ROW = 0.2
MIN_RUN = 3
# Rows not the background this thin, between rows that are, are a line drawn
# across the terminal (box drawing), in a share of a row.
THIN_LINE = 0.15
# Rows this share of a row or thinner, inked and with ink on both sides,
# are the densest of a line of marks (``_through_marks``).
MARKS = 0.3
# A run of background rows this share of a row tall or less is no line's.
SLIVER = 0.25
# Rows between two runs lie on the grid as a status line or a selection
# when the colour filling them is this many times ``PAPER`` levels from the
# paper: a window's toolbar shaded a few levels off it (Konsole's, under
# a white terminal) is cut from the run by those levels alone.
OWN_FILL = 2
# A block cut by the run's edge goes on past it (``_goes_on``): the edge row
# inked in this share of its extent (its letters are paper), each row past
# it in GOES_ON of it, with ink past its ends at most the rest.
SOLID = 0.5
GOES_ON = 0.9
# A band of another fill at the region's very top is a highlighted first
# row only when its letters stand in the grid's columns: their ink folded
# at the advance leaves the cells' edges under this share of the mean
# (monospaced letters keep apart there; a menu bar's words in a
# proportional face do not), once they ink this many cells' worth of
# columns (fewer letters fold emptily anywhere).
EDGE_SHARE = 0.5
LETTERS = 8
# A band of another fill (``_bands``) is cut from the background's rows
# when it spans this share of the region or more (then its median pixel is
# its fill, as ``_filled`` asks of rows that join the terminal): a pixel row
# of it unbroken, but for this share of its extent, is one of its edges;
# each row of it is filled in this share, its letters the rest.
FILL_WIDE = 0.5
SLAB = 0.98
FILL_SHARE = 0.4


def _runs(dark: Image.Image, bands: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of pixel rows showing the background, top to bottom. A run of
    a pixel or two is none: the light text of a highlighted row, on a light
    theme, shows the paper's colour in a good share of its densest rows.
    The rows of ``bands`` (``_bands``: another fill across most of the row)
    are not the background, its letters in the paper's colour aside; one
    that ends the region ends the last run there (an empty run), so that it
    lies between runs as a status line above the terminal's edge does."""
    from PIL import Image

    plain = dark.point(lighter_than(255 - PAPER))
    share = list(plain.resize((1, dark.height), Image.Resampling.BOX).tobytes())
    for top, bottom in bands:
        share[top:bottom] = [0] * (bottom - top)
    runs: list[tuple[int, int]] = []
    start = None
    for y, value in enumerate([*share, 0]):
        if value >= BACKGROUND_ROW * 255:
            start = y if start is None else start
        elif start is not None:
            if y - start >= MIN_RUN or start == 0 or not runs:
                runs.append((start, y))
            start = None
    if runs and bands and bands[-1][1] == dark.height:
        runs.append((dark.height, dark.height))
    return runs


def _bands(dark: Image.Image) -> list[tuple[int, int]]:
    """The pixel rows, top to bottom, of each band of a fill of its own
    across ``FILL_WIDE`` of the region or more (a pager's prompt in reverse
    video, wider than half the row): rows whose ink is one unbroken run
    there (``SLAB``) above or below its letters, the band's first and last
    columns inked all the way down, its fill ``FILL_SHARE`` of every row
    of it. A line drawn across the rows (all its rows unbroken), a table's
    rules around a header (paper between them) and a block of cells
    narrower than half the row (a gutter's line numbers) are none."""
    import numpy as np

    inked = np.asarray(dark, dtype=np.uint8) < 255 - INK
    height, width = inked.shape
    counts = inked.sum(axis=1)
    firsts = inked.argmax(axis=1)
    lasts = width - inked[:, ::-1].argmax(axis=1)
    slab = (counts >= FILL_WIDE * width) & (counts >= SLAB * (lasts - firsts))
    bands: list[tuple[int, int]] = []
    y = 0
    while y < height:
        if not slab[y]:
            y += 1
            continue
        fill = inked[:, int(firsts[y]) : int(lasts[y])]
        # Only the rows about this one are looked at: a band is a row or so tall.
        top = y
        while top > 0 and _held(fill[top - 1]):
            top -= 1
        bottom = y
        while bottom < height and _held(fill[bottom]):
            bottom += 1
        if not slab[top:bottom].all():
            bands.append((top, bottom))
        y = max(bottom, y + 1)
    return bands


def _held(row: Any) -> bool:
    """Whether ``row`` (a pixel row's ink across a band's extent) is the
    band's: its first and last pixels inked, ``FILL_SHARE`` of it filled."""
    return bool(row[0] and row[-1] and row.mean() >= FILL_SHARE)


def _on_grid(gap: tuple[int, int], top: int, cells: Cells) -> bool:
    """Whether rows ``gap`` (not the background) are whole rows of the grid
    that starts at pixel row ``top``: a status line, a selection."""
    start, end = gap
    pitch = cells.height
    rows, rest = divmod(end - start, pitch)
    phase = (start - top - cells.y) % pitch
    # The grid's origin, found from the gaps between lines of text, may be a
    # few pixels off the cells' true edges (descenders below, capitals above
    # are not alike): a band of whole rows is on the grid that near it.
    off = max(1, round(PHASE_SLACK * pitch))
    return rows >= 1 and min(rest, pitch - rest) <= 1 and min(phase, pitch - phase) <= off


def _filled(gap: tuple[int, int], dark: Image.Image) -> bool:
    """Whether rows ``gap`` are filled with a colour of their own (their
    median pixel ``OWN_FILL`` times ``PAPER`` levels off the paper): a
    status line's or a selection's, not a shade of the paper."""
    from PIL import ImageStat

    start, end = gap
    (median,) = ImageStat.Stat(dark.crop((0, start, dark.width, end))).median
    return median <= 255 - OWN_FILL * PAPER


def _in_columns(gap: tuple[int, int], dark: Image.Image, cells: Cells) -> bool:
    """Whether the letters on rows ``gap`` (pixels off the rows' own fill)
    stand in the grid's columns (``EDGE_SHARE``), or are too few to tell
    (``LETTERS``)."""
    import numpy as np

    start, end = gap
    pixels = np.asarray(dark.crop((0, start, dark.width, end)), dtype=np.int16)
    columns = (np.abs(pixels - np.median(pixels)) > INK).sum(axis=0)
    if np.count_nonzero(columns) < LETTERS * cells.width:
        return True
    wide = cells.width
    folded = np.bincount(np.arange(columns.size) % wide, weights=columns, minlength=wide)
    edge = cells.x % wide
    emptiest = min(folded[(edge + d) % wide] for d in (-1, 0, 1))
    return bool(emptiest <= EDGE_SHARE * folded.mean())


def _thin(gap: tuple[int, int], cells: Cells, dark: Image.Image) -> bool:
    """Whether rows ``gap`` (not the background) are a line drawn across the
    terminal's rows (a pager's ``───┬───`` under its header, a pane's
    border), thinner than a share of a row and drawn in ink: its cells are
    box drawing. A window's faint separator (a menu bar's edge) is none."""
    start, end = gap
    if end - start > max(2, round(THIN_LINE * cells.height)):
        return False
    return darkest(dark.crop((0, start, dark.width, end))) < 255 - INK


def _through_marks(
    dark: Image.Image, runs: list[tuple[int, int]], cells: Cells
) -> list[tuple[int, int]]:
    """``runs`` joined across the densest rows of a line of marks (ansible's
    ``PLAY [all] ****``): rows ``MARKS`` of a row or thinner, inked, with
    ink right above and right below them (the line's letters go on there;
    a line drawn across the rows has its cell's blank rows about it). Cut
    there, the line's halves fell in two runs, and the grid of the one
    below started at a half line."""
    joined = [runs[0]]
    for start, end in runs[1:]:
        top, bottom = joined[-1][1], start
        if 0 < bottom - top <= round(MARKS * cells.height) and all(
            darkest(dark.crop((0, y, dark.width, y + 1))) < 255 - INK for y in (top - 1, bottom)
        ):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def span(dark: Image.Image, rgb: Image.Image | None = None) -> tuple[int, int, Cells] | None:
    """The pixel rows that are the terminal's, top to bottom, and its grid:
    the longest run of rows showing its background (a title bar, a toolbar
    above it, a frame's edge below it do not), or where that holds only a
    few lines, the longest whose lines repeat; with the runs beside it that
    lie on its grid across rows of another background (a status line, a
    selection), or a line drawn across the rows (box drawing).

    Where no run's ink shows a grid and ``rgb`` (the same pixels) is given,
    the outlines of its text (``edges``) in the runs of a few lines may: a
    prompt's lines on segments of their own colours leave the ink no gap
    between cells or rows. A page of text (an app's) that is no grid is
    not looked at twice."""
    bands = _bands(dark)
    runs = _runs(dark, bands)
    if not runs:
        return None
    tallest = sorted(range(len(runs)), key=lambda i: runs[i][0] - runs[i][1])
    core, cells = _core(dark, runs, tallest)
    if cells is None and rgb is not None:
        # No run's ink shows a grid: the outlines of the runs of a few lines.
        outlines = edges(rgb)
        few = [i for i in tallest if few_lines(dark.crop((0, runs[i][0], dark.width, runs[i][1])))]
        core, cells = _core(outlines, runs, few)
    if cells is None:
        return _lone_band(dark, rgb, runs) if rgb is not None else None
    if len(joined := _through_marks(dark, runs, cells)) < len(runs):
        order = sorted(range(len(joined)), key=lambda i: joined[i][0] - joined[i][1])
        again, found = _core(dark, joined, order)
        if found is not None:
            runs, core, cells = joined, again, found
    top, bottom = runs[core]
    # A run between two others thinner than a share of a row holds no line:
    # the densest rows of a highlighted row's letters, light on it, in the
    # paper's colour. Its rows are the highlight's. (At the region's edge
    # such a run is where the region starts: a row of another background
    # below it lies between it and the core.)
    runs = [
        run
        for i, run in enumerate(runs)
        if i in (0, core, len(runs) - 1) or run[1] - run[0] >= SLIVER * cells.height
    ]
    core = runs.index((top, bottom))

    def filled(gap: tuple[int, int]) -> bool:
        return gap in bands or _filled(gap, dark)

    def joins(gap: tuple[int, int]) -> bool:
        return (_on_grid(gap, top, cells) and filled(gap)) or _thin(gap, cells, dark)

    if (
        0 < runs[0][0] <= cells.height + 1
        and _on_grid((0, runs[0][0]), top, cells)
        and filled((0, runs[0][0]))
        and _in_columns((0, runs[0][0]), dark, cells)
    ):
        # One row of another background at the region's very top (a
        # highlighted first row in a terminal with no padding: alacritty,
        # xterm): the region's edge bounds it as a run would. A window's
        # bars above a terminal (Konsole's menu and toolbar) are taller; a
        # menu bar as tall as a row (xfce4-terminal's at 16 pt) is words
        # in a proportional face, not in the grid's columns.
        runs.insert(0, (0, 0))
        core += 1
    first, last = core, core

    while first > 0 and joins((runs[first - 1][1], runs[first][0])):
        first -= 1
    while last < len(runs) - 1 and joins((runs[last][1], runs[last + 1][0])):
        last += 1
    if (first, last) == (core, core):
        return _whole_rows(dark, top, bottom, cells)
    new_top = runs[first][0]
    gaps = [(runs[i][1], runs[i + 1][0]) for i in range(first, last)]
    rows_gap = next((gap for gap in gaps if not _thin(gap, cells, dark)), None)
    if rows_gap is None:
        # Only lines drawn across the rows between the runs: the core's grid.
        shift = (top + cells.y - new_top) % cells.height
    else:
        # The rows of another background are whole cells of the terminal:
        # the grid's rows start where they do (not in the middle of the gap
        # between two lines of text, a pixel or two off), a whole number of
        # pitches above the core.
        shift = (rows_gap[0] - new_top) % cells.height
    extended = dark.crop((0, new_top, dark.width, runs[last][1]))
    rows = (extended.height - shift) // cells.height
    grid = dataclasses.replace(cells, y=shift, rows=rows, few=False)
    return _whole_rows(dark, new_top, runs[last][1], _reaching_left(extended, grid))


def _lone_band(
    dark: Image.Image, rgb: Image.Image, runs: list[tuple[int, int]]
) -> tuple[int, int, Cells] | None:
    """The rows of the one band of another fill beside the terminal's paper
    that shows at most a line or two (a bar down its side aside) and no
    grid, and the band's grid, found in its letters against its own fill,
    over both: a line shown in reverse video, or selected, on an otherwise
    empty screen. None when there is no such band, or its letters show no
    grid, or stand out of its columns (a menu bar's words in a
    proportional face)."""
    from noru.ocr.terminal_ink import background, ink_of

    tallest = max(runs, key=lambda run: run[1] - run[0])
    paper = dark.crop((0, tallest[0], dark.width, tallest[1]))
    if _shows_ink(paper) and not few_lines(paper):
        return None
    beside = [(end, tallest[0]) for _, end in runs if end < tallest[0]][-1:]
    beside += [(tallest[1], start) for start, _ in runs if start > tallest[1]][:1]
    if tallest[0] > 0 and not beside:
        beside = [(0, tallest[0])]
    if tallest[1] < dark.height and len(beside) < 2 and runs[-1] == tallest:
        beside.append((tallest[1], dark.height))
    bands = [gap for gap in beside if gap[1] > gap[0] and _filled(gap, dark)]
    if len(bands) != 1:
        return None
    ((top, bottom),) = bands
    band = rgb.crop((0, top, rgb.width, bottom))
    letters, _ = ink_of(band, background(band))
    # Its letters, where its fill is (not the paper past its end, nor a bar,
    # nor a window's edge above it).
    left, first, right, last = _fill_of(letters)
    letters = letters.crop((left, first, right, last))
    top, bottom = top + first, top + last
    cells = find_cells(letters)
    if cells is None or not _in_columns((0, letters.height), letters, cells):
        return None
    cells = dataclasses.replace(cells, x=cells.x + left)
    rows = max(1, round((bottom - top) / cells.height))
    if abs(bottom - top - rows * cells.height) > rows:
        if rows > 1:
            return None  # rows of a pitch the band's height does not keep
        rows = 1  # one row: the band is its height
    height = (bottom - top) // rows
    # The grid goes on over the paper beside the band, which may hold a line
    # or two that showed no grid of its own (a table's border below a query).
    start, end = min(top, tallest[0]), max(bottom, tallest[1])
    return (
        start,
        end,
        dataclasses.replace(
            cells, y=(top - start) % height, height=height, rows=(end - start) // height, few=False
        ),
    )


def _fill_of(letters: Image.Image) -> tuple[int, int, int, int]:
    """The box (left, top, right, bottom) of ``letters`` (a band's ink against
    its own fill) whose columns, then rows, show the fill in most pixels."""
    import numpy as np

    fill = np.asarray(letters, dtype=np.uint8) >= 255 - INK
    columns = np.flatnonzero(fill.mean(axis=0) > 0.5)
    if not len(columns):
        return 0, 0, letters.width, letters.height
    left, right = int(columns[0]), int(columns[-1]) + 1
    rows = np.flatnonzero(fill[:, left:right].mean(axis=1) > 0.5)
    if not len(rows):
        return 0, 0, letters.width, letters.height
    return left, int(rows[0]), right, int(rows[-1]) + 1


def _shows_ink(dark: Image.Image) -> bool:
    """Whether ``dark`` shows ink beside any bar down it (``BAR`` of its
    rows: a scrollbar)."""
    import numpy as np

    inked = np.asarray(dark, dtype=np.uint8) < 255 - INK
    return bool(inked[:, inked.mean(axis=0) < BAR].any())


def _core(
    dark: Image.Image, runs: list[tuple[int, int]], order: list[int]
) -> tuple[int, Cells | None]:
    """The run that gives the grid, and the grid: the longest (``order``)
    whose lines repeat, or where none does, the longest with a grid placed
    by a few lines' baselines (its lines show none: a tail of lines too
    unlike to repeat below a highlighted row), of two lines near each other
    or more where there is one: the pitch between lines is measured, a lone
    line's is its own height with a margin (the one line below a highlighted
    row, though its run is the tallest, and with a scrollbar's arrow far
    below it)."""
    core, cells, measured = -1, None, False
    for index in order:
        run = dark.crop((0, runs[index][0], dark.width, runs[index][1]))
        found = find_cells(run)
        if found is None:
            continue
        if not found.few:
            return index, found
        if cells is None or not measured:
            measures = measures_pitch(run)
            if cells is None or measures:
                core, cells, measured = index, found, measures
    return core, cells


def _whole_rows(dark: Image.Image, top: int, bottom: int, cells: Cells) -> tuple[int, int, Cells]:
    """``top``, ``bottom`` and ``cells`` with the last (first) grid row the
    run ends (starts) in whole, where the ink goes on past its edge as it
    was at it: a reverse-video status line under the text, whose lettered
    rows show the paper's colour and its rows below the letters do not
    (they end the run of the background's rows, half way down its cells).
    A frame or a bar past the edge is not the row's own ink."""
    import numpy as np

    def inked(first: int, last: int) -> Any:  # only the rows looked at, each look
        return np.asarray(dark.crop((0, first, dark.width, last)), dtype=np.uint8) < 255 - INK

    end = top + cells.y + -(-(bottom - top - cells.y) // cells.height) * cells.height
    if bottom < end <= dark.height:
        past = inked(bottom - 1, end)
        if _goes_on(past[0], past[1:]):
            bottom = end
            cells = dataclasses.replace(cells, rows=(bottom - top - cells.y) // cells.height)
    start = top + cells.y - ((cells.y + cells.height - 1) // cells.height) * cells.height
    if 0 <= start < top and _goes_on((above := inked(start, top + 1))[-1], above[-2::-1]):
        # The row the run starts in is the grid's first now, at its top.
        cells = dataclasses.replace(cells, y=0, rows=(bottom - start) // cells.height)
        top = start
    return top, bottom, cells


def _goes_on(edge: Any, beyond: Any) -> bool:
    """Whether the run's ``edge`` pixel row is a block of ink (``SOLID`` of
    it from its first inked pixel to its last, the letters in it aside) and
    each row ``beyond`` it is that block whole, with little ink past its
    ends: a row of another colour cut by the run, not a frame."""
    import numpy as np

    inked = np.flatnonzero(edge)
    if not len(inked) or not len(beyond):
        return False
    left, right = int(inked[0]), int(inked[-1]) + 1
    if len(inked) < SOLID * (right - left):
        return False
    inside = beyond[:, left:right].mean(axis=1)
    outside = beyond.sum(axis=1) - beyond[:, left:right].sum(axis=1)
    return bool((inside >= GOES_ON).all() and (outside <= (1 - GOES_ON) * (right - left)).all())


def _reaching_left(dark: Image.Image, cells: Cells) -> Cells:
    """``cells``, starting a column further left where the rows joined to
    the core show ink left of its first whole cell (a line across the rows
    from column 0, where the core's rows start at column 7): as
    ``find_cells`` places a grid with ink left of its first cell."""
    x, width = cells.x, cells.width
    # Ink left of it (short of the pixel column just before it), and no bar
    # down the rows there (a scrollbar at the terminal's left, rxvt-unicode's,
    # is no column, and the ink beside it is its arrows' and its thumb's).
    if x < width and ink_left_of(dark, x) and not _bars_in(dark.crop((0, 0, x - 1, dark.height))):
        return dataclasses.replace(cells, x=x - width, columns=cells.columns + 1)
    return cells


def _bars_in(dark: Image.Image) -> bool:
    """Whether a pixel column of ``dark`` is inked in ``BAR`` of its rows."""
    import numpy as np

    inked = np.asarray(dark, dtype=np.uint8) < 255 - INK
    return bool(inked.size) and bool((inked.mean(axis=0) >= BAR).any())
