"""Scaling to the served size: the long edge fitted, Lanczos-3 by libvips
(RGB) or Pillow (other modes). libvips and Pillow are imported only when a
function runs."""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from noru.imaging.png import Scanlines, scanlines

if TYPE_CHECKING:
    from types import ModuleType

    from PIL import Image

__all__ = ["KERNEL", "fit_long_edge", "load_vips", "scale", "scale_rows"]

log = logging.getLogger(__name__)

# libvips' reduce kernel for served images (bench/ocr_real.py --served compares others).
KERNEL = "lanczos3"


def fit_long_edge(width: int, height: int, max_edge: int) -> tuple[int, int]:
    """The size that keeps the aspect ratio with the long edge at most ``max_edge``."""
    long_edge = max(width, height)
    if long_edge <= max_edge:
        return width, height
    scale = max_edge / long_edge
    return max(1, round(width * scale)), max(1, round(height * scale))


def scale(image: Image.Image, size: tuple[int, int], *, kernel: str = KERNEL) -> Image.Image:
    """``image`` scaled to ``size`` with Lanczos (3 lobes).

    RGB (every capture, and most imports) is scaled by libvips (``pyvips``):
    its reduce is Lanczos-3 like Pillow's, in fixed point with SIMD and on
    every core, with the interpreter's lock released, and takes a fifth of
    the time of Pillow's on two threads for a 2560x1600 screen
    (docs/performance.md, "The served image"). On screen content the two
    differ by 0.04 levels on average; what agents can read on them was
    measured alike (bench/ocr_real.py --served). Shrinking by 2x or more
    first averages whole blocks, then reduces (the ``gap``, Pillow's
    reducing_gap), as Pillow does. Other modes go to Pillow: it
    premultiplies alpha, and keeps a palette.
    """
    from PIL import Image

    lines = scanlines(image) if image.mode == "RGB" and load_vips() else None
    if lines is None:
        return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    return scale_rows(lines, size, kernel).image()


def scale_rows(lines: Scanlines, size: tuple[int, int], kernel: str = KERNEL) -> Scanlines:
    """RGB ``lines`` scaled to ``size`` by libvips, as scanlines again.

    libvips reads the rows in place as a one-band image one pad wider than
    three times the width, crops the pads off and folds each three bytes
    into a pixel; after the reduce it unfolds them and adds a zero column:
    the scaled image's scanlines, with no copy made in Python."""
    vips = load_vips()
    assert vips is not None and lines.mode == "RGB"
    (width, height), (out_width, out_height) = lines.size, size
    rows = vips.Image.new_from_memory(lines.data, lines.stride, height, 1, "uchar")
    pixels = rows.crop(0, 0, 3 * width, height).bandfold(factor=3)
    reduced = pixels.reduce(width / out_width, height / out_height, kernel=kernel, gap=2.0)
    padded = reduced.bandunfold(factor=3).embed(0, 0, 3 * out_width + 1, out_height)
    return Scanlines(padded.write_to_memory(), size, "RGB")


@functools.cache
def load_vips() -> ModuleType | None:
    """pyvips, set up for one-off operations (no cache of results: the same
    pixels are never scaled twice), or None where libvips cannot be loaded
    (then Pillow scales)."""
    try:
        import pyvips
    except (ImportError, OSError) as exc:
        log.warning("libvips cannot be loaded (%s): Pillow scales served images", exc)
        return None
    pyvips.cache_set_max(0)
    module: ModuleType = pyvips
    return module
