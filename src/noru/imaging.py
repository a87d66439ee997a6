"""Pixels in, served pixels out: scaling to the served long edge, PNG, crops.

Pillow is imported here and only here among the low-level parts, and only
when a function runs, so that importing Noru stays light.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["Served", "encode_png", "fit_long_edge", "serve"]

# zlib level for PNGs: 1 is several times faster than Pillow's default (6) on
# screen content for a few per cent more bytes; measured in bench/.
PNG_LEVEL = 1


@dataclass(frozen=True)
class Served:
    png: bytes
    width: int
    height: int
    downscaled_from: tuple[int, int] | None


def fit_long_edge(width: int, height: int, max_edge: int) -> tuple[int, int]:
    """The size that keeps the aspect ratio with the long edge at most ``max_edge``."""
    long_edge = max(width, height)
    if long_edge <= max_edge:
        return width, height
    scale = max_edge / long_edge
    return max(1, round(width * scale)), max(1, round(height * scale))


def encode_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=PNG_LEVEL)
    return buffer.getvalue()


def serve(image: Image.Image, max_edge: int) -> Served:
    """The image as sent to an agent: scaled down if needed, PNG-encoded."""
    from PIL import Image

    width, height = image.size
    target = fit_long_edge(width, height, max_edge)
    if target != (width, height):
        image = image.resize(target, Image.Resampling.LANCZOS, reducing_gap=2.0)
        return Served(encode_png(image), target[0], target[1], (width, height))
    return Served(encode_png(image), width, height, None)
