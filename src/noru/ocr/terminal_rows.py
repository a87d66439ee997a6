"""What a terminal's rows read as: kept by their pixels (``Rows``), and
each glyph the engine read placed at its cell (``place``).

A terminal that scrolled, or a line that changed, reads again only the rows
it has not read before: each row band's glyphs (``Glyph``: a character and
its x extent) are kept by the band's exact pixels and how it was read,
packed small, least recently used first out. ``noru.ocr.terminal`` reads
with it; the engine is behind ``RowReader``.
"""

from __future__ import annotations

import hashlib
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["ROWS", "SKIP", "Glyph", "RowReader", "Rows", "place"]

# Rows kept by their pixels: a few screens of terminals.
ROWS = 4096


@dataclass(frozen=True)
class Glyph:
    """One character as the engine read it in a row band: its x extent in the band's pixels."""

    text: str
    left: int
    right: int
    confidence: float


# What reads row bands (dark on white), each as one line: its glyphs.
RowReader = Callable[[Sequence["Image.Image"]], list[list[Glyph]]]


# A row's glyphs as kept: their characters (joined by a separator no glyph
# holds), their left and right edges, their confidences in 0-255.
_Packed = tuple[str, bytes, bytes]
_SEPARATOR = "\x1f"


def _pack(glyphs: Sequence[Glyph]) -> _Packed:
    edges = array("H", [min(65535, max(0, v)) for g in glyphs for v in (g.left, g.right)])
    confidences = bytes(round(255 * min(1.0, max(0.0, g.confidence))) for g in glyphs)
    return _SEPARATOR.join(g.text for g in glyphs), edges.tobytes(), confidences


def _unpack(packed: _Packed) -> tuple[Glyph, ...]:
    texts, edges, confidences = packed
    if not confidences:
        return ()
    positions = array("H")
    positions.frombytes(edges)
    return tuple(
        Glyph(text, positions[2 * i], positions[2 * i + 1], confidences[i] / 255)
        for i, text in enumerate(texts.split(_SEPARATOR))
    )


class Rows:
    """What rows read as, by their exact pixels (bounded, least recently used
    first out; about 1 kB a row of 200 glyphs, packed). Thread-safe. What a
    kept row gives is what reading it gave, confidences to 1/255."""

    def __init__(self, *, most: int = ROWS) -> None:
        self.most = most
        self.hits = 0
        self.misses = 0
        self._rows: OrderedDict[bytes, _Packed] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(band: Image.Image, how: str) -> bytes:
        """What decides a row's glyphs: its exact pixels and ``how`` it is read."""
        digest = hashlib.sha256()
        digest.update(f"{how}|{band.width}x{band.height}|".encode())
        digest.update(band.tobytes())
        return digest.digest()

    def read(
        self, bands: Sequence[Image.Image], how: str, reader: RowReader
    ) -> list[tuple[Glyph, ...]]:
        """Each band's glyphs: kept ones as kept, the others read (all at once)."""
        keys = [self.key(band, how) for band in bands]
        found: dict[int, _Packed] = {}
        with self._lock:
            for i, key in enumerate(keys):
                packed = self._rows.get(key)
                if packed is not None:
                    self._rows.move_to_end(key)
                    found[i] = packed
            self.hits += len(found)
            self.misses += len(keys) - len(found)
        new = [i for i in range(len(bands)) if i not in found]
        if new:
            read = reader([bands[i] for i in new])
            with self._lock:
                for i, got in zip(new, read, strict=True):
                    found[i] = _pack(got)
                    self._rows[keys[i]] = found[i]
                while len(self._rows) > self.most:
                    self._rows.popitem(last=False)
        # A fresh reading goes out as a kept one would: the same either way.
        return [_unpack(found[i]) for i in range(len(bands))]

    def __len__(self) -> int:
        return len(self._rows)


def place(glyphs: Sequence[Glyph], width: int, words: Sequence[Sequence[int]]) -> dict[int, Glyph]:
    """Each glyph at its cell, word by word (``words``: runs of inked cells).
    Where a word got as many glyphs (their middles within half a cell of
    it) as it has cells, they go to its cells in order: the engine's boxes
    drift, by a cell over a word of wide capitals (``WARNING``'s ``R`` in
    its ``N``'s cell). Else they are aligned with its cells (``_align``)."""
    w = width
    ordered = sorted(glyphs, key=_middle)
    placed: dict[int, Glyph] = {}
    for word in words:
        low, high = word[0] * w - w // 2, (word[-1] + 1) * w + w // 2
        inside = [g for g in ordered if low <= _middle(g) < high]
        if len(inside) == len(word):
            placed.update(zip(word, inside, strict=True))
        else:
            placed.update(_align(inside, word, w))
    return placed


def _middle(glyph: Glyph) -> int:
    return (glyph.left + glyph.right) // 2


# What leaving a glyph out, or a cell unread, costs in aligning a word's
# glyphs with its cells, in cells of distance between a glyph and its cell:
# a glyph goes to a cell up to a cell away rather than two being left.
SKIP = 0.5


def _align(glyphs: Sequence[Glyph], word: Sequence[int], width: int) -> dict[int, Glyph]:
    """A word's glyphs (in order) with its cells (in order), where the engine
    read more or fewer glyphs than the word has cells (it joined two, split
    one, or left one out): the alignment, keeping both orders, that puts
    each glyph nearest its cell, a glyph left out or a cell left unread
    costing ``SKIP``. A glyph placed by its middle alone, the next one in
    the next free cell, drifts over a long unbroken token (a key, a hash)
    and takes its neighbours' cells, and their votes."""
    n, m = len(glyphs), len(word)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    step = [[0] * (m + 1) for _ in range(n + 1)]  # 1: both, 2: glyph left out, 3: cell
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            if i and j:
                distance = abs(_middle(glyphs[i - 1]) - (word[j - 1] * width + width / 2))
                both = cost[i - 1][j - 1] + distance / width
                if both < cost[i][j]:
                    cost[i][j], step[i][j] = both, 1
            if j and cost[i][j - 1] + SKIP < cost[i][j]:
                cost[i][j], step[i][j] = cost[i][j - 1] + SKIP, 3
            if i and cost[i - 1][j] + SKIP < cost[i][j]:
                cost[i][j], step[i][j] = cost[i - 1][j] + SKIP, 2
    placed: dict[int, Glyph] = {}
    i, j = n, m
    while i or j:
        move = step[i][j]
        if move == 1:
            placed[word[j - 1]] = glyphs[i - 1]
            i, j = i - 1, j - 1
        elif move == 2:
            i -= 1
        else:
            j -= 1
    return placed
