"""The redaction fill: boxes painted over a PNG's pixels, in the PNG's own
bytes when Noru wrote it (only the groups of rows a box touches deflated
again), through Pillow otherwise."""

from __future__ import annotations

import io
import struct
import zlib
from typing import TYPE_CHECKING

from noru.imaging.png import ISAL_LEVEL, encode_png, png_from_stream, read_simple_png

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PIL import Image

__all__ = ["Edges", "clipped", "fill_png", "fill_rects", "paint"]

Edges = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom excluded
_ADLER_BASE = 65521


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

    found = read_simple_png(png)
    if found is None:
        return _fill_with_pillow(png, boxes, colour)
    width, height, colour_type, data, segments = found
    pixel = bytes(colour) + (b"\xff" if colour_type == 6 else b"")  # RGBA: opaque
    row = width * len(pixel) + 1
    inside = clipped(boxes, (width, height))
    if segments is not None:
        patched = _fill_segments((width, height), colour_type, data, segments, inside, pixel)
        if patched is not None:
            return patched
    raw = bytearray(isal_zlib.decompress(data))
    if len(raw) != row * height or raw[::row].count(0) != height:
        return _fill_with_pillow(png, boxes, colour)  # filtered rows: not one of ours
    paint(raw, inside, pixel, row=row, first=0, last=height)
    deflate = isal_zlib.compressobj(ISAL_LEVEL)
    return png_from_stream((width, height), colour_type, deflate.compress(raw) + deflate.flush())


def fill_rects(
    picture: Image.Image, boxes: Sequence[Edges], colour: tuple[int, int, int]
) -> Image.Image:
    """A copy of ``picture`` (RGB or RGBA) with each of ``boxes`` filled with
    ``colour``; a box is cut to the picture, an empty one is passed by."""
    from PIL import ImageDraw

    picture = picture.copy()
    draw = ImageDraw.Draw(picture)
    for left, top, right, bottom in clipped(boxes, picture.size):
        draw.rectangle((left, top, right - 1, bottom - 1), fill=colour)
    return picture


def clipped(boxes: Sequence[Edges], size: tuple[int, int]) -> list[Edges]:
    """``boxes`` cut to an image of ``size``, the empty ones left out."""
    width, height = size
    cut = [
        (max(0, left), max(0, top), min(width, right), min(height, bottom))
        for left, top, right, bottom in boxes
    ]
    return [box for box in cut if box[2] > box[0] and box[3] > box[1]]


def paint(
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
            paint(raw, touched[group], pixel, row=row, first=first, last=first + rows)
            deflate = isal_zlib.compressobj(ISAL_LEVEL, isal_zlib.DEFLATED, -15)
            piece = deflate.compress(raw) + deflate.flush(isal_zlib.Z_FULL_FLUSH)
            adler = isal_zlib.adler32(raw)
        parts.append(piece)
        at += len(piece)
        new_table.append((at, adler))
        total = _adler_combine(total, adler, length) if group else adler
    stream = data[:2] + b"".join(parts) + data[-6:-4] + struct.pack(">I", total)
    return png_from_stream((width, height), colour_type, stream, new_table, rows)
