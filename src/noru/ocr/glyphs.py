"""A terminal's cells told by their glyphs, drawn again in the font on screen.

A terminal draws each character of its grid with a font installed on this
machine. Once that font is known (its face, its size in pixels, how FreeType
hinted it, and where a glyph sits in its cell), every character it can draw
is drawn here the same way (``noru.ocr.faces``), and each cell is the
character whose drawing is nearest its pixels: ``o`` and ``O``, ``_`` and a
space, ``'`` and ``‘``, ``^`` and ``A`` differ there by whole pixels, where
an engine reading shapes is unsure.

1. The font (``noru.ocr.font``: ``identify``), from cells an engine has
   read: a ``Font``, kept with its glyphs drawn by ``Fonts``.
2. ``Shapes.decide``: each cell's nearest character and how clearly it is
   that one (``Decision``): the next character's distance. A cell no glyph
   of the font explains (another font's fallback, an icon, a wide CJK
   character) is left to the engine.

Distances are one less the cosine of the angle between two images of
coverage (0-1): 0 is the same shape at any depth of ink, 1 nothing alike.
numpy does the arithmetic: a screen has a few thousand cell images, each
compared with a few hundred glyphs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noru.ocr.base import BOX_LINES
from noru.ocr.faces import Drawn, Face, draw, fallbacks, regulars_having

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float32]

__all__ = ["CHARSET", "Canvas", "Decision", "Font", "Fonts", "Shapes", "coverage", "distances"]

# What a terminal's cell may hold, as far as a glyph says it: printable
# ASCII, Latin-1's letters and signs, the typography, arrows, marks,
# geometric shapes (systemd's ``●``, a file tree's ``▸``) and lines that
# tools print, and the symbols of Powerline prompts (told where
# the face draws them: a terminal draws another face's fallback glyph its own
# way, scaled or moved, and the engine reads those).
CHARSET = tuple(
    [chr(c) for c in range(33, 127)]
    + [chr(c) for c in range(161, 256) if c != 173]
    + list("‘’“”‚„–—…•·′″‹›€™←↑→↓↔⇒⇐✓✔✗✘✖❯❮➜λ∞≠≤≥±√∑∆")
    + list("●○◆◇■□▪▸▾▶◀▲▼")
    + list(BOX_LINES + "▏▎▍▌▋▊▉█░▒▓")
    + list("\ue0a0\ue0a1\ue0a2\ue0b0\ue0b1\ue0b2\ue0b3")
)
# The characters looked for in the faces fontconfig falls back to: all but
# the lines and blocks (U+2500-U+259F).
_FALLEN_BACK = tuple(c for c in CHARSET if not "\u2500" <= c <= "\u259f")
# Drawings ranked per cell to find the nearest other character: one may be
# drawn by its face, its bold and several fallback faces.
RANKED = 16
# Powerline's icons, which terminals take from different faces when the
# grid's has none (``faces.regulars_having``): drawn in every family's.
_ICONS = tuple("\ue0a0\ue0a1\ue0a2\ue0b0\ue0b1\ue0b2\ue0b3")
# A cell is its nearest glyph's character when the glyph is this near, and the
# nearest other character this much farther, and this many times as far.
NEAR = 0.08
MARGIN = 0.01
RATIO = 3.0
# A Powerline segment's solid end (``\ue0b0``, ``\ue0b2``) is its glyph
# when this near it, and every other glyph this many times as far.
SEGMENT_ENDS = frozenset("\ue0b0\ue0b2")
NEAR_END = 0.13
RATIO_END = 1.6
# A run of cells is a ligature's (``noru.ocr.ligatures``) when this near its
# drawing, and every other this many times as far: terminals place a
# shaped ligature less alike than a glyph (Konsole's ``//`` is 0.09 from
# HarfBuzz's, kitty's 0.004), and two cells' ink tells more than one's.
NEAR_LIGATURE = 0.15
RATIO_LIGATURE = 2.5
# What a character outside ASCII adds to its distance: a terminal shows ASCII
# far more often, and a few look alike (``0`` and ``Ø`` in a slashed-zero face).
RARE = 0.015
# Fonts kept by the grids they fit (``Fonts``), each with its glyphs drawn
# (about half a MB).
KEPT_FONTS = 4


@dataclass(frozen=True)
class Font:
    """A font on a grid: its face (and its bold), size, hinting, and where a
    glyph's pen starts in a cell: ``x`` (and ``shift`` of a pixel) from its
    left, its baseline ``baseline`` pixels below its top. ``fit``: the median distance of the
    samples it was found by."""

    face: Face
    bold: Face | None
    size: float
    hinting: str
    shift: float  # of the pen, right of a pixel's edge
    x: int
    baseline: int
    width: int
    height: int
    fit: float

    def __str__(self) -> str:
        return f"{self.face} {self.size:g} px, {self.hinting} hinting"


@dataclass(frozen=True)
class Decision:
    """A cell's nearest character, its distance, and the nearest other
    character's distance; ``sure`` when the gap between them decides.
    Where it is not, and the engine read the cell's copies alike as another
    character, ``claim`` is the cell's distance to that one's drawing."""

    char: str
    distance: float
    runner_up: float
    glyph: int  # its drawing's index in ``Shapes``
    claim: float | None = None
    # The other ASCII characters the font draws exactly as ``char`` (``O``
    # and ``0`` in a typewriter face at a small size): the cell is one of
    # them, which one its drawing cannot tell.
    twins: str = ""
    # One character of a ligature the run of cells it stands in is drawn as.
    ligature: bool = False

    @property
    def sure(self) -> bool:
        if self.ligature:
            return self.distance <= NEAR_LIGATURE and self.runner_up >= max(
                self.distance + MARGIN, RATIO_LIGATURE * self.distance
            )
        if self.char in SEGMENT_ENDS:
            # Drawn from another face, each terminal its own way (scaled to
            # the cell, moved, blended between two segments' colours): near
            # its drawing, and far nearer than any other glyph.
            return self.distance <= NEAR_END and self.runner_up >= RATIO_END * self.distance
        return self.distance <= NEAR and self.runner_up >= max(
            self.distance + MARGIN, RATIO * self.distance
        )


# --- cells as arrays ---------------------------------------------------------


def coverage(cell: bytes, width: int, height: int) -> Array:
    """A cell image as ``noru.ocr.terminal`` keeps it (ink dark on white, one
    byte a pixel, column by column) as coverage 0-1, rows top down."""
    import numpy as np

    dark = np.frombuffer(cell, dtype=np.uint8).reshape(width, height).T
    return (255.0 - dark.astype(np.float32)) / 255.0


def distances(cells: Array, glyphs: Array) -> Array:
    """Each cell's distance to each glyph (rows: cells, columns: glyphs), both
    as flat coverage: one less the cosine of their angle, so that a glyph
    drawn fainter (a colour whose full ink was not seen, a thin stroke never
    fully covering a pixel) is the same shape."""
    import numpy as np

    own = np.sqrt(np.einsum("ij,ij->i", cells, cells))[:, None]
    theirs = np.sqrt(np.einsum("ij,ij->i", glyphs, glyphs))[None, :]
    found: Array = np.clip(1.0 - (cells @ glyphs.T) / np.maximum(own * theirs, 1e-6), 0.0, 1.0)
    return found


class Canvas:
    """Glyphs of one drawing, each on a canvas with its pen at one point, so
    that a cell holding a glyph at any pen position near it is one slice of
    every canvas at once. Margins: the pen may be ``reach`` pixels outside
    the cell."""

    reach = 4

    def __init__(self, drawn: Drawn, width: int, height: int, *, reach: int = reach) -> None:
        import numpy as np

        self.drawn = drawn
        self.width, self.height = width, height
        self.index = {char: i for i, char in enumerate(drawn.chars)}
        r = reach
        # Canvas rows and columns relative to the pen: wide enough for every
        # glyph, and for a cell's window with the pen up to ``reach`` outside it.
        top = min([-(height + r), *(-t for t in drawn.tops)])
        bottom = max(
            [height + r, *(b.shape[0] - t for b, t in zip(drawn.bitmaps, drawn.tops, strict=True))]
        )
        left = min([-(width + r), *drawn.lefts])
        right = max(
            [width + r, *(b.shape[1] + x for b, x in zip(drawn.bitmaps, drawn.lefts, strict=True))]
        )
        self.pen = (-top, -left)  # the pen's (row, column) on the canvas
        canvas = np.zeros((len(drawn.chars), bottom - top, right - left), np.float32)
        for i, bitmap in enumerate(drawn.bitmaps):
            y, x = self.pen[0] - drawn.tops[i], self.pen[1] + drawn.lefts[i]
            canvas[i, y : y + bitmap.shape[0], x : x + bitmap.shape[1]] = bitmap / 255.0
        self.canvas = canvas
        mass = canvas.sum(axis=(1, 2))
        rows, columns = np.indices(canvas.shape[1:])
        safe = np.maximum(mass, 1e-6)
        # Each glyph's ink centre, from the pen.
        self.centres = np.stack(
            [
                (canvas * columns).sum(axis=(1, 2)) / safe - self.pen[1],
                (canvas * rows).sum(axis=(1, 2)) / safe - self.pen[0],
            ],
            axis=1,
        )

    def cells(self, x: int, baseline: int) -> Array:
        """Every glyph as a cell shows it with the pen at (``x``, ``baseline``),
        flat: one row a glyph."""
        y0, x0 = self.pen[0] - baseline, self.pen[1] - x
        window = self.canvas[:, y0 : y0 + self.height, x0 : x0 + self.width]
        return window.reshape(len(self.drawn.chars), -1)


class Fonts:
    """Fonts found on grids, most recently fitting first, with their glyphs
    drawn (bounded, thread-safe): a terminal looked at again is known at
    once."""

    def __init__(self, *, most: int = KEPT_FONTS) -> None:
        self.most = most
        self._fonts: OrderedDict[Font, Shapes | None] = OrderedDict()
        self._lock = threading.Lock()

    def recent(self) -> list[Font]:
        with self._lock:
            return list(reversed(self._fonts))

    def keep(self, font: Font, shapes: Shapes | None = None) -> None:
        """``font`` as the most recent, with its glyphs drawn (``shapes``),
        when they are: the next look does not draw them again."""
        with self._lock:
            kept = self._fonts.get(font)
            self._fonts[font] = shapes if shapes is not None else kept
            self._fonts.move_to_end(font)
            while len(self._fonts) > self.most:
                self._fonts.popitem(last=False)

    def shapes(self, font: Font) -> Shapes:
        """``font``'s glyphs drawn in its cells, drawn once while it is kept."""
        with self._lock:
            found = self._fonts.get(font)
        if found is None:
            found = Shapes(font)
            with self._lock:
                if font in self._fonts:
                    self._fonts[font] = found
        return found


# --- the cells -------------------------------------------------------------------


class Shapes:
    """Every character of a font (and its bold) drawn in a grid's cells: each
    cell's nearest character (``decide``). Characters drawn alike (``,`` and
    ``‚`` in most faces, a letter and its bold where the bold is missing) are
    one drawing, the first of them in CHARSET: ASCII before the rest. Two
    ASCII characters drawn alike (``O`` and ``0``, ``l`` and ``1`` in some
    faces at some sizes) are twins: a cell nearest their drawing is either,
    and its decision is not sure (``Decision.twins``).

    A glyph can reach into the cells beside it (a ``|`` taller than its row,
    an ``m`` wider than a tight cell): ``bleed`` is what a glyph in a
    neighbouring cell leaves in a cell, to take off before deciding it."""

    def __init__(self, font: Font) -> None:
        import numpy as np

        self.font = font
        chars: list[str] = []
        glyphs: list[Array] = []
        # Where each drawing came from: its canvas and its index there.
        self._sources: list[tuple[Canvas, int]] = []
        seen: dict[bytes, int] = {}
        twins: list[str] = []
        reach = max(font.width, font.height) + Canvas.reach
        for face, wanted in self._faces(font):
            drawn = draw(face, font.size, font.hinting, wanted, font.shift)
            if drawn is None:
                continue
            canvas = Canvas(drawn, font.width, font.height, reach=reach)
            placed = canvas.cells(font.x, font.baseline)
            for i, (char, glyph) in enumerate(zip(drawn.chars, placed, strict=True)):
                key = glyph.tobytes()
                if not glyph.any():
                    continue
                if key not in seen:
                    seen[key] = len(chars)
                    chars.append(char)
                    twins.append("")
                    glyphs.append(glyph)
                    self._sources.append((canvas, i))
                    continue
                first = seen[key]
                named = chars[first] + twins[first]
                if char.isascii() and chars[first].isascii() and char not in named:
                    twins[first] += char
        self.chars = tuple(chars)
        self.twins = tuple(twins)
        # A character outside ASCII must be nearer by this much to be chosen.
        self.prior = np.array([0.0 if c.isascii() else RARE for c in chars], np.float32)
        self.glyphs = (
            np.stack(glyphs) if glyphs else np.zeros((0, font.width * font.height), np.float32)
        )
        self._bleeds: dict[tuple[int, int, int], Array | None] = {}

    def decide(self, cells: Sequence[Array]) -> list[Decision | None]:
        """Each cell's nearest character and the nearest other character's
        distance (None for every cell when the font draws nothing)."""
        import numpy as np

        if not cells or not self.chars:
            return [None] * len(cells)
        flat = np.stack([cell.ravel() for cell in cells]).astype(np.float32)
        found: list[Decision | None] = []
        for start in range(0, len(flat), 512):
            apart = distances(flat[start : start + 512], self.glyphs) + self.prior
            order = np.argsort(apart, axis=1)[:, :RANKED]
            for row, ranked in zip(apart, order, strict=True):
                char = self.chars[ranked[0]]
                twins = self.twins[ranked[0]]
                # A bold drawing of the same character is no rival; a twin,
                # drawn the same, is as near.
                other = (
                    row[ranked[0]]
                    if twins
                    else next((row[j] for j in ranked[1:] if self.chars[j] != char), 1.0)
                )
                found.append(
                    Decision(char, float(row[ranked[0]]), float(other), int(ranked[0]), twins=twins)
                )
        return found

    def distance(self, cell: Array, char: str) -> float | None:
        """The cell's distance to the nearest drawing of ``char`` (None when
        the font draws it like another character outside ASCII, or not at
        all)."""
        import numpy as np

        drawings = [i for i, c in enumerate(self.chars) if char in (c, *self.twins[i])]
        if not drawings:
            return None
        flat = cell.ravel().astype(np.float32)[None, :]
        return float(distances(flat, self.glyphs[drawings]).min() + self.prior[drawings[0]])

    @staticmethod
    def _faces(font: Font) -> list[tuple[Face, tuple[str, ...]]]:
        """The faces the grid's characters are drawn with, each with those it
        draws: the font's face and its bold, then the faces fontconfig falls
        back to for the characters the face has not (``faces.fallbacks``),
        drawn at the same size, pen and baseline, as terminals draw them;
        but lines and blocks, which terminals draw themselves where the
        face has none (xterm, VTE, Konsole, kitty, alacritty, foot).
        Terminals ask fontconfig two ways, for the family as it is or for a
        monospaced face of it: both faces' drawings are kept, a character
        drawn two ways is no rival to itself."""
        faces = [(face, CHARSET) for face in (font.face, font.bold) if face is not None]
        drawn = {(face, char) for face, chars in faces for char in chars}
        for face, chars in (
            *fallbacks(font.face, _FALLEN_BACK),
            *fallbacks(font.face, _FALLEN_BACK, mono=True),
            *regulars_having(_ICONS),
        ):
            # Both lists mostly name the same face for a character, and a
            # family's icons may be its fallback's already: each drawn once.
            new = tuple(char for char in chars if (face, char) not in drawn)
            if new:
                faces.append((face, new))
                drawn.update((face, char) for char in new)
        return faces

    def bleed(self, glyph: int, rows: int, columns: int) -> Array | None:
        """What drawing ``glyph`` leaves in a cell when it is drawn ``rows``
        below and ``columns`` right of it (each -1, 0 or 1), as the cell's
        coverage; None when it leaves nothing."""
        key = (glyph, rows, columns)
        if key not in self._bleeds:
            canvas, index = self._sources[glyph]
            font = self.font
            window = canvas.cells(
                font.x + columns * font.width, font.baseline + rows * font.height
            )[index].reshape(font.height, font.width)
            self._bleeds[key] = window if window.any() else None
        return self._bleeds[key]
