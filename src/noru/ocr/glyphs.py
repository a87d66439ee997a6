"""A terminal's cells told by their glyphs, drawn again in the font on screen.

A terminal draws each character of its grid with a font installed on this
machine. Once that font is known (its face, its size in pixels, how FreeType
hinted it, and where a glyph sits in its cell), every character it can draw
is drawn here the same way (``noru.ocr.faces``), and each cell is the
character whose drawing is nearest its pixels: ``o`` and ``O``, ``_`` and a
space, ``'`` and ``‘``, ``^`` and ``A`` differ there by whole pixels, where
an engine reading shapes is unsure.

1. ``identify``: the font, from cells an engine has read (``claims``): the
   face and size whose drawing of those characters is nearest their cells.
   The size comes from the cells' heights (a capital's, a small letter's),
   the alignment from where their ink lies.
2. ``Shapes.decide``: each cell's nearest character and how clearly it is
   that one (``Decision``): the next character's distance. A cell no glyph
   of the font explains (another font's fallback, an icon, a wide CJK
   character) is left to the engine.

Distances are one less the cosine of the angle between two images of
coverage (0-1): 0 is the same shape at any depth of ink, 1 nothing alike.
numpy does the arithmetic: a screen has a few thousand cell images, each
compared with a few hundred glyphs.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.ocr.faces import HINTINGS, Drawn, Face, bold_of, draw, monospace_faces

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float32]

__all__ = ["CHARSET", "Decision", "Font", "Fonts", "Shapes", "identify", "warm"]

# What a terminal's cell may hold, as far as a glyph says it: printable
# ASCII, Latin-1's letters and signs, and the typography, arrows, marks and
# lines that tools print.
CHARSET = tuple(
    [chr(c) for c in range(33, 127)]
    + [chr(c) for c in range(161, 256) if c != 173]
    + list("‘’“”‚„–—…•·′″‹›€™←↑→↓↔⇒⇐✓✔✗✘❯❮➜λ∞≠≤≥±√∑∆")
    + list("│─┌┐└┘├┤┬┴┼═║╭╮╯╰━┃▏▎▍▌▋▊▉█░▒▓")
)
# Letters whose capital and small forms differ by size more than by shape:
# an engine's claim of either is a claim of both while the font is unknown.
TWINS = frozenset("cosuvwxzCOSUVWXZ")
# Characters a font is sized and placed by: their cells in the engine's
# reading are the samples (letters and digits, the engine's surest).
SAMPLED = frozenset("abdefghkmnprtyABDEFGHKLMNPRTY0123456789")
# Capitals and digits (as tall as a capital in most faces), small letters
# with no ascender or descender: their heights give the font's size.
CAP_HEIGHT = frozenset("ABDEFHKLMNPRTUVWXZ")
X_HEIGHT = frozenset("acemnorsuvwxz")
# A pixel row is part of a glyph's height when it holds this share of its ink.
HEIGHT_SHARE = 0.3
# At most this many cells are samples, spread over their characters.
MOST_SAMPLES = 48
LEAST_SAMPLES = 6
# A font fits a grid when its samples' distances (``_spread_score``) are this
# small (the same drawing: a few grey levels apart).
FIT = 0.03
# Sizes tried around a face's estimate, in pixels per em: coarsely for every
# face, finely for the finalists.
COARSE_STEP = 0.5
COARSE_SPREAD = 1.5
FINE_STEP = 0.125
# The share of samples a fit is scored by, the nearest ones.
TRIMMED = 0.85
# A font found before fits a grid again when it is this near, at most this
# many times as far as it was when found (a look-alike face is a little
# farther: it must be looked for anew).
AGAIN = 2.0
AGAIN_SLACK = 0.001
# Fractions of a pixel the pen may be right of a pixel's edge.
SHIFTS = (0.25, 0.5, 0.75)
# Faces taken from the first round (one hinting, few sizes) to the second.
FINALISTS = 3
# A cell is its nearest glyph's character when the glyph is this near, and the
# nearest other character this much farther, and this many times as far.
NEAR = 0.08
MARGIN = 0.01
RATIO = 3.0
# What a character outside ASCII adds to its distance: a terminal shows ASCII
# far more often, and a few look alike (``0`` and ``Ø`` in a slashed-zero face).
RARE = 0.015
# Fonts kept by the grids they fit (``Fonts``), each with its glyphs drawn
# (about half a MB).
KEPT_FONTS = 4


@dataclass(frozen=True)
class Font:
    """A font on a grid: its face (and its bold), size, hinting, and where a
    glyph's pen starts in a cell: ``x`` (and ``shift`` of a pixel) from its
    left, its baseline ``baseline`` pixels below its top. ``fit``: the median distance of the
    samples it was found by."""

    face: Face
    bold: Face | None
    size: float
    hinting: str
    shift: float  # of the pen, right of a pixel's edge
    x: int
    baseline: int
    width: int
    height: int
    fit: float

    def __str__(self) -> str:
        return f"{self.face} {self.size:g} px, {self.hinting} hinting"


@dataclass(frozen=True)
class Decision:
    """A cell's nearest character, its distance, and the nearest other
    character's distance; ``sure`` when the gap between them decides."""

    char: str
    distance: float
    runner_up: float
    glyph: int  # its drawing's index in ``Shapes``

    @property
    def sure(self) -> bool:
        return self.distance <= NEAR and self.runner_up >= max(
            self.distance + MARGIN, RATIO * self.distance
        )


# --- cells as arrays ---------------------------------------------------------


def coverage(cell: bytes, width: int, height: int) -> Array:
    """A cell image as ``noru.ocr.terminal`` keeps it (ink dark on white, one
    byte a pixel, column by column) as coverage 0-1, rows top down."""
    import numpy as np

    dark = np.frombuffer(cell, dtype=np.uint8).reshape(width, height).T
    return (255.0 - dark.astype(np.float32)) / 255.0


def _distances(cells: Array, glyphs: Array) -> Array:
    """Each cell's distance to each glyph (rows: cells, columns: glyphs), both
    as flat coverage: one less the cosine of their angle, so that a glyph
    drawn fainter (a colour whose full ink was not seen, a thin stroke never
    fully covering a pixel) is the same shape."""
    import numpy as np

    own = np.sqrt(np.einsum("ij,ij->i", cells, cells))[:, None]
    theirs = np.sqrt(np.einsum("ij,ij->i", glyphs, glyphs))[None, :]
    found: Array = np.clip(1.0 - (cells @ glyphs.T) / np.maximum(own * theirs, 1e-6), 0.0, 1.0)
    return found


def _pair_distances(cells: Array, glyphs: Array) -> Array:
    """Each cell's distance to the glyph in the same row (as ``_distances``)."""
    import numpy as np

    dot = (cells * glyphs).sum(axis=1)
    norms = np.sqrt((cells**2).sum(axis=1) * (glyphs**2).sum(axis=1))
    found: Array = np.clip(1.0 - dot / np.maximum(norms, 1e-6), 0.0, 1.0)
    return found


# --- the font ------------------------------------------------------------------


@dataclass(frozen=True)
class _Samples:
    cells: Array  # (n, height, width)
    flat: Array  # (n, height * width)
    centres: Array  # (n, 2): each cell's ink centre, x and y
    chars: tuple[str, ...]
    cap: float | None  # pixels: a capital's height
    small: float | None  # a small letter's
    baseline: int  # the first pixel row below a letter's ink


def _samples(cells: Sequence[Array], claims: Sequence[str]) -> _Samples | None:
    """The cells to find the font by: claimed letters and digits, a few of
    each character, most read first; their heights and baseline."""
    import numpy as np

    by_char: dict[str, list[Array]] = {}
    for cell, char in zip(cells, claims, strict=True):
        if char in SAMPLED:
            by_char.setdefault(char, []).append(cell)
    if not by_char:
        return None
    chosen: list[tuple[Array, str]] = []
    rank = 0
    while len(chosen) < MOST_SAMPLES and any(rank < len(v) for v in by_char.values()):
        for char in sorted(by_char, key=lambda c: -len(by_char[c])):
            if rank < len(by_char[char]) and len(chosen) < MOST_SAMPLES:
                chosen.append((by_char[char][rank], char))
        rank += 1
    if len(chosen) < LEAST_SAMPLES:
        return None
    stack = np.stack([cell for cell, _ in chosen])
    chars = tuple(char for _, char in chosen)
    caps, smalls, bottoms = [], [], []
    for cell, char in chosen:
        rows = cell.max(axis=1)
        inked = np.nonzero(rows > 0.5 * rows.max())[0]
        if len(inked) == 0:
            continue
        height = _rows_inked(rows)
        if char in CAP_HEIGHT:
            caps.append(height)
        elif char in X_HEIGHT:
            smalls.append(height)
        if char not in "gjpqy":
            bottoms.append(int(inked[-1]) + 1)
    if not bottoms:
        return None
    baseline = Counter(bottoms).most_common(1)[0][0]
    return _Samples(
        stack,
        stack.reshape(len(chars), -1),
        _centres(stack),
        chars,
        float(np.median(caps)) if caps else None,
        float(np.median(smalls)) if smalls else None,
        baseline,
    )


def warm() -> None:
    """Load what finding a font needs first: the installed faces and their
    heights (a few hundred ms, once a process)."""
    for face in monospace_faces():
        _metrics(face)


@dataclass(frozen=True)
class _Metrics:
    cap: float  # cap height, in ems
    small: float  # x-height, in ems


@functools.lru_cache(maxsize=512)
def _metrics(face: Face) -> _Metrics | None:
    """A face's cap height and x-height, from its glyphs drawn large."""
    drawn = draw(face, 100.0, "none", ("H", "x"))
    if drawn is None or drawn.chars != ("H", "x"):
        return None
    return _Metrics(_height(drawn, 0), _height(drawn, 1))


def _height(drawn: Drawn, index: int) -> float:
    return _rows_inked(drawn.bitmaps[index].max(axis=1)) / drawn.size


def _rows_inked(rows: Array) -> float:
    """How many pixel rows a glyph's ink spans (``rows``: each row's deepest
    coverage): a thin face's stems never reach full ink, so a row counts
    when it holds a third of the glyph's deepest."""
    peak = float(rows.max()) if len(rows) else 0.0
    return float((rows >= HEIGHT_SHARE * peak).sum()) if peak > 0 else 0.0


def _sizes(metrics: _Metrics, samples: _Samples, *, step: float, spread: float) -> list[float]:
    """Sizes (pixels per em) ``step`` apart within ``spread`` of where
    ``metrics``' face draws capitals and small letters as tall as the
    samples'. Hinting moves a height by up to half a pixel either way, so
    the estimate is only a middle."""
    estimates = []
    if samples.cap is not None:
        estimates.append(samples.cap / metrics.cap)
    if samples.small is not None:
        estimates.append(samples.small / metrics.small)
    if not estimates:
        return []
    centre = round(sum(estimates) / len(estimates) / step) * step
    steps = round(spread / step)
    return [centre + i * step for i in range(-steps, steps + 1) if centre + i * step > 4]


class _Canvas:
    """Glyphs of one drawing, each on a canvas with its pen at one point, so
    that a cell holding a glyph at any pen position near it is one slice of
    every canvas at once. Margins: the pen may be ``reach`` pixels outside
    the cell."""

    reach = 4

    def __init__(self, drawn: Drawn, width: int, height: int, *, reach: int = reach) -> None:
        import numpy as np

        self.drawn = drawn
        self.width, self.height = width, height
        self.index = {char: i for i, char in enumerate(drawn.chars)}
        r = reach
        # Canvas rows and columns relative to the pen: wide enough for every
        # glyph, and for a cell's window with the pen up to ``reach`` outside it.
        top = min([-(height + r), *(-t for t in drawn.tops)])
        bottom = max(
            [height + r, *(b.shape[0] - t for b, t in zip(drawn.bitmaps, drawn.tops, strict=True))]
        )
        left = min([-(width + r), *drawn.lefts])
        right = max(
            [width + r, *(b.shape[1] + x for b, x in zip(drawn.bitmaps, drawn.lefts, strict=True))]
        )
        self.pen = (-top, -left)  # the pen's (row, column) on the canvas
        canvas = np.zeros((len(drawn.chars), bottom - top, right - left), np.float32)
        for i, bitmap in enumerate(drawn.bitmaps):
            y, x = self.pen[0] - drawn.tops[i], self.pen[1] + drawn.lefts[i]
            canvas[i, y : y + bitmap.shape[0], x : x + bitmap.shape[1]] = bitmap / 255.0
        self.canvas = canvas
        mass = canvas.sum(axis=(1, 2))
        rows, columns = np.indices(canvas.shape[1:])
        safe = np.maximum(mass, 1e-6)
        # Each glyph's ink centre, from the pen.
        self.centres = np.stack(
            [
                (canvas * columns).sum(axis=(1, 2)) / safe - self.pen[1],
                (canvas * rows).sum(axis=(1, 2)) / safe - self.pen[0],
            ],
            axis=1,
        )

    def cells(self, x: int, baseline: int) -> Array:
        """Every glyph as a cell shows it with the pen at (``x``, ``baseline``),
        flat: one row a glyph."""
        y0, x0 = self.pen[0] - baseline, self.pen[1] - x
        window = self.canvas[:, y0 : y0 + self.height, x0 : x0 + self.width]
        return window.reshape(len(self.drawn.chars), -1)


def _centres(cells: Array) -> Array:
    """Each cell's ink centre (x, y) in its pixels; NaN for a cell with none."""
    import numpy as np

    mass = cells.sum(axis=(1, 2))
    rows, columns = np.indices(cells.shape[1:])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack(
            [(cells * columns).sum(axis=(1, 2)) / mass, (cells * rows).sum(axis=(1, 2)) / mass],
            axis=1,
        )


def _fit(
    face: Face,
    size: float,
    hinting: str,
    samples: _Samples,
    width: int,
    height: int,
    *,
    around: int = 0,
    shift: float = 0.0,
) -> tuple[float, int, int] | None:
    """How well ``face`` at ``size`` (with its bold: a compiler prints its
    file names bold) fits the samples: (spread score, x, baseline) at the
    alignment that puts each glyph's ink where its sample's is, or the best
    within ``around`` pixels of it."""
    import numpy as np

    wanted = _sampled(samples)
    forms = []
    for each in (face, bold_of(face)):
        drawn = None if each is None else draw(each, size, hinting, wanted, shift)
        if drawn is None:
            continue
        canvas = _Canvas(drawn, width, height)
        try:
            first = np.array([canvas.index[char] for char in samples.chars])
            other = np.array(
                [
                    canvas.index.get(char.swapcase(), canvas.index[char])
                    if char in TWINS
                    else canvas.index[char]
                    for char in samples.chars
                ]
            )
        except KeyError:
            continue  # the face has not every character sampled
        forms.append((canvas, first, other))
    if not forms:
        return None
    canvas, first, _ = forms[0]
    shifts = samples.centres - canvas.centres[first]
    shifts = shifts[np.isfinite(shifts).all(axis=1)]
    if not len(shifts):
        return None
    x0, baseline0 = (round(float(v)) for v in np.median(shifts, axis=0))
    best: tuple[float, int, int] | None = None
    flat = samples.flat
    for baseline in range(baseline0 - around, baseline0 + around + 1):
        for x in range(x0 - around, x0 + around + 1):
            if not (
                -_Canvas.reach <= x <= width + _Canvas.reach
                and -_Canvas.reach <= baseline <= height + _Canvas.reach
            ):
                continue
            # The nearest of a twin's two forms (the engine's case is not
            # trusted here), regular or bold.
            distance = np.ones(len(flat), np.float32)
            for canvas, first, other in forms:
                glyphs = canvas.cells(x, baseline)
                distance = np.minimum(distance, _pair_distances(flat, glyphs[first]))
                distance = np.minimum(distance, _pair_distances(flat, glyphs[other]))
            score = _spread_score(distance)
            if best is None or score < best[0]:
                best = (score, x, baseline)
    return best


def _spread_score(distance: Array) -> float:
    """How far a drawing is from the samples: the mean of their distances but
    for the farthest few (cells the engine misread claim the wrong glyph).
    A mean, not a median: two faces alike in most letters (Hack and DejaVu
    Sans Mono) differ in a few, and a median would not see them."""
    import numpy as np

    kept = np.sort(distance)[: max(1, int(len(distance) * TRIMMED))]
    return float(kept.mean())


def _sampled(samples: _Samples) -> tuple[str, ...]:
    return tuple(sorted({c for char in samples.chars for c in _variants(char)}))


def _variants(char: str) -> tuple[str, ...]:
    return (char, char.swapcase()) if char in TWINS else (char,)


def identify(
    cells: Sequence[Array],
    claims: Sequence[str],
    *,
    width: int,
    height: int,
    known: Sequence[Font] = (),
) -> Font | None:
    """The font the cells are drawn in, from what an engine read in them
    (``claims``, one character a cell): the installed face, size, hinting and
    alignment whose glyphs are nearest; None when no installed font fits
    (another font, a screenshot of another machine). ``known``: fonts found
    before, tried first."""
    samples = _samples(cells, claims)
    if samples is None:
        return None
    for font in known:
        if (font.width, font.height) == (width, height):
            fitted = _fit(
                font.face, font.size, font.hinting, samples, width, height,
                around=1, shift=font.shift,
            )  # fmt: skip
            if fitted is not None and fitted[0] <= min(FIT, AGAIN * font.fit + AGAIN_SLACK):
                # The same font may sit a pixel elsewhere in another
                # terminal's cells of the same size.
                return dataclasses.replace(font, x=fitted[1], baseline=fitted[2], fit=fitted[0])
    # First round: every face at sizes half a pixel apart, drawn as
    # fontconfig draws by default; then the best few at finer sizes, with
    # every hinting, and the alignment looked for a pixel around.
    first: list[tuple[float, Face, float]] = []
    for face in monospace_faces():
        metrics = _metrics(face)
        if metrics is None:
            continue
        for size in _sizes(metrics, samples, step=COARSE_STEP, spread=COARSE_SPREAD):
            fitted = _fit(face, size, "light", samples, width, height)
            if fitted is not None:
                first.append((fitted[0], face, size))
    first.sort(key=lambda item: item[0])
    finalists: dict[Face, float] = {}
    for _, face, size in first:
        finalists.setdefault(face, size)
        if len(finalists) == FINALISTS:
            break
    best: tuple[float, Face, float, str, int, int] | None = None
    steps = round(COARSE_STEP / FINE_STEP)
    for face, middle in finalists.items():
        for size in (middle + i * FINE_STEP for i in range(-steps, steps + 1)):
            for hinting in HINTINGS:
                fitted = _fit(face, size, hinting, samples, width, height, around=1)
                if fitted is not None and (best is None or fitted[0] < best[0]):
                    best = (fitted[0], face, size, hinting, fitted[1], fitted[2])
    if best is None:
        return None
    # Last, where between pixels the pen is: a terminal centring glyphs in
    # wider cells draws them a fraction of a pixel right.
    score, face, size, hinting, x, baseline = best
    shift = 0.0
    for between in SHIFTS:
        fitted = _fit(face, size, hinting, samples, width, height, around=1, shift=between)
        if fitted is not None and fitted[0] < score:
            score, x, baseline = fitted
            shift = between
    if score > FIT:
        return None
    return Font(face, bold_of(face), size, hinting, shift, x, baseline, width, height, score)


class Fonts:
    """Fonts found on grids, most recently fitting first, with their glyphs
    drawn (bounded, thread-safe): a terminal looked at again is known at
    once."""

    def __init__(self, *, most: int = KEPT_FONTS) -> None:
        self.most = most
        self._fonts: OrderedDict[Font, Shapes | None] = OrderedDict()
        self._lock = threading.Lock()

    def recent(self) -> list[Font]:
        with self._lock:
            return list(reversed(self._fonts))

    def keep(self, font: Font) -> None:
        with self._lock:
            self._fonts.setdefault(font, None)
            self._fonts.move_to_end(font)
            while len(self._fonts) > self.most:
                self._fonts.popitem(last=False)

    def shapes(self, font: Font) -> Shapes:
        """``font``'s glyphs drawn in its cells, drawn once while it is kept."""
        with self._lock:
            found = self._fonts.get(font)
        if found is None:
            found = Shapes(font)
            with self._lock:
                if font in self._fonts:
                    self._fonts[font] = found
        return found


# --- the cells -------------------------------------------------------------------


class Shapes:
    """Every character of a font (and its bold) drawn in a grid's cells: each
    cell's nearest character (``decide``). Characters drawn alike (``,`` and
    ``‚`` in most faces, a letter and its bold where the bold is missing) are
    one drawing, the first of them in CHARSET: ASCII before the rest.

    A glyph can reach into the cells beside it (a ``|`` taller than its row,
    an ``m`` wider than a tight cell): ``bleed`` is what a glyph in a
    neighbouring cell leaves in a cell, to take off before deciding it."""

    def __init__(self, font: Font) -> None:
        import numpy as np

        self.font = font
        chars: list[str] = []
        glyphs: list[Array] = []
        # Where each drawing came from: its canvas and its index there.
        self._sources: list[tuple[_Canvas, int]] = []
        seen: set[bytes] = set()
        reach = max(font.width, font.height) + _Canvas.reach
        for face in (font.face, font.bold):
            if face is None:
                continue
            drawn = draw(face, font.size, font.hinting, CHARSET, font.shift)
            if drawn is None:
                continue
            canvas = _Canvas(drawn, font.width, font.height, reach=reach)
            placed = canvas.cells(font.x, font.baseline)
            for i, (char, glyph) in enumerate(zip(drawn.chars, placed, strict=True)):
                key = glyph.tobytes()
                if glyph.any() and key not in seen:
                    seen.add(key)
                    chars.append(char)
                    glyphs.append(glyph)
                    self._sources.append((canvas, i))
        self.chars = tuple(chars)
        # A character outside ASCII must be nearer by this much to be chosen.
        self.prior = np.array([0.0 if c.isascii() else RARE for c in chars], np.float32)
        self.glyphs = (
            np.stack(glyphs) if glyphs else np.zeros((0, font.width * font.height), np.float32)
        )
        self._bleeds: dict[tuple[int, int, int], Array | None] = {}

    def decide(self, cells: Sequence[Array]) -> list[Decision | None]:
        """Each cell's nearest character and the nearest other character's
        distance (None for every cell when the font draws nothing)."""
        import numpy as np

        if not cells or not self.chars:
            return [None] * len(cells)
        flat = np.stack([cell.ravel() for cell in cells]).astype(np.float32)
        found: list[Decision | None] = []
        for start in range(0, len(flat), 512):
            distances = _distances(flat[start : start + 512], self.glyphs) + self.prior
            order = np.argsort(distances, axis=1)[:, :4]
            for row, ranked in zip(distances, order, strict=True):
                char = self.chars[ranked[0]]
                # A bold drawing of the same character is no rival.
                other = next((row[j] for j in ranked[1:] if self.chars[j] != char), 1.0)
                found.append(Decision(char, float(row[ranked[0]]), float(other), int(ranked[0])))
        return found

    def bleed(self, glyph: int, rows: int, columns: int) -> Array | None:
        """What drawing ``glyph`` leaves in a cell when it is drawn ``rows``
        below and ``columns`` right of it (each -1, 0 or 1), as the cell's
        coverage; None when it leaves nothing."""
        key = (glyph, rows, columns)
        if key not in self._bleeds:
            canvas, index = self._sources[glyph]
            font = self.font
            window = canvas.cells(
                font.x + columns * font.width, font.baseline + rows * font.height
            )[index].reshape(font.height, font.width)
            self._bleeds[key] = window if window.any() else None
        return self._bleeds[key]
