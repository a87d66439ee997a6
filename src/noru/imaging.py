"""Pixels in, served pixels out: scaling to the served long edge, PNG, crops.

Pillow and libvips (which scales) are imported only when a function runs,
so that importing Noru stays light. (Other parts use Pillow too, each for
its own job: capture builds the grabbed image, OCR prepares pieces for an
engine, import decodes files, presentation opens stored originals; all of
them import it lazily.)
"""

from __future__ import annotations

import functools
import io
import logging
import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from PIL import Image

__all__ = [
    "Edges",
    "Scanlines",
    "Served",
    "encode_png",
    "fill_png",
    "fill_rects",
    "fit_long_edge",
    "raw_bytes",
    "scale",
    "scanlines",
    "serve",
    "serve_png",
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
_ADLER_BASE = 65521

log = logging.getLogger(__name__)

Edges = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom excluded
# Pillow mode -> (PNG colour type, bytes per pixel) for the modes written here.
_COLOUR_TYPES = {"RGB": (2, 3), "RGBA": (6, 4)}


@dataclass(frozen=True)
class Served:
    png: bytes
    width: int
    height: int
    downscaled_from: tuple[int, int] | None


# libvips' reduce kernel for served images (bench/ocr_real.py --served compares others).
KERNEL = "lanczos3"


def fit_long_edge(width: int, height: int, max_edge: int) -> tuple[int, int]:
    """The size that keeps the aspect ratio with the long edge at most ``max_edge``."""
    long_edge = max(width, height)
    if long_edge <= max_edge:
        return width, height
    scale = max_edge / long_edge
    return max(1, round(width * scale)), max(1, round(height * scale))


def _chunk(kind: bytes, data: bytes) -> bytes:
    from isal import isal_zlib  # its checksums: several times zlib's speed

    crc = isal_zlib.crc32(data, isal_zlib.crc32(kind))
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _png(
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
    return _png_of(lines, segmented=segmented)


def _png_of(lines: Scanlines, *, segmented: bool) -> bytes:
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
    return _png(lines.size, colour_type, compressed)


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
    return _png(size, colour_type, b"".join(parts), table)


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

    lines = scanlines(image) if image.mode == "RGB" and _vips() else None
    if lines is None:
        return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    return _scaled(lines, size, kernel).image()


def _scaled(lines: Scanlines, size: tuple[int, int], kernel: str = KERNEL) -> Scanlines:
    """RGB ``lines`` scaled to ``size`` by libvips, as scanlines again.

    libvips reads the rows in place as a one-band image one pad wider than
    three times the width, crops the pads off and folds each three bytes
    into a pixel; after the reduce it unfolds them and adds a zero column:
    the scaled image's scanlines, with no copy made in Python."""
    vips = _vips()
    assert vips is not None and lines.mode == "RGB"
    (width, height), (out_width, out_height) = lines.size, size
    rows = vips.Image.new_from_memory(lines.data, lines.stride, height, 1, "uchar")
    pixels = rows.crop(0, 0, 3 * width, height).bandfold(factor=3)
    reduced = pixels.reduce(width / out_width, height / out_height, kernel=kernel, gap=2.0)
    padded = reduced.bandunfold(factor=3).embed(0, 0, 3 * out_width + 1, out_height)
    return Scanlines(padded.write_to_memory(), size, "RGB")


@functools.cache
def _vips() -> ModuleType | None:
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


def serve(image: Image.Image, max_edge: int, lines: Scanlines | None = None) -> Served:
    """The image as sent to an agent: scaled down if needed, PNG-encoded.

    ``lines``: the image's scanlines, when the caller has made them already
    (the app writes the lossless original from the same)."""
    width, height = image.size
    target = fit_long_edge(width, height, max_edge)
    unscaled = target == (width, height)
    if unscaled or (image.mode == "RGB" and _vips()):
        lines = lines or scanlines(image)
        if lines is not None:
            return _served(lines, max_edge)
    if unscaled:  # a mode written by Pillow
        return Served(encode_png(image, segmented=True), width, height, None)
    return Served(encode_png(scale(image, target), segmented=True), *target, (width, height))


def serve_rows(lines: Scanlines, max_edge: int) -> Served:
    """``serve`` of the image whose scanlines are ``lines``: the image itself is never needed."""
    return _served(lines, max_edge)


def png_of_rows(lines: Scanlines) -> bytes:
    """``encode_png`` of the image whose scanlines are ``lines``."""
    return _png_of(lines, segmented=False)


def _served(lines: Scanlines, max_edge: int) -> Served:
    """``lines`` served: scaled by libvips (RGB) when larger than ``max_edge``."""
    size = lines.size
    target = fit_long_edge(*size, max_edge)
    if target == size:
        return Served(_png_of(lines, segmented=True), *size, None)
    return Served(_png_of(_scaled(lines, target), segmented=True), *target, size)


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

    found = _simple_png(png)
    if found is None or found[2] != 2 or _vips() is None:
        return None
    width, height, _, data, _ = found
    row = width * 3 + 1
    raw = bytearray(isal_zlib.decompress(data))
    if len(raw) != row * height or raw[::row].count(0) != height:
        return None  # filtered rows: not one of ours
    _paint(raw, _clipped(boxes, (width, height)), bytes(colour), row=row, first=0, last=height)
    raw.append(0)  # the last row's pad: the stream after its first byte is the scanlines
    return _served(Scanlines(memoryview(raw)[1:], (width, height), "RGB"), max_edge)


def fill_png(png: bytes, boxes: Sequence[Edges], colour: tuple[int, int, int]) -> bytes:
    """``png`` with each of ``boxes`` (``left, top, right, bottom``, pixels,
    end exclusive) filled with ``colour``.

    A PNG as ``encode_png`` writes it (8-bit RGB or RGBA, no scanline
    filter, no other chunks) is changed in its own bytes: inflated, the
    boxes' rows patched, deflated again, with no image decoded (about a
    third of Pillow's decode, fill and encode on a served screen). Any
    other PNG goes through Pillow.
    """
    from isal import isal_zlib

    found = _simple_png(png)
    if found is None:
        return _fill_with_pillow(png, boxes, colour)
    width, height, colour_type, data, segments = found
    pixel = bytes(colour) + (b"\xff" if colour_type == 6 else b"")  # RGBA: opaque
    row = width * len(pixel) + 1
    inside = _clipped(boxes, (width, height))
    if segments is not None:
        patched = _fill_segments((width, height), colour_type, data, segments, inside, pixel)
        if patched is not None:
            return patched
    raw = bytearray(isal_zlib.decompress(data))
    if len(raw) != row * height or raw[::row].count(0) != height:
        return _fill_with_pillow(png, boxes, colour)  # filtered rows: not one of ours
    _paint(raw, inside, pixel, row=row, first=0, last=height)
    deflate = isal_zlib.compressobj(ISAL_LEVEL)
    return _png((width, height), colour_type, deflate.compress(raw) + deflate.flush())


def fill_rects(
    picture: Image.Image, boxes: Sequence[Edges], colour: tuple[int, int, int]
) -> Image.Image:
    """A copy of ``picture`` (RGB or RGBA) with each of ``boxes`` filled with
    ``colour``; a box is cut to the picture, an empty one is passed by."""
    from PIL import ImageDraw

    picture = picture.copy()
    draw = ImageDraw.Draw(picture)
    for left, top, right, bottom in _clipped(boxes, picture.size):
        draw.rectangle((left, top, right - 1, bottom - 1), fill=colour)
    return picture


def _clipped(boxes: Sequence[Edges], size: tuple[int, int]) -> list[Edges]:
    """``boxes`` cut to an image of ``size``, the empty ones left out."""
    width, height = size
    cut = [
        (max(0, left), max(0, top), min(width, right), min(height, bottom))
        for left, top, right, bottom in boxes
    ]
    return [box for box in cut if box[2] > box[0] and box[3] > box[1]]


def _paint(
    raw: bytearray, boxes: Sequence[Edges], pixel: bytes, *, row: int, first: int, last: int
) -> None:
    """Each of ``boxes`` (cut to the image) as ``pixel``s in ``raw``: the
    image's rows ``first`` to ``last`` (excluded), ``row`` bytes each with
    its filter byte first."""
    for left, top, right, bottom in boxes:
        run = pixel * (right - left)
        for y in range(max(top, first), min(bottom, last)):
            at = (y - first) * row + 1 + left * len(pixel)
            raw[at : at + len(run)] = run


def _fill_with_pillow(png: bytes, boxes: Sequence[Edges], colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        picture = image.convert("RGB") if image.mode not in ("RGB", "RGBA") else image
        return encode_png(fill_rects(picture, boxes, colour))


def _simple_png(png: bytes) -> tuple[int, int, int, bytes, bytes | None] | None:
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


def _adler_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's)."""
    base, rem = _ADLER_BASE, second_length % _ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % base
    sum1 += (second & 0xFFFF) + base - 1
    sum2 += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + base - rem
    sum1 %= base
    sum2 %= base
    return sum1 | (sum2 << 16)


def _fill_segments(
    size: tuple[int, int],
    colour_type: int,
    data: bytes,
    info: bytes,
    boxes: Sequence[Edges],
    pixel: bytes,
) -> bytes | None:
    """``fill_png`` on a segmented PNG (``_segmented_png``): only the groups
    of rows ``boxes`` (cut to the image) touch are inflated, painted with
    ``pixel`` and deflated again; None when the segments' table does not fit
    the data (then the whole is redone)."""
    from isal import isal_zlib

    width, height = size
    row = width * len(pixel) + 1
    if len(info) < 8:
        return None
    rows, count = struct.unpack(">II", info[:8])
    if rows <= 0 or count != -(-height // rows) or len(info) != 8 + 8 * count:
        return None
    table = [struct.unpack(">II", info[8 + 8 * i : 16 + 8 * i]) for i in range(count)]
    ends = [end for end, _ in table]
    # Ends count from the stream's start: its header (2 bytes), the groups,
    # then its last block (2) and its Adler-32 (4).
    if ends != sorted(ends) or ends[0] <= 2 or ends[-1] + 6 != len(data):
        return None
    starts = [2, *ends[:-1]]
    touched: dict[int, list[Edges]] = {}
    for box in boxes:
        for group in range(box[1] // rows, (box[3] - 1) // rows + 1):
            touched.setdefault(group, []).append(box)
    parts, new_table, at, total = [], [], 2, 1
    for group, ((end, adler), start) in enumerate(zip(table, starts, strict=True)):
        piece = data[start:end]
        first = group * rows
        length = (min(height, first + rows) - first) * row
        if group in touched:
            raw = bytearray(zlib.decompressobj(-15).decompress(piece))
            if len(raw) != length:
                return None
            _paint(raw, touched[group], pixel, row=row, first=first, last=first + rows)
            deflate = isal_zlib.compressobj(ISAL_LEVEL, isal_zlib.DEFLATED, -15)
            piece = deflate.compress(raw) + deflate.flush(isal_zlib.Z_FULL_FLUSH)
            adler = isal_zlib.adler32(raw)
        parts.append(piece)
        at += len(piece)
        new_table.append((at, adler))
        total = _adler_combine(total, adler, length) if group else adler
    stream = data[:2] + b"".join(parts) + data[-6:-4] + struct.pack(">I", total)
    return _png((width, height), colour_type, stream, new_table, rows)
