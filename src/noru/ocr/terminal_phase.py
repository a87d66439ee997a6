"""Where a terminal's cells start, from the gaps between its words, for
``noru.ocr.terminal_grid`` where glyphs as wide as their cells (Hermit,
Terminus) leave no empty phase in the folded column profile: a gap one
cell wide is a space, its middle a cell's middle whatever the glyphs beside
it are like.

Pure Pillow and numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from noru.ocr.terminal_ink import INK

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "BETWEEN",
    "SPACE",
    "SPACES",
    "SPACES_AGREE",
    "SPACES_WITH_WIDE",
    "lines_down_phase",
    "space_phase",
]

# A line drawn down this many rows or more, unbroken, is box drawing
# (``lines_down_phase``): a glyph's stem is shorter than a row.
LINE_DOWN_ROWS = 1.5
# The rows' phase moves to where lines down start by at most this share of
# a row: the phase the gaps between lines of text give is that near.
LINE_DOWN_MOVE = 0.25
# Lines down this many or more (each its own run of rows) place the rows.
LINE_DOWN_LEAST = 3
# This share of the lines' ends near ``y`` agree on the edge (a glyph's
# stem touching a line's end makes it start a pixel or two off).
LINE_DOWN_AGREE = 0.75
# ... and those ends are of this many lines or more.
LINE_DOWN_NEAR = 2
# A line down is alone in its cells: within this share of a row either side
# of it, beside its own width (columns inked in LINE_OWN of its rows), at
# most this share of the pixels inked. dev41's trees left at most 0.06 beside
# their lines, glyphs touching across Hermit's tight rows in Konsole 0.08 to
# 0.26 beside their stems (most above 0.1).
LINE_ALONE_REACH = 0.3
LINE_OWN = 0.9
LINE_ALONE_INK = 0.1
# A gap between words this share of a cell wide is one space
# (``space_phase``), and so many of them place the cells.
SPACE = (0.6, 1.4)
SPACES = 8
SPACES_AGREE = 0.75  # of the middles, within a pixel of one another
# With wide letters, this share of the middles is the spaces' and the wide
# letters' gaps, half a cell apart (a gap between a wide letter and a
# narrow one is neither).
SPACES_WITH_WIDE = 0.6
# Where wide letters are drawn from the pen, narrower than their two cells
# (``_with_narrow_wide_letters``), at most this share of the middles lies
# between a space's and the far half of a cell.
BETWEEN = 0.12


def space_phase(
    plain: Image.Image, y: int, height: int, width: int, bars: Sequence[bool], *, thinnest: int
) -> int | None:
    """Where cells start (a phase of ``width``), from the gaps between words:
    a gap one cell wide is a space, its middle a cell's middle whatever the
    glyphs beside it are like. None when too few rows show such a gap, or
    their middles do not agree (``SPACES_AGREE``): proportional text. The
    gap between two wide (CJK) letters has its middle on a cell's edge,
    half a cell off: with twice ``SPACES`` gaps, the two kinds together
    agree on the phase the fold's ``thinnest`` column gives."""
    import numpy as np

    ink = np.asarray(plain) < 255 - INK
    ink[:, np.asarray(bars, dtype=bool)] = False
    votes = np.zeros(width)
    for top in range(y, plain.height - height + 1, height):
        inked = np.flatnonzero(ink[top : top + height].any(axis=0))
        if len(inked) < 2:
            continue
        gaps = np.diff(inked) - 1  # empty pixel columns between two inked ones
        for start, gap in zip(inked[:-1], gaps, strict=True):
            if SPACE[0] * width <= gap <= SPACE[1] * width:
                middle = start + 1 + gap / 2  # between pixel columns
                votes[int(middle - width / 2) % width] += 1
    if votes.sum() < SPACES:
        return None
    # Each middle votes for the cell start half a cell left of it; a cell's
    # start is a pixel column, the middle may fall between two.
    near = votes + np.roll(votes, 1) + np.roll(votes, -1)
    best = int(np.argmax(near))
    total = votes.sum()
    if near[best] >= SPACES_AGREE * total:
        return best
    if total < 2 * SPACES:
        return None
    # Spaces and the gaps between wide letters, half a cell apart, agree
    # on the phase the fold's thinnest column gives.
    half = round(width / 2)
    both = {
        phase: near[phase] + near[(phase + half) % width]
        for phase in ((thinnest + d) % width for d in (-1, 0, 1))
    }
    phase = max(both, key=lambda p: both[p])
    if both[phase] >= SPACES_WITH_WIDE * total:
        return phase
    return _with_narrow_wide_letters(votes, near, thinnest, width)


def _with_narrow_wide_letters(votes: Any, near: Any, thinnest: int, width: int) -> int | None:
    """The phase of the cells where wide letters narrower than their two
    cells are drawn from the pen (VTE, a CJK face's em under two cells):
    the gap after each is wider than the gap before the next, so its
    middle lies anywhere in the far half of a cell from the spaces'
    middles. The fold's ``thinnest`` column (or one beside it) is the
    phase when at least ``SPACES`` spaces vote for it, the gaps fall in
    that far half, and almost none (``BETWEEN``) fall between the two, as
    a proportional font's gaps fall everywhere. ``near``: each phase's
    votes with those of the phases beside it (the spaces' for a phase)."""
    total = float(votes.sum())
    best = None
    for phase in ((thinnest + d) % width for d in (-1, 0, 1)):
        distance = [min((p - phase) % width, (phase - p) % width) for p in range(width)]
        spaces = float(near[phase])
        far = sum(v for v, d in zip(votes, distance, strict=True) if d >= width / 4)
        between = total - spaces - far
        if spaces >= SPACES and between <= BETWEEN * total and (best is None or spaces > best[0]):
            best = (spaces, phase)
    return best[1] if best is not None else None


def _alone(rows: Any, x: int, height: int) -> bool:
    """Whether the line down pixel column ``x`` of ``rows`` (its rows) is
    alone in its cells: beside its own width (the columns next to it inked
    in nearly all its rows), within ``LINE_ALONE_REACH`` of a row either
    side, at most ``LINE_ALONE_INK`` of the pixels are inked (a joint's arm)."""
    reach = max(2, round(LINE_ALONE_REACH * height))
    left, right = max(0, x - reach), min(rows.shape[1], x + reach + 1)
    window = rows[:, left:right]
    own = window.mean(axis=0) >= LINE_OWN
    first = last = x - left
    while first > 0 and own[first - 1]:
        first -= 1
    while last + 1 < len(own) and own[last + 1]:
        last += 1
    beside = window.copy()
    beside[:, max(0, first - 1) : last + 2] = False  # its edges' anti-aliasing too
    return float(beside.mean()) <= LINE_ALONE_INK


def lines_down_phase(ink: Any, height: int, y: int) -> int:
    """Where the rows start (a phase of ``height``), given ``y`` from the
    gaps between lines of text: box drawing run down the rows (a tree's
    ``│``, a pane's border) over ``LINE_DOWN_ROWS`` or more starts and ends
    at a cell's edge (where its first cell has an arm up, its last one
    down) or its middle (``┌``, ``└``), never elsewhere. The gaps between
    lines of text (descenders below, capitals above) may miss the cells'
    edges by a pixel or two, and a joint's arm that reaches the edge then
    shows none there. The edge those lines' ends near ``y`` agree on
    (``LINE_DOWN_AGREE``, within ``LINE_DOWN_MOVE``: a middle is half a
    row away), else ``y``.
    ``ink``: boolean pixels, bars (a scrollbar, a frame) left out."""
    import numpy as np

    # A line over a row or more crosses the rows at ``y``'s phase: only
    # the columns inked there are looked at (a few, on a page of text).
    crossing = np.flatnonzero(ink[y % height :: height].any(axis=0))
    # Each column's runs of ink, top to bottom: where each starts and ends
    # (columns first, so the n-th start and the n-th end are one run's).
    steps = np.diff(ink[:, crossing].T.astype(np.int8), axis=1, prepend=0, append=0)
    columns, tops = np.nonzero(steps == 1)
    _, ends = np.nonzero(steps == -1)
    inside = (tops > 0) & (ends < ink.shape[0])  # not cut by the region's edge
    lines = inside & (ends - tops >= LINE_DOWN_ROWS * height)
    # A line drawn down the cells is alone in them: glyphs touching across
    # tight rows (Hermit's in Konsole) have their bowls beside their stems.
    for i in np.flatnonzero(lines).tolist():
        lines[i] = _alone(ink[tops[i] : ends[i]], int(crossing[columns[i]]), height)
    # One line is no evidence (two glyphs touching in tight rows run as
    # far); a line two pixels wide is one line.
    runs = set(zip(tops[lines].tolist(), ends[lines].tolist(), strict=True))
    if len(runs) < LINE_DOWN_LEAST:
        return y
    ordered = sorted(runs)
    moves = (np.array([edge for run in ordered for edge in run]) - y) % height
    moves = np.where(moves > height / 2, moves - height, moves)  # the nearer way
    close = np.abs(moves) <= LINE_DOWN_MOVE * height
    near = moves[close]
    # Nor are the ends of one line: two letters touching (a ``p`` over a
    # ``b`` in Hermit's tight rows) end where the glyphs do.
    if len({ordered[i // 2] for i in np.flatnonzero(close).tolist()}) < LINE_DOWN_NEAR:
        return y
    values, counts = np.unique(near, return_counts=True)
    best = int(np.argmax(counts))
    return y + int(values[best]) if counts[best] >= LINE_DOWN_AGREE * len(near) else y
