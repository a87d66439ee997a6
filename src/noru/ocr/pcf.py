"""X11's compiled bitmap fonts (PCF), read for the glyphs a terminal's grid
shows (``noru.ocr.cells``).

Pure Python and Pillow.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["MAX_GLYPH", "MISSING", "bitmaps"]

# The PCF tables read here (X11's compiled bitmap fonts).
_PCF_MAGIC = 0x70636601
_PCF_METRICS, _PCF_BITMAPS, _PCF_ENCODINGS = 1 << 2, 1 << 3, 1 << 5
_ROW_BYTES = (1, 2, 4, 8)  # a bitmap row is padded to this many bytes
MAX_GLYPH = 64  # pixels a side: the largest terminal cell read is 10x20
# The code point under which ``bitmaps`` gives the font's default glyph: what
# X draws for a character the font lacks (the misc-fixed fonts' dotted box),
# U+FFFD, the character that stands for one that cannot be shown.
MISSING = 0xFFFD


def bitmaps(raw: bytes, beyond: str) -> dict[int, Image.Image]:
    """The bitmaps ("1", ink = 1) of a PCF font's first 256 code points, as
    Pillow's PcfFontFile reads them (and as the fonts' Latin-1 glyphs are),
    and of the characters ``beyond`` it the font has (a Unicode font's),
    read for those code points only: Pillow's reader parses all of a
    Unicode font's glyphs, about 60 ms a font, 17 fonts on the engine's
    warm-up. Under ``MISSING``, the font's default glyph (the one its
    encoding names for characters it lacks), where the font draws one.
    ValueError (or a struct or index error) for a file that is not
    such a font."""
    from PIL import Image

    magic, count = struct.unpack_from("<II", raw, 0)
    if magic != _PCF_MAGIC:
        raise ValueError("not a PCF font")
    toc = {}
    for i in range(count):
        kind, _, _, offset = struct.unpack_from("<IIII", raw, 8 + 16 * i)
        toc[kind] = offset

    def table(kind: int) -> tuple[int, int, str]:
        """Where a table's data starts, its format, and its byte order."""
        offset = toc.get(kind)
        if offset is None:
            raise ValueError("a PCF font without a table it needs")
        (form,) = struct.unpack_from("<I", raw, offset)
        return offset + 4, form, ">" if form & 4 else "<"

    at, form, order = table(_PCF_ENCODINGS)
    first_col, last_col, first_row, last_row, default = struct.unpack_from(f"{order}5H", raw, at)
    codes = (last_col - first_col + 1) * (last_row - first_row + 1)
    wanted = min(256, codes)
    index = struct.unpack_from(f"{order}{wanted}H", raw, at + 10)
    # Code point -> glyph number, as Pillow maps them (it indexes the table
    # by the code point itself).
    glyph_of = {c: index[c] for c in range(first_col, wanted) if index[c] != 0xFFFF}
    # Beyond Latin-1, by the encoding's rows and columns (a Unicode font's).
    per_row = last_col - first_col + 1

    def glyph_at(code: int) -> int | None:
        row, column = divmod(code, 256)
        if not (first_row <= row <= last_row and first_col <= column <= last_col):
            return None
        at_code = at + 10 + 2 * ((row - first_row) * per_row + column - first_col)
        (glyph,) = struct.unpack_from(f"{order}H", raw, at_code)
        return None if glyph == 0xFFFF else glyph

    for code in (ord(char) for char in beyond):
        if (glyph := glyph_at(code)) is not None:
            glyph_of[code] = glyph
    if chr(MISSING) not in beyond and (glyph := glyph_at(default)) is not None:
        glyph_of[MISSING] = glyph

    at, form, order = table(_PCF_METRICS)
    compressed = (form & 0xFF00) == 0x100
    (glyphs,) = struct.unpack_from(f"{order}{'H' if compressed else 'I'}", raw, at)
    metrics_at = at + (2 if compressed else 4)

    def size(glyph: int) -> tuple[int, int]:
        if compressed:
            left, right, _, ascent, descent = (
                v - 128 for v in struct.unpack_from("5B", raw, metrics_at + 5 * glyph)
            )
        else:
            left, right, _, ascent, descent, _ = struct.unpack_from(
                f"{order}6H", raw, metrics_at + 12 * glyph
            )
        return right - left, ascent + descent

    at, form, order = table(_PCF_BITMAPS)
    (bitmaps,) = struct.unpack_from(f"{order}I", raw, at)
    if bitmaps != glyphs:
        raise ValueError("a PCF font whose bitmaps are not its glyphs")
    starts = struct.unpack_from(f"{order}{bitmaps}I", raw, at + 4)
    data_at = at + 4 + 4 * bitmaps + 16
    (data_size,) = struct.unpack_from(f"{order}I", raw, at + 4 + 4 * bitmaps + 4 * (form & 3))
    mode = "1" if form & 8 else "1;R"
    pad = _ROW_BYTES[form & 3]
    found = {}
    for code, glyph in glyph_of.items():
        width, height = size(glyph)
        if not (0 <= width <= MAX_GLYPH and 0 <= height <= MAX_GLYPH):
            raise ValueError("a PCF glyph of no terminal's size")  # before any is allocated
        end = starts[glyph + 1] if glyph + 1 < bitmaps else data_size
        bits = raw[data_at + starts[glyph] : data_at + end]
        stride = (width + 8 * pad - 1) // (8 * pad) * pad
        found[code] = Image.frombytes("1", (width, height), bits, "raw", mode, stride)
    return found
