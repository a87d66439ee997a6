"""Text on a monospace grid: cells that look alike read alike.

A terminal or a code editor in a monospace font draws each character in a
cell of one size, at whole pixels, so every ``0`` on its screen is the same
few pixels. An engine reading the lines one by one still reads some of those
``0`` as ``6`` or ``@`` and some ``1`` as ``l``, each time on its own. Here
the engine's reading is taken as votes: its lines are laid on the grid,
character by character where a line's words fit the grid's runs of inked
cells exactly, and every distinct cell image gets the character most of its
copies were read as. Each line is then written again from those agreed
characters, so one glyph reads one way across the whole region.

Nothing is guessed: a cell image that too few copies voted for keeps what the
engine read, and a region that is not such a grid (proportional type, a
photo, a grid the votes disagree about) keeps the engine's lines unchanged.
Pure Pillow, engine-agnostic (both engines' lines go through it).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.geometry import Rect
from noru.ocr.base import OcrLine
from noru.ocr.regions import Job, Piece, plain_piece

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["Grid", "agree", "cell_runs", "find_grid", "fold", "match_runs"]

# A region is tried as a grid only with this many lines of text.
MIN_LINES = 4
# Cell widths tried: monospace advance is this share of the line pitch, about.
MIN_WIDTH = 4
# A cell image's reading is agreed when it has this many votes and this share.
MIN_VOTES = 3
MIN_SHARE = 0.6
# Cells alone in their image are agreed by their core at this share.
MIN_CORE_SHARE = 0.75
# The grid is trusted when the engine agreed with the final reading in this
# share of the voted cells, and repeated cell images make up this much of the ink.
MIN_AGREEMENT = 0.9
MAX_DISTINCT = 0.35
# Inked cells the grid must hold.
MIN_INKED = 200
# A line is written again only where the new text keeps this share of its characters.
MIN_KEPT = 0.7


@dataclass(frozen=True)
class Grid:
    """Cells of ``width`` x ``height`` pixels whose top-left cell starts at ``(x, y)``."""

    x: int
    y: int
    width: int
    height: int


def _profile(ink: Image.Image, *, rows: bool) -> bytes:
    """The ink in each row (or column) of a "L" ink image (ink 255), 0-255."""
    from PIL import Image

    size = (1, ink.height) if rows else (ink.width, 1)
    return ink.resize(size, Image.Resampling.BOX).tobytes()


def fold(profile: Sequence[int], period: int) -> tuple[float, int]:
    """How empty the emptiest phase of ``profile`` folded at ``period`` is, as a
    share of the mean phase, and that phase."""
    sums = [0] * period
    for i, value in enumerate(profile):
        sums[i % period] += value
    mean = sum(sums) / period
    phase = min(range(period), key=lambda p: sums[p])
    return (sums[phase] / mean if mean else 1.0), phase


def _pitch(profile: bytes, low: int, high: int) -> tuple[int, int] | None:
    """The smallest period in ``[low, high]`` whose emptiest phase is nearly empty
    (the gap between rows, or between cells), with that phase."""
    best: tuple[float, int, int] | None = None
    for period in range(max(2, low), high + 1):
        share, phase = fold(profile, period)
        if best is None or share < best[0] - 0.02:
            best = (share, period, phase)
    if best is None or best[0] > 0.5:
        return None
    return best[1], best[2]


def find_grid(grey: Image.Image, background: int, lines: Sequence[OcrLine]) -> Grid | None:
    """The cell grid of ``grey`` (dark on light), sized from the engine's lines
    (boxes in ``grey``'s pixels); None when the ink keeps no regular grid."""
    heights = sorted(line.box[3] for line in lines)
    line_height = heights[len(heights) // 2]
    ink = grey.point(lambda v: 255 if v < background - 48 else 0)
    # Engines' boxes run from a little above the ink to a little below it, so
    # the pitch may be shorter than a box.
    rows = _pitch(_profile(ink, rows=True), line_height // 2, 2 * line_height)
    if rows is None:
        return None
    height, y = rows
    # Monospace advance from the lines: box width over characters (one space
    # between words, as engines write them, is one cell).
    advances = sorted(line.box[2] / len(line.text) for line in lines if len(line.text) >= 8)
    if not advances:
        return None
    guess = advances[len(advances) // 2]
    columns = _pitch(_profile(ink, rows=False), max(MIN_WIDTH, int(guess) - 1), int(guess) + 2)
    if columns is None:
        return None
    width, x = columns
    return Grid(x, y, width, height)


class _Cells:
    """The grid's cells as images (their bytes) and whether each holds ink."""

    def __init__(self, grey: Image.Image, background: int, grid: Grid) -> None:
        self.grid = grid
        self.data = grey.tobytes()
        self.stride = grey.width
        self.columns = (grey.width - grid.x) // grid.width
        self.rows = (grey.height - grid.y) // grid.height
        histogram = grey.histogram()
        ink_level = next((v for v in range(256) if histogram[v]), 0)
        self.threshold = (ink_level + background) // 2
        self._keys: dict[tuple[int, int], bytes | None] = {}

    def key(self, row: int, column: int) -> bytes | None:
        """The cell's pixels, or None when it holds no ink darker than half way."""
        if (row, column) in self._keys:
            return self._keys[row, column]
        g, data, stride = self.grid, self.data, self.stride
        left, top = g.x + column * g.width, g.y + row * g.height
        pixels = b"".join(
            data[(top + r) * stride + left : (top + r) * stride + left + g.width]
            for r in range(g.height)
        )
        key = pixels if min(pixels) < self.threshold else None
        self._keys[row, column] = key
        return key

    def inked(self) -> list[bytes]:
        """The images of the inked cells looked at so far."""
        return [key for key in self._keys.values() if key is not None]

    def runs(self, row: int, first: int, last: int) -> list[list[int]]:
        """The runs of inked cells of ``row`` between columns ``first`` and ``last``."""
        runs: list[list[int]] = []
        current: list[int] = []
        for column in range(max(0, first), min(self.columns, last + 1)):
            if self.key(row, column) is None:
                if current:
                    runs.append(current)
                current = []
            else:
                current.append(column)
        if current:
            runs.append(current)
        return runs


class _Votes:
    """What each cell image was read as, and what is agreed of it.

    A glyph whose anti-aliased edge runs into the next cell looks a little
    different beside each neighbour, so a copy can be alone in its exact
    image. Such cells are also counted by their core (the cell without its
    first and last column), where a stricter share must agree.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.exact: dict[bytes, Counter[str]] = {}
        self.core: dict[bytes, Counter[str]] = {}
        self._agreed: dict[bytes, str] = {}
        self._core_agreed: dict[bytes, str] = {}

    def _core(self, key: bytes) -> bytes:
        w = self.width
        return b"".join(key[r * w + 1 : r * w + w - 1] for r in range(len(key) // w))

    def add(self, key: bytes, char: str) -> None:
        self.exact.setdefault(key, Counter())[char] += 1
        self.core.setdefault(self._core(key), Counter())[char] += 1

    def settle(self) -> tuple[int, int]:
        """Agree what can be; returns (votes cast, votes for the agreed reading)."""
        voted = matching = 0
        for key, counter in self.exact.items():
            (char, count), total = counter.most_common(1)[0], counter.total()
            voted, matching = voted + total, matching + count
            if total >= MIN_VOTES and count >= MIN_SHARE * total:
                self._agreed[key] = char
        for key, counter in self.core.items():
            (char, count), total = counter.most_common(1)[0], counter.total()
            if total >= MIN_VOTES and count >= MIN_CORE_SHARE * total:
                self._core_agreed[key] = char
        return voted, matching

    def agreed(self, key: bytes | None) -> str | None:
        """The agreed reading of a cell image, by itself or else by its core."""
        if key is None:
            return None
        if key in self._agreed:
            return self._agreed[key]
        if key in self.exact and self.exact[key].total() >= MIN_VOTES:
            return None  # its own copies disagree: no core overrules them
        return self._core_agreed.get(self._core(key))


def _place(cells: _Cells, box: Rect) -> tuple[int, list[list[int]]] | None:
    """The grid row a line's box sits in and its runs of inked cells."""
    g = cells.grid
    x, y, w, h = box
    row = (y + h // 2 - g.y) // g.height
    if not 0 <= row < cells.rows:
        return None
    first = (x - g.x) // g.width
    last = (x + w - 1 - g.x) // g.width
    return row, cells.runs(row, first, last)


def _one_line_a_cell(placed: Sequence[tuple[int, list[list[int]]] | None]) -> bool:
    """True when no two lines lie on the same cells: two lines the grid puts on
    one row mean its rows are too tall (its pitch is two of the text's)."""
    taken: set[tuple[int, int]] = set()
    for where in placed:
        if where is None:
            continue
        row, runs = where
        cells = {(row, column) for run in runs for column in run}
        if cells & taken:
            return False
        taken |= cells
    return True


def _match(text: str, runs: Sequence[Sequence[int]]) -> list[str] | None:
    """The engine's text for each run of inked cells, in order: words joined
    where the engine broke a run in two (``config. toml``), one word to a run
    otherwise, its length as read. None when the words do not share out."""
    words = text.split()
    out: list[str] = []
    i = 0
    for run in runs:
        if i >= len(words):
            return None
        joined, j = words[i], i + 1
        while len(joined) < len(run) and j < len(words) and len(joined) + len(words[j]) <= len(run):
            joined, j = joined + words[j], j + 1
        if len(joined) != len(run):
            joined, j = words[i], i + 1  # not a broken run: one word, misread in length
        out.append(joined)
        i = j
    return out if i == len(words) else None


def cell_runs(grey: Image.Image, grid: Grid, row: int, columns: int) -> list[list[int]]:
    """The runs of inked cells of ``row`` of ``grid`` in ``grey`` (dark on white)."""
    return _Cells(grey, 255, grid).runs(row, 0, columns - 1)


def match_runs(text: str, runs: Sequence[Sequence[int]]) -> list[str] | None:
    """``text``'s words shared out over ``runs`` of inked cells (see ``_match``)."""
    return _match(text, runs)


def agree(
    grey: Image.Image, background: int, lines: Sequence[OcrLine], *, grid: Grid | None = None
) -> list[OcrLine]:
    """The engine's ``lines`` (boxes in ``grey``'s pixels) with each cell image
    read as most of its copies were; the lines unchanged when ``grey`` is no
    grid. ``grid``: the cells, when the caller found them already."""
    if len(lines) < MIN_LINES:
        return list(lines)
    grid = grid or find_grid(grey, background, lines)
    if grid is None:
        return list(lines)
    cells = _Cells(grey, background, grid)
    placed = [_place(cells, line.box) for line in lines]
    if not _one_line_a_cell(placed):
        return list(lines)
    votes = _Votes(cells.grid.width)
    for line, where in zip(lines, placed, strict=True):
        if where is None:
            continue
        row, runs = where
        for word, run in zip(_match(line.text, runs) or (), runs, strict=False):
            if len(word) != len(run):
                continue
            for char, column in zip(word, run, strict=True):
                key = cells.key(row, column)
                assert key is not None  # a run holds inked cells only
                votes.add(key, char)
    voted, matching = votes.settle()
    seen = cells.inked()
    inked, distinct = len(seen), len(set(seen))
    if (
        inked < MIN_INKED
        or distinct > MAX_DISTINCT * inked
        or matching < MIN_AGREEMENT * max(1, voted)
    ):
        return list(lines)
    return [_rewrite(line, where, cells, votes) for line, where in zip(lines, placed, strict=True)]


def _rewrite(
    line: OcrLine,
    where: tuple[int, list[list[int]]] | None,
    cells: _Cells,
    votes: _Votes,
) -> OcrLine:
    if where is None:
        return line
    row, runs = where
    matched = _match(line.text, runs)
    words = []
    for i, run in enumerate(runs):
        known = [votes.agreed(cells.key(row, column)) for column in run]
        word = matched[i] if matched is not None else None
        if word is not None and len(word) == len(run):
            words.append("".join(k or c for k, c in zip(known, word, strict=True)))
        elif all(known):
            words.append("".join(k or "" for k in known))  # the grid knows every cell
        elif word is not None:
            words.append(word)  # misread in length: the engine's word as it is
        else:
            return line  # the engine's words do not share out over the runs
    text = " ".join(words)
    if text == line.text:
        return line
    from difflib import SequenceMatcher

    if SequenceMatcher(None, line.text, text, autojunk=False).ratio() < MIN_KEPT:
        return line
    return dataclasses.replace(line, text=text)


def agree_job(
    job: Job, lines: list[OcrLine], plain: tuple[Piece, int] | None = None
) -> list[OcrLine]:
    """``agree`` on a job's region, its lines' boxes in the original's pixels.
    ``plain``: the job's ``plain_piece``, when the caller has it already."""
    if len(lines) < MIN_LINES:
        return lines
    plain = plain or plain_piece(job)
    if plain is None:
        return lines
    piece, background = plain
    ox, oy = piece.origin
    local = [
        dataclasses.replace(line, box=(x - ox, y - oy, w, h))
        for line in lines
        for x, y, w, h in [line.box]
    ]
    read = agree(piece.image, background, local)
    return [
        line if new.text == line.text else dataclasses.replace(line, text=new.text)
        for line, new in zip(lines, read, strict=True)
    ]
