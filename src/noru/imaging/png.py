"""Noru's own PNG codec: a grab's pixels as a PNG's rows (``Scanlines``), PNG
writing from them (whole, or deflated in groups of rows that a fill can
deflate again alone), and the reading of such a PNG back.

RGB and RGBA are written here with no scanline filter and deflated by
Intel's ISA-L; other modes go through Pillow. Pillow is imported only when a
function runs.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PIL import Image

__all__ = [
    "ISAL_LEVEL",
    "PNG_LEVEL",
    "SEGMENTS",
    "SEGMENT_ROWS",
    "Scanlines",
    "encode_png",
    "png_from_stream",
    "png_of_rows",
    "raw_bytes",
    "read_simple_png",
    "scanlines",
]

# zlib level for PNGs written by Pillow (modes other than RGB and RGBA): 1 is
# several times faster than its default (6) for a few per cent more bytes.
PNG_LEVEL = 1
# ISA-L's level for RGB and RGBA (its levels are 0-3): 1 deflates a 2560x1600
# screen in a tenth of zlib level 1's time, to about the same size.
ISAL_LEVEL = 1

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A served PNG's rows are deflated this many at a time (``_segmented_png``),
# so that a box filled in it (redaction) deflates only its rows' groups again.
SEGMENT_ROWS = 32
# The private, ancillary chunk that says where each group of rows ends.
SEGMENTS = b"noSg"

# Pillow mode -> (PNG colour type, bytes per pixel) for the modes written here.
_COLOUR_TYPES = {"RGB": (2, 3), "RGBA": (6, 4)}


def _chunk(kind: bytes, data: bytes) -> bytes:
    from isal import isal_zlib  # its checksums: several times zlib's speed

    crc = isal_zlib.crc32(data, isal_zlib.crc32(kind))
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_from_stream(
    size: tuple[int, int],
    colour_type: int,
    stream: bytes,
    segments: Sequence[tuple[int, int]] | None = None,
    rows: int = SEGMENT_ROWS,
) -> bytes:
    """A PNG of 8-bit pixels of ``colour_type`` from its zlib ``stream``; with
    ``segments`` (each group of ``rows`` rows: where it ends in the stream,
    its Adler-32), their ``SEGMENTS`` chunk too."""
    header = struct.pack(">IIBBBBB", *size, 8, colour_type, 0, 0, 0)
    chunks = [_PNG_SIGNATURE, _chunk(b"IHDR", header)]
    if segments is not None:
        table = b"".join(struct.pack(">II", end, adler) for end, adler in segments)
        chunks.append(_chunk(SEGMENTS, struct.pack(">II", rows, len(segments)) + table))
    chunks += [_chunk(b"IDAT", stream), _chunk(b"IEND", b"")]
    return b"".join(chunks)


@dataclass(frozen=True)
class Scanlines:
    """An 8-bit RGB or RGBA image's pixels as a PNG holds them, unfiltered:
    each row, then one zero byte (the layout of Pillow's raw encoder with a
    padded stride). A PNG's zlib stream is a zero (the first row's filter
    byte) and then ``data`` without its last byte: no copy between the two.
    Made once from a capture, the lossless original and the served image are
    both written from it."""

    data: bytes | memoryview
    size: tuple[int, int]
    mode: str

    @property
    def stride(self) -> int:
        """Bytes a row takes in ``data``, its pad included."""
        return self.size[0] * _COLOUR_TYPES[self.mode][1] + 1

    def image(self) -> Image.Image:
        """The image these are the rows of (a copy: Pillow keeps its own)."""
        from PIL import Image

        return Image.frombytes(self.mode, self.size, self.data, "raw", self.mode, self.stride)


def scanlines(image: Image.Image) -> Scanlines | None:
    """``image``'s pixels as ``Scanlines``, or None when this module does not
    write PNGs of it itself (``encode_png`` says which)."""
    kind = _COLOUR_TYPES.get(image.mode)
    width, height = image.size
    if (
        kind is None
        or width == 0
        or height == 0
        # Pillow's tobytes encodes max(65536, 4 * width) bytes at a time and
        # cannot pad a row longer than that (RGBA 16,384 px wide or more).
        or width * kind[1] + 1 > max(65536, 4 * width)
        # What Pillow's writer keeps from the image and this one would drop.
        or "icc_profile" in image.info
        or "transparency" in image.info
    ):
        return None
    return Scanlines(raw_bytes(image, width * kind[1] + 1), image.size, image.mode)


def raw_bytes(image: Image.Image, stride: int = 0) -> bytes:
    """``image.tobytes("raw", image.mode, stride)`` (``stride`` 0: rows as
    they come), in one call of Pillow's raw encoder: tobytes encodes 64 KB at
    a time and joins the pieces, which takes 2.5 times as long for a
    2560x1600 screen (6.2 ms against 2.4 on this machine)."""
    from PIL import Image

    image.load()
    if image.width == 0 or image.height == 0:
        return b""
    size = stride * image.height if stride else len(image.mode) * image.width * image.height
    if image.mode not in ("L", "RGB", "RGBA"):  # modes whose bytes are not a byte a band
        return image.tobytes("raw", image.mode, stride)
    encoder = Image._getencoder(image.mode, "raw", (image.mode, stride))
    try:
        encoder.setimage(image.im, (0, 0, *image.size))
        _, status, data = encoder.encode(size)
    finally:
        encoder.cleanup()
    if status != 1 or len(data) != size:  # not done in one call
        return image.tobytes("raw", image.mode, stride)
    return data


def encode_png(
    image: Image.Image, *, segmented: bool = False, lines: Scanlines | None = None
) -> bytes:
    """A lossless PNG of ``image`` (``lines``: its scanlines, when the caller
    has made them already).

    RGB and RGBA (everything a capture or an import holds) are written here:
    no scanline filter, and one zlib stream deflated by Intel's ISA-L (the
    ``isal`` package). On screen content (flat colours, text) unfiltered
    rows compress smaller than Pillow's adaptive filtering, which costs more
    than the compression itself, and ISA-L deflates about ten times faster
    than zlib (bench/capture_pipeline.py, docs/performance.md). Photographs
    compress less well unfiltered; screens are what Noru keeps. Other modes,
    and images carrying a colour profile or a transparent colour, go through
    Pillow.
    """
    lines = lines or scanlines(image)
    if lines is None:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=PNG_LEVEL)
        return buffer.getvalue()
    return png_of_rows(lines, segmented=segmented)


def png_of_rows(lines: Scanlines, *, segmented: bool = False) -> bytes:
    """The PNG of ``lines``. Deflated in a few large calls: a call per row
    would take the GIL back 3,200 times, and a busy Python thread beside it
    makes each of those wait a switch interval (seconds in all)."""
    from isal import isal_zlib

    colour_type = _COLOUR_TYPES[lines.mode][0]
    padded = memoryview(lines.data)
    if segmented:
        return _segmented_png(lines.size, colour_type, padded, lines.stride)
    deflate = isal_zlib.compressobj(ISAL_LEVEL)
    compressed = deflate.compress(b"\0") + deflate.compress(padded[:-1]) + deflate.flush()
    return png_from_stream(lines.size, colour_type, compressed)


def _segmented_png(size: tuple[int, int], colour_type: int, padded: memoryview, row: int) -> bytes:
    """A PNG whose rows are deflated ``SEGMENT_ROWS`` at a time, each group
    ending in a full flush (no back-reference across it), with where each
    group's bytes end and their Adler-32 in a private chunk (``SEGMENTS``,
    ancillary: decoders pass it by). ``fill_png`` then deflates again only
    the groups a box touches. The layout is ``encode_png``'s: ``padded``
    holds each row then a zero (the next row's filter byte)."""
    from isal import isal_zlib

    height = size[1]
    deflate = isal_zlib.compressobj(ISAL_LEVEL)
    parts, table, at = [], [], 0
    for first in range(0, height, SEGMENT_ROWS):
        last = min(height, first + SEGMENT_ROWS)
        # The stream is b"\0" + padded[:-1]: shifted one byte from padded.
        raw = (
            (b"\0" + padded[: last * row - 1])
            if first == 0
            else padded[first * row - 1 : last * row - 1]
        )
        part = deflate.compress(raw) + deflate.flush(isal_zlib.Z_FULL_FLUSH)
        parts.append(part)
        at += len(part)
        table.append((at, isal_zlib.adler32(raw)))
    parts.append(deflate.flush())
    return png_from_stream(size, colour_type, b"".join(parts), table)


def read_simple_png(png: bytes) -> tuple[int, int, int, bytes, bytes | None] | None:
    """(width, height, colour type, the IDAT data, the ``SEGMENTS`` chunk or
    None) of an 8-bit RGB or RGBA, non-interlaced PNG of IHDR, IDAT, IEND and
    ``SEGMENTS`` chunks only; None for any other."""
    if not png.startswith(_PNG_SIGNATURE):
        return None
    at, idat, header, segments = len(_PNG_SIGNATURE), [], None, None
    while at + 12 <= len(png):
        (size,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        body = png[at + 8 : at + 8 + size]
        if len(body) != size:
            return None
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == SEGMENTS:
            segments = body
        elif kind == b"IEND":
            break
        else:
            return None
        at += 12 + size
    if header is None or len(header) != 13 or not idat:
        return None
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour_type not in (2, 6) or interlace or not width or not height:
        return None
    return width, height, colour_type, b"".join(idat), segments
