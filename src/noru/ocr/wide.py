"""Wide letters in a terminal's grid (CJK ideographs, kana, Hangul) told by
their glyphs, drawn again in the face the terminal falls back to for them.

A terminal draws a wide letter over two cells with the face fontconfig
falls back to for it (Noto Sans CJK on Debian), at its grid font's size and
baseline. The engines read these poorly or not at all (no model here reads
Hangul; RapidOCR's Chinese model takes ``一`` for ``ー`` and ``置`` for
``适``), but the drawing is known: each pair of cells the grid's font did
not explain is the wide letter whose drawing is nearest its pixels, as a
cell is its nearest glyph (``noru.ocr.glyphs``).

The letters drawn (``WIDE_CHARS``) are those of the national character sets
people's text is in: KS X 1001 (Hangul syllables and Hanja), GB 2312 and
JIS X 0208 (ideographs, kana): about 13,000, from Python's codecs, no data
file. A letter outside them is left to the engine.

Where a terminal puts a wide letter's pen in its two cells differs (at the
first cell's pen, or centred); ``WideShapes`` finds it from the pairs
themselves: the pen, a few pixels each way, at which the pairs' nearest
drawings are nearest.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noru.ocr.faces import draw, fallbacks
from noru.ocr.glyphs import Decision, Font, distances

if TYPE_CHECKING:
    from noru.ocr.glyphs import Array

__all__ = ["WideShapes", "near_hangul", "sure", "wide_chars", "wide_shapes"]

# The national character sets whose wide letters are drawn, by the codec of
# their two-byte EUC form.
_CODECS = ("euc-kr", "gb2312", "euc-jp")
# The pen is looked for this many pixels around where it would be, and
# found by at most this many pairs (the most inked).
AROUND = 2
FOUND_BY = 16
# A pair is its nearest drawing when it is this near, and the nearest other
# letter this much farther, and this many times as far (wide letters differ
# in many pixels: their drawings are far apart).
NEAR = 0.12
MARGIN = 0.008
RATIO = 2.0
# Cells compared with every drawing at a time.
BATCH = 256


@functools.cache
def wide_chars() -> tuple[str, ...]:
    """The wide letters of KS X 1001, GB 2312 and JIS X 0208, in code order."""
    found: set[str] = set()
    for codec in _CODECS:
        for first in range(0xA1, 0xFF):
            for second in range(0xA1, 0xFF):
                try:
                    char = bytes((first, second)).decode(codec)
                except UnicodeDecodeError:
                    continue
                # A compatibility ideograph is drawn as the letter it stands for.
                wide = len(char) == 1 and unicodedata.east_asian_width(char) == "W"
                if wide and unicodedata.normalize("NFC", char) == char:
                    found.add(char)
    return tuple(sorted(found))


class WideShapes:
    """The wide letters as a grid's font falls back to them, drawn in two of
    its cells: each pair's nearest letter (``decide``)."""

    def __init__(self, font: Font) -> None:
        self.font = font
        self.width, self.height = 2 * font.width, font.height
        self.chars: tuple[str, ...] = ()
        self.glyphs: Array | None = None  # each letter in two cells, once the pen is found

    def _canvas(self, size: float) -> tuple[Array, list[tuple[int, int]], int, int] | None:
        """Every letter drawn at ``size`` on one canvas that holds only
        what some pen puts in the two cells, the pens looked at, and the
        canvas's top and left relative to the pen; None when no face draws
        them."""
        import numpy as np

        font = self.font
        drawings = [
            drawn
            for face, wanted in fallbacks(font.face, wide_chars())
            if (drawn := draw(face, size, font.hinting, wanted)) is not None
        ]
        chars = tuple(char for drawn in drawings for char in drawn.chars)
        if not chars:
            return None
        self.chars = chars
        advance = max(drawn.advance for drawn in drawings)
        centred = round((self.width - advance) / 2)
        xs = {x + d for x in (font.x, centred) for d in range(-AROUND, AROUND + 1)}
        pens = [(x, font.baseline + dy) for x in sorted(xs) for dy in (-1, 0, 1)]
        top, left = -max(b for _, b in pens), -max(xs)
        rows = self.height - min(b for _, b in pens) - top
        columns = self.width - min(xs) - left
        canvas = np.zeros((len(chars), rows, columns), np.float32)
        i = 0
        for drawn in drawings:
            for bitmap, x0, y0 in zip(drawn.bitmaps, drawn.lefts, drawn.tops, strict=True):
                y, x = -y0 - top, x0 - left
                h, w = bitmap.shape
                ya, xa, yb, xb = max(0, y), max(0, x), min(rows, y + h), min(columns, x + w)
                if yb > ya and xb > xa:
                    canvas[i, ya:yb, xa:xb] = bitmap[ya - y : yb - y, xa - x : xb - x] / 255.0
                i += 1
        return canvas, pens, top, left

    def _find_pen(self, pairs: Sequence[Array]) -> None:
        """The size (the grid font's, or the whole pixels a terminal asks the
        fallback face for where the grid's face was found between them) and
        the pen at which the most inked pairs' nearest letters are nearest;
        the letters kept so drawn, in two cells."""
        import numpy as np

        sample = sorted(pairs, key=lambda pair: -float(pair.sum()))[:FOUND_BY]
        flat = np.stack([pair.ravel() for pair in sample]).astype(np.float32)
        best: tuple[float, Array] | None = None
        for size in dict.fromkeys((self.font.size, float(round(self.font.size)))):  # one when whole
            made = self._canvas(size)
            if made is None:
                continue
            canvas, pens, top, left = made
            for x, baseline in pens:
                y0, x0 = -baseline - top, -x - left
                window = canvas[:, y0 : y0 + self.height, x0 : x0 + self.width]
                glyphs = window.reshape(len(canvas), -1)
                nearest = float(np.median(distances(flat, glyphs).min(axis=1)))
                if best is None or nearest < best[0]:
                    best = (nearest, glyphs)
        self.glyphs = best[1] if best is not None else np.zeros((0, 1), np.float32)

    def decide(self, pairs: Sequence[Array]) -> list[Decision | None]:
        """Each pair's nearest wide letter and the nearest other letter's
        distance; all None when no face draws them."""
        import numpy as np

        if not pairs:
            return []
        if self.glyphs is None:
            self._find_pen(pairs)
        assert self.glyphs is not None
        if not len(self.glyphs):
            return [None] * len(pairs)
        flat = np.stack([pair.ravel() for pair in pairs]).astype(np.float32)
        found: list[Decision | None] = []
        for start in range(0, len(flat), BATCH):
            apart = distances(flat[start : start + BATCH], self.glyphs)
            two = np.argpartition(apart, 1, axis=1)[:, :2]
            for row, pair in zip(apart, two, strict=True):
                one, other = sorted(pair, key=lambda j: row[j])
                found.append(Decision(self.chars[one], float(row[one]), float(row[other]), -1))
        return found


def sure(decision: Decision) -> bool:
    """Whether a pair is its nearest wide letter beyond doubt."""
    return decision.distance <= NEAR and decision.runner_up >= max(
        decision.distance + MARGIN, RATIO * decision.distance
    )


def near_hangul(decision: Decision) -> bool:
    """Whether a pair not surely any letter is nearest a Hangul syllable, near
    enough to be one."""
    return "\uac00" <= decision.char <= "\ud7a3" and decision.distance <= NEAR


@functools.lru_cache(maxsize=1)
def wide_shapes(font: Font) -> WideShapes:
    """The wide letters for ``font``'s grid, drawn once while it is the last
    grid's font (some tens of MB: one is kept)."""
    return WideShapes(font)
