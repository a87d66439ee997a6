"""Programming ligatures, as the terminals that shape their text draw them.

Konsole and kitty shape each line with HarfBuzz, so a ligature font (Fira
Code, JetBrains Mono, Cascadia Code) draws ``->`` as one arrow across two
cells, ``!=`` as one sign, ``www`` as one mark: no glyph of the font's own
letters is the drawing of either cell, and the engine reads ``--`` or
``-4``. Here the operators programmers type are shaped with HarfBuzz in the
grid's font (``shaped``); where the font turns one into something other
than its letters, the whole is drawn as a window of its cells, and a run
of cells that window's drawing explains far better than the cells' own
nearest glyphs side by side is those characters (``with_ligatures``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from noru.ocr.faces import Drawn, Face, drawing, rendered
from noru.ocr.glyphs import Canvas, Decision, Font, Shapes, distances

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from noru.ocr.glyphs import Array

__all__ = ["SEQUENCES", "shaped", "with_ligatures"]

# What programmers type that ligature fonts join: arrows, comparisons,
# comments, scopes, logic, ranges, increments, the web's ``www``.
_TYPED = """
    -> => <- <= >= == != === !== <=> <-> --> <-- ==> <== >>= <<= ->> <<- |> <| <|> <>
    // /// /* */ /** </ /> </> <!-- :: ::: := =: ;; && || ... .. ..= ..< ?. ?? ?: !!
    ++ +++ -- --- ** *** ~~ ~> ~- -~ =~ !~ >> << >>> <<< ## ### #{ #[ #( #? #! #_
    .= .- .? |= ^= += -= *= /= %= &= |- -| $> <$ <$> www __ 0x
"""
SEQUENCES = tuple(_TYPED.split())


@functools.lru_cache(maxsize=8)
def shaped(face: Face, size: float, hinting: str, shift: float) -> dict[int, Drawn]:
    """The ``SEQUENCES`` ``face`` draws otherwise than as its letters side
    by side, shaped by HarfBuzz with the font's default features (``liga``,
    ``calt``), each drawn whole with its pen at its first cell's: by their
    length in cells. Empty when HarfBuzz or the face cannot be read."""
    try:
        import uharfbuzz as hb
    except ImportError:
        return {}
    import numpy as np

    try:
        blob = hb.Blob.from_file_path(face.path)
        hb_face = hb.Face(blob, face.index)
        hb_font = hb.Font(hb_face)
    except Exception:  # a file HarfBuzz cannot read has no ligatures
        return {}
    per_em = size / hb_face.upem
    found: dict[int, tuple[list[str], list[np.ndarray], list[int], list[int]]] = {}
    advance = 0.0
    with drawing(face, hinting) as opened:
        if opened is None:
            return {}
        ft, flags, mode = opened
        import freetype

        ft.set_char_size(round(size * 64), 0, 72, 72)
        for text in SEQUENCES:
            buffer = hb.Buffer()
            buffer.add_str(text)
            buffer.guess_segment_properties()
            hb.shape(hb_font, buffer, {})
            ids = [info.codepoint for info in buffer.glyph_infos]
            own = [hb_font.get_nominal_glyph(ord(char)) for char in text]
            if None in own or ids == own:
                continue  # not the face's, or its letters as they are
            pens = np.cumsum([0] + [p.x_advance for p in buffer.glyph_positions[:-1]]) * per_em
            parts = []
            try:
                for glyph_id, pen in zip(ids, pens, strict=True):
                    ft.set_transform(
                        freetype.Matrix(0x10000, 0, 0, 0x10000),
                        freetype.Vector(round((shift + pen) * 64), 0),
                    )
                    ft.load_glyph(glyph_id, flags)
                    advance = max(advance, ft.glyph.advance.x / 64)
                    parts.append(
                        (rendered(ft.glyph, face, mode), ft.glyph.bitmap_left, ft.glyph.bitmap_top)
                    )
            except freetype.FT_Exception:
                continue
            bitmap, left, top = _joined(parts)
            texts, bitmaps, lefts, tops = found.setdefault(len(text), ([], [], [], []))
            texts.append(text)
            bitmaps.append(bitmap)
            lefts.append(left)
            tops.append(top)
    return {
        length: Drawn(face, size, hinting, advance, tuple(t), tuple(b), tuple(x), tuple(y))
        for length, (t, b, x, y) in found.items()
    }


def _joined(
    parts: Sequence[tuple[npt.NDArray[np.uint8], int, int]],
) -> tuple[npt.NDArray[np.uint8], int, int]:
    """Glyph bitmaps placed from one pen (each with its left and top) as one
    bitmap, their ink added, and its left and top."""
    import numpy as np

    inked = [(b, x, y) for b, x, y in parts if b.size]
    if not inked:
        return np.zeros((0, 0), np.uint8), 0, 0
    left = min(x for _, x, _ in inked)
    top = max(y for _, _, y in inked)
    right = max(x + b.shape[1] for b, x, _ in inked)
    bottom = min(y - b.shape[0] for b, _, y in inked)
    whole = np.zeros((top - bottom, right - left), np.uint16)
    for bitmap, x, y in inked:
        r, c = top - y, x - left
        whole[r : r + bitmap.shape[0], c : c + bitmap.shape[1]] += bitmap
    return np.minimum(whole, 255).astype(np.uint8), left, top


class _Windows:
    """A font's ligatures drawn as windows of their cells, by length."""

    def __init__(self, font: Font) -> None:
        self.texts: dict[int, tuple[str, ...]] = {}
        self.glyphs: dict[int, Array] = {}
        for length, drawn in shaped(font.face, font.size, font.hinting, font.shift).items():
            canvas = Canvas(drawn, length * font.width, font.height)
            self.texts[length] = drawn.chars
            self.glyphs[length] = canvas.cells(font.x, font.baseline)


@functools.lru_cache(maxsize=4)
def _windows(font: Font) -> _Windows:
    return _Windows(font)


def with_ligatures(
    rows: Sequence[Sequence[int]],
    found: dict[tuple[int, int], Decision],
    cell: Callable[[int, int], Array],
    shapes: Shapes,
) -> dict[tuple[int, int], Decision]:
    """``found`` with the runs of cells a ligature of the grid's font draws:
    around each cell left unsure, every run of inked cells as long as a
    ligature (``rows``: each row's inked columns; ``cell``: a cell's ink,
    0-1, by row and column) whose nearest ligature is sure of it
    (``Decision.sure`` with ``ligature``: near, and far nearer than any other
    ligature of its length and than its cells' own nearest glyphs side by
    side); where two overlap, the nearer. Its cells are its characters."""
    import numpy as np

    windows = _windows(shapes.font)
    if not windows.texts:
        return found
    runs: set[tuple[int, int, int]] = set()
    for i, columns in enumerate(rows):
        inked = set(columns)
        for column in columns:
            decision = found.get((i, column))
            if decision is not None and decision.sure:
                continue
            for length in windows.texts:
                for start in range(column - length + 1, column + 1):
                    if all(c in inked for c in range(start, start + length)):
                        runs.add((i, start, length))
    chosen: list[tuple[float, int, int, int, str, float]] = []
    for length in windows.texts:
        wanted = sorted(run for run in runs if run[2] == length)
        if not wanted:
            continue
        images = np.stack([_window(cell, i, start, length) for i, start, _ in wanted])
        apart = distances(images, windows.glyphs[length])
        for n, (i, start, _) in enumerate(wanted):
            order = np.argsort(apart[n])
            nearest = float(apart[n][order[0]])
            text = windows.texts[length][int(order[0])]
            other = float(apart[n][order[1]]) if len(order) > 1 else 1.0
            if not Decision(text, nearest, other, -1, ligature=True).sure:
                continue  # another ligature as near: the cells' own glyphs need not be drawn
            other = min(other, _own(images[n], (i, start, length), found, shapes))
            if Decision(text, nearest, other, -1, ligature=True).sure:
                chosen.append((nearest, i, start, length, text, other))
    out = dict(found)
    taken: set[tuple[int, int]] = set()
    for nearest, i, start, length, text, other in sorted(chosen):
        cells = {(i, c) for c in range(start, start + length)}
        if cells & taken:
            continue
        taken |= cells
        for offset, char in enumerate(text):
            out[i, start + offset] = Decision(char, nearest, other, -1, ligature=True)
    return out


def _window(cell: Callable[[int, int], Array], i: int, start: int, length: int) -> Array:
    import numpy as np

    return np.hstack([cell(i, c) for c in range(start, start + length)]).ravel()


def _own(
    image: Array, run: tuple[int, int, int], found: dict[tuple[int, int], Decision], shapes: Shapes
) -> float:
    """The window's distance to its cells' own nearest glyphs side by side
    (1.0 where a cell has none)."""
    import numpy as np

    i, start, length = run
    height, width = shapes.font.height, shapes.font.width
    parts = []
    for column in range(start, start + length):
        decision = found.get((i, column))
        if decision is None or decision.glyph < 0:
            return 1.0
        parts.append(shapes.glyphs[decision.glyph].reshape(height, width))
    joined = np.hstack(parts).ravel()[None, :]
    return float(distances(image[None, :], joined)[0, 0])
