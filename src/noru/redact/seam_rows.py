"""Lines either side of a horizontal seam: displays stacked one above the
other, a window across the edge between them.

A capture of all displays is one image per display, each read on its own.
Where one display's bottom edge is another's top edge (``stacked_of``), a
window across it has its last rows on the upper display and its next ones
on the lower: a terminal's line wrapped over that edge is cut in two, each
part too short for a rule, and a secret's label may be above the edge and
its value below. And where the edge falls inside a row, that row is cut
across its glyphs: the top half on one display, the bottom half on the
other, neither text (the engine reads half glyphs as something else, or
nothing).

So the lines of both images within ``REACH`` of their heights of the edge
are put one above the other as the whole screen shows them (root
coordinates) and searched as one screen's rows (``wrap.find_written``: a
line wrapped over the edge is found whole); what is found is given back to
each image's lines. A line the edge cuts (its box touches the edge, less
than ``WHOLE`` of a row's height of it on its image) is too uncertain to
check whatever its confidence: it is filled whole where it
lies beside a secret as any unsure line is (``unsure``: a secret found in
it or the line before or after, now across the edge too; a secret's label
in it or the line before; key-like text in it), and the rest of that cut
row on the other display (the part of the row no line of that image holds:
its other half's height) with it. A line within a row's height of the
edge with a key-like word (``unsure.key_like``) is filled too where a
wrapped token's part would be (a token's part cut off from its label and
its rest, its prefix misread or its row read as two lines, is no
format's): a line on no terminal's grid (where it wraps is not known), a
row of a line wrapped there, a grid's row that runs to its last column,
cut by the edge or ending with a key-like word, or under the edge a grid's
row that starts at its first column with a key-like word. A grid's row
above the edge that ends before its last column runs on over no edge: an
ordinary screen's key-like rows there (a certificate's base64, a wheel's
RECORD) are served as read. A row just under a line so filled (its top
within ``UNDER`` of a row's height of that line's bottom: a cut row's
other half may be unread) that starts at its grid's first column with a
run of a token's characters (a digit and a letter both, ``TAIL_LEAST``
characters or more) is taken as a wrapped secret's rest, when the filled
line is a grid's row that runs to its last column (a row that ends before
it is continued by no row under it) or a line on no grid: its run is
redacted too.

This holds where only one display has lines near the edge too: the
other's rows there may be unread (a cut row's half read as nothing), or
each display grabbed at its own moment, one before a window was drawn on
it; what lies near the edge on the one display is then all there is of
a token cut off from its label. With nothing read across the edge,
though, nothing says a token runs over it but the rows themselves, and an
ordinary screen's key-like words by an edge (a wheel's RECORD hashes,
base64 lines that end mid-row, a hash whose cut half is read as mixed
case) are no secret's part: only lines where a wrapped token's part would
be are filled there, of every line unsure, not only the key-like ones. A
grid's row that runs to its last column (a wrapped line's row before its
last), cut by the edge or ending with a key-like word; under the edge, a
grid's row that starts at its first column with a key-like word (a
token's rest; a base64 block's row there looks the same and is filled
too); a row of a line seen wrapped there; a row the edge cuts beside a
secret found. And a wrapped secret's rest is looked for only under a grid's
row that runs to its last column.

Displays of different scales are joined too: every line is placed in root
coordinates (the layout's, on Wayland), where a window's rows and cells
are one grid whatever pixels each display gives a unit; a cut row's part
is measured there, and its other half given back in its image's pixels.
Each image is also searched on its own (``apply``), so this can only
widen what is redacted.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from noru.geometry import Rect
from noru.redact.detect import Allowed, Finding, Own
from noru.redact.seam_pairs import scale, stacked_of
from noru.redact.unsure import UNSURE_KIND, key_like, unsure
from noru.redact.wrap import SEAM_SPACES, cells_of, find_written, merged
from noru.store import ImageRecord, OcrLine

__all__ = ["REACH", "TAIL_LEAST", "UNDER", "WHOLE", "Stacked", "stacked"]

# How far from the edge (in a line's heights) a line is searched with the
# other display's lines.
REACH = 4
# The fewest characters of a token's run at the start of the row under a
# filled cut row that are taken as a wrapped secret's rest.
TAIL_LEAST = 8
# A line that touches the edge with less than this of a row's height shown
# on its image is cut (a row one pixel over it is read whole).
WHOLE = 0.8
# How far under a filled line (in rows' heights, from its bottom) the top
# of the row under it may be: half a row when that line is a cut row's
# part and the row's other half is unread.
UNDER = 0.8
_TAIL = re.compile(r"[A-Za-z0-9_+/=.~-]+", re.ASCII)
# A row's first and last words of a token's characters (``unsure.key_like``'s).
_FIRST = re.compile(r"[A-Za-z0-9+/=_-]+", re.ASCII)
_LAST = re.compile(r"[A-Za-z0-9+/=_-]+(?=\s*$)", re.ASCII)


@dataclass(frozen=True)
class Stacked:
    """What searching across horizontal seams found: per image, per OCR
    line, the spans to merge with what the line gives alone; per image, the
    lines to fill whole as unsure; per image, the strips to fill (a cut
    row's other half)."""

    found: tuple[tuple[tuple[Finding, ...], ...], ...]
    unsure: tuple[frozenset[int], ...]
    strips: tuple[tuple[Rect, ...], ...]


@dataclass(frozen=True)
class _At:
    """A line of the stack: image ``image``'s line ``index``, and whether
    the edge cuts it (while it is made: how much of its height its image
    shows, where it touches the edge; else 0)."""

    image: int
    index: int
    cut: int | bool


def _near_edge(
    images: Sequence[ImageRecord], upper: int, lower: int
) -> tuple[list[OcrLine], list[_At]]:
    """The lines of both images near their edge, in root coordinates, top
    to bottom."""
    rows: list[tuple[OcrLine, _At]] = []
    for position, below in ((upper, False), (lower, True)):
        image = images[position]
        assert image.screen_rect is not None
        sx, sy, _, _ = image.screen_rect
        fx, fy = scale(image)
        for i, line in enumerate(image.ocr_lines or ()):
            if not line.text.strip():
                continue
            x, y, w, h = line.box
            far = y > REACH * h if below else image.height - (y + h) > REACH * h
            if far:
                continue
            # its part on this image, in root units (the images' scales may differ)
            shown = round((min(y + h, image.height) - max(y, 0)) * fy)
            touches = y <= 1 if below else y + h >= image.height - 1
            box = (round(sx + x * fx), round(sy + y * fy), round(w * fx), round(h * fy))
            rows.append((replace(line, box=box), _At(position, i, shown if touches else 0)))
    rows = _onto_grid(rows)
    rows.sort(key=lambda row: (row[0].box[1], row[0].box[0]))
    height = _height([line for line, _ in rows])
    # Cut: touching the edge with less than ``WHOLE`` of a row's height shown.
    return [line for line, _ in rows], [
        replace(at, cut=bool(at.cut) and at.cut < WHOLE * height) for _, at in rows
    ]


def _onto_grid(rows: list[tuple[OcrLine, _At]]) -> list[tuple[OcrLine, _At]]:
    """The rows with a line of one image that lies a row from the other
    image's terminal grid, and is no grid's row itself, put on that grid:
    a window drawn for a display of scale 2 and shown scaled down on one of
    scale 1 has its rows a fraction of a pixel apart there (a cell 18.5
    pixels high), which the engine reads as lines of its own layout, boxes
    round the ink; on the grid they are joined as the terminal wrapped them
    (``wrap.find_written``). Such a line's box becomes its grid's cells (its
    first column's x, a pitch a character, the row's height, one row from
    the grid's nearest row) and it takes the grid's width."""
    grids: dict[int, list[OcrLine]] = {}
    for line, at in rows:
        if line.columns is not None and cells_of(line.box, line.text) is not None:
            grids.setdefault(at.image, []).append(line)
    if not grids:
        return rows
    out = []
    for line, at in rows:
        others = [g for image, g in grids.items() if image != at.image]
        if at.cut or line.columns is not None or not others:
            out.append((line, at))
            continue
        out.append((_on_grid(line, others[0]) or line, at))
    return out


def _on_grid(line: OcrLine, grid: list[OcrLine]) -> OcrLine | None:
    """``line`` on the grid of ``grid``'s rows if it lies a row above its
    first or below its last, its first column's (see ``_onto_grid``)."""
    # the grid's rows are whole cells (``_onto_grid``)
    cells = Counter(c for row in grid if (c := cells_of(row.box, row.text)) is not None)
    (pitch, first), _ = cells.most_common(1)[0]
    x, y, _, h = line.box
    lead = len(line.text) - len(line.text.lstrip(" "))
    if abs(x - (first + lead * pitch)) > pitch / 2:
        return None
    top, bottom = min(grid, key=lambda r: r.box[1]), max(grid, key=lambda r: r.box[1])
    height = top.box[3]
    centre = y + h / 2
    if 0.5 * height <= top.box[1] - centre <= 1.5 * height:
        at = top.box[1] - height  # the row above the grid's first
    elif 0.5 * height <= centre - (bottom.box[1] + bottom.box[3]) + height <= 1.5 * height:
        at = bottom.box[1] + bottom.box[3]  # the row below its last
    else:
        return None
    return replace(line, box=(first, at, len(line.text) * pitch, height), columns=top.columns)


def _tails(lines: Sequence[OcrLine], filled: set[int], height: int) -> dict[int, Finding]:
    """The runs of a token's characters that start the row under a line
    filled as unsure, at its grid's first column: a wrapped secret's rest.

    The row under is the next line down whose top is within ``UNDER`` of a
    row's height of the filled line's bottom (a cut row's part may end at
    the edge half a row above it, or its other half be unread); its first
    column is the leftmost start of the lines beside it (a cut row's part
    starts where its first half glyph is). ``height``: the rows' height."""
    out = {}
    for c in filled:
        _, y, _, h = lines[c].box
        below = [
            n
            for n, line in enumerate(lines)
            if n != c and -0.3 * height <= line.box[1] - (y + h) <= UNDER * height
        ]
        if not below:
            continue
        n = min(below, key=lambda n: lines[n].box[1])
        nx, _, nw, _ = lines[n].box
        first = min(x for x, _, w, _ in (line.box for line in lines) if x < nx + nw and nx < x + w)
        if nx - first > 0.3 * height:
            continue
        m = _TAIL.match(lines[n].text)
        run = m[0] if m else ""
        if (
            len(run) >= TAIL_LEAST
            and any(ch.isdigit() for ch in run)
            and any(ch.isalpha() for ch in run)
        ):
            out[n] = Finding(0, len(run), UNSURE_KIND)
    return out


def _key_like_at(lines: Sequence[OcrLine], edge: int, height: int) -> set[int]:
    """The lines within a row's ``height`` of the edge (root coordinates)
    with a key-like word: a wrapped token's part cut off from its label and
    its rest (a row read in two lines, one misread letter in its prefix)."""
    return {
        n
        for n, line in enumerate(lines)
        if line.box[1] - height <= edge <= line.box[1] + line.box[3] + height
        and key_like(line.text)
    }


def _wrap_parts(
    lines: Sequence[OcrLine],
    where: Sequence[_At],
    groups: Sequence[Sequence[int]],
    near: Collection[int],
    *,
    lower: int,
) -> set[int]:
    """Of the key-like lines ``near`` the edge, those where a part of a
    token wrapped over it would be: a line on no terminal's grid (a
    browser's, proportional text: where it wraps is not known), a row of a
    line wrapped here (``groups``), a grid's row ``_at_a_wrap`` (on image
    ``lower``: under the edge). A grid's row above the edge that ends before
    its last column (a certificate's base64) runs on over no edge."""
    wrapped = _wrapped(groups)
    return {
        n
        for n in near
        if lines[n].columns is None
        or n in wrapped
        or _at_a_wrap(lines[n], bool(where[n].cut), where[n].image == lower)
    }


def _one_sided(
    lines: Sequence[OcrLine],
    where: Sequence[_At],
    found: Sequence[Sequence[Finding]],
    groups: Sequence[Sequence[int]],
    doubtful: Collection[int],
    *,
    below: bool,
) -> set[int]:
    """Of the lines ``doubtful`` by an edge with lines on one side only
    (under it if ``below``), those where a token wrapped over the edge
    would be (the module's doc): a wrap's part (``_at_a_wrap``), a row of
    a line wrapped here (``groups``), a row the edge cuts beside a secret
    ``found``."""
    wrapped = _wrapped(groups)

    def beside(n: int) -> bool:
        return any(found[m] for m in (n - 1, n, n + 1) if 0 <= m < len(lines))

    return {
        n
        for n in doubtful
        if _at_a_wrap(lines[n], bool(where[n].cut), below)
        or n in wrapped
        or (bool(where[n].cut) and beside(n))
    }


def _wrapped(groups: Sequence[Sequence[int]]) -> set[int]:
    """The lines that are rows of a line seen wrapped (a group of two or more)."""
    return {n for group in groups if len(group) > 1 for n in group}


def _to_last_column(line: OcrLine) -> bool:
    """Whether ``line`` is a terminal grid's row that runs to its last
    column (``wrap``'s rule: a wrapped line's row but its last)."""
    return line.columns is not None and len(line.text) >= line.columns - SEAM_SPACES


def _at_a_wrap(line: OcrLine, cut: bool, below: bool) -> bool:
    """Whether ``line``, near an edge, is where a part of a token wrapped
    over that edge would be: a grid's row that runs to its last column,
    cut by the edge or ending with a key-like word (the token's row before
    the edge, or one after it); or, ``below`` the edge, a grid's row that
    starts at its first column with a key-like word (the token's rest)."""
    if line.columns is None:
        return False
    last = _LAST.search(line.text)
    if _to_last_column(line) and (cut or (last is not None and key_like(last[0]))):
        return True
    first = _FIRST.match(line.text)
    return below and first is not None and key_like(first[0])


def _height(lines: Sequence[OcrLine]) -> int:
    """The rows' height: the median of the lines' heights."""
    return round(statistics.median(line.box[3] for line in lines)) if lines else 0


def stacked(
    images: Sequence[ImageRecord],
    categories: Collection[str],
    own: Sequence[Own | Allowed] = (),
) -> Stacked | None:
    """What is found across the horizontal seams between ``images``, given
    back to each image's lines; None when no two images are stacked."""
    pairs = stacked_of(images)
    if not pairs:
        return None
    found: list[list[list[Finding]]] = [[[] for _ in image.ocr_lines or ()] for image in images]
    filled: list[set[int]] = [set() for _ in images]
    strips: list[list[Rect]] = [[] for _ in images]
    for upper, lower in pairs:
        lines, where = _near_edge(images, upper, lower)
        # Lines on one side only too: the other's may be unread (the module's doc).
        if not lines:
            continue
        cut = {n for n, at in enumerate(where) if at.cut}
        searched = [
            replace(line, confidence=0.0) if n in cut else line for n, line in enumerate(lines)
        ]
        joined, groups = find_written(searched, categories, own)
        height = _height(lines)
        doubtful = set()
        if "secrets" in categories:
            edge = images[lower].screen_rect
            assert edge is not None
            near = _key_like_at(lines, edge[1], height)
            doubtful = unsure(searched, joined, groups) | _wrap_parts(
                lines, where, groups, near, lower=lower
            )
        sides = {at.image for at in where}
        # A wrapped secret's rest is looked for under a row that runs to its
        # grid's last column only (or a line with no grid: its wrapping unknown).
        ends = {n for n in doubtful if lines[n].columns is None or _to_last_column(lines[n])}
        if len(sides) == 1:
            # Nothing read across the edge: only where a wrapped token would be.
            doubtful = _one_sided(lines, where, joined, groups, doubtful, below=lower in sides)
            ends = {n for n in doubtful if _to_last_column(lines[n])}
        for n, finding in _tails(lines, ends, height).items():
            joined[n] = merged(joined[n], [finding])
        for n, (line, at) in enumerate(zip(lines, where, strict=True)):
            if joined[n]:
                found[at.image][at.index] = merged(found[at.image][at.index], joined[n])
            if n in doubtful:
                filled[at.image].add(at.index)
                if at.cut:
                    other = lower if at.image == upper else upper
                    strips[other].append(_other_half(images[other], line.box, height))
    return Stacked(
        tuple(tuple(tuple(f) for f in lines) for lines in found),
        tuple(frozenset(f) for f in filled),
        tuple(tuple(s) for s in strips),
    )


def _other_half(image: ImageRecord, box: Rect, height: int) -> Rect:
    """The part of a cut row (``box``: its part on the other image, root
    coordinates) that lies on ``image``: a row's ``height`` in all, in
    ``image``'s pixels."""
    assert image.screen_rect is not None
    sx, sy, _, ih = image.screen_rect
    fx, fy = scale(image)
    x, y, w, h = box
    top, bottom = (y, y + max(h, height)) if y < sy else (y + h - max(h, height), y + h)
    top, bottom = max(top, sy), min(bottom, sy + ih)
    px, py = round((x - sx) / fx), round((top - sy) / fy)
    return (px, py, max(1, round(w / fx)), max(1, round((bottom - top) / fy)))
