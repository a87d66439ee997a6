"""Turning a screenshot into the pieces an engine reads best, and back.

Whole-screen OCR loses words whose ink touches a window border: the border
and the glyphs binarise into one connected shape that the layout analysis
throws away as a line or a frame. So each window region is read on its own:

1. crop the region (clipped to the image) and make it grey;
2. strip up to a few uniform border lines from its edges (a capture backend
   reports a window's frame, border included);
3. make it dark text on a light ground (a dark theme is inverted: Tesseract
   otherwise retries each line inverted, which costs a third more time);
4. optionally scale it up, so 12 px text gets enough pixels per stroke;
5. pad it with its own edge colour, so text at the edge is not at the edge.

What lies outside every region (a panel, desktop icons) is read from a copy
with the regions painted over (``mask_regions``). A region too big for one
thread can be cut into bands between text lines (``noru.ocr.band_cuts``).
``plan_jobs`` makes an engine's list of what to read, and ``reading_order``
puts what the jobs found back in the order a person reads the screen.

``Piece.to_original`` maps a box found in the piece back to pixels of the
image the caller gave. Pure Pillow; no engine is imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from noru.geometry import Rect, clip, intersects, iou, order_boxes
from noru.ocr.base import OcrLine

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "CutSettings",
    "Job",
    "Piece",
    "cut",
    "dedupe_lines",
    "histogram_mode",
    "mask_regions",
    "plan_jobs",
    "reading_order",
]

# A border line is at most this many pixels thick (1-2 px frames, with an
# anti-aliased or shadow line beside them).
MAX_BORDER = 3
# A line is uniform when this share of its pixels lies within UNIFORM_SPREAD
# grey levels of its commonest grey: glyph ink touching the border does not count.
UNIFORM_SHARE = 0.97
UNIFORM_SPREAD = 10
# How different from the background a uniform line must be to count as a border.
BORDER_CONTRAST = 12
# How much darker than the background a pixel must be to count as ink.
INK_CONTRAST = 60
# Anti-aliased type puts many pixels between its ink and its background; a
# bitmap font almost none (measured: ... on xterm's 6x13 "fixed", ... on Xft).
MIDTONE_MARGIN = 40
TWO_TONE_SHARE = 0.08
# A region is a bitmap font's when this share of its ink lies in sharp rows.
TWO_TONE_MAJORITY = 0.7
# A row drawn in at most this many greys is sharp whatever they are: a bitmap
# font in a few colours (anti-aliased type blends each edge into dozens).
TWO_TONE_LEVELS = 12


@dataclass(frozen=True)
class Piece:
    image: Image.Image  # greyscale, dark on light, scaled and padded
    origin: tuple[int, int]  # where the piece's unpadded top-left sits in the original
    size: tuple[int, int]  # the unpadded, unscaled size in original pixels
    scale: float
    pad: int
    #: Small two-tone text (a bitmap terminal font), enlarged pixel for pixel.
    small: bool = False

    def to_original(self, box: tuple[int, int, int, int]) -> Rect:
        """A piece box ``(x1, y1, x2, y2)`` as ``(x, y, w, h)`` in the original,
        clamped to the region it came from."""
        x1, y1, x2, y2 = box
        ox, oy = self.origin
        width, height = self.size

        def back(value: int, limit: int) -> int:
            return min(limit, max(0, round((value - self.pad) / self.scale)))

        left, right = back(x1, width), back(x2, width)
        top, bottom = back(y1, height), back(y2, height)
        return (ox + left, oy + top, max(1, right - left), max(1, bottom - top))


def histogram_mode(histogram: Sequence[int]) -> int:
    """The commonest grey level of an "L" image's histogram."""
    return max(range(256), key=lambda level: histogram[level])


def _uniform(line: Image.Image, background: int) -> bool:
    """True when a 1 px strip is one flat colour that differs from the background."""
    histogram = line.histogram()
    peak = histogram_mode(histogram)
    near = sum(histogram[max(0, peak - UNIFORM_SPREAD) : peak + UNIFORM_SPREAD + 1])
    return near >= UNIFORM_SHARE * sum(histogram) and abs(peak - background) > BORDER_CONTRAST


def _strip_borders(grey: Image.Image, background: int) -> Rect:
    """The box inside uniform border lines on each side (at most MAX_BORDER)."""
    width, height = grey.size
    left, top, right, bottom = 0, 0, width, height
    for _ in range(MAX_BORDER):
        if right - left > 2 and _uniform(grey.crop((left, top, left + 1, bottom)), background):
            left += 1
        if right - left > 2 and _uniform(grey.crop((right - 1, top, right, bottom)), background):
            right -= 1
        if bottom - top > 2 and _uniform(grey.crop((left, top, right, top + 1)), background):
            top += 1
        if bottom - top > 2 and _uniform(grey.crop((left, bottom - 1, right, bottom)), background):
            bottom -= 1
    return (left, top, right - left, bottom - top)


def _edge_colour(grey: Image.Image) -> int:
    """The commonest grey on the piece's outermost ring of pixels."""
    width, height = grey.size
    histogram = [0] * 256
    strips = (
        (0, 0, width, 1),
        (0, height - 1, width, height),
        (0, 0, 1, height),
        (width - 1, 0, width, height),
    )
    for strip in strips:
        for level, count in enumerate(grey.crop(strip).histogram()):
            histogram[level] += count
    return histogram_mode(histogram)


def _ink(grey: Image.Image, background: int) -> Image.Image:
    """The pixels darker than the background by a clear step, as "1" (dark on light)."""
    return grey.point(lambda v: 255 if v < background - INK_CONTRAST else 0, mode="1")


def text_rows(grey: Image.Image, background: int) -> list[tuple[int, int]]:
    """The runs of rows that hold ink, as ``(top, bottom)``: a run is about one
    line of text (ascender to descender), or a title bar, a rule, an icon row."""
    from PIL import Image

    rows = _ink(grey, background).convert("L").resize((1, grey.height), Image.Resampling.BOX)
    runs: list[tuple[int, int]] = []
    top = None
    for y, value in enumerate(rows.tobytes()):
        if value > 0 and top is None:
            top = y
        elif value == 0 and top is not None:
            runs.append((top, y))
            top = None
    if top is not None:
        runs.append((top, grey.height))
    return runs


def ink_height(rows: Sequence[tuple[int, int]]) -> int | None:
    """The median height of the ink rows: about the height of one line of text."""
    if not rows:
        return None
    heights = sorted(bottom - top for top, bottom in rows)
    return heights[len(heights) // 2]


def two_tone(grey: Image.Image, background: int, rows: Sequence[tuple[int, int]]) -> bool:
    """True when most of the text is drawn without anti-aliasing (a bitmap font).

    Each ink row is judged on its own, by the share of midtones (greys between
    the ink's and the background's) beside its ink, and each row has one vote:
    a title bar's gradient and anti-aliased title are one row, and do not make
    the terminal below them smooth, even a terminal of a few short lines
    (weighed by their ink, a bold title outweighed eight of them).
    """
    from PIL import ImageChops, ImageFilter

    histogram = grey.histogram()
    ink_level = next((v for v in range(256) if histogram[v]), 0)
    low, high = ink_level + MIDTONE_MARGIN, background - MIDTONE_MARGIN
    if high <= low:
        return True
    midtone = [255 if low < v < high else 0 for v in range(256)]
    touched = [255 if v else 0 for v in range(256)]
    sharp = smooth = 0
    for top, bottom in rows:
        band = grey.crop((0, top, grey.width, bottom))
        if sum(1 for count in band.histogram() if count) <= TWO_TONE_LEVELS:
            sharp += 1  # a few colours, none blended: ANSI colours on the paper
            continue
        ink = _ink(band, background).convert("L")
        inked = ink.histogram()[255]
        midtones = band.point(midtone, mode="1")
        # The pixels beside ink (its 3x3 neighbourhood): where a box blur of
        # it is not zero.
        beside = ink.filter(ImageFilter.BoxBlur(1)).point(touched, mode="1")
        edges = ImageChops.logical_and(midtones, beside).convert("L").histogram()[255]
        if edges <= TWO_TONE_SHARE * max(1, inked):
            sharp += 1
        elif inked:
            smooth += 1
            if smooth >= (1 - TWO_TONE_MAJORITY) * len(rows):
                return False  # the sharp rows can no longer be the majority
    return sharp > TWO_TONE_MAJORITY * max(1, sharp + smooth)


def cut(
    image: Image.Image,
    region: Rect,
    *,
    scale: float = 1.0,
    pad: int = 16,
    invert: bool = True,
    covered: Sequence[Rect] = (),
    small_below: int = 0,
    small_scale: int = 4,
    small_blur: float = 0.6,
) -> Piece | None:
    """The region of ``image`` prepared for recognition; None if it is empty.

    ``covered`` are rectangles (image pixels) lying on top of this region,
    such as windows stacked above it: they are painted over in the region's
    background so their text is read once, from their own region.

    Text whose lines are less than ``small_below`` pixels high and drawn
    without anti-aliasing (a terminal's bitmap font: 6x13 cells, about 10 px
    of ink, two tones) is enlarged ``small_scale``
    times pixel for pixel, then blurred (``small_blur`` pixels per step of
    scale): engines trained on smooth type read the blocky glyphs of a
    bitmap font far better that way than at any smooth scale
    (docs/performance.md, "OCR on real clients").
    """
    from PIL import Image, ImageDraw, ImageOps

    clipped = clip(region, (0, 0, *image.size))
    if clipped is None:
        return None
    x, y, w, h = clipped
    grey = image.crop((x, y, x + w, y + h)).convert("L")
    hidden = [(cx - x, cy - y, cw, ch) for cx, cy, cw, ch in covered]
    visible = None
    if hidden:
        visible = Image.new("L", grey.size, 255)
        for hx, hy, hw, hh in hidden:
            ImageDraw.Draw(visible).rectangle((hx, hy, hx + hw - 1, hy + hh - 1), fill=0)
        if visible.getbbox() is None:
            return None  # wholly covered: nothing of it shows
    background = histogram_mode(grey.histogram(visible))
    if visible is not None:
        grey.paste(background, (0, 0, w, h), ImageOps.invert(visible))
    sx, sy, w, h = _strip_borders(grey, background)
    if (sx, sy, w, h) != (0, 0, *grey.size):
        grey = grey.crop((sx, sy, sx + w, sy + h))
    if invert and background < 128:
        grey = ImageOps.invert(grey)
        background = 255 - background
    small = False
    if small_below > 0:
        rows = text_rows(grey, background)
        line = ink_height(rows)
        small = line is not None and line < small_below and two_tone(grey, background, rows)
    if small:
        from PIL import ImageFilter

        scale = float(small_scale)
        grey = grey.resize((w * small_scale, h * small_scale), Image.Resampling.NEAREST)
        grey = grey.filter(ImageFilter.GaussianBlur(small_blur * small_scale))
    elif scale != 1.0:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        grey = grey.resize(size, Image.Resampling.BICUBIC)
    if pad > 0:
        padded = Image.new("L", (grey.width + 2 * pad, grey.height + 2 * pad), _edge_colour(grey))
        padded.paste(grey, (pad, pad))
        grey = padded
    return Piece(grey, (x + sx, y + sy), (w, h), scale, pad, small)


def mask_regions(image: Image.Image, regions: Sequence[Rect]) -> Image.Image | None:
    """A copy of ``image`` with every region painted over in the colour most
    common outside them: what is left to read around the windows (a panel,
    desktop icons). None when the regions cover the whole image."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    mask = PILImage.new("L", image.size, 0)
    draw = ImageDraw.Draw(mask)
    for x, y, w, h in regions:
        draw.rectangle((x, y, x + w - 1, y + h - 1), fill=255)
    if mask.getextrema() == (255, 255):
        return None
    # The fill is the commonest colour left outside the regions, counted on a
    # coarse grid: the desktop colour dominates what is left, and a grid is fast.
    step = 8
    small = (max(1, image.width // step), max(1, image.height // step))
    nearest = PILImage.Resampling.NEAREST
    grid = image.convert("RGB").resize(small, nearest)
    covered = mask.resize(small, nearest)
    fill = _commonest_outside(grid, covered)
    rgb = image.convert("RGB")
    painted = ImageDraw.Draw(rgb)
    for x, y, w, h in regions:
        painted.rectangle((x, y, x + w - 1, y + h - 1), fill=fill)
    return rgb


def _commonest_outside(rgb: Image.Image, covered: Image.Image) -> tuple[int, int, int]:
    """The commonest colour of ``rgb`` where ``covered`` is 0: counted twice,
    the covered pixels painted black, then white, so that each count of
    black or white is its own (the covered ones only in the other count)."""
    counts: dict[tuple[int, int, int], int] = {}
    for paint in ((0, 0, 0), (255, 255, 255)):
        painted = rgb.copy()
        painted.paste(paint, (0, 0, *rgb.size), covered)
        found = painted.getcolors(rgb.width * rgb.height) or []
        for count, colour in found:
            if isinstance(colour, tuple) and colour != paint:
                counts[colour[0], colour[1], colour[2]] = count  # the same in both counts
    if not counts:
        return (0, 0, 0)
    # A tie goes to the darkest, so the fill never depends on counting order.
    return max(counts, key=lambda colour: (counts[colour], tuple(-v for v in colour)))


def dedupe_lines(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """Drop a line read twice at the same place (overlapping regions or bands)."""
    kept: list[OcrLine] = []
    seen: dict[str, list[Rect]] = {}
    for line in lines:
        boxes = seen.setdefault(line.text, [])
        if any(iou(box, line.box) > 0.5 for box in boxes):
            continue
        boxes.append(line.box)
        kept.append(line)
    return kept


@dataclass(frozen=True)
class Job:
    """One piece of a screenshot for an engine to read."""

    source: Image.Image  # the image, or the remainder with the regions painted over
    region: Rect  # what to read of it
    unit: int  # the region it belongs to, for reading order; -1 around the regions
    unit_box: Rect  # that whole region (``region`` may be one band of it)
    covered: tuple[Rect, ...] = ()  # regions on top of this one

    @property
    def cost(self) -> int:
        # The remainder is mostly painted over, so it reads far faster than its size.
        area = self.region[2] * self.region[3]
        return area if self.unit >= 0 else area // 8

    def cut(self, settings: CutSettings) -> Piece | None:
        """This job's piece, prepared as an engine's settings ask (see ``cut``)."""
        return cut(
            self.source,
            self.region,
            scale=settings.scale,
            pad=settings.pad,
            invert=settings.invert_dark,
            covered=self.covered,
            small_below=settings.small_below,
            small_scale=settings.small_scale,
            small_blur=settings.small_blur,
        )


def plain_piece(job: Job) -> tuple[Piece, int] | None:
    """The job's region at its own scale, unpadded, dark on light (covered parts
    painted over, borders stripped), and its background grey: what the cell
    readers (``ocr.cells``, ``ocr.monospace``) look at. None when it is empty."""
    piece = cut(job.source, job.region, scale=1.0, pad=0, invert=True, covered=job.covered)
    if piece is None:
        return None
    return piece, histogram_mode(piece.image.histogram())


class CutSettings(Protocol):
    """What ``Job.cut`` reads of an engine's settings."""

    @property
    def scale(self) -> float: ...

    @property
    def pad(self) -> int: ...

    @property
    def invert_dark(self) -> bool: ...

    @property
    def small_below(self) -> int: ...

    @property
    def small_scale(self) -> int: ...

    @property
    def small_blur(self) -> float: ...


def plan_jobs(
    image: Image.Image,
    regions: Sequence[Rect] | None,
    *,
    per_region: bool,
    remainder: bool,
    bands: Callable[[Rect, Sequence[Rect]], list[Rect]] | None = None,
) -> list[Job]:
    """What to read: each region (or the whole image), and what lies around them.

    ``bands(region, all_regions)`` may cut a region into bands read as jobs of
    their own; the regions it is given are already clipped to the image.
    """
    whole = (0, 0, image.width, image.height)
    wanted = list(regions) if regions and per_region else [whole]
    clipped = [c for c in (clip(r, (0, 0, *image.size)) for r in wanted) if c is not None]
    jobs: list[Job] = []
    for unit, region in enumerate(clipped):
        # Regions come bottom to top (stacking order): a later region
        # that overlaps this one lies on top of it and hides what is under.
        above = tuple(r for r in clipped[unit + 1 :] if intersects(r, region))
        parts = bands(region, clipped) if bands is not None else [region]
        jobs += [Job(image, part, unit, region, above) for part in parts]
    if regions and per_region and remainder:
        masked = mask_regions(image, clipped)
        if masked is not None:
            jobs.append(Job(masked, whole, -1, whole))
    return jobs


def reading_order(jobs: Sequence[Job], results: Sequence[Sequence[OcrLine]]) -> list[OcrLine]:
    """The jobs' lines as a person reads them, repeats dropped.

    A region is one unit whose lines keep the engine's order (column by
    column, band by band); a line found around the regions is a unit of its
    own. Units go top to bottom, left to right.
    """
    regional: dict[int, tuple[Rect, list[OcrLine]]] = {}
    around: list[tuple[Rect, list[OcrLine]]] = []
    for job, lines in zip(jobs, results, strict=True):
        if job.unit >= 0:
            regional.setdefault(job.unit, (job.unit_box, []))[1].extend(lines)
        else:
            around += [(line.box, [line]) for line in lines]
    units = [*regional.values(), *around]
    ordered = [line for i in order_boxes([u[0] for u in units]) for line in units[i][1]]
    return dedupe_lines(ordered)
