"""Where a region's lines of text lie, and the row pitch they give: runs
of inked pixel rows (``line_runs``), how tall a line is (``line_height``),
where each body ends (its baseline), and the pitch and first row those say
(``by_baselines``, ``in_step``, ``halved``), for the grid's rows
(``noru.ocr.terminal_grid``).

Pure Python.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from noru.ocr.monospace import fold
from noru.ocr.terminal_pitch import gap_middle

__all__ = [
    "MIN_ROWS",
    "PHASE_SLACK",
    "ROW_GAP",
    "ROW_PITCH",
    "by_baselines",
    "halved",
    "in_step",
    "line_height",
    "line_runs",
    "parted",
    "run_height",
]

# Row pitches looked for, in pixels (terminal fonts from 6 pt to HiDPI 2x
# at 16 pt).
ROW_PITCH = (8, 72)
# The emptiest phase of the folded rows' profile holds at most this share
# of the mean phase's ink: the gap between rows.
ROW_GAP = 0.25
# Rows of text a region must show for its row pitch to be found by repeats;
# fewer are placed by their baselines, where a good share of a line's ink
# ends (``by_baselines``).
MIN_ROWS = 4
BODY = 0.35
# Up to this many lines of text are placed by their baselines
# (``by_baselines``): more repeat enough for a pitch.
FEW_LINES = MIN_ROWS - 1
# More lines are placed by their baselines when two of them lie nearer than
# this share of the pitch found by repeats; a run this many times the usual
# line's height is a block (a highlighted row), no line (``by_baselines``).
NEARER = 0.75
# Lines farther apart are placed by their baselines too when these fit
# another pitch within this share of it and do not fit it: sparse lines
# (a man page's title, a blank row, a heading) repeat nearly as well a pixel
# off their pitch, and every baseline a whole number of rows apart says which.
SLIP = 0.1
BLOCK_RUN = 1.2
# At least this many lines are placed by their tops or bottoms where their
# baselines fit no pitch (``by_baselines``): two fit one by chance. The tops
# fit it within a pixel and the bottoms within this many pixels, or the
# other way round: a ``$``, a bracket reach a pixel or two past a capital.
# Where every line's run is at most LINE_SHARE of the pitch tall (a gap
# parts each from the next), within EDGES_SHARE of the pitch: a line's
# descenders reach that far below a line with none. (Two lines run
# together in each run, Hermit's tight rows in st, leave no such gap.)
BY_TOPS = 3
EDGES_NEAR = 2
EDGES_SHARE = 0.25
LINE_SHARE = 0.9
# A row is at least this share of its lines' height (``line_height``); a
# pixel row inked this share of the most inked one's ink or less parts
# two lines there.
LINE_SHARE = 0.9
FAINT = 0.03
# A run of inked pixel rows this share of the tallest, this near another, is
# part of that line (an underscore below it).
SLIVER = 0.4
# A run of inked rows of a short screen is at most this many lines joined (by
# a tree's ``│`` down them).
JOINED = 3
# Lines with no blank pixel row between them (a tight face's descenders
# reaching the next line's capitals: Hermit in Konsole) are parted where
# their ink thins to this share of the run's densest row, between parts
# each holding a row of half its ink and at least PART_SHARE as tall as
# the tallest part (a line and an underscore below it are no two lines),
# and where no other run is as tall as two such lines (``parted``).
VALLEY = 0.1
PART_SHARE = 0.6
# A band of another background is whole rows of the grid when its edges lie
# within this share of a row of the grid's; lines' baselines lie at one
# height in their rows within it (``in_step``).
PHASE_SLACK = 0.15
# A pitch in whose rows fewer than this share of the lines fit is no row
# pitch where another fits at least ``IN_STEP`` of them; a line fits a row
# reaching this share of a row past it (``in_step``).
OUT_OF_STEP = 0.75
IN_STEP = 0.9
FIT_SLACK = 0.08
# Runs of ink this many rows tall are lines run together (``in_step``).
TOGETHER = 1.5


def halved(
    crossings: Sequence[int], runs: Sequence[tuple[int, int]], found: tuple[int, int]
) -> tuple[int, int]:
    """The row pitch ``found`` by repeats, or half of it where the rows fold
    there with a phase as empty and most lines fit in it: text on every
    other row (tsc's messages, each with a blank row below it) repeats
    best at two rows, and a grid of two-row cells reads half the
    characters. ``runs``: the lines' runs of pixel rows (``line_runs``)."""
    pitch = found[0]
    if not runs:
        return found
    heights = sorted(bottom - top for top, bottom in runs)
    usual = heights[len(heights) // 2]
    for half in (pitch // 2, (pitch + 1) // 2):
        if half < ROW_PITCH[0] or usual > half or fold(crossings, half)[0] > ROW_GAP:
            continue
        return half, gap_middle(crossings, half, edge_past_ink=True)
    return found


def line_height(profile: bytes) -> int | None:
    """How tall a line of text is (runs of inked pixel rows; a low quartile:
    lines whose ink touches the next line's run together), a little less.
    A run of marks alone (a compiler's ``~~~~`` under the code, on a row of
    its own) is no line: a screen of errors holds many, and the quartile
    of all runs was theirs. Two lines a pixel row with a speck of ink joins
    are two (``_parted``), which may only lower the height: where too few
    runs stand apart (a tree's ``│`` joins every line) it says nothing."""
    runs = _runs(profile)
    if len(runs) < MIN_ROWS:
        return None  # too few apart to tell (a tree's `│` joins every line)
    parts = [part for run in runs for part in _parted(profile, run)]
    return int(LINE_SHARE * min(_one_line(runs)[1], _one_line(parts)[1]))


def run_height(profile: bytes) -> int:
    """How tall one line of text is, from the runs of inked pixel rows of
    ``profile`` (0 for none): the shortest run at least ``1 / JOINED`` of
    their median, as lines joined by a tree's ``│`` make one run, and on a
    short screen the median may be such a run (marks alone, a row of
    dots, are shorter)."""
    runs = _runs(profile)
    if not runs:
        return 0
    usual = _usual_height(runs)
    return min(h for top, bottom in runs if (h := bottom - top) * JOINED >= usual)


def parted(profile: bytes, runs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``runs`` with each run of lines that touch (``VALLEY``) parted into
    its lines; none parted where another run as tall as two of those lines
    is left whole (lines run together by marks down the rows: a graph's
    ``|`` and ``*``)."""
    split = [_lines_touching(profile, top, bottom) for top, bottom in runs]
    if all(len(parts) == 1 for parts in split):
        return list(runs)
    line = max(b - a for parts in split if len(parts) > 1 for a, b in parts)
    if any(len(parts) == 1 and parts[0][1] - parts[0][0] > line / PART_SHARE for parts in split):
        return list(runs)
    return [part for parts in split for part in parts]


def _lines_touching(profile: bytes, top: int, bottom: int) -> list[tuple[int, int]]:
    """The run's lines, cut at the middle of each stretch of thin rows
    between them (a stretch at its top is its line's ascenders), where each
    holds a row of half the run's densest ink and is at least ``PART_SHARE``
    as tall as the tallest; else the run whole."""
    rows = profile[top:bottom]
    peak = max(rows)
    cuts, start = [], None
    for y, value in enumerate(rows):
        if value <= VALLEY * peak and start is None:
            start = y
        elif value > VALLEY * peak and start is not None:
            if start > 0:
                cuts.append(top + (start + y) // 2)
            start = None
    parts = list(itertools.pairwise([top, *cuts, bottom]))
    tallest = max(b - a for a, b in parts)
    if all(b - a >= PART_SHARE * tallest and max(profile[a:b]) >= peak / 2 for a, b in parts):
        return parts
    return [(top, bottom)]


def _one_line(runs: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The median height of ``runs`` (``_usual_height``), and how tall one
    line is: the low quartile of those not thinner than ``SLIVER`` of it
    (marks alone)."""
    usual = _usual_height(runs)
    heights = sorted(h for top, bottom in runs if (h := bottom - top) >= SLIVER * usual)
    return usual, heights[len(heights) // 4]


def _runs(profile: bytes) -> list[tuple[int, int]]:
    """The runs of inked pixel rows of ``profile``, top and bottom."""
    runs = []
    start = None
    for y, value in enumerate([*profile, 0]):
        if value and start is None:
            start = y
        elif not value and start is not None:
            runs.append((start, y))
            start = None
    return runs


def _parted(profile: bytes, run: tuple[int, int]) -> list[tuple[int, int]]:
    """``run`` cut at its pixel rows with a speck of ink (``FAINT`` of its
    most inked row's: a descender's tip meeting the next line's tallest
    letter), into the parts at least ``SLIVER`` of its tallest part: a face
    whose lines nearly touch (CMU Typewriter Text in Konsole) ran every
    paragraph into one run, and rows two lines tall were taken. A part
    shorter than that (a line's descenders, a capital's top over small
    letters) is the part's before it, or after it at the run's top."""
    top, bottom = run
    faint = FAINT * max(profile[top:bottom])
    parts: list[tuple[int, int]] = []
    start = None
    for y in range(top, bottom + 1):
        value = profile[y] if y < bottom else 0
        if value > faint and start is None:
            start = y
        elif value <= faint and start is not None:
            parts.append((start, y))
            start = None
    if len(parts) < 2:
        return [run]
    tallest = max(end - begin for begin, end in parts)
    kept: list[tuple[int, int]] = []
    for begin, end in parts:
        if end - begin >= SLIVER * tallest or not kept:
            kept.append((begin, end))
        else:
            kept[-1] = (kept[-1][0], end)
    if kept[0][1] - kept[0][0] < SLIVER * tallest and len(kept) > 1:
        kept[:2] = [(kept[0][0], kept[1][1])]
    return kept


def line_runs(profile: bytes) -> list[tuple[int, int]]:
    """The lines of ``profile`` (a rows' profile): runs of inked pixel rows,
    top and bottom, with a sliver of ink apart from a line (an underscore
    below its baseline, an accent above it) made part of the nearer line."""
    runs = _runs(profile)
    tallest = max((bottom - top for top, bottom in runs), default=0)
    for i in sorted(range(len(runs)), key=lambda i: runs[i][1] - runs[i][0]):
        top, bottom = runs[i]
        if bottom - top >= SLIVER * tallest or len(runs) == 1 or top < 0:
            continue
        apart = [
            (other_top - bottom if other_top >= bottom else top - other_bottom, j)
            for j, (other_top, other_bottom) in enumerate(runs)
            if j != i and other_top >= 0
        ]
        gap, j = min(apart)
        if gap <= SLIVER * tallest:
            runs[j] = (min(top, runs[j][0]), max(bottom, runs[j][1]))
            runs[i] = (-1, -1)
    return [run for run in runs if run[0] >= 0]


def _baselines(profile: bytes, runs: Sequence[tuple[int, int]]) -> list[int]:
    """Where each line of ``runs`` ends its body: the pixel row below the
    last holding a good share (``BODY``) of its ink (descenders hold little)."""
    baselines = []
    for top, bottom in runs:
        peak = max(profile[top:bottom])
        body = [y for y in range(top, bottom) if profile[y] >= BODY * peak]
        baselines.append(body[-1] + 1)
    return baselines


def in_step(
    runs: Sequence[tuple[int, int]],
    crossings: Sequence[int],
    found: tuple[int, int],
    least: int | None,
    high: int,
) -> tuple[int, int]:
    """The row pitch ``found`` by repeats, or where most lines do not fit in
    its rows (under ``OUT_OF_STEP`` of them at any phase), the smallest that
    folds as emptily and fits ``IN_STEP`` of them: sparse text in a pattern
    (a compiler's message, a blank row, the source line, its marks on a row
    of their own, a blank row) repeats and folds at pitches no row has. The
    lines are ``runs`` of one line's height, neither marks alone nor two
    lines run together (dense text) nor a highlighted row's block; where
    the usual one is ``TOGETHER`` of ``found``'s rows or taller, lines run
    together everywhere and say nothing."""
    if not runs:
        return found
    usual, one = _one_line(runs)
    lines = [run for run in runs if SLIVER * usual <= run[1] - run[0] <= BLOCK_RUN * one]
    if (
        TOGETHER * found[0] < one
        or len(lines) < MIN_ROWS
        or _fitting(lines, found[0]) >= OUT_OF_STEP
    ):
        return found  # lines two of its rows tall run together: they say nothing
    for period in range(max(ROW_PITCH[0], least or 0, one), high + 1):
        if fold(crossings, period)[0] <= ROW_GAP and _fitting(lines, period) >= IN_STEP:
            return period, gap_middle(crossings, period, edge_past_ink=True)
    return found


def _fitting(lines: Sequence[tuple[int, int]], pitch: int) -> float:
    """The largest share of ``lines`` (runs of pixel rows) that lie in one
    row each of rows ``pitch`` tall, at any phase, within ``FIT_SLACK`` of
    a row past its edges (a tall glyph's tip)."""
    slack = max(1, round(FIT_SLACK * pitch))
    best = 0
    for phase in range(pitch):
        best = max(
            best,
            sum((top - phase) % pitch + bottom - top <= pitch + slack for top, bottom in lines),
        )
    return best / len(lines)


def _usual_height(runs: Sequence[tuple[int, int]]) -> int:
    """The median height of ``runs`` (top, bottom), the upper one of two."""
    heights = sorted(bottom - top for top, bottom in runs)
    return heights[len(heights) // 2]


def by_baselines(
    profile: bytes, runs: Sequence[tuple[int, int]], *, than: int | None = None
) -> tuple[int, int] | None:
    """The row pitch and the grid's first row for text of at most
    ``FEW_LINES`` lines (``runs``: ``line_runs`` of ``profile``), from
    where their bodies end: each line's baseline, the last pixel row
    holding a good share of its ink (its descenders hold little). The
    pitch makes every baseline a whole number
    of rows from the first; one line's pitch is its own height with a
    margin. Each row is cut so that its baseline lies as far from its top as
    every other's: the glyphs of one font sit alike in every cell. None for
    more lines, or lines that do not fit one pitch.

    With ``than`` (a pitch found by repeats), any number of lines, and the
    pitch they give only when it is smaller: two lines nearer than ``than``
    cannot both lie in its rows. Sparse text repeats best at a multiple of
    its pitch (a man page's title, a blank row, a heading and its line). A
    run much taller than the others (a highlighted row, inked from edge to
    edge of its cells) has no baseline of its own and is left out there;
    nor has a run much thinner than the others, anywhere."""
    if runs:
        # A run of marks alone (a compiler's ``~~~~`` under the code) is
        # too thin to hold a baseline: its line's rows are the others'.
        usual = _usual_height(runs)
        bodied = [(top, bottom) for top, bottom in runs if bottom - top >= SLIVER * usual]
        runs = bodied if len(bodied) >= 2 else runs
    if not runs or (than is None and len(runs) > FEW_LINES):
        return None
    if than is not None:
        usual = _usual_height(runs)
        runs = [(top, bottom) for top, bottom in runs if bottom - top <= BLOCK_RUN * usual]
        if len(runs) < 2:
            return None
    baselines = _baselines(profile, runs)
    astray = _astray(baselines, runs)
    found = None if astray else _by_these(baselines, runs, than)
    if found is None and (len(runs) >= BY_TOPS or astray):
        # Marks high in a line (ansible's ``PLAY [all] ****``) end its body
        # above its baseline. The tops of lines of capitals, brackets and
        # ascenders lie alike in their rows, and so do the bottoms of lines
        # of descenders: a pitch that every line's top or every line's
        # bottom fits places the rows.
        found = _by_edges(runs, than)
    return found


def _astray(baselines: Sequence[int], runs: Sequence[tuple[int, int]]) -> bool:
    """Whether one of two lines ends its body astray of its baseline: two
    baselines fit any pitch, so where the lines' tops lie as far apart as
    their bottoms (within what a descender makes) and their baselines lie
    farther from both than that, marks high in one line ended its body."""
    if len(runs) != 2:
        return False
    (top, bottom), (next_top, next_bottom) = runs
    near = max(EDGES_NEAR, round(EDGES_SHARE * _usual_height(runs)))
    tops, bottoms = next_top - top, next_bottom - bottom
    apart = baselines[1] - baselines[0]
    return abs(tops - bottoms) <= near and min(abs(apart - tops), abs(apart - bottoms)) > near


def _by_these(
    baselines: Sequence[int], runs: Sequence[tuple[int, int]], than: int | None
) -> tuple[int, int] | None:
    """``by_baselines`` from these lines' ``baselines``."""
    ascent = max(b - top for b, (top, _) in zip(baselines, runs, strict=True))
    descent = max(bottom - b for b, (_, bottom) in zip(baselines, runs, strict=True))
    margin = max(1, (ascent + descent) // 8)
    if len(runs) == 1:
        pitch = ascent + descent + 2 * margin
    else:
        nearest = min(b - a for a, b in itertools.pairwise(baselines))
        if nearest < ascent + descent:
            return None  # lines closer than their own height: not one grid
        # The repeats' pitch, where these lines lie farther apart than it allows.
        repeats = than if than is not None and nearest > NEARER * than else None
        if repeats is not None and _all_fit(baselines, repeats):
            return None  # the pitch found by repeats fits these lines
        rows = max(1, nearest // (ascent + descent))
        pitch = round(nearest / rows)
        if not _all_fit(baselines, pitch):
            return None
        if repeats is not None and abs(pitch - repeats) > SLIP * repeats:
            return None  # no slip of the repeats' pitch: another grid's lines
    if not ROW_PITCH[0] <= pitch <= ROW_PITCH[1]:
        return None
    # Each row cut so that its baseline lies as far from its top as every other's.
    return pitch, _first(baselines[0] - (pitch - descent - margin), pitch)


def _by_edges(runs: Sequence[tuple[int, int]], than: int | None) -> tuple[int, int] | None:
    """The pitch every line's top, or else every line's bottom, fits (and
    the other edges nearly, and not ``than`` too), and the first row that
    holds each line's run in the middle of its row, as most lines say; None
    where there is no such pitch."""
    usual = _usual_height(runs)
    tops, bottoms = [top for top, _ in runs], [bottom for _, bottom in runs]
    for edges, others in ((tops, bottoms), (bottoms, tops)):
        nearest = min(b - a for a, b in itertools.pairwise(edges))
        if nearest < usual:
            continue  # lines closer than their own height: not one grid
        pitch = round(nearest / (nearest // usual))
        if not ROW_PITCH[0] <= pitch <= ROW_PITCH[1] or not _all_fit(edges, pitch):
            continue
        parted = all(bottom - top <= LINE_SHARE * pitch for top, bottom in runs)
        near = max(EDGES_NEAR, round(EDGES_SHARE * pitch)) if parted else EDGES_NEAR
        if not _all_fit(others, pitch, within=near):
            continue  # two lines run together each (Hermit's tight rows)
        if than is not None and (pitch >= than or _all_fit(edges, than)):
            continue
        starts = [(top + bottom - pitch) // 2 for top, bottom in runs]
        offsets = sorted((start - starts[0] + pitch // 2) % pitch - pitch // 2 for start in starts)
        return pitch, _first(starts[0] + offsets[len(offsets) // 2], pitch)
    return None


def _first(start: int, pitch: int) -> int:
    """The grid's first row, from where one of its rows starts: the first
    whole row in the region, or a row starting above it (a line at its top
    edge)."""
    return start - (start // pitch) * pitch if start >= 0 else start


def _all_fit(marks: Sequence[int], pitch: int, *, within: int = 1) -> bool:
    """Whether every one of ``marks`` lies a whole number of ``pitch`` from
    the first, ``within`` so many pixels."""
    return all(abs(m - marks[0] - round((m - marks[0]) / pitch) * pitch) <= within for m in marks)
