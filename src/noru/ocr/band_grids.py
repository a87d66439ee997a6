"""One grid for the bands of one terminal.

A big region is read in bands, each a job of its own (``noru.ocr.regions``),
and each band finds its monospace grid alone (``noru.ocr.terminal_grid``).
The cell size and where the cells' edges fall agree between the bands of
one terminal, but where its first column starts may not: a band with no ink
in the first column (the indented body of a man page, the numbered lines
under a pager's header) cannot tell the terminal's padding from a column
left blank, and starts its grid a cell or more to the right. Its rows then
lose that many spaces of indentation, and its row width is that much short
(which a token wrapped at the grid's last column needs).

The band whose grid starts furthest left saw ink there: its first column is
the terminal's, and the other bands' rows are counted from it. Then the
rows of all the bands are one grid's, and box drawing is joined across a
band's edge as within a band (``noru.ocr.box_joints``): a tree's ``├`` in a
band's last row reaches the ``│`` in the next band's first.

Pure Python.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from noru.ocr import box_joints
from noru.ocr.base import OcrLine
from noru.ocr.regions import Job
from noru.ocr.terminal_baselines import PHASE_SLACK

__all__ = ["one_grid"]


def _grid(line: OcrLine) -> tuple[int, int, int] | None:
    """A grid row's cell width, height and where its first column starts, in
    the image's pixels; None for any other line."""
    if line.columns is None:
        return None
    text = line.text.rstrip(" ")
    lead = len(text) - len(text.lstrip(" "))
    cells = len(text) - lead
    x, _, width, height = line.box
    if cells <= 0 or width % cells:
        return None
    pitch = width // cells
    return pitch, height, x - lead * pitch


def _band_grid(lines: Sequence[OcrLine]) -> tuple[int, int, int] | None:
    """The grid most of a band's rows lie on."""
    found = Counter(g for g in map(_grid, lines) if g is not None)
    return found.most_common(1)[0][0] if found else None


def _shifted(line: OcrLine, cells: int) -> OcrLine:
    """A row of a grid whose first column lies ``cells`` further left."""
    if line.columns is None:
        return line
    return dataclasses.replace(
        line,
        text=" " * cells + line.text,
        columns=line.columns + cells,
        unexplained=tuple((a + cells, b + cells, p) for a, b, p in line.unexplained),
    )


def one_grid(jobs: Sequence[Job], results: Sequence[list[OcrLine]]) -> list[list[OcrLine]]:
    """Each job's lines, the rows of the bands of one region counted from
    the first column the region's bands found (see the module's doc): where
    two bands' cells are alike and their edges fall in step (within the
    pixel or two a grid found from the gaps between glyphs may be off), the
    band whose grid starts to the right gets the columns it could not see."""
    grids = [
        _band_grid(lines) if job.unit >= 0 else None
        for job, lines in zip(jobs, results, strict=True)
    ]
    first: dict[tuple[int, int, int], int] = {}  # unit, pitch, height: the leftmost start
    for job, grid in zip(jobs, grids, strict=True):
        if grid is not None:
            pitch, height, start = grid
            key = (job.unit, pitch, height)
            first[key] = min(first.get(key, start), start)
    aligned: list[list[OcrLine]] = []
    for job, grid, lines in zip(jobs, grids, results, strict=True):
        cells = 0
        if grid is not None:
            pitch, height, start = grid
            off = start - first[(job.unit, pitch, height)]
            cells = round(off / pitch)
            if abs(off - cells * pitch) > max(1, round(PHASE_SLACK * pitch)):
                cells = 0  # out of step: another grid, not this one moved
        if cells == 0:
            aligned.append(list(lines))
            continue
        # Only the rows on the band's grid move: a strip beside it (a title
        # bar read as sparse text) has no columns.
        aligned.append([_shifted(line, cells) if _grid(line) == grid else line for line in lines])
    return _joined(jobs, aligned)


def _joined(jobs: Sequence[Job], results: list[list[OcrLine]]) -> list[list[OcrLine]]:
    """``results`` with the box drawing of each region read in several bands
    joined across the bands' edges. A region whose rows do not fall one a
    pixel row of its own (two lines at one row) is left as it is."""
    members: dict[int, list[tuple[int, int]]] = {}  # unit: (job, line) of its grid rows
    for j, (job, lines) in enumerate(zip(jobs, results, strict=True)):
        if job.unit >= 0:
            members.setdefault(job.unit, []).extend(
                (j, k) for k, line in enumerate(lines) if line.columns is not None
            )
    for found in members.values():
        if len({j for j, _ in found}) < 2:
            continue  # one band: joined as it was read
        height = Counter(results[j][k].box[3] for j, k in found).most_common(1)[0][0]
        top = min(results[j][k].box[1] for j, k in found)
        rows: dict[int, tuple[int, int]] = {}
        for j, k in found:
            rows.setdefault(round((results[j][k].box[1] - top) / height), (j, k))
        if len(rows) < len(found):
            continue
        texts = box_joints.join({row: results[j][k].text for row, (j, k) in rows.items()})
        for row, (j, k) in rows.items():
            if texts[row] != results[j][k].text:
                results[j][k] = dataclasses.replace(results[j][k], text=texts[row])
    return results
