"""Lines as written, not as wrapped: a terminal's rows joined where a line
runs on, for detection, and what is found given back to each row.

A terminal draws a line longer than it is wide on as many rows as it takes,
cut at the last column wherever that falls: a 60-character ``ghp_`` token
after ``export GITHUB_TOKEN=`` leaves 20 characters on the next row, too
few for any rule, and a service account's ``"private_key"`` value takes
fourteen rows of which only the first has the label. So rows are joined as
the terminal wrapped them, and each finding in what is joined is given back
to each row as its part, to be replaced and filled there.

A row is continued by the next one (``written``) when:

- the row's ink reaches its grid's last column: its text (from the grid's
  first column, indentation as spaces) is as long as the grid is wide.
  The terminal reader records the grid's width on each row
  (``OcrLine.columns``). Rows stored before it did have none: their grid
  is known from their boxes (``grid_of``: whole cells of one pitch, from
  one first column, ``GRID_ROWS`` of them) and its right edge taken as its
  widest row's;
- the next row lies on the same grid, one row below, and starts at the
  grid's first column with a character;
- one space at the seam is the line's own, where the terminal cut it
  (after a label's ``:``, after ``Bearer``): the row may end a cell short
  of the last column (its last cell blank), or the next row start with
  one space, not both. Two spaces at the seam are indentation: the next
  row is a line of its own, not the rest of one.

An app that wraps a long line softly (an editor, a browser's text field)
may give it whole in its accessibility text: a secret found there has its
parts in the OCR lines of the same image taken out too (``parts_of``).

A line exactly as wide as its terminal that is not continued looks the
same as one that is: its next row is then joined to it too. What is found
in the joined text is taken with what is found in each row on its own (no
row loses a finding by being joined), so a join made in error can only
widen what is redacted, never narrow it; prose joins into prose, which no
rule takes for a secret.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from noru.geometry import Rect
from noru.redact.detect import NEAR, Allowed, Finding, Own, find, find_lines, find_near
from noru.store import OcrLine

__all__ = [
    "GRID_ROWS",
    "PART_LEAST",
    "SEAM_SPACES",
    "cells_of",
    "find_written",
    "grid_of",
    "merged",
    "parts_of",
    "written",
]

# Lines of an image on one grid that make each of them a grid's row.
GRID_ROWS = 3
# A private key written into one line, its line breaks escaped (a service
# account's JSON ``"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE..."``):
# too long for a labelled value, and no PEM lines around it.
_KEY_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----", re.ASCII)
_KEY_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----", re.ASCII)
# A word of an OCR line at least this long that is part of a secret found
# whole elsewhere in its image (its accessibility text) is that secret's part.
PART_LEAST = 6
# Spaces at a seam (a row's blank last cells, the next row's first ones)
# that can be its line's own, where it was cut; more is indentation.
SEAM_SPACES = 1


def cells_of(box: Rect, text: str) -> tuple[int, int] | None:
    """A line's pitch and first column's x if its box is whole cells, one per
    character after its indentation; else None."""
    lead = len(text) - len(text.lstrip(" "))
    drawn = len(text) - lead
    if drawn <= 0 or box[2] <= 0 or box[2] % drawn:
        return None
    pitch = box[2] // drawn
    return pitch, box[0] - lead * pitch


def grid_of(lines: Sequence[OcrLine]) -> list[tuple[int, int] | None]:
    """Each line's grid (pitch, first column's x) where it is a grid's row
    (``GRID_ROWS`` of the lines on one grid, or its width recorded); else None."""
    found = [cells_of(line.box, line.text) for line in lines]
    shared = Counter(cells for cells in found if cells is not None)
    return [
        cells if cells is not None and (shared[cells] >= GRID_ROWS or line.columns) else None
        for cells, line in zip(found, lines, strict=True)
    ]


def _widths(lines: Sequence[OcrLine], grids: Sequence[tuple[int, int] | None]) -> list[int | None]:
    """Each grid row's grid width in cells: as recorded; for a row without
    (stored before it was), its grid's widest row's."""
    widest: dict[tuple[int, int], int] = {}
    for line, grid in zip(lines, grids, strict=True):
        if grid is not None and line.columns is None:
            widest[grid] = max(widest.get(grid, 0), len(line.text))
    return [
        None if grid is None else line.columns if line.columns is not None else widest[grid]
        for line, grid in zip(lines, grids, strict=True)
    ]


def written(lines: Sequence[OcrLine]) -> list[list[int]]:
    """The lines (by index, in order) as written: each entry the rows one
    line was wrapped over, most of them one row (see the module's doc)."""
    grids = grid_of(lines)
    return _written(lines, grids, _widths(lines, grids))


def _written(
    lines: Sequence[OcrLine],
    grids: Sequence[tuple[int, int] | None],
    widths: Sequence[int | None],
    kept: Collection[int] = (),
) -> list[list[int]]:
    """The groups of rows joined; a row of ``kept`` is joined with none."""
    groups: list[list[int]] = []
    for i in range(len(lines)):
        before = groups[-1][-1] if groups else None
        if (
            before is not None
            and before not in kept
            and i not in kept
            and _continues(lines, grids, widths, before, i)
        ):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _continues(
    lines: Sequence[OcrLine],
    grids: Sequence[tuple[int, int] | None],
    widths: Sequence[int | None],
    before: int,
    after: int,
) -> bool:
    """Whether line ``after`` is the rest of line ``before`` (the module's doc)."""
    grid, width = grids[before], widths[before]
    if grid is None or width is None or grids[after] != grid or widths[after] != width:
        return False
    row, next_row = lines[before], lines[after]
    if len(row.text) < width - SEAM_SPACES or next_row.box[1] != row.box[1] + row.box[3]:
        return False
    # The spaces at the seam: the row's blank last cells and the next row's
    # first ones (a row's text ends at its last inked cell).
    lead = len(next_row.text) - len(next_row.text.lstrip(" "))
    return width - len(row.text) + lead <= SEAM_SPACES and lead < len(next_row.text)


def find_written(
    lines: Sequence[OcrLine],
    categories: Collection[str],
    own: Sequence[Own | Allowed] = (),
    *,
    near: Sequence[Sequence[int] | None] | None = None,
    reach: int = NEAR,
    alone_at_joins: bool = False,
) -> tuple[list[list[Finding]], list[list[int]]]:
    """What is found in each line, its rows joined as written (``written``),
    each finding given back to each row it lies in as that row's part; and
    the groups of rows joined. A row joined with others is searched on its
    own too: joining never takes a finding away.

    ``near``: per line, None to search it whole, or the points around which
    alone it is searched (``find_near``, ``reach``): it is written whole
    elsewhere (a line a display's seam cuts: as the whole screen shows it),
    so it is joined with no row here. ``alone_at_joins``: a row joined with
    others is searched on its own only where it is joined (``reach``):
    elsewhere the line joined holds the same text."""
    grids = grid_of(lines)
    widths = _widths(lines, grids)
    # A row searched only around its points is written whole elsewhere.
    kept = {i for i, points in enumerate(near or ()) if points is not None}
    groups = _written(lines, grids, widths, kept)
    # A row's blank last cell (cut at a space) is a space of the line.
    padded = [
        line.text.ljust(width) if width is not None else line.text
        for line, width in zip(lines, widths, strict=True)
    ]
    joined = ["".join(padded[i] for i in group[:-1]) + lines[group[-1]].text for group in groups]
    if near is None:
        found_joined = find_lines(joined, categories, own)
    else:
        points = _joins(groups, near)
        found_joined = find_near(joined, points, categories, own, reach=reach)
    if "secrets" in categories:
        found_joined = [
            merged(found, _inline_keys(text)) if "-----BEGIN" in text else found
            for text, found in zip(joined, found_joined, strict=True)
        ]
    found: list[list[Finding]] = [[] for _ in lines]
    for group, findings in zip(groups, found_joined, strict=True):
        if len(group) == 1:
            found[group[0]] = findings
            continue
        starts, at = [], 0
        for i in group:
            starts.append(at)
            at += len(padded[i])
        for k, (i, start) in enumerate(zip(group, starts, strict=True)):
            text = lines[i].text
            end = start + len(text)
            parts = [
                Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind)
                for f in findings
                if f.start < end and f.end > start
            ]
            if alone_at_joins:
                ends = [0] * (k > 0) + [len(text)] * (k < len(group) - 1)
                alone = find_near([text], [ends], categories, own, reach=reach)[0]
            else:
                alone = find(text, categories, own)
            found[i] = merged(parts, alone)
    return found, groups


def _joins(
    groups: Sequence[Sequence[int]], near: Sequence[Sequence[int] | None]
) -> list[Sequence[int] | None]:
    """Per group of rows joined, where ``find_near`` searches its text:
    around a row's points, or whole (None) where rows are joined."""
    return [near[group[0]] if len(group) == 1 else None for group in groups]


def _inline_keys(text: str) -> list[Finding]:
    """Each private key's body in one line: from its BEGIN marker to its END
    marker, or to the line's end (the rest of it cut off the screen). A
    line holding only the BEGIN marker is a PEM block's first line, whose
    body is on the lines after it (``find_lines``)."""
    found = []
    for begin in _KEY_BEGIN.finditer(text):
        end = _KEY_END.search(text, begin.end())
        stop = end.start() if end is not None else len(text)
        if text[begin.end() : stop].strip(" \\n\"',"):
            found.append(Finding(begin.end(), stop, "private-key"))
    return found


def parts_of(text: str, values: Sequence[tuple[str, str]]) -> list[Finding]:
    """The words of ``text`` (an OCR line) that are parts of ``values``
    (``(value, kind)``: secrets found whole in the image's accessibility
    text, where an app gives a soft-wrapped line whole): a word of
    ``PART_LEAST`` characters or more inside a value; a shorter one only
    where the line wraps a value, as its first word ending the value, or
    its last word starting it."""
    found = []
    words = list(re.finditer(r"\S+", text))
    for n, word in enumerate(words):
        part = word[0]
        for value, kind in values:
            if len(part) >= PART_LEAST and part in value:
                hit = True
            else:
                tail = n == 0 and value.endswith(part) and len(part) < len(value)
                head = n == len(words) - 1 and value.startswith(part)
                hit = len(part) >= 2 and (tail or head)
            if hit:
                found.append(Finding(word.start(), word.end(), kind))
                break
    return found


def merged(first: Sequence[Finding], then: Sequence[Finding]) -> list[Finding]:
    """Findings left to right, overlapping ones as one: the span of both, the
    kind of the one that starts first (the joined line's, where both do)."""
    out: list[Finding] = []
    for finding in sorted([*first, *then], key=lambda f: (f.start, -f.end)):
        if out and finding.start < out[-1].end:
            last = out[-1]
            out[-1] = Finding(last.start, max(last.end, finding.end), last.kind)
        else:
            out.append(finding)
    return out
