"""Ink drawn past its cell, given back to the cell it belongs to
(``noru.ocr.terminal`` reads the rows; ``noru.ocr.terminal_chrome`` leaves
out what is no text).

- ``without_spilt_lines``: an underline drawn across the rows' edge (Konsole
  draws a man page's two pixels thick) is no text in the row below.
- ``without_spilt_glyphs``: the tip of a glyph drawn past its row (a taller
  fallback face's ``✔``, a descender in tight rows) is no mark in the next.
- ``without_spilt_arms``: the end of a ``─`` drawn past its cell (from a
  fallback face wider than the cells) is no part of the letter after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noru.ocr.terminal_grid import Cells
from noru.ocr.terminal_ink import INK, PAPER

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["without_spilt_arms", "without_spilt_glyphs", "without_spilt_lines"]

# A glyph's tip drawn past its cell reaches this share of a row's height into
# the next row at most (``without_spilt_glyphs``).
SPILL = 0.25
# A line's arm drawn past its cell (``─`` from a wider fallback face) reaches
# this share of a cell's width into the next cell at most
# (``without_spilt_arms``), and is at most this share of a row's height thick.
ARM_SPILL = 0.3
ARM_THICK = 0.2


def without_spilt_lines(dark: Image.Image, cells: Cells) -> Image.Image:
    """``dark`` without the part of an underline that a row's underline puts
    in the next row's top pixels (Konsole draws a man page's underline two
    pixels thick across the rows' edge): where the last pixel row of a row
    and the first of the next are both inked along a run of two cells or
    more, the next row's is the line's, not its text's (a space below it
    read as ``¯``)."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    inked = pixels < 255 - INK
    found = np.zeros(pixels.shape, dtype=bool)
    for row in range(1, cells.rows):
        edge = cells.y + row * cells.height
        if not 0 < edge < pixels.shape[0]:
            continue
        both = np.concatenate([[False], inked[edge - 1] & inked[edge], [False]])
        changes = np.flatnonzero(np.diff(both.astype(np.int8)))
        for start, end in zip(changes[::2], changes[1::2], strict=True):
            if end - start >= 2 * cells.width:
                found[edge, start:end] = True
    if not found.any():
        return dark
    return Image.fromarray(np.where(found, np.uint8(255), pixels))


def without_spilt_glyphs(dark: Image.Image, cells: Cells) -> Image.Image:
    """``dark`` without the tips of glyphs drawn past their cells into the
    row above or below (a ``✔`` or a Powerline arrow from a taller fallback
    face, a descender in tight rows): where a cell's ink lies only within
    ``SPILL`` of a row's height from its edge with the next row, runs
    across that edge into a glyph there that reaches beyond it, and crosses
    the edge only where that glyph does (a ``_`` along the whole edge is
    its own), it is that glyph's, not a character (``|``, ``.``, `````)."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    inked = pixels < 255 - INK
    # A tip may be only faint (anti-aliasing: a descender's last pixel row),
    # yet ink to the cell it falls in: one with no darker pixel is taken as
    # far as the paper (a comma's or a quote's core is dark).
    faint = pixels < 255 - PAPER
    high, wide = cells.height, cells.width
    reach = max(2, round(SPILL * high))
    found = np.zeros(inked.shape, dtype=bool)
    first, last = _whole_columns(cells, inked.shape[1])
    for row in range(1, cells.rows if last > first else 0):
        edge = cells.y + row * high
        if edge - high < 0 or edge + high > inked.shape[0]:
            continue
        strong = inked[edge - 1] & inked[edge]
        crossing = strong | (inked[edge - 1] & faint[edge]) | (faint[edge - 1] & inked[edge])
        if not crossing.any():
            continue
        span = crossing[cells.x + first * wide : cells.x + last * wide]
        for column in first + np.flatnonzero(span.reshape(last - first, wide).any(axis=1)):
            x = cells.x + int(column) * wide
            upper = inked[edge - high : edge, x : x + wide]
            lower = inked[edge : edge + high, x : x + wide]
            across = strong[x : x + wide].any()
            if (
                not upper[: high - reach].any()
                and lower[reach:].any()
                and (
                    (across and _within(upper[-1], lower[0]))
                    or (not upper.any() and _within(faint[edge - 1, x : x + wide], lower[0]))
                )
            ):
                found[edge - reach : edge, x : x + wide] = True  # the glyph below's tip
            elif (
                not lower[reach:].any()
                and upper[: high - reach].any()
                and (
                    (across and _within(lower[0], upper[-1]))
                    or (not lower.any() and _within(faint[edge, x : x + wide], upper[-1]))
                )
            ):
                found[edge : edge + reach, x : x + wide] = True  # the glyph above's tip
    if not found.any():
        return dark
    return Image.fromarray(np.where(found, np.uint8(255), pixels))


def without_spilt_arms(dark: Image.Image, cells: Cells) -> Image.Image:
    """``dark`` without the ends of lines drawn past their cells into the
    next cell on the row (rxvt-unicode draws a ``─`` from a fallback face
    wider than the cell, so pstree's ``├─postgres`` has a stub glued to
    the ``p``): where a cell's ink is one thin line across it alone (at
    most ``ARM_THICK`` of the row's height), the next cell's first columns
    inked only on the line's rows (a pixel either side) are the line's,
    if ink of that cell's own lies beyond them (``_arm_spill``: a ``-``, a
    ``─`` or a joint there is its own). The same leftwards, for a line
    whose arm starts its cell."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(dark, dtype=np.uint8)
    inked = pixels < 255 - INK
    high, wide = cells.height, cells.width
    thick = max(2, round(ARM_THICK * high))
    reach = max(1, round(ARM_SPILL * wide))
    first, last = _whole_columns(cells, inked.shape[1])
    found = np.zeros(inked.shape, dtype=bool)
    for row in range(cells.rows if last - first > 1 else 0):
        top = cells.y + row * high
        if top < 0 or top + high > inked.shape[0]:
            continue
        x0 = cells.x + first * wide
        band = inked[top : top + high, x0 : x0 + (last - first) * wide]
        grid = band.reshape(high, last - first, wide)
        # Where a cell's edge column and its neighbour's touching one share ink.
        meets = (grid[:, :-1, -1] & grid[:, 1:, 0]).any(axis=0)
        for left in np.flatnonzero(meets):
            for line, other, flip in ((left, left + 1, False), (left + 1, left, True)):
                arm = grid[:, line, ::-1] if flip else grid[:, line]
                cell = grid[:, other, ::-1] if flip else grid[:, other]
                spill = _arm_spill(arm, cell, thick, reach)
                if spill is not None:
                    rows, columns = spill
                    start = x0 + int(other) * wide
                    xs = (
                        range(start + wide - columns, start + wide)
                        if flip
                        else range(start, start + columns)
                    )
                    found[top + rows.start : top + rows.stop, xs.start : xs.stop] = True
                    break
    if not found.any():
        return dark
    return Image.fromarray(np.where(found, np.uint8(255), pixels))


def _arm_spill(arm: Any, cell: Any, thick: int, reach: int) -> tuple[range, int] | None:
    """The rows and the count of first columns of ``cell`` that are the end
    of a ``─`` in ``arm`` (the cell on its left, both as if the line ran
    rightwards), or None: ``arm``'s ink is one line across its whole width,
    thin, about the row's middle, and does not go on across ``cell``; and
    the ink of ``cell`` past the columns inked only there reaches neither
    its top nor its bottom pixel row (a box drawing's stroke does: ``├``'s
    arm is its own)."""
    import numpy as np

    edge = np.flatnonzero(arm[:, -1])
    high, wide = arm.shape
    if not len(edge) or edge[-1] - edge[0] + 1 != len(edge) or len(edge) > thick:
        return None  # no line, or more than one (an ``=``)
    if not high / 4 <= (edge[0] + edge[-1]) / 2 <= 3 * high / 4:
        return None  # an underline's or an overline's end
    if not arm[edge[0] : edge[-1] + 1].all(axis=1).any():
        return None  # not a line across the cell: a glyph's stroke
    rows = range(max(0, edge[0] - 1), min(high, edge[-1] + 2))
    outside = np.ones(high, dtype=bool)
    outside[rows.start : rows.stop] = False
    if arm[outside].any():
        return None  # a glyph with a bar (a ``t``, an ``f``), not a ``─``
    if cell[rows.start : rows.stop].all(axis=1).any():
        return None  # the line goes on across the cell: a joint's (``─┬``)
    columns = 0
    while columns < wide and cell[:, columns].any() and not cell[outside, columns].any():
        columns += 1
    if not columns or columns > reach or not cell[:, columns:].any():
        return None
    if cell[[0, -1], columns:].any():
        return None
    return rows, columns


def _whole_columns(cells: Cells, width: int) -> tuple[int, int]:
    """The first grid column wholly in an image ``width`` pixels wide, and
    the one past the last."""
    return max(0, -(cells.x // cells.width)), min(cells.columns, (width - cells.x) // cells.width)


def _within(tip: Any, glyph: Any) -> bool:
    """Whether the inked pixels of a tip's row at the edge all lie within a
    pixel of the glyph's inked pixels across it."""
    near = glyph.copy()
    near[1:] |= glyph[:-1]
    near[:-1] |= glyph[1:]
    return bool(tip.any() and not (tip & ~near).any())
