"""The monospace fonts installed on this machine, and their glyphs drawn as a
terminal draws them.

A terminal draws its text with a font fontconfig knows, rasterised by
FreeType: so the glyphs on a screen can be drawn again here, pixel for
pixel, and a cell told by the glyph it is (``noru.ocr.glyphs``). This module
lists the candidates (``monospace_faces``: every upright face whose letters
share one advance, from ``fc-list``) and draws a face's glyphs at a size in
pixels with one of the ways FreeType is asked to hint them (``HINTINGS``):
terminals differ there (Xft and VTE follow fontconfig, Debian's default is
slight hinting; kitty and alacritty have their own defaults).

FreeType comes through freetype-py (its wheel carries the library), because
a terminal's glyphs are told apart by the hinting they were drawn with, and
Pillow's own FreeType draws with one hinting only.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import shutil
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "HINTINGS",
    "Drawn",
    "Face",
    "bold_of",
    "draw",
    "drawing",
    "fallbacks",
    "hintings",
    "monospace_faces",
    "regulars_having",
    "rendered",
]

# How FreeType is asked to hint, by name: fontconfig's slight (the light
# auto-hinter), full (the font's own instructions), none, monochrome; and
# slight with stem darkening, as Qt (Konsole) draws a face of PostScript
# outlines (CFF: Hermit, Inconsolata), its stems a little thicker than Xft
# draws them (``hintings``).
HINTINGS = ("light", "full", "none", "mono", "darkened")
# Characters whose advances a monospace face has alike; a few faces (Hermit's
# bold and light) have one or two a little off, which terminals draw in the
# grid's cell all the same.
_PROBE = "iIlmMW0_.:aoxQ@#"
_MOST_ALIKE = 0.6
# fontconfig's weights of a bold face (FC_WEIGHT_BOLD) and a regular one.
BOLD = 200
REGULAR = 80
FC_LIST_TIMEOUT = 10.0
# Drawings kept: finding a font draws a few dozen characters of a few
# hundred faces and sizes once; a grid's font is drawn whole.
DRAWINGS_KEPT = 128
# FreeType faces kept open: each holds its file's tables (a CJK collection's
# are tens of MB), and a grid is read with one face and its bold.
FACES_OPEN = 4
_DRAWING = threading.RLock()


@dataclass(frozen=True)
class Face:
    """One installed font face: its family and style as fontconfig names them,
    its file and index in the file, and its weight (fontconfig's scale)."""

    family: str
    style: str
    path: str
    index: int
    weight: int
    # Drawn bolder than its file: the bold a terminal makes of a family with
    # no bold face (``bold_of``).
    emboldened: bool = False

    def __str__(self) -> str:
        return f"{self.family} {self.style}" + (" (emboldened)" if self.emboldened else "")


def monospace_faces() -> tuple[Face, ...]:
    """Every upright face fontconfig knows whose letters share one advance (a
    face a terminal can draw its grid with); none when fontconfig or FreeType
    is not here. Listed once a process (the first caller lists them while
    others wait)."""
    with _DRAWING:
        return _monospace_faces()


@functools.cache
def _monospace_faces() -> tuple[Face, ...]:
    listed = _fontconfig(
        "fc-list", "--format", "%{file}|%{index}|%{family[0]}|%{style[0]}|%{weight}|%{slant}\n"
    )
    if listed is None:
        return ()
    found: dict[tuple[str, int], Face] = {}
    for row in listed.splitlines():
        parts = row.split("|")
        if len(parts) != 6 or parts[5] not in ("", "0"):
            continue  # not upright (italic, oblique), or not a row we can read
        path, index, family, style, weight, _ = parts
        try:
            face = Face(family, style, path, int(index), int(weight or REGULAR))
        except ValueError:
            continue
        if (path, face.index) not in found and _is_monospace(face):
            found[path, face.index] = face
    # One face of each look: the same font in several files or formats
    # (Nimbus Mono PS as Type 1, CFF and T1; the five regions of Noto Sans
    # Mono CJK, whose Latin letters are one) is one candidate.
    faces: dict[bytes, Face] = {}
    for face in sorted(found.values(), key=_preference):
        faces.setdefault(_look(face), face)
    return tuple(sorted(faces.values(), key=lambda f: (f.family, f.weight, f.path)))


def _fontconfig(tool: str, *arguments: str) -> str | None:
    """What fontconfig's ``tool`` (``fc-list``, ``fc-match``) prints with
    ``arguments``; None when it is not installed or fails."""
    program = shutil.which(tool)
    if program is None:
        return None
    try:
        return subprocess.run(
            [program, *arguments],
            capture_output=True,
            text=True,
            timeout=FC_LIST_TIMEOUT,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def _preference(face: Face) -> tuple[int, str, int]:
    """Which of several files of one look to keep: TrueType and OpenType before
    Type 1, then by name."""
    return (face.path.endswith((".pfb", ".t1", ".pfa")), face.path, face.index)


def _look(face: Face) -> bytes:
    """What ``face`` draws for a few letters at one size, and the sizes it has
    bitmaps drawn for (Anonymous Pro has, Anonymous Pro Minus has not): alike
    faces look alike."""
    drawn = draw(face, 24.0, "none", tuple("aAg0Rl"))
    if drawn is None:
        return face.path.encode()
    with _DRAWING:
        ft = _ft_face(face)
        strikes = sorted(size.y_ppem for size in ft.available_sizes) if ft is not None else []
    return repr(strikes).encode() + b"|".join(
        f"{left},{top}".encode() + bitmap.tobytes()
        for left, top, bitmap in zip(drawn.lefts, drawn.tops, drawn.bitmaps, strict=True)
    )


def bold_of(face: Face) -> Face | None:
    """The face a terminal draws ``face``'s bold text with: the same family's
    upright face nearest in weight to bold, heavier than ``face``; for a
    family with none (Noto Mono), ``face`` emboldened as fontconfig has
    Xft, cairo (VTE), Qt and the GPU terminals do it (FreeType's synthetic
    bold); None when there is no heavier face to draw."""
    if face.emboldened:
        return None
    heavier = [
        f
        for f in monospace_faces()
        if f.family == face.family and f.weight > face.weight and f.path != face.path
    ]
    found = min(heavier, key=lambda f: abs(f.weight - BOLD), default=None)
    if found is None and face.weight < BOLD:
        return dataclasses.replace(face, weight=BOLD, emboldened=True)
    return found


@functools.lru_cache(maxsize=FACES_OPEN)
def fallbacks(
    face: Face, chars: tuple[str, ...], *, mono: bool = False
) -> tuple[tuple[Face, tuple[str, ...]], ...]:
    """The faces a terminal draws those of ``chars`` that ``face`` has not
    with (a ``❯`` or a ``✔`` in a prompt), each with its characters: for
    each character, the first face of fontconfig's fallback list for
    ``face``'s family that has it (``fc-match -s``), as Xft and cairo pick
    one; with ``mono``, of the list for a monospaced face of that family,
    as Konsole (Qt's monospace hint) and kitty ask, which puts DejaVu Sans
    Mono's ``❯`` before DejaVu Sans's. Empty when fontconfig cannot say."""
    listed = _fontconfig(
        "fc-match",
        "-s",
        "--format",
        "%{file}|%{index}|%{family[0]}|%{style[0]}|%{weight}|%{charset}\n",
        f"{face.family}:style={face.style}" + (":spacing=100" if mono else ""),
    )
    if listed is None:
        return ()
    import bisect

    # The characters not placed yet, as sorted code points: each span of a
    # face's charset is found among them by bisection (the wide letters are
    # some 13,000, a fallback list a hundred faces of many spans).
    codes = sorted({ord(c) for c in chars})
    placed: set[int] = set()
    found: dict[Face, list[int]] = {}
    for row in listed.splitlines():
        parts = row.split("|")
        if len(parts) != 6 or len(placed) == len(codes):
            continue
        path, index, family, style, weight, charset = parts
        try:
            other = Face(family, style, path, int(index), int(weight or REGULAR))
            spans = [
                (int(a, 16), int(b or a, 16))
                for a, _, b in (span.partition("-") for span in charset.split())
            ]
        except ValueError:
            continue
        own = (other.path, other.index) == (face.path, face.index)
        for first, last in spans:
            start, end = bisect.bisect_left(codes, first), bisect.bisect_right(codes, last)
            for code in codes[start:end]:
                if code not in placed:
                    placed.add(code)
                    if not own:  # the face's own are drawn with it
                        found.setdefault(other, []).append(code)
    order = {char: n for n, char in reversed(list(enumerate(chars)))}
    return tuple(
        (other, tuple(sorted((chr(code) for code in kept), key=order.__getitem__)))
        for other, kept in found.items()
    )


@functools.lru_cache(maxsize=FACES_OPEN)
def regulars_having(chars: tuple[str, ...]) -> tuple[tuple[Face, tuple[str, ...]], ...]:
    """Each monospace family's regular face (the upright face nearest in
    weight to regular) with those of ``chars`` it has, for those that have
    any: the faces a terminal may draw a symbol its grid's face lacks with
    when it picks one by an order of its own (Konsole draws Powerline's
    branch icon from Hack where fontconfig's list puts Fira Code first)."""
    families: dict[str, Face] = {}
    for face in monospace_faces():
        kept = families.get(face.family)
        if kept is None or abs(face.weight - REGULAR) < abs(kept.weight - REGULAR):
            families[face.family] = face
    found = []
    with _DRAWING:
        for face in families.values():
            ft = _ft_face(face)
            if ft is None:
                continue
            has = tuple(c for c in chars if ft.get_char_index(c))
            if has:
                found.append((face, has))
    return tuple(found)


def _is_monospace(face: Face) -> bool:
    import freetype

    advances: Counter[int] = Counter()
    with _DRAWING:  # a FreeType face is one thread's at a time
        ft = _ft_face(face)
        if ft is None:
            return False
        for char in _PROBE:
            if ft.get_char_index(char) == 0:
                return False
            ft.load_char(char, freetype.FT_LOAD_NO_SCALE)
            advances[ft.glyph.advance.x] += 1
    return advances.most_common(1)[0][1] >= _MOST_ALIKE * len(_PROBE)


@functools.lru_cache(maxsize=FACES_OPEN)
def _ft_face(face: Face) -> Any:
    """freetype-py's face for ``face``, or None when FreeType cannot read it.
    The last few stay open (opening one is most of the cost of drawing a few
    glyphs); every face is one thread's at a time, so callers hold
    ``_DRAWING`` while they open, use and let go of one (a face closed while
    another thread drew would free what FreeType still uses)."""
    try:
        import freetype
    except ImportError:
        return None
    try:
        return freetype.Face(face.path, face.index)
    except (OSError, freetype.FT_Exception):
        return None


@dataclass(frozen=True)
class Drawn:
    """Glyphs of one face at one size and hinting: each character's coverage
    (0-255, rows top down), and where its top left pixel lies from the pen
    (``left`` pixels right of it, ``top`` pixels above the baseline); the
    face's advance, in pixels."""

    face: Face
    size: float
    hinting: str
    advance: float
    chars: tuple[str, ...]
    bitmaps: tuple[npt.NDArray[np.uint8], ...]
    lefts: tuple[int, ...]
    tops: tuple[int, ...]


def hintings(face: Face) -> tuple[str, ...]:
    """The ways a terminal may have drawn ``face`` (``HINTINGS``): darkened
    only where FreeType darkens, a face of PostScript outlines (CFF)."""
    return HINTINGS if _is_cff(face.path) else tuple(h for h in HINTINGS if h != "darkened")


@functools.lru_cache(maxsize=256)
def _is_cff(path: str) -> bool:
    """Whether the font file holds PostScript (CFF) outlines: an OpenType
    file whose tag is ``OTTO``."""
    try:
        with open(path, "rb") as file:
            return file.read(4) == b"OTTO"
    except OSError:
        return False


@contextlib.contextmanager
def drawing(face: Face, hinting: str) -> Iterator[tuple[Any, int, int] | None]:
    """``face`` open in FreeType, with the load flags and render mode of
    ``hinting`` (stem darkening on while a ``darkened`` face is in use); None
    when FreeType cannot read it. One thread draws at a time."""
    import freetype

    flags = {
        "light": freetype.FT_LOAD_TARGET_LIGHT,
        "darkened": freetype.FT_LOAD_TARGET_LIGHT,
        "full": freetype.FT_LOAD_DEFAULT,
        "none": freetype.FT_LOAD_NO_HINTING,
        "mono": freetype.FT_LOAD_TARGET_MONO | freetype.FT_LOAD_MONOCHROME,
    }[hinting]
    mode = freetype.FT_RENDER_MODE_MONO if hinting == "mono" else freetype.FT_RENDER_MODE_NORMAL
    with _DRAWING:
        ft = _ft_face(face)
        if ft is None:
            yield None
            return
        _darkening(hinting == "darkened")
        try:
            yield ft, flags, mode
        finally:
            _darkening(False)


def _darkening(on: bool) -> None:
    """FreeType's stem darkening of CFF outlines, on or off (off is its
    default), for the glyphs loaded next; callers hold ``_DRAWING``."""
    import freetype

    value = ctypes.c_ubyte(0 if on else 1)
    freetype.raw.FT_Property_Set(
        freetype.get_handle(), b"cff", b"no-stem-darkening", ctypes.byref(value)
    )


def rendered(glyph: Any, face: Face, mode: int) -> npt.NDArray[np.uint8]:
    """The glyph loaded in FreeType's slot, rendered (emboldened first for an
    emboldened face, by a 24th of the em each way, as FreeType's own
    synthetic bold, FT_GlyphSlot_Embolden, makes it), as coverage 0-255."""
    import freetype

    if face.emboldened:
        freetype.raw.FT_GlyphSlot_Embolden(glyph._FT_GlyphSlot)
    glyph.render(mode)
    return _coverage(glyph.bitmap)


@functools.lru_cache(maxsize=DRAWINGS_KEPT)
def draw(
    face: Face, size: float, hinting: str, chars: tuple[str, ...], shift: float = 0.0
) -> Drawn | None:
    """``chars`` of ``face`` drawn at ``size`` pixels per em with ``hinting``
    (one of HINTINGS), the pen ``shift`` pixels right of a pixel's edge (a
    terminal that centres a glyph in a wider cell draws it between pixels),
    the ones the face has (others are left out); None when the face cannot
    be read."""
    with drawing(face, hinting) as opened:
        if opened is None:
            return None
        ft, flags, mode = opened
        return _draw(ft, face, size, hinting, chars, shift, flags, mode)


def _draw(
    ft: Any,
    face: Face,
    size: float,
    hinting: str,
    chars: tuple[str, ...],
    shift: float,
    flags: int,
    mode: int,
) -> Drawn | None:
    import freetype

    kept: list[str] = []
    advance = 0.0
    bitmaps: list[npt.NDArray[np.uint8]] = []
    lefts: list[int] = []
    tops: list[int] = []
    try:
        ft.set_char_size(round(size * 64), 0, 72, 72)
        ft.set_transform(
            freetype.Matrix(0x10000, 0, 0, 0x10000), freetype.Vector(round(shift * 64), 0)
        )
        for char in chars:
            if ft.get_char_index(char) == 0:
                continue
            ft.load_char(char, flags)
            glyph = ft.glyph
            bitmaps.append(rendered(glyph, face, mode))
            advance = max(advance, glyph.advance.x / 64)
            kept.append(char)
            lefts.append(glyph.bitmap_left)
            tops.append(glyph.bitmap_top)
    except freetype.FT_Exception:
        return None
    return Drawn(
        face, size, hinting, advance, tuple(kept), tuple(bitmaps), tuple(lefts), tuple(tops)
    )


def _coverage(bitmap: Any) -> npt.NDArray[np.uint8]:
    """A FreeType bitmap as coverage 0-255: grey levels, or the bits of a
    monochrome one (an embedded bitmap strike, or mono hinting)."""
    import freetype
    import numpy as np

    rows, width, pitch = bitmap.rows, bitmap.width, bitmap.pitch
    if rows == 0 or width == 0:
        return np.zeros((0, 0), np.uint8)
    raw = np.frombuffer(
        ctypes.string_at(bitmap._FT_Bitmap.buffer, rows * abs(pitch)), dtype=np.uint8
    ).reshape(rows, abs(pitch))
    if bitmap.pixel_mode == freetype.FT_PIXEL_MODE_MONO:
        bits: npt.NDArray[np.uint8] = np.unpackbits(raw, axis=1)[:, :width] * np.uint8(255)
        return bits
    return raw[:, :width].copy()
