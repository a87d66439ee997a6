"""The image as an agent is served it: scaled to the served size and written
as a segmented PNG (so that a redaction fill redoes only its rows), from an
image, from its rows, or from a stored original with boxes filled first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.imaging.fill import Edges, clipped, paint
from noru.imaging.png import Scanlines, encode_png, png_of_rows, read_simple_png, scanlines
from noru.imaging.scaling import fit_long_edge, load_vips, scale, scale_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PIL import Image

__all__ = ["Served", "serve", "serve_png", "serve_rows"]


@dataclass(frozen=True)
class Served:
    png: bytes
    width: int
    height: int
    downscaled_from: tuple[int, int] | None


def serve(image: Image.Image, max_edge: int, lines: Scanlines | None = None) -> Served:
    """The image as sent to an agent: scaled down if needed, PNG-encoded.

    ``lines``: the image's scanlines, when the caller has made them already
    (the app writes the lossless original from the same)."""
    width, height = image.size
    target = fit_long_edge(width, height, max_edge)
    unscaled = target == (width, height)
    if unscaled or (image.mode == "RGB" and load_vips()):
        lines = lines or scanlines(image)
        if lines is not None:
            return _served(lines, max_edge)
    if unscaled:  # a mode written by Pillow
        return Served(encode_png(image, segmented=True), width, height, None)
    return Served(encode_png(scale(image, target), segmented=True), *target, (width, height))


def serve_rows(lines: Scanlines, max_edge: int) -> Served:
    """``serve`` of the image whose scanlines are ``lines``: the image itself is never needed."""
    return _served(lines, max_edge)


def _served(lines: Scanlines, max_edge: int) -> Served:
    """``lines`` served: scaled by libvips (RGB) when larger than ``max_edge``."""
    size = lines.size
    target = fit_long_edge(*size, max_edge)
    if target == size:
        return Served(png_of_rows(lines, segmented=True), *size, None)
    return Served(png_of_rows(scale_rows(lines, target), segmented=True), *target, size)


def serve_png(
    png: bytes, max_edge: int, *, boxes: Sequence[Edges] = (), colour: tuple[int, int, int]
) -> Served | None:
    """A stored original (a PNG as ``encode_png`` writes it, RGB) served as
    ``serve`` serves its image, with each of ``boxes`` filled with ``colour``
    first; None for any other PNG (the caller decodes it with Pillow).

    Its rows are inflated and patched where the boxes are, and libvips
    scales them in place: no image is decoded, and the scanlines are the
    inflated stream itself (docs/performance.md, "The served image")."""
    from isal import isal_zlib

    found = read_simple_png(png)
    if found is None or found[2] != 2 or load_vips() is None:
        return None
    width, height, _, data, _ = found
    row = width * 3 + 1
    raw = bytearray(isal_zlib.decompress(data))
    if len(raw) != row * height or raw[::row].count(0) != height:
        return None  # filtered rows: not one of ours
    paint(raw, clipped(boxes, (width, height)), bytes(colour), row=row, first=0, last=height)
    raw.append(0)  # the last row's pad: the stream after its first byte is the scanlines
    return _served(Scanlines(memoryview(raw)[1:], (width, height), "RGB"), max_edge)
