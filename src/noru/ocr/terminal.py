"""Terminal text read as lines: a monospace cell grid found in the pixels,
each of its rows read on its own.

An engine's page layout cuts a terminal whose rows share aligned gaps (a log
with fixed-width fields, ``ls -l``, a table, code with aligned comments)
into columns, and gives them one after another: the rows are gone, and with
them what the screen says. A terminal draws text on a grid of cells, so here
the grid comes first:

1. ``ink``: the region as dark ink on white, each pixel as dark as its colour
   is far from the background's. Light on dark, coloured prompts, ``ls
   --color``, syntax colours and sub-pixel fringes are all just ink. A row
   whose own background differs (a status line, a selection) is measured
   from its own.
2. ``find_cells``: the grid's row pitch and column advance, and where they
   start, from the folded profiles of that ink. Proportional type has no
   column advance, and is left to the engine's own layout.
3. ``read``: each row band read by the engine as one line (``RowReader``),
   each word placed on the grid's columns, so a gap of five cells stays five
   spaces; the rows' cells are then made to agree (``noru.ocr.monospace``).

A row's reading depends on its pixels alone, so it is kept by them
(``Rows``, bounded): a terminal that scrolled is read again only in its new
row, a changed line only itself, and what is read is what reading again
would give. Pure Pillow; the engine is behind ``RowReader``.
"""

from __future__ import annotations

import hashlib
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.geometry import Rect, clip
from noru.ocr.base import OcrLine
from noru.ocr.monospace import Grid, fold

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["ROWS", "Glyph", "Read", "Rows", "background", "find_cells", "ink", "read"]

# Darkness (0-255, of the distance from the background) that counts as ink
# when the grid is looked for.
INK = 64
# Row pitches and column advances looked for, in pixels (terminal fonts from
# 6 pt to HiDPI 2x at 16 pt).
ROW_PITCH = (8, 72)
ADVANCE = (4, 40)
# A monospace advance is this share of the row pitch (DejaVu Sans Mono and
# its kin: about 0.5; a tight cell 0.8).
ADVANCE_SHARE = (0.3, 0.9)
# The emptiest phase of the folded column profile holds at most this share of
# the mean phase's ink: the gap between cells.
COLUMN_GAP = 0.35
ROW_GAP = 0.25
# A period folds "nearly as empty" as the emptiest within this share of the mean.
NEARLY = 0.08
# Rows of text a region must show to be read as a grid.
MIN_ROWS = 4
# A column inked in this share of the region's pixel rows is a bar (a
# scrollbar, a window edge), not text: it is left out of the grid.
BAR = 0.9
# A cell image is read as one character when this many of its copies were
# read and this share of them as that character.
MIN_VOTES = 3
MIN_SHARE = 0.6
MIN_CORE_SHARE = 0.75
# Rows kept by their pixels: a few screens of terminals.
ROWS = 4096
# A pixel row is the terminal's when this share of it is its background
# colour (within PAPER levels, anti-aliasing aside): a title bar above it,
# or a frame's edge, is not; its densest line of text still is.
BACKGROUND_ROW = 0.2
PAPER = 12


@dataclass(frozen=True)
class Glyph:
    """One character as the engine read it in a row band: its x extent in the band's pixels."""

    text: str
    left: int
    right: int
    confidence: float


# What reads row bands (dark on white), each as one line: its glyphs.
RowReader = Callable[[Sequence["Image.Image"]], list[list[Glyph]]]


def _darkest(dark: Image.Image) -> int:
    """The darkest value of an "L" image (255: no ink at all)."""
    extrema: Sequence[float] = dark.getextrema()  # type: ignore[assignment]  # "L": (low, high)
    return int(extrema[0])


def ink(rgb: Image.Image, paper: tuple[int, int, int] | None = None) -> Image.Image:
    """``rgb`` as "L", dark where it differs from ``paper`` (its commonest
    colour, by default): each pixel's largest channel difference, inverted."""
    from PIL import Image, ImageChops

    rgb = rgb.convert("RGB")
    plain = Image.new("RGB", rgb.size, paper if paper is not None else background(rgb))
    r, g, b = ImageChops.difference(rgb, plain).split()
    return ImageChops.invert(ImageChops.lighter(ImageChops.lighter(r, g), b))


def background(rgb: Image.Image) -> tuple[int, int, int]:
    """The commonest colour of ``rgb``."""
    # The commonest colour, by its channels' commonest values on a coarse grid
    # (a terminal's background is most of its pixels).
    small = rgb.resize((max(1, rgb.width // 4), max(1, rgb.height // 4)))
    colours = small.getcolors(small.width * small.height)
    assert colours is not None
    _, colour = max(colours)
    return colour  # type: ignore[return-value]


def _profile(dark: Image.Image, *, rows: bool) -> bytes:
    """The ink (0-255) in each row or column of a dark-on-white "L" image."""
    from PIL import Image, ImageChops

    inked = ImageChops.invert(dark).point(lambda v: 255 if v >= INK else 0)
    size = (1, dark.height) if rows else (dark.width, 1)
    return inked.resize(size, Image.Resampling.BOX).tobytes()


def _pitch(profile: Sequence[int], low: int, high: int, gap: float) -> tuple[int, int] | None:
    """The smallest period in ``[low, high]`` whose emptiest phase holds at most
    ``gap`` of the mean's ink and nearly as little as the emptiest of any
    period (a multiple of the pitch folds as empty, or emptier where rows
    repeat), and the middle of its emptiest phases: where the gap between
    two rows (or cells) is."""
    folds = [(*fold(profile, period), period) for period in range(max(2, low), high + 1)]
    if not folds:
        return None
    emptiest = min(share for share, _, _ in folds)
    share, phase, period = next(f for f in folds if f[0] <= emptiest + NEARLY)
    if share > gap:
        return None
    sums = [0] * period
    for i, value in enumerate(profile):
        sums[i % period] += value
    quiet = sums[phase] + 0.02 * sum(sums) / period
    before = after = 0
    while before < period - 1 and sums[(phase - before - 1) % period] <= quiet:
        before += 1
    while after < period - 1 - before and sums[(phase + after + 1) % period] <= quiet:
        after += 1
    return period, (phase + (after - before + 1) // 2) % period


@dataclass(frozen=True)
class Cells:
    """The grid: cells ``width`` x ``height`` from ``(x, y)``, ``columns`` x
    ``rows`` of them, in the pixels of the image it was found in."""

    x: int
    y: int
    width: int
    height: int
    columns: int
    rows: int

    @property
    def grid(self) -> Grid:
        return Grid(self.x, self.y, self.width, self.height)

    def band(self, row: int) -> Rect:
        return (self.x, self.y + row * self.height, self.columns * self.width, self.height)


def find_cells(dark: Image.Image) -> Cells | None:
    """The monospace cell grid of ``dark`` (``ink``'s image), or None."""
    rows_profile = _profile(dark, rows=True)
    found = _pitch(rows_profile, ROW_PITCH[0], min(ROW_PITCH[1], dark.height // 2), ROW_GAP)
    if found is None:
        return None
    height, y = found
    columns_profile = list(_profile(dark, rows=False))
    # Bars (a scrollbar, an edge) ink every pixel row: they are no cells.
    bars = [value >= BAR * 255 for value in columns_profile]
    text = [0 if bar else value for value, bar in zip(columns_profile, bars, strict=True)]
    low = max(ADVANCE[0], int(height * ADVANCE_SHARE[0]))
    high = min(ADVANCE[1], int(height * ADVANCE_SHARE[1]) + 1)
    found = _pitch(text, low, high, COLUMN_GAP)
    if found is None:
        return None
    width, x = found
    # The grid spans the columns up to the first bar at its right.
    right = next((i for i in range(len(bars) - 1, x, -1) if not bars[i]), dark.width - 1)
    columns = (right + 1 - x) // width
    rows = (dark.height - y) // height
    inked_rows = sum(
        _darkest(dark.crop((x, y + r * height, x + columns * width, y + (r + 1) * height)))
        < 255 - INK
        for r in range(rows)
    )
    if columns < 8 or inked_rows < MIN_ROWS:
        return None
    return Cells(x, y, width, height, columns, rows)


# A row's glyphs as kept: their characters (joined by a separator no glyph
# holds), their left and right edges, their confidences in 0-255.
_Packed = tuple[str, bytes, bytes]
_SEPARATOR = "\x1f"


def _pack(glyphs: Sequence[Glyph]) -> _Packed:
    edges = array("H", [min(65535, max(0, v)) for g in glyphs for v in (g.left, g.right)])
    confidences = bytes(round(255 * min(1.0, max(0.0, g.confidence))) for g in glyphs)
    return _SEPARATOR.join(g.text for g in glyphs), edges.tobytes(), confidences


def _unpack(packed: _Packed) -> tuple[Glyph, ...]:
    texts, edges, confidences = packed
    if not confidences:
        return ()
    positions = array("H")
    positions.frombytes(edges)
    return tuple(
        Glyph(text, positions[2 * i], positions[2 * i + 1], confidences[i] / 255)
        for i, text in enumerate(texts.split(_SEPARATOR))
    )


class Rows:
    """What rows read as, by their exact pixels (bounded, least recently used
    first out; about 1 kB a row of 200 glyphs, packed). Thread-safe. What a
    kept row gives is what reading it gave, confidences to 1/255."""

    def __init__(self, *, most: int = ROWS) -> None:
        self.most = most
        self.hits = 0
        self.misses = 0
        self._rows: OrderedDict[bytes, _Packed] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(band: Image.Image, how: str) -> bytes:
        """What decides a row's glyphs: its exact pixels and ``how`` it is read."""
        digest = hashlib.blake2b(digest_size=20)
        digest.update(f"{how}|{band.width}x{band.height}|".encode())
        digest.update(band.tobytes())
        return digest.digest()

    def read(
        self, bands: Sequence[Image.Image], how: str, reader: RowReader
    ) -> list[tuple[Glyph, ...]]:
        """Each band's glyphs: kept ones as kept, the others read (all at once)."""
        keys = [self.key(band, how) for band in bands]
        found: dict[int, _Packed] = {}
        with self._lock:
            for i, key in enumerate(keys):
                packed = self._rows.get(key)
                if packed is not None:
                    self._rows.move_to_end(key)
                    found[i] = packed
            self.hits += len(found)
            self.misses += len(keys) - len(found)
        new = [i for i in range(len(bands)) if i not in found]
        if new:
            read = reader([bands[i] for i in new])
            with self._lock:
                for i, got in zip(new, read, strict=True):
                    found[i] = _pack(got)
                    self._rows[keys[i]] = found[i]
                while len(self._rows) > self.most:
                    self._rows.popitem(last=False)
        # A fresh reading goes out as a kept one would: the same either way.
        return [_unpack(found[i]) for i in range(len(bands))]

    def __len__(self) -> int:
        return len(self._rows)


def _row_ink(rgb: Image.Image, band: Rect, paper: tuple[int, int, int]) -> Image.Image:
    """A row band as ink on white, measured from the region's background
    ``paper``, or from the row's own where the row is mostly another colour
    (a status line, a selection)."""
    from PIL import Image

    x, y, w, h = band
    piece = rgb.crop((x, y, x + w, y + h))
    dark = ink(piece, paper)
    plain = dark.point(lambda v: 255 if v > 255 - PAPER else 0)
    share = plain.resize((1, 1), Image.Resampling.BOX).tobytes()[0]
    if share >= BACKGROUND_ROW * 255:
        return dark
    return ink(piece, background(piece))


def _runs(dark: Image.Image) -> list[tuple[int, int]]:
    """The runs of pixel rows showing the background, top to bottom."""
    from PIL import Image, ImageChops

    plain = ImageChops.invert(dark).point(lambda v: 255 if v < PAPER else 0)
    share = plain.resize((1, dark.height), Image.Resampling.BOX).tobytes()
    runs: list[tuple[int, int]] = []
    start = None
    for y, value in enumerate([*share, 0]):
        if value >= BACKGROUND_ROW * 255:
            start = y if start is None else start
        elif start is not None:
            runs.append((start, y))
            start = None
    return runs


def _on_grid(gap: tuple[int, int], top: int, cells: Cells) -> bool:
    """Whether rows ``gap`` (not the background) are whole rows of the grid
    that starts at pixel row ``top``: a status line, a selection."""
    start, end = gap
    pitch = cells.height
    rows, rest = divmod(end - start, pitch)
    phase = (start - top - cells.y) % pitch
    return rows >= 1 and min(rest, pitch - rest) <= 1 and min(phase, pitch - phase) <= 1


def _span(dark: Image.Image) -> tuple[int, int, Cells] | None:
    """The pixel rows that are the terminal's, top to bottom, and its grid:
    the longest run of rows showing its background (a title bar, a toolbar
    above it, a frame's edge below it do not), with the runs beside it that
    lie on its grid across rows of another background (a status line, a
    selection)."""
    runs = _runs(dark)
    if not runs:
        return None
    core = max(range(len(runs)), key=lambda i: runs[i][1] - runs[i][0])
    top, bottom = runs[core]
    cells = find_cells(dark.crop((0, top, dark.width, bottom)))
    if cells is None:
        return None
    first, last = core, core
    while first > 0 and _on_grid((runs[first - 1][1], runs[first][0]), top, cells):
        first -= 1
    while last < len(runs) - 1 and _on_grid((runs[last][1], runs[last + 1][0]), top, cells):
        last += 1
    if (first, last) == (core, core):
        return top, bottom, cells
    # Above the core, the grid's rows start a whole number of pitches earlier.
    new_top = runs[first][0]
    shift = (top + cells.y - new_top) % cells.height
    extended = dark.crop((0, new_top, dark.width, runs[last][1]))
    rows = (extended.height - shift) // cells.height
    grid = Cells(cells.x, shift, cells.width, cells.height, cells.columns, rows)
    return new_top, runs[last][1], grid


@dataclass(frozen=True)
class Read:
    """A region read as a terminal: its lines, and the bands (in the original's
    pixels) that are not its grid (a title bar), for the engine to read."""

    lines: list[OcrLine]
    rest: list[Rect]


class _Votes:
    """What each cell image was read as, across the region: one image, one
    character, where its copies agree.

    A glyph whose anti-aliased edge runs into the next cell looks a little
    different beside each neighbour, so a copy can be alone in its exact
    image; cells are also counted by their core (the cell without its first
    and last column of pixels), where a larger share must agree.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.exact: dict[bytes, Counter[str]] = {}
        self._cores: dict[bytes, Counter[str]] | None = None

    def core(self, key: bytes) -> bytes:
        w = self.width
        return b"".join(key[r * w + 1 : r * w + w - 1] for r in range(len(key) // w))

    def add(self, key: bytes, char: str) -> None:
        self.exact.setdefault(key, Counter())[char] += 1

    def agreed(self, key: bytes) -> str | None:
        exact = _consensus(self.exact.get(key), MIN_SHARE)
        if exact is not None:
            return exact
        own = self.exact.get(key)
        if own is not None and own.total() >= MIN_VOTES:
            return None  # its own copies disagree: no core overrules them
        if self._cores is None:  # counted once, when first asked
            self._cores = {}
            for exact_key, counter in self.exact.items():
                self._cores.setdefault(self.core(exact_key), Counter()).update(counter)
        return _consensus(self._cores.get(self.core(key)), MIN_CORE_SHARE)


def _consensus(counter: Counter[str] | None, share: float) -> str | None:
    if counter is None:
        return None
    (char, count), total = counter.most_common(1)[0], counter.total()
    return char if total >= MIN_VOTES and count >= share * total else None


def _underscore(key: bytes, cells: Cells) -> bool:
    """Whether a cell's only ink is one bar along its bottom: ``_``, which the
    engine leaves out of a word as often as not (``job_247`` read ``job 247``)."""
    from PIL import Image

    cell = Image.frombytes("L", (cells.width, cells.height), key)
    box = cell.point(lambda v: 255 if v < 255 - INK else 0).getbbox()
    if box is None:
        return False
    left, top, right, bottom = box
    return (
        bottom - top <= max(2, cells.height // 8)
        and right - left >= 0.6 * cells.width
        and top >= 0.65 * cells.height
    )


def _inked_columns(band: Image.Image, cells: Cells) -> list[int]:
    """The columns of a row band whose cells hold ink."""
    from PIL import Image

    inked = band.point(lambda v: 255 if v < 255 - INK else 0)
    profile = inked.resize((band.width, 1), Image.Resampling.BOX).tobytes()
    return [
        column
        for column in range(cells.columns)
        if any(profile[column * cells.width : (column + 1) * cells.width])
    ]


def _cell_images(band: Image.Image, cells: Cells, columns: Sequence[int]) -> dict[int, bytes]:
    """The pixels of each of ``columns``' cells in a row band, row by row (as
    ``crop(...).tobytes()`` gives them, from one copy of the band)."""
    data, stride, w = band.tobytes(), band.width, cells.width
    lines = [data[y * stride : (y + 1) * stride] for y in range(band.height)]
    return {c: b"".join(line[c * w : (c + 1) * w] for line in lines) for c in columns}


def _place(glyphs: Sequence[Glyph], cells: Cells) -> dict[int, Glyph]:
    """Each glyph at the column its middle falls in; a glyph whose column
    another took goes to the next one (the engine read two where one was)."""
    placed: dict[int, Glyph] = {}
    last = -1
    for glyph in sorted(glyphs, key=lambda g: g.left + g.right):
        column = max(last + 1, (glyph.left + glyph.right) // 2 // cells.width)
        if column >= cells.columns:
            break
        placed[column] = glyph
        last = column
    return placed


def read(
    rgb: Image.Image,
    *,
    origin: tuple[int, int],
    reader: RowReader,
    rows: Rows,
    how: str,
    agree_cells: bool = True,
) -> Read | None:
    """The text of ``rgb`` (a region's pixels, at ``origin`` in the original)
    read row by row on its monospace grid, boxes in the original's pixels;
    None when it has no such grid (the engine's layout reads it).

    Each glyph the engine read goes to its cell: a space between two cells
    of ink is a space, a gap of five cells five spaces, and a glyph in a
    cell with no ink (a rule the engine read in a gap) is no text. With
    ``agree_cells``, a cell image read as one character in most of its
    copies reads so everywhere (a ``0`` among ``0``s read ``9``), and an
    inked cell the engine read nothing in gets that character too.
    """
    rgb = rgb.convert("RGB")
    whole = ink(rgb)
    span = _span(whole)
    if span is None:
        return None
    top, bottom, cells = span
    paper = background(rgb)
    rgb = rgb.crop((0, top, rgb.width, bottom))
    ox, oy = origin[0], origin[1] + top
    rest = [
        (origin[0], origin[1] + y, whole.width, h)
        for y, h in ((0, top), (bottom, whole.height - bottom))
        if h > 0
    ]
    # Per inked row: its band, its inked columns, and the part of it to read
    # (from a cell before its first inked one to a cell after its last).
    inked: list[tuple[int, Image.Image, list[int], int]] = []
    for row in range(cells.rows):
        where = cells.band(row)
        if clip(where, (0, 0, *rgb.size)) != where:
            continue
        row_dark = _row_ink(rgb, where, paper)
        columns = _inked_columns(row_dark, cells)
        if columns:
            inked.append((row, row_dark, columns, max(0, columns[0] - 1) * cells.width))
    parts = [
        band.crop((left, 0, min(band.width, (columns[-1] + 2) * cells.width), band.height))
        for _, band, columns, left in inked
    ]
    found = rows.read(parts, how, reader)
    votes = _Votes(cells.width)
    # Per row: each inked cell's image, and the glyph the engine read there.
    grid: list[tuple[int, dict[int, bytes], dict[int, Glyph]]] = []
    for (row, band, columns, left), glyphs in zip(inked, found, strict=True):
        keys = _cell_images(band, cells, columns)
        shifted = [Glyph(g.text, g.left + left, g.right + left, g.confidence) for g in glyphs]
        placed = {c: g for c, g in _place(shifted, cells).items() if c in keys}
        for column, read_as in placed.items():
            votes.add(keys[column], read_as.text)
        grid.append((row, keys, placed))
    lines: list[OcrLine] = []
    for row, keys, placed in grid:
        chars: dict[int, str] = {}
        for column, key in keys.items():
            agreed = votes.agreed(key) if agree_cells else None
            there = placed.get(column)
            char = agreed or (there.text if there is not None else None)
            if char is None and _underscore(key, cells):
                char = "_"
            if char is not None:
                chars[column] = char
        if not chars:
            continue
        first, last = min(chars), max(chars)
        text = "".join(chars.get(c, " ") for c in range(first, last + 1))
        if not any(c.isalnum() for c in text):
            continue  # a rule, a border: no text
        read_here = [g for g in placed.values()]
        confidence = sum(g.confidence for g in read_here) / len(read_here) if read_here else 0.0
        box = (
            ox + cells.x + first * cells.width,
            oy + cells.y + row * cells.height,
            (last + 1 - first) * cells.width,
            cells.height,
        )
        # Indentation is the grid's too: the line starts at the grid's first column.
        lines.append(OcrLine(" " * first + text, box, confidence))
    return Read(lines, rest)
