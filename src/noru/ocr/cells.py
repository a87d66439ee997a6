"""Text in a bitmap font on a character grid, read by its glyphs.

A terminal in its default font (xterm's "fixed", 6x13 cells) draws every
character as one exact bitmap from a font the X server has on disk. A
general engine, trained on smooth type, misreads those few pixels (``m`` as
``n``, ``.`` as ``,``, digits); the glyphs themselves leave no doubt. So a
region that shows such a grid is read cell by cell: each cell's pixels are
looked up among the glyphs of the machine's fixed-cell bitmap fonts
(``/usr/share/fonts/X11/misc``, Debian's ``xfonts-base``). A region is read
this way only when nearly every inked cell is a known glyph at one grid
position and one font; anything else (another font, anti-aliased type, a
region that is mostly not a grid) is left to the engine.

Pure Pillow; the fonts load once, on first use.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import struct
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noru.geometry import Rect, clip, shift
from noru.ocr import pcf
from noru.ocr.base import BOX_LINES, OcrLine
from noru.ocr.monospace import agree_job
from noru.ocr.regions import Job, Piece, ink_height, plain_piece, text_rows, two_tone
from noru.ocr.terminal import Read
from noru.ocr.terminal_confidence import chance

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["FONT_DIRS", "Grid", "GridFont", "fonts", "read_grid", "read_job", "read_with_grids"]

FONT_DIRS = (Path("/usr/share/fonts/X11/misc"),)
# The fonts terminals use by default, and their bold faces: cell width x height.
FONT_FILES = (
    "6x13", "6x13B", "6x10", "6x12", "7x13", "7x13B", "7x14", "7x14B", "8x13", "8x13B",
    "9x15", "9x15B", "9x18", "9x18B", "10x20", "5x8", "5x7",
)  # fmt: skip
# Code points read from each font: printable ASCII and Latin-1.
# And what tools print beyond Latin-1 (docker's cut "…", quotes, arrows),
# box drawing (lsblk's and tree's ``├─``, ``└─``) and marks (systemd's ``●``).
BEYOND = "…‘’“”–—•→←↑↓✓✗✔✘❯" + BOX_LINES + "●○◆■□▪▸▾▶◀▲▼"
CHARS = [chr(c) for c in range(33, 127)] + [chr(c) for c in range(161, 256)] + list(BEYOND)
# And the font's default glyph, which X draws for any character the font
# lacks (xterm in 9x15 shows docker's "…" and pip's "━" so): read as U+FFFD,
# the character that says one was there that could not be shown.
SHOWN = [*CHARS, chr(pcf.MISSING)]
# A pixel this far from the paper's grey is ink.
INK_MARGIN = 12
# A grid is accepted when this share of its rows' inked cells are known glyphs.
MIN_KNOWN = 0.97
# A font is tried at a grid position where this share of sampled inked cells
# are its glyphs (a title bar above the grid brings the share down).
MIN_SAMPLE_KNOWN = 0.6
# A font's rows of ink are at least this share of its cells' height (rows of
# digits and capitals alone, as top prints, are a cap height high).
FONT_SHARE = 0.6
# Inked cells sampled to find the grid's position before reading it all,
# visited in steps of this share of the grid's cells (the golden ratio's:
# every step lands far from the last ones, whatever the count; a fixed prime
# step is one cell back where the count is one more than a multiple of it).
SAMPLE = 120
SCATTER = 0.618
# A cell no glyph matches, while its row is read (served as a space).
UNKNOWN = "\x00"
# Bands left for the engine thinner than this hold no line of text.
MIN_BAND = 6
# A row of the grid is text in the font when this share of its inked cells
# are glyphs; other rows (a title bar, a toolbar) are left to the engine.
ROW_KNOWN = 0.9


@dataclass(frozen=True)
class GridFont:
    name: str
    width: int
    height: int
    glyphs: dict[bytes, str]  # a cell's packed bits (ink = 1) -> its character


def _load(path: Path, bold: Path | None = None) -> GridFont | None:
    """The font in ``path`` with the glyphs of its ``bold`` face (a file of
    the same cells) beside them: a terminal draws bold text in the same grid
    (a compiler's file names, mypy's). None when ``path`` is not a
    fixed-cell PCF font; a bold face that is not one is left out."""
    bitmaps = _drawn(path)
    if bitmaps is None:
        return None
    sizes = {bitmap.size for _, bitmap in bitmaps}
    if len(sizes) != 1:
        return None  # not a fixed-cell font
    ((width, height),) = sizes
    bold_bitmaps = _drawn(bold) if bold is not None else None
    if bold_bitmaps is not None and {b.size for _, b in bold_bitmaps} != sizes:
        bold_bitmaps = None
    glyphs: dict[bytes, str] = {}
    # Bold, where xterm has no bold face to draw it with (10x20 has none), is
    # the glyph drawn twice, the second time one pixel to the right. Each
    # form is a glyph, the regular first: a form equal to another
    # character's glyph stays that character, but for ASCII over the rest
    # (6x13B's bold ``-`` is 6x13's ``—``: git's bold ``--- a/`` is far
    # likelier than three dashes).
    forms = [
        *((char, bitmap.tobytes()) for char, bitmap in bitmaps),
        *((char, bitmap.tobytes()) for char, bitmap in bold_bitmaps or ()),
        *((char, _overstruck(bitmap).tobytes()) for char, bitmap in bitmaps),
    ]
    for char, key in forms:
        if key not in glyphs or (char.isascii() and not glyphs[key].isascii()):
            glyphs[key] = char
    if not glyphs:
        return None
    return GridFont(path.name.split(".")[0], width, height, glyphs)


def _drawn(path: Path) -> list[tuple[str, Image.Image]] | None:
    """The inked glyphs of SHOWN in a PCF font file; None when it is no such font."""
    try:
        bitmaps = pcf.bitmaps(gzip.decompress(path.read_bytes()), BEYOND)
    except (OSError, EOFError, ValueError, IndexError, struct.error, zlib.error):
        return None  # not a font we read: the engine reads such text
    drawn = [
        (char, bitmap)
        for char in SHOWN
        if (bitmap := bitmaps.get(ord(char))) is not None and bitmap.getbbox() is not None
    ]
    return drawn or None


def _overstruck(bitmap: Image.Image) -> Image.Image:
    """``bitmap`` with itself drawn again one pixel to the right, within its cell."""
    from PIL import ImageChops

    shifted = bitmap.copy()
    shifted.paste(0, (0, 0, bitmap.width, bitmap.height))
    shifted.paste(bitmap.crop((0, 0, bitmap.width - 1, bitmap.height)), (1, 0))
    return ImageChops.logical_or(bitmap, shifted)


@functools.cache
def fonts() -> tuple[GridFont, ...]:
    """The fixed-cell bitmap fonts found on this machine, each with its bold
    face's glyphs (none: the feature is off)."""
    found = []
    for folder in FONT_DIRS:
        for name in FONT_FILES:
            path, bold = folder / f"{name}.pcf.gz", folder / f"{name}B.pcf.gz"
            if name.endswith("B") or not path.is_file():
                continue
            if (font := _load(path, bold if bold.is_file() else None)) is not None:
                found.append(font)
    return tuple(found)


def _ink(grey: Image.Image, background: int) -> Image.Image:
    """The region as "1" with ink white (1), as the glyph bitmaps hold it: a
    bitmap font blends nothing, so every pixel not the paper's is ink, in any
    of the terminal's colours."""
    return grey.point(lambda v: 255 if abs(v - background) > INK_MARGIN else 0, mode="1")


def _cells(bits: Image.Image, font: GridFont, ox: int, oy: int) -> tuple[int, int]:
    return (bits.width - ox) // font.width, (bits.height - oy) // font.height


def _key(bits: Image.Image, font: GridFont, x: int, y: int) -> bytes:
    return bits.crop((x, y, x + font.width, y + font.height)).tobytes()


def _blank(font: GridFont) -> bytes:
    from PIL import Image

    return Image.new("1", (font.width, font.height), 0).tobytes()


def _position(bits: Image.Image, font: GridFont) -> tuple[int, int, float] | None:
    """The grid offset where most sampled inked cells are this font's glyphs
    (a title bar's cells are not: the share counts what the grid holds).
    Each offset's cells are cut at once (numpy), as ``_key`` cuts one."""
    import math

    import numpy as np

    pixels = np.asarray(bits.convert("L"), dtype=np.uint8) > 0
    w, h = font.width, font.height
    best: tuple[int, int, float] | None = None
    for oy in range(h):
        for ox in range(w):
            columns, rows = _cells(bits, font, ox, oy)
            if columns < 1 or rows < 1:
                continue
            grid = pixels[oy : oy + rows * h, ox : ox + columns * w]
            cells = grid.reshape(rows, h, columns, w).transpose(0, 2, 1, 3).reshape(-1, h, w)
            total = columns * rows
            step = max(1, round(SCATTER * total))
            stride = next(p for p in range(step, step + total + 1) if math.gcd(p, total) == 1)
            visits = (np.arange(min(total, SAMPLE * 8)) * stride) % total
            inked = visits[cells[visits].any(axis=(1, 2))][:SAMPLE]
            if len(inked) < 8:
                continue
            keys = np.packbits(cells[inked], axis=2)
            # A cell in reverse video (a highlighted row) is a glyph, or a
            # space, in the paper's colour on a block of ink (``_unknown``).
            reverse = np.packbits(~cells[inked], axis=2)
            known = sum(
                key.tobytes() in font.glyphs or back.tobytes() in font.glyphs or not back.any()
                for key, back in zip(keys, reverse, strict=True)
            ) / len(inked)
            if best is None or known > best[2]:
                best = (ox, oy, known)
                if known >= MIN_KNOWN:
                    return best  # glyphs at nearly every sampled cell: this is it
    return best


@dataclass(frozen=True)
class Grid:
    """A region read as a grid: its text lines, and the bands of rows (in the
    same pixels) that are not the font's text, for the engine to read."""

    lines: list[OcrLine]
    rest: list[Rect]


def read_grid(grey: Image.Image, background: int) -> Grid | None:
    """The text of ``grey`` (dark on light, ``background`` its paper) read cell by
    cell, boxes in its pixels; None when it is not a known bitmap font's grid."""
    from PIL import ImageOps

    bits = _ink(grey, background)
    line = ink_height(text_rows(grey, background))
    # A band of a bigger region is cut in rows with no ink (``band_cuts``),
    # where the rows past the cut are as empty: its first and last rows of
    # cells may end there, a few pixels short, and are whole with them. An
    # edge with ink (a title bar, a frame) is no such cut.
    cut = [_empty_row(bits, y) for y in (0, bits.height - 1)]
    for font in fonts():
        if grey.width < font.width * 4 or grey.height < font.height:
            continue
        if line is None or not FONT_SHARE * font.height <= line <= font.height:
            continue  # its rows of ink are not this font's height
        top, bottom = (font.height - 1 if empty else 0 for empty in cut)
        padded = ImageOps.expand(bits, (0, top, 0, bottom), fill=0)
        found = _position(padded, font)
        if found is None or found[2] < MIN_SAMPLE_KNOWN:
            continue
        ox, oy, _ = found
        grid = _read(padded, font, ox, oy)
        if grid is not None:
            return _unpadded(grid, top, bits.size)
    return None


def _unpadded(grid: Grid, pad: int, size: tuple[int, int]) -> Grid:
    """``grid`` read with ``pad`` empty rows above an image of ``size`` (and
    some below it): its boxes in the image's pixels, within it."""
    lines = []
    for line in grid.lines:
        box = clip(shift(line.box, 0, -pad), (0, 0, *size))
        if box is not None:
            lines.append(dataclasses.replace(line, box=box))
    rest = [box for band in grid.rest if (box := clip(shift(band, 0, -pad), (0, 0, *size)))]
    return Grid(lines, rest)


def _empty_row(bits: Image.Image, y: int) -> bool:
    return bits.crop((0, y, bits.width, y + 1)).getbbox() is None


def _read(bits: Image.Image, font: GridFont, ox: int, oy: int) -> Grid | None:
    columns, rows = _cells(bits, font, ox, oy)
    blank = _blank(font)
    lines: list[OcrLine] = []
    rest: list[Rect] = []
    inked = known = outside = 0
    for row in range(rows):
        y = oy + row * font.height
        chars: list[str] = []
        row_inked = row_known = 0
        for column in range(columns):
            x = ox + column * font.width
            key = _key(bits, font, x, y)
            if key != blank and key not in font.glyphs:
                key = _unknown(bits, font, x, y, key, blank)
            if key == blank:
                chars.append(" ")
                continue
            row_inked += 1
            # Box drawing the font lacks, xterm draws itself: a line.
            char = font.glyphs.get(key) or _line_shape(bits, font, x, y)
            row_known += char is not None
            chars.append(char or UNKNOWN)
        if row_inked and row_known < ROW_KNOWN * row_inked:
            _grow(rest, (0, y, bits.width, font.height))  # not the font's text
            outside += row_inked
            continue
        inked, known = inked + row_inked, known + row_known
        text = _box_dashes("".join(chars))
        if text.strip():
            lines.append(_line(text, font, ox, y))
    if oy > 0:
        _grow(rest, (0, 0, bits.width, oy), first=True)  # above the grid
    bottom = oy + rows * font.height
    if bottom < bits.height:
        _grow(rest, (0, bottom, bits.width, bits.height - bottom))
    # Most of the ink must be the grid's, and nearly all of that its glyphs.
    if inked == 0 or inked < outside or known / inked < MIN_KNOWN:
        return None
    return Grid(lines, rest)


def _unknown(bits: Image.Image, font: GridFont, x: int, y: int, key: bytes, blank: bytes) -> bytes:
    """A cell that is no glyph as it stands, as it may be one: without the
    spill of an overstruck bold glyph to its left, or in reverse video (the
    glyph, or a space, in the paper's colour on a block of ink: tsc's line
    numbers, a selection, the cursor). ``key`` when neither is a glyph."""
    from PIL import ImageChops

    if x > 0 and (unspilt := _unspilt(bits, font, x, y)) in font.glyphs:
        return unspilt
    cell = bits.crop((x, y, x + font.width, y + font.height))
    reverse = ImageChops.invert(cell.convert("L")).convert("1").tobytes()
    return reverse if reverse in font.glyphs or reverse == blank else key


def _unspilt(bits: Image.Image, font: GridFont, x: int, y: int) -> bytes:
    """The cell at ``x, y`` without the ink an overstruck bold glyph to its
    left spills into its first column (xterm does not clip the second stroke
    to the cell: a bold ``_`` leaves a dot under the next letter)."""
    from PIL import ImageChops

    cell = bits.crop((x, y, x + font.width, y + font.height))
    spill = cell.copy()
    spill.paste(0, (0, 0, font.width, font.height))
    spill.paste(bits.crop((x - 1, y, x, y + font.height)), (0, 0))
    return ImageChops.subtract(cell.convert("L"), spill.convert("L")).convert("1").tobytes()


def _box_dashes(text: str) -> str:
    """``text`` with each ``—`` beside another, and each ``—`` or ``-`` in a
    run of them beside box drawing, as the line ``─``: most fixed fonts draw
    ``─`` as ``—`` (and 6x13's as its bold ``-``), and a tree's ``├──`` is
    far likelier there than dashes."""
    chars = list(text)
    for i, char in enumerate(chars):
        if char == "—" and "—" in (chars[i - 1 : i] + chars[i + 1 : i + 2]):
            chars[i] = "─"
    for order in (range(len(chars)), range(len(chars) - 1, -1, -1)):
        for i in order:
            beside = chars[max(0, i - 1) : i] + chars[i + 1 : i + 2]
            if chars[i] in "—-" and any(c in BOX_LINES for c in beside):
                chars[i] = "─"
    return "".join(chars)


def _line_shape(bits: Image.Image, font: GridFont, x: int, y: int) -> str | None:
    """A cell whose ink is a line from edge to edge: ``─`` (``━`` thick)
    across it, ``│`` down it; None for any other."""
    box = bits.crop((x, y, x + font.width, y + font.height)).getbbox()
    if box is None:
        return None
    left, top, right, bottom = box
    if left == 0 and right == font.width and bottom - top <= 3:
        return "━" if bottom - top > 1 else "─"
    if top == 0 and bottom == font.height and right - left <= 2:
        return "│"
    return None


def _line(text: str, font: GridFont, ox: int, y: int) -> OcrLine:
    first = len(text) - len(text.lstrip())
    stripped = text.strip()
    box: Rect = (ox + first * font.width, y, len(stripped) * font.width, font.height)
    cells = [c for c in stripped if c != " "]
    lost = cells.count(UNKNOWN)
    # The row as drawn: its empty cells are its spaces (indentation and
    # aligned gaps kept); a cell no glyph matches is a space rather than a
    # guess, and a character lost to the line's confidence, as the terminal
    # reader counts one. A cell that is a glyph's exact bitmap leaves no
    # doubt, the font's default glyph too: a character it lacks, U+FFFD.
    sure = chance(Counter(lost=lost))
    return OcrLine(text.replace(UNKNOWN, " ").rstrip(), box, sure, columns=len(text))


def _grow(bands: list[Rect], band: Rect, *, first: bool = False) -> None:
    """Add ``band``, joining it to a band it touches (bands are full width)."""
    for i, (x, y, w, h) in enumerate(bands):
        if band[1] <= y + h and y <= band[1] + band[3]:
            top, bottom = min(y, band[1]), max(y + h, band[1] + band[3])
            bands[i] = (x, top, w, bottom - top)
            return
    if first:
        bands.insert(0, band)
    else:
        bands.append(band)


def read_job(
    job: Job, plain: tuple[Piece, int] | None = None
) -> tuple[list[OcrLine], list[Rect]] | None:
    """A job's region read as a bitmap font's grid: its lines in the original's
    pixels, and the bands (also in the original's pixels) left for the engine;
    None when the region is not such a grid (the engine reads it all).
    ``plain``: the job's ``plain_piece``, when the caller has it already."""
    if not fonts():
        return None
    plain = plain or plain_piece(job)
    if plain is None:
        return None
    piece, background = plain
    if not two_tone(piece.image, background, text_rows(piece.image, background)):
        return None
    grid = read_grid(piece.image, background)
    if grid is None:
        return None
    lines = []
    for line in grid.lines:
        # Each character is the font's own glyph: a row of marks (a
        # traceback's ``^^^^``) is text, and so is a border (a pager's
        # ``───┬───``), as the screen shows it, as the grid reader of
        # smooth type keeps one whose cells are all their glyphs.
        x, y, w, h = line.box
        bx, by, bw, bh = piece.to_original((x, y, x + w, y + h))
        lines.append(dataclasses.replace(line, box=(bx, by, bw, bh)))
    rest = []
    for x, y, w, h in grid.rest:
        bx, by, bw, bh = piece.to_original((x, y, x + w, y + h))
        rest.append((bx, by, bw, bh))
    return lines, rest


def read_with_grids(
    job: Job,
    read: Callable[[Job], list[OcrLine]],
    *,
    agree: bool = True,
    terminal: Callable[[Job], Read | None] | None = None,
) -> list[OcrLine]:
    """The job's lines: by its glyphs where it is a bitmap font's grid; row by
    row on its cells where ``terminal`` finds a monospace grid (``noru.ocr.terminal``);
    by the engine's ``read`` for the rest (or for all of it, when it is no
    grid), its monospace cells made to agree (``noru.ocr.monospace``) when ``agree``."""
    if not fonts() and not agree and terminal is None:
        return read(job)
    plain = plain_piece(job)  # cut once, for both cell readers
    if plain is None:
        return read(job)  # nothing of the region shows
    grid = read_job(job, plain)
    if grid is None and terminal is not None:
        found = terminal(job)
        grid = (found.lines, found.rest) if found is not None else None
    if grid is None:
        lines = read(job)
        return agree_job(job, lines, plain) if agree else lines
    lines, rest = grid
    for band in rest:
        if band[3] >= MIN_BAND:
            lines += read(dataclasses.replace(job, region=band))
    return sorted(lines, key=lambda line: (line.box[1], line.box[0]))
