"""A terminal's pixels as ink: dark where they differ from the paper, for
``noru.ocr.terminal_grid`` (which finds the cell grid in that ink) and
``noru.ocr.terminal`` (which reads its rows).

``ink`` takes each pixel's largest channel difference from the background,
so that light on dark, coloured prompts, ``ls --color``, syntax colours and
sub-pixel fringes are all just ink; ``row_ink`` measures a row whose own
background differs (a status line, a selection) from its own.

Pure Pillow (``fits``: numpy).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from noru.geometry import Rect

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "INK",
    "PAPER",
    "background",
    "darker_than",
    "darkest",
    "edges",
    "fits",
    "in_rgb",
    "ink",
    "ink_left_of",
    "ink_of",
    "is_sub_pixel",
    "lighter_than",
    "row_ink",
]

# Darkness (0-255, of the distance from the background) that counts as ink
# when the grid is looked for.
INK = 64
# Sub-pixel text (``is_sub_pixel``): its blue channel matches its red one a
# pixel over better than this share of how it matches where it is, over a
# region with at least MIN_SUB_PIXEL pixels' worth of ink.
SUB_PIXEL_MATCH = 0.8
MIN_SUB_PIXEL = 200
SUB_PIXEL_ROWS = 4  # one pixel row in this many is looked at
# Pixels within this many levels of the paper's colour are paper (anti-aliasing
# aside).
PAPER = 12
# A line down a row of its own colour (``row_ink``) is at most this share of
# the row's height wide, or two pixels.
STROKE_DOWN = 0.15


def in_rgb(image: Image.Image) -> Image.Image:
    """``image`` in "RGB": itself when it is already, for reading only
    (``convert`` would copy it: a screen's band of 2560x950 is 9 MB)."""
    return image if image.mode == "RGB" else image.convert("RGB")


@functools.cache
def darker_than(level: int) -> list[int]:
    """The table for ``Image.point`` that makes the pixels below ``level``
    white and the rest black (a table made once, not a function called for
    each of 256 values at each call)."""
    return [255 if v < level else 0 for v in range(256)]


@functools.cache
def lighter_than(level: int) -> list[int]:
    """The table for ``Image.point``: white above ``level``, black elsewhere."""
    return [255 if v > level else 0 for v in range(256)]


def darkest(dark: Image.Image) -> int:
    """The darkest value of an "L" image (255: no ink at all)."""
    extrema: Sequence[float] = dark.getextrema()  # type: ignore[assignment]  # "L": (low, high)
    return int(extrema[0])


def ink_left_of(dark: Image.Image, x: int) -> bool:
    """Whether ``dark`` (``ink``'s image) holds ink left of pixel column
    ``x``, short of the column just before it (a glyph or a reverse block
    reaching a pixel out of its cell is no character left of it)."""
    return x > 1 and darkest(dark.crop((0, 0, x - 1, dark.height))) < 255 - INK


def ink(
    rgb: Image.Image, paper: tuple[int, int, int] | None = None, *, sub_pixel: bool | None = None
) -> Image.Image:
    """``rgb`` as "L", dark where it differs from ``paper`` (its commonest
    colour, by default), inverted: each pixel's largest channel difference,
    so that coloured text is as dark as white text; or, for text drawn by
    sub-pixel (``sub_pixel``; None: as ``is_sub_pixel`` finds), the mean of
    its channels' differences. Sub-pixel text has each channel covered by
    the glyph a third of a pixel apart: the largest of them is a glyph a
    pixel wider, with a fringe the engine reads as another letter (``9`` as
    ``0``); their mean is the glyph as plain anti-aliasing draws it."""
    return ink_of(rgb, paper, sub_pixel=sub_pixel)[0]


def ink_of(
    rgb: Image.Image, paper: tuple[int, int, int] | None = None, *, sub_pixel: bool | None = None
) -> tuple[Image.Image, bool]:
    """``ink``, and whether it was taken as sub-pixel text."""
    from PIL import Image, ImageChops

    rgb = in_rgb(rgb)
    plain = Image.new("RGB", rgb.size, paper if paper is not None else background(rgb))
    difference = ImageChops.difference(rgb, plain)
    del plain  # not held while the difference is measured
    if sub_pixel is None:
        sub_pixel = is_sub_pixel(difference)
    if sub_pixel:
        mean = difference.convert("L", (1 / 3, 1 / 3, 1 / 3, 0))
        return ImageChops.invert(mean), True
    r, g, b = difference.split()
    return ImageChops.invert(ImageChops.lighter(ImageChops.lighter(r, g), b)), False


def edges(rgb: Image.Image) -> Image.Image:
    """``rgb`` as "L", dark where a pixel differs by ``INK`` (in any channel)
    from the one left of it or above it: the outlines of text, whatever the
    colour under it. Text on colours of its own (a prompt's segments, each
    its own colour, with text in the paper's colour on them) is no ink apart
    from its background in ``ink``, and its blocks leave the grid no gaps;
    in outline its letters stand apart as on the paper.

    A channel at a time, in its own bytes (the larger less the smaller of
    two levels is their distance): a band's pixels as 16-bit differences
    took some 20 bytes a pixel at once."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(in_rgb(rgb))
    edge = np.zeros(pixels.shape[:2], dtype=bool)
    for channel in range(pixels.shape[2]):
        level = pixels[..., channel]
        for one, other, at in (
            (level[:, 1:], level[:, :-1], (slice(None), slice(1, None))),  # the one left
            (level[1:], level[:-1], (slice(1, None),)),  # the one above
        ):
            edge[at] |= np.maximum(one, other) - np.minimum(one, other) > INK
    return Image.fromarray(np.where(edge, np.uint8(0), np.uint8(255)))


def is_sub_pixel(difference: Image.Image) -> bool:
    """Whether text was drawn by sub-pixel anti-aliasing, from each pixel's
    channel differences from the background (``difference``, "RGB"). Drawn
    so, each glyph's red and blue channels are one glyph a part of a pixel
    apart: the blue one matches the red one moved a pixel sideways better
    than where it is (to one side on an RGB panel, the other on BGR). Drawn
    plainly, in any colours, a glyph's channels are one shape where it is:
    measured on real terminals, the moved match was 5 to 12 times worse
    than the unmoved one plainly drawn, and half as bad by sub-pixel."""
    from PIL import Image, ImageChops, ImageStat

    # Every fourth pixel row is enough to tell, and a quarter of the work:
    # the test is along the rows.
    rows = max(1, difference.height // SUB_PIXEL_ROWS)
    sample = difference.resize((difference.width, rows), Image.Resampling.NEAREST)
    r, _, b = sample.split()
    if SUB_PIXEL_ROWS * (ImageStat.Stat(r).sum[0] + ImageStat.Stat(b).sum[0]) < MIN_SUB_PIXEL * 255:
        return False  # too little ink to tell

    def apart(shift: int) -> float:
        moved = ImageChops.offset(b, shift, 0) if shift else b
        return float(ImageStat.Stat(ImageChops.difference(r, moved)).sum[0])

    return min(apart(1), apart(-1)) < SUB_PIXEL_MATCH * apart(0)


def background(rgb: Image.Image) -> tuple[int, int, int]:
    """The commonest colour of ``rgb``."""
    # The commonest colour of every fourth pixel each way (a terminal's
    # background is most of its pixels), sampled, not blended: blended, a
    # dense row of text has a mix of ink and paper for its commonest.
    from PIL import Image

    small = rgb.resize((max(1, rgb.width // 4), max(1, rgb.height // 4)), Image.Resampling.NEAREST)
    colours = small.getcolors(small.width * small.height)
    assert colours is not None
    _, colour = max(colours)
    return colour  # type: ignore[return-value]


def row_ink(
    rgb: Image.Image,
    band: Rect,
    inked: Image.Image,
    *,
    sub_pixel: bool,
    paper: tuple[int, int, int],
) -> tuple[Image.Image, tuple[int, int, int]]:
    """A row band as ink on white, and the colour it is measured from: as the
    region's ``inked`` (``ink`` of ``rgb`` from the region's ``paper``)
    shows it, or from the row's own background where that is another colour
    (a status line, a selection: its commonest colour; its text may well be
    the paper's colour)."""
    from PIL import ImageDraw

    x, y, w, h = band
    piece = rgb.crop((x, y, x + w, y + h))
    own = background(piece)
    if max(abs(a - b) for a, b in zip(own, paper, strict=True)) <= PAPER:
        return inked.crop((x, y, x + w, y + h)), paper
    dark = ink(piece, own, sub_pixel=sub_pixel)
    # Where the row's own colour is neither at its top nor at its bottom, the
    # row has ended (a highlight stops short of the window's edge): no ink.
    # But a run of such columns as thin as a stroke with the row's colour on
    # both sides is a line drawn down across it (a tree's ``│``).
    edges = ink(piece.crop((0, 0, w, 1)), own), ink(piece.crop((0, h - 1, w, h)), own)
    top_row, bottom_row = (edge.tobytes() for edge in edges)
    ended = [
        top < 255 - PAPER and bottom < 255 - PAPER
        for top, bottom in zip(top_row, bottom_row, strict=True)
    ]
    drawing = ImageDraw.Draw(dark)
    column = 0
    while column < w:
        if not ended[column]:
            column += 1
            continue
        start = column
        while column < w and ended[column]:
            column += 1
        if start == 0 or column == w or column - start > max(2, round(STROKE_DOWN * h)):
            drawing.rectangle((start, 0, column - 1, h - 1), fill=255)
    return dark, own


def fits(mask: Any, high: int, wide: int, *, grow: bool = False) -> Any:
    """Where a ``high`` x ``wide`` box fits wholly in ``mask`` (its top left
    corner); with ``grow``, every pixel of such a box at a corner in
    ``mask``.

    A box's test along one axis, then along the other, in two boolean
    arrays of ``mask``'s size, each step written from one into the other: a
    screen's integral image (eight bytes a pixel) and the four copies its
    corners were gathered into took some 120 MB at once."""
    import numpy as np

    held = np.array(mask, dtype=bool)
    spare = np.empty_like(held)
    for axis, length in ((0, high), (1, wide)):
        # Windows of 1, 2, 4... pixels, each two of the one before; then the
        # largest two that cover ``length``, overlapped.
        span = 1
        while span * 2 <= length:
            held, spare = _widen(held, spare, span, axis=axis, grow=grow), held
            span *= 2
        if length > span:
            held, spare = _widen(held, spare, length - span, axis=axis, grow=grow), held
    return held


def _widen(held: Any, out: Any, step: int, *, axis: int, grow: bool) -> Any:
    """``held`` along ``axis`` written into ``out`` (and returned): with
    ``grow``, each pixel or the one ``step`` before it (those before the
    start left out); without, each pixel and the one ``step`` after it
    (False where that lies past the end)."""
    import numpy as np

    def part(start: int | None, stop: int | None) -> tuple[slice, ...]:
        return (slice(None),) * axis + (slice(start, stop),)

    size = held.shape[axis]
    if step >= size:
        out[...] = held if grow else False
    elif grow:
        out[part(None, step)] = held[part(None, step)]
        np.logical_or(held[part(step, None)], held[part(None, -step)], out=out[part(step, None)])
    else:
        np.logical_and(held[part(None, -step)], held[part(step, None)], out=out[part(None, -step)])
        out[part(size - step, None)] = False
    return out
