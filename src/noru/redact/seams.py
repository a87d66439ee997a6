"""Lines as the whole screen shows them: a line a display's edge cuts is
searched as one across the seam, and what is found is given back to each part.

A capture of all displays is one image per display, each read on its own.
A window that straddles two displays has its lines cut at the seam, and
each half alone lacks the prefix or the length a rule needs. Each image's
place on the whole screen (``ImageRecord.screen_rect``, root coordinates)
puts the halves side by side again. A line of one image is continued by a
line of the image to its right (``seam_lines``) when:

- the first runs to within ``SEAM_REACH`` of its height of the seam, and
  the second starts as near it on the other side;
- they lie at one height: they share ``LEVEL`` of the taller one's height;
- where the images' windows are known, both lie in parts of one window:
  a window of each image touching the seam, at the same top and height.

A terminal's rows cut by the seam are one grid on both sides (its pitch,
and its columns in phase): the rows of that grid are put together whole
and searched as the terminal wrapped them (``noru.redact.wrap``), so a
token cut at the last column and at the seam is found whole too. The seam
usually cuts a cell in two: the engine reads half a glyph as something else
(a ``\\`` for an ``h``), or on neither side. That cell is taken as a
token's character (``CUT_AS``) between two of a token's, and a long run of
them across the seam is also tried with it as each of ``CUT_VARIANTS`` (a
prefix's ``_`` or ``-``). Proportional text is joined as read, with a space
where the parts lie apart, and a long run across the seam is also tried
without it and with ``CUT_AS`` there.

What is found in the joined text is given back to each part, to be
replaced and filled there; a part a secret runs into the seam with also
has the strip between its box and the seam filled (the half glyph no line
holds). Each part is also searched on its own (``apply``), so a join made
in error can only widen what is redacted.

A line cut by a horizontal seam (a window straddling displays one above
the other) has half of each glyph on each side; neither half is text, and
nothing is joined there.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from noru.geometry import Rect
from noru.redact.detect import Allowed, Finding, Own, find, find_lines
from noru.redact.wrap import find_written, grid_of, merged
from noru.store import ImageRecord, OcrLine

__all__ = [
    "CUT_AS",
    "CUT_VARIANTS",
    "LEVEL",
    "SEAM_REACH",
    "TOKEN_RUN",
    "Across",
    "across",
    "seam_lines",
]

# How near its seam (in its line's heights) a part must end, or start.
SEAM_REACH = 0.9
# How much of the taller part's height two parts of one line share.
LEVEL = 0.6
# Parts of a proportional line further apart than this (line heights): a space.
WIDE_GAP = 0.25
# What a cell the seam cuts counts as between two of a token's characters.
CUT_AS = "x"
# A run of a token's characters across the seam at least this long is also
# tried with the cut cell (or the junction) as each of these.
TOKEN_RUN = 8
CUT_VARIANTS = ("_", "-", ".")
_TOKENISH = re.compile(r"[A-Za-z0-9_\-.+/=~]")


@dataclass(frozen=True)
class _Placed:
    """One OCR line and where it lies on the whole screen (root coordinates)."""

    image: int
    index: int
    line: OcrLine
    left: float
    top: float
    right: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(frozen=True)
class _Part:
    """A part of a joined line: line ``index`` of ``image``, whose first
    ``length`` characters are at ``offset`` in the joined text."""

    image: int
    index: int
    offset: int
    length: int


@dataclass(frozen=True)
class _Joined:
    """A line put together across a seam: its text and where its parts lie
    in it; ``variants``: the same line with the cut cell or the junction
    read otherwise (the parts where they are)."""

    text: str
    parts: tuple[_Part, ...]
    variants: tuple[str, ...] = ()


@dataclass(frozen=True)
class Across:
    """What searching across the seams found: per image, per OCR line, the
    spans to merge with what the line gives alone; per image, the strips
    between a secret's part and its seam, to fill (image pixels)."""

    found: tuple[tuple[tuple[Finding, ...], ...], ...]
    strips: tuple[tuple[Rect, ...], ...]
    columns: dict[tuple[int, int], int]

    def lines(self, position: int, lines: Sequence[OcrLine]) -> list[OcrLine]:
        """Image ``position``'s ``lines`` as its own rows are searched: a
        terminal's row the seam cuts is not at its grid's last column there
        (its grid is as wide as it is on both sides, ``columns``), so it is
        not joined with the row below as if the terminal had wrapped it."""
        return [
            replace(line, columns=self.columns.get((position, i), line.columns))
            for i, line in enumerate(lines)
        ]


def _scale(image: ImageRecord) -> tuple[float, float]:
    """Root units per image pixel, across and down."""
    assert image.screen_rect is not None
    _, _, w, h = image.screen_rect
    return w / image.width, h / image.height


def _placed(position: int, image: ImageRecord) -> list[_Placed]:
    assert image.screen_rect is not None
    sx, sy, _, _ = image.screen_rect
    fx, fy = _scale(image)
    return [
        _Placed(position, i, line, sx + x * fx, sy + y * fy, sx + (x + w) * fx, sy + (y + h) * fy)
        for i, line in enumerate(image.ocr_lines or ())
        for x, y, w, h in [line.box]
        if line.text.strip()
    ]


def _seams(images: Sequence[ImageRecord]) -> list[tuple[int, int]]:
    """Pairs of images (left, right) whose rectangles meet at a vertical edge."""
    pairs = []
    for i, a in enumerate(images):
        for j, b in enumerate(images):
            if i == j or a.screen_rect is None or b.screen_rect is None:
                continue
            ax, ay, aw, ah = a.screen_rect
            bx, by, _, bh = b.screen_rect
            if ax + aw == bx and max(ay, by) < min(ay + ah, by + bh):
                pairs.append((i, j))
    return pairs


def _windows_at(image: ImageRecord, side: str) -> list[tuple[float, float]] | None:
    """The tops and bottoms (root) of ``image``'s windows touching its
    ``side`` edge; None when its windows are not known."""
    if not image.windows or image.screen_rect is None:
        return None
    sy = image.screen_rect[1]
    fy = _scale(image)[1]
    edge = 0 if side == "left" else image.width
    return [
        (sy + y * fy, sy + (y + h) * fy)
        for x, y, w, h in image.windows
        if (x if side == "left" else x + w) == edge
    ]


def _beyond(
    images: Sequence[ImageRecord],
    grids: dict[int, list[tuple[int, int] | None]],
    left: int,
    right: int,
) -> dict[tuple[int, int], int]:
    """The grid rows of image ``left`` in a window the seam cuts (a window
    of each image touching it, at one top and height), each with its grid's
    width counted on to the window's far edge on the right."""
    image, other = images[left], images[right]
    if not image.windows or not other.windows:
        return {}
    assert image.screen_rect is not None and other.screen_rect is not None
    fx, fy = _scale(image)
    fx_other, fy_other = _scale(other)
    # Each window of the right image at the seam: its top, height and width (root).
    cut = [
        (other.screen_rect[1] + y * fy_other, h * fy_other, w * fx_other)
        for x, y, w, h in other.windows
        if x == 0
    ]
    out: dict[tuple[int, int], int] = {}
    for x, y, w, h in image.windows:
        top, height = image.screen_rect[1] + y * fy, h * fy
        beyond = [
            width
            for other_top, other_height, width in cut
            if abs(other_top - top) <= 1.5 and abs(other_height - height) <= 1.5
        ]
        if x + w != image.width or not beyond:
            continue
        for i, line in enumerate(image.ocr_lines or ()):
            cells = grids[left][i]
            lx, ly, _, lh = line.box
            if cells is not None and x <= lx and y <= ly + lh / 2 <= y + h:
                more = math.ceil(beyond[0] / (cells[0] * fx))
                out[(left, i)] = (line.columns or len(line.text)) + more
    return out


def _one_window(
    a: _Placed, b: _Placed, left: list[tuple[float, float]], right: list[tuple[float, float]]
) -> bool:
    """Whether ``a`` and ``b`` lie in the two parts of one window at the seam."""
    ya, yb = (a.top + a.bottom) / 2, (b.top + b.bottom) / 2
    return any(
        abs(t1 - t2) <= 1.5 and abs(b1 - b2) <= 1.5 and t1 <= ya <= b1 and t2 <= yb <= b2
        for t1, b1 in left
        for t2, b2 in right
    )


def seam_lines(images: Sequence[ImageRecord]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The lines the seams cut: pairs of ``(image, line)``, the left part
    first (see the module's doc)."""
    return [
        ((a.image, a.index), (b.image, b.index))
        for left, right in _seams(images)
        for a, b in _pairs(images, left, right)
    ]


def _pairs(images: Sequence[ImageRecord], left: int, right: int) -> list[tuple[_Placed, _Placed]]:
    seam_rect = images[right].screen_rect
    assert seam_rect is not None
    seam = seam_rect[0]
    ends = [p for p in _placed(left, images[left]) if seam - p.right <= SEAM_REACH * p.height]
    starts = [p for p in _placed(right, images[right]) if p.left - seam <= SEAM_REACH * p.height]
    windows_l, windows_r = _windows_at(images[left], "right"), _windows_at(images[right], "left")
    known = windows_l is not None and windows_r is not None
    starts.sort(key=lambda p: p.top)
    tops = [p.top for p in starts]
    taken: set[int] = set()
    pairs = []
    for a in ends:
        best: tuple[float, _Placed] | None = None
        # Only the lines that can share its height (a line is at most twice another's).
        for b in starts[bisect_left(tops, a.top - 2 * a.height) :]:
            if b.top > a.bottom:
                break
            shared = min(a.bottom, b.bottom) - max(a.top, b.top)
            if b.index in taken or shared < LEVEL * max(a.height, b.height):
                continue
            if known and not _one_window(a, b, windows_l or [], windows_r or []):
                continue
            if best is None or shared > best[0]:
                best = (shared, b)
        if best is not None:
            taken.add(best[1].index)
            pairs.append((a, best[1]))
    return pairs


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _first_column(p: _Placed, pitch: float) -> float:
    """The root x of the first column of a grid row (its indentation included)."""
    return p.left - _lead(p.line.text) * pitch


def _grid_pitch(
    images: Sequence[ImageRecord], grids: dict[int, list[tuple[int, int] | None]], p: _Placed
) -> float | None:
    """A grid row's pitch in root units; None for a line not on a grid."""
    cells = grids[p.image][p.index]
    if cells is None:
        return None
    return cells[0] * _scale(images[p.image])[0]


def _run_across(text: str, at: int) -> int:
    """How many of a token's characters run on either side of ``at``."""
    start = at
    while start > 0 and _TOKENISH.match(text[start - 1]):
        start -= 1
    end = at
    while end < len(text) and _TOKENISH.match(text[end]):
        end += 1
    return end - start


def _cut_cell(text: str, at: int) -> tuple[str, tuple[str, ...]]:
    """``text`` with the cell at ``at`` the seam cut taken as a token's
    character between two of a token's; and its variants for a long run."""
    if at < 0 or at >= len(text):
        return text, ()
    read = text[at]
    before = text[at - 1] if at > 0 else " "
    after = text[at + 1] if at + 1 < len(text) else " "
    tokenish = bool(_TOKENISH.match(before)) and bool(_TOKENISH.match(after))
    main = text
    if tokenish and not read.isalnum():
        main = text[:at] + CUT_AS + text[at + 1 :]
    if _run_across(main, at) < TOKEN_RUN:
        return main, ()
    others = sorted({read, *CUT_VARIANTS} - {main[at], " "})
    return main, tuple(text[:at] + c + text[at + 1 :] for c in others)


@dataclass(frozen=True)
class _Grid:
    """A terminal's grid across a seam: its cells on each side (pitch and
    first column, image pixels), its pitch and first column on the whole
    screen, and where the right side's first column is in its cells."""

    left: int
    left_cells: tuple[int, int]
    right: int
    right_cells: tuple[int, int]
    pitch: float
    x0: float
    shift: int


def _shared_grids(
    images: Sequence[ImageRecord],
    grids: dict[int, list[tuple[int, int] | None]],
    pairs: list[tuple[_Placed, _Placed]],
) -> list[_Grid]:
    """The grids the pairs' parts share across the seam (same pitch, in phase)."""
    out: list[_Grid] = []
    for a, b in pairs:
        pitch, pitch_b = _grid_pitch(images, grids, a), _grid_pitch(images, grids, b)
        if pitch is None or pitch_b is None or abs(pitch - pitch_b) > 0.5:
            continue
        x0, x0_b = _first_column(a, pitch), _first_column(b, pitch)
        shift = round((x0_b - x0) / pitch)
        if shift < 0 or abs(x0_b - x0 - shift * pitch) > pitch / 4:
            continue  # not in phase: not one grid
        cells_a, cells_b = grids[a.image][a.index], grids[b.image][b.index]
        assert cells_a is not None and cells_b is not None
        grid = _Grid(a.image, cells_a, b.image, cells_b, pitch, x0, shift)
        if all(
            (g.left, g.left_cells, g.right, g.right_cells) != (a.image, cells_a, b.image, cells_b)
            for g in out
        ):
            out.append(grid)
    return out


def _rows_of(
    images: Sequence[ImageRecord],
    grids: dict[int, list[tuple[int, int] | None]],
    grid: _Grid,
    paired: dict[tuple[int, int], _Placed],
) -> list[tuple[_Placed | None, _Placed | None]]:
    """Every row of ``grid`` on either side, top to bottom, the parts of a
    row the seam cuts together."""
    rows: list[tuple[float, _Placed | None, _Placed | None]] = []
    taken = set()
    for p in _placed(grid.left, images[grid.left]):
        if grids[grid.left][p.index] == grid.left_cells:
            b = paired.get((p.image, p.index))
            if b is not None and b.image == grid.right:
                taken.add(b.index)
                rows.append((p.top, p, b))
            else:
                rows.append((p.top, p, None))
    for p in _placed(grid.right, images[grid.right]):
        if grids[grid.right][p.index] == grid.right_cells and p.index not in taken:
            rows.append((p.top, None, p))
    rows.sort(key=lambda r: r[0])
    return [(a, b) for _, a, b in rows]


def _grid_rows(
    images: Sequence[ImageRecord],
    grids: dict[int, list[tuple[int, int] | None]],
    pairs: list[tuple[_Placed, _Placed]],
    seam: float,
    columns: dict[tuple[int, int], int],
) -> tuple[list[OcrLine], list[_Joined]]:
    """The rows of the terminals the seam cuts, each put together whole
    (a row on one side only as it lies there), as lines for ``find_written``
    (in root coordinates), and where each row's parts lie in it."""
    lines: list[OcrLine] = []
    joined: list[_Joined] = []
    paired = {(a.image, a.index): b for a, b in pairs}
    for grid in _shared_grids(images, grids, pairs):
        right_lines = images[grid.right].ocr_lines or ()
        width = grid.shift + max(
            (
                line.columns or len(line.text)
                for i, line in enumerate(right_lines)
                if grids[grid.right][i] == grid.right_cells
            ),
            default=0,
        )
        step = round(grid.pitch)
        at = (seam - grid.x0) / grid.pitch
        cut = math.floor(at) if 0.5 / grid.pitch < at % 1 < 1 - 0.5 / grid.pitch else None
        for a, b in _rows_of(images, grids, grid, paired):
            parts, text = [], ""
            if a is not None:
                columns.setdefault((a.image, a.index), width)
                used = min(len(a.line.text), grid.shift)
                text = a.line.text[:used]
                parts.append(_Part(a.image, a.index, 0, used))
            if b is not None:
                parts.append(_Part(b.image, b.index, grid.shift, len(b.line.text)))
                text = text.ljust(grid.shift) + b.line.text
            variants: tuple[str, ...] = ()
            if cut is not None and a is not None and b is not None:
                text, variants = _cut_cell(text, cut)
            placed = a if a is not None else b
            assert placed is not None
            lead = _lead(text)
            drawn = len(text) - lead
            box = (
                round(grid.x0) + lead * step,
                round(placed.top),
                drawn * step,
                round(placed.height),
            )
            lines.append(OcrLine(text, box, placed.line.confidence, width))
            joined.append(_Joined(text, tuple(parts), variants))
    return lines, joined


def _proportional(
    pairs: list[tuple[_Placed, _Placed]], on_grid: set[tuple[int, int]]
) -> list[_Joined]:
    """The pairs not on a shared grid, joined as read: with a space where
    they lie apart; a long run across the seam also with ``CUT_AS`` there."""
    joined = []
    for a, b in pairs:
        if (a.image, a.index) in on_grid:
            continue
        ta, tb = a.line.text.rstrip(" "), b.line.text.lstrip(" ")
        lead_b = len(b.line.text) - len(tb)
        apart = b.left - a.right > WIDE_GAP * max(a.height, b.height)
        parts = (
            _Part(a.image, a.index, 0, len(ta)),
            _Part(b.image, b.index, len(ta) - lead_b, len(b.line.text)),
        )
        touching = _Joined(ta + tb, parts)
        spaced = _Part(b.image, b.index, len(ta) + 1 - lead_b, len(b.line.text))
        variants = (ta + CUT_AS + tb,) if _run_across(ta + tb, len(ta)) >= TOKEN_RUN else ()
        across_space = _Joined(ta + " " + tb, (parts[0], spaced), variants)
        joined += [across_space, touching] if apart else [touching, across_space]
    return joined


def _spans_seam(joined: _Joined, findings: Sequence[Finding]) -> bool:
    """Whether a finding already runs across the seam of ``joined``: its
    variants could not find more there."""
    if len(joined.parts) < 2:
        return False
    at = joined.parts[1].offset
    return any(f.start < at and f.end > at for f in findings)


def _given_back(
    joined: _Joined, findings: Sequence[Finding], found: list[list[list[Finding]]]
) -> None:
    for part in joined.parts:
        start, end = part.offset, part.offset + part.length
        local = [
            Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind)
            for f in findings
            if f.start < end and f.end > start
        ]
        local = [f for f in local if f.start >= 0 and f.end > f.start]
        if local:
            here = found[part.image][part.index]
            found[part.image][part.index] = merged(here, local)


def across(
    images: Sequence[ImageRecord],
    categories: Collection[str],
    own: Sequence[Own | Allowed] = (),
) -> Across | None:
    """What is found in the lines the seams between ``images`` cut, given
    back to each image's lines, and the widths of the terminals' grids the
    seams cut; None when no two images meet at a seam."""
    placed = [i for i, image in enumerate(images) if image.screen_rect and image.ocr_lines]
    if len(placed) < 2:
        return None
    seams = _seams(images)
    if not seams:
        return None
    grids = {i: grid_of(images[i].ocr_lines or ()) for i in placed}
    found: list[list[list[Finding]]] = [[[] for _ in image.ocr_lines or ()] for image in images]
    columns: dict[tuple[int, int], int] = {}
    every_pair: list[tuple[_Placed, _Placed]] = []
    for left, right in seams:
        if left not in grids or right not in grids:
            continue
        columns.update(_beyond(images, grids, left, right))
        pairs = _pairs(images, left, right)
        if not pairs:
            continue
        every_pair += pairs
        seam = images[right].screen_rect
        assert seam is not None
        rows, on_grid = _grid_rows(images, grids, pairs, float(seam[0]), columns)
        if rows:
            grid_found, _ = find_written(rows, categories, own)
            for joined, findings in zip(on_grid, grid_found, strict=True):
                for variant in () if _spans_seam(joined, findings) else joined.variants:
                    findings = merged(findings, find(variant, categories, own))
                _given_back(joined, findings, found)
        cut_rows = {(p.image, p.index) for j in on_grid if len(j.parts) == 2 for p in j.parts}
        loose = _proportional(pairs, cut_rows)
        loose_found = find_lines([j.text for j in loose], categories, own)
        for joined, findings in zip(loose, loose_found, strict=True):
            for variant in joined.variants:
                findings = merged(findings, find(variant, categories, own))
            _given_back(joined, findings, found)
    strips = _strips(images, found, every_pair)
    return Across(tuple(tuple(tuple(f) for f in lines) for lines in found), strips, columns)


def _strips(
    images: Sequence[ImageRecord],
    found: list[list[list[Finding]]],
    pairs: list[tuple[_Placed, _Placed]],
) -> tuple[tuple[Rect, ...], ...]:
    """Per image, the strips between a part a secret runs into its seam
    with and the image's edge there."""
    cut = {(p.image, p.index) for pair in pairs for p in pair}
    firsts = {(b.image, b.index) for _, b in pairs}
    out: list[tuple[Rect, ...]] = []
    for i, image in enumerate(images):
        strips: list[Rect] = []
        for n, (line, findings) in enumerate(zip(image.ocr_lines or (), found[i], strict=True)):
            if not findings or (i, n) not in cut:
                continue
            x, y, w, h = line.box
            text = line.text
            if (i, n) in firsts:
                if findings[0].start <= _lead(text) and x > 0:
                    strips.append((0, y, x, h))
            elif findings[-1].end >= len(text.rstrip(" ")) and x + w < image.width:
                strips.append((x + w, y, image.width - x - w, h))
        out.append(tuple(strips))
    return tuple(out)
