"""The installed font a terminal's grid is drawn with, found from its cells
(``noru.ocr.glyphs`` tells each cell by that font's glyphs).

``identify``: from cells an engine has read (``claims``), the face and size
whose drawing of those characters is nearest their cells. The size comes
from the cells' heights (a capital's, a small letter's), the alignment from
where their ink lies; a font found before is tried first. ``warm`` loads
what that needs once a process.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.ocr.faces import Drawn, Face, bold_of, draw, hintings, monospace_faces
from noru.ocr.glyphs import Canvas, Font, distances

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float32]

__all__ = ["SAMPLED", "identify", "warm"]

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
# Or it fits when most of its samples (``MOSTLY`` of them, ``MOSTLY_LEAST``
# or more) are its glyphs drawn exactly (``EXACT``): the engine misread
# the rest, as it reads a CJK letter's halves as Latin ones, and their
# share can pass the trim. A face that is not the screen's draws few
# samples exactly, even a look-alike where the two differ.
EXACT = 0.02
MOSTLY = 0.65
MOSTLY_LEAST = 12
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
# Faces whose fits are this near the best one's are look-alikes, told apart
# by the glyphs they do not share (``_of_lookalikes``).
LOOKALIKE = 0.005
# Look-alikes whose glyphs leave the screen's cells unexplained within this
# share of each other are told by the samples' fit instead.
UNEXPLAINED_TIE = 0.01
PRINTABLE = tuple(chr(c) for c in range(33, 127))


def _pair_distances(cells: Array, glyphs: Array) -> Array:
    """Each cell's distance to the glyph in the same row (as ``noru.ocr.glyphs.distances``)."""
    import numpy as np

    dot = (cells * glyphs).sum(axis=1)
    norms = np.sqrt((cells**2).sum(axis=1) * (glyphs**2).sum(axis=1))
    found: Array = np.clip(1.0 - dot / np.maximum(norms, 1e-6), 0.0, 1.0)
    return found


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

    # No letter or digit is inked from its cell's top pixel row to its
    # bottom one: such a cell is a line drawn down the rows (a tree's ``├``,
    # which the engine reads as ``F``, and whose height is no capital's).
    read = [(cell, char) for cell, char in zip(cells, claims, strict=True) if not _down(cell)]
    by_char: dict[str, list[Array]] = {}
    for cell, char in read:
        if char in SAMPLED:
            by_char.setdefault(char, []).append(cell)
    if sum(map(len, by_char.values())) < LEAST_SAMPLES:
        # A line or two (a prompt, a command): the twins too, each fitted
        # by the nearer of its two forms, as the engine's case is not
        # trusted (``_fit``).
        for cell, char in read:
            if char in TWINS:
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


def _down(cell: Array) -> bool:
    """Whether ``cell`` is inked in its first and last pixel rows (half as
    dark as its darkest pixel or more)."""
    rows = cell.max(axis=1)
    least = 0.5 * float(rows.max())
    return least > 0 and float(rows[0]) > least and float(rows[-1]) > least


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
    at: tuple[int, int] | None = None,
) -> tuple[float, int, int, int] | None:
    """How well ``face`` at ``size`` (with its bold: a compiler prints its
    file names bold) fits the samples: (spread score, x, baseline, samples
    drawn exactly) at the alignment that puts each glyph's ink where its
    sample's is, or the best within ``around`` pixels of it; or at the
    alignment ``at`` (x, baseline) alone."""
    import numpy as np

    wanted = _sampled(samples)
    forms = []
    for each in (face, bold_of(face)):
        drawn = None if each is None else draw(each, size, hinting, wanted, shift)
        if drawn is None:
            continue
        canvas = Canvas(drawn, width, height)
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
    if at is not None:
        (x0, baseline0), around = at, 0  # that alignment alone
    best: tuple[float, int, int, int] | None = None
    flat = samples.flat
    for baseline in range(baseline0 - around, baseline0 + around + 1):
        for x in range(x0 - around, x0 + around + 1):
            if not (
                -Canvas.reach <= x <= width + Canvas.reach
                and -Canvas.reach <= baseline <= height + Canvas.reach
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
                best = (score, x, baseline, int((distance <= EXACT).sum()))
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
            # Where it fits as it sat before, it is the very font found
            # before, its glyphs (and its wide letters) drawn already: a
            # pixel aside may fit a new sample as well, but drawing them all
            # again would cost a look a second. Its fit stays the one it was
            # found by, so that each look is measured against that.
            again = min(FIT, AGAIN * font.fit + AGAIN_SLACK)
            placed = _fit(
                font.face, font.size, font.hinting, samples, width, height,
                shift=font.shift, at=(font.x, font.baseline),
            )  # fmt: skip
            if placed is not None and placed[0] <= again:
                return font
            # The same font may sit a pixel elsewhere in another terminal's
            # cells of the same size.
            moved = _fit(
                font.face, font.size, font.hinting, samples, width, height,
                around=1, shift=font.shift,
            )  # fmt: skip
            if moved is not None and moved[0] <= again:
                return dataclasses.replace(font, x=moved[1], baseline=moved[2])
    return _search(samples, cells, width, height)


def _search(samples: _Samples, cells: Sequence[Array], width: int, height: int) -> Font | None:
    """The installed face, size, hinting and alignment nearest the samples;
    None when none fits.

    First round: every face at sizes half a pixel apart, drawn as
    fontconfig draws by default; then the best few at finer sizes, with
    every hinting, and the alignment looked for a pixel around."""
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
    fits: dict[Face, tuple[float, Face, float, str, int, int]] = {}
    fits_exact: dict[Face, int] = {}
    steps = round(COARSE_STEP / FINE_STEP)
    for face, middle in finalists.items():
        for size in (middle + i * FINE_STEP for i in range(-steps, steps + 1)):
            for hinting in hintings(face):
                fitted = _fit(face, size, hinting, samples, width, height, around=1)
                if fitted is not None and (face not in fits or fitted[0] < fits[face][0]):
                    fits[face] = (fitted[0], face, size, hinting, fitted[1], fitted[2])
                    fits_exact[face] = fitted[3]
    if not fits:
        return None
    ranked = sorted(fits.values(), key=lambda fit: fit[0])
    best = _of_lookalikes(ranked, cells, width, height)
    # Last, where between pixels the pen is: a terminal centring glyphs in
    # wider cells draws them a fraction of a pixel right.
    score, face, size, hinting, x, baseline = best
    shift = 0.0
    exact = fits_exact[face]
    for between in SHIFTS:
        fitted = _fit(face, size, hinting, samples, width, height, around=1, shift=between)
        if fitted is not None and fitted[0] < score:
            score, x, baseline, exact = fitted
            shift = between
    mostly = exact >= max(MOSTLY_LEAST, MOSTLY * len(samples.chars))
    if score > FIT and not mostly:
        return None
    return Font(face, bold_of(face), size, hinting, shift, x, baseline, width, height, score)


def _of_lookalikes(
    fits: Sequence[tuple[float, Face, float, str, int, int]],
    cells: Sequence[Array],
    width: int,
    height: int,
) -> tuple[float, Face, float, str, int, int]:
    """The best of faces that fit the samples alike (``fits``, nearest first):
    metric-compatible clones (Liberation Mono and Cousine, DejaVu Sans Mono
    and Hack) draw the sampled letters the same and differ in a few others
    (Liberation Mono's ``l`` is near Cousine's ``L``). Of those within
    LOOKALIKE of the nearest, the face whose printable ASCII glyphs are
    nearest every cell on the screen, not only the sampled ones; of faces
    alike there too (``UNEXPLAINED_TIE``), the one the samples fit best."""
    import numpy as np

    alike = [fit for fit in fits if fit[0] <= fits[0][0] + LOOKALIKE]
    if len(alike) == 1:
        return fits[0]
    flat = np.stack([cell.ravel() for cell in cells]).astype(np.float32)

    def unexplained(fit: tuple[float, Face, float, str, int, int]) -> float:
        _, face, size, hinting, x, baseline = fit
        drawn = draw(face, size, hinting, PRINTABLE)
        if drawn is None:
            return math.inf
        glyphs = Canvas(drawn, width, height).cells(x, baseline)
        return float(distances(flat, glyphs).min(axis=1).sum())

    scored = [(unexplained(fit), fit) for fit in alike]
    least = min(score for score, _ in scored)
    # Alike there too (a weight of the same family a little heavier: Fira
    # Code's Retina beside its Regular), the samples' fit tells.
    return min(
        (fit for score, fit in scored if score <= least * (1 + UNEXPLAINED_TIE)),
        key=lambda fit: fit[0],
    )
