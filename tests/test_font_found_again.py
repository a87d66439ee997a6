"""A grid's font found before and fitting the next look's cells again
(``noru.ocr.font.identify`` with ``known``): where it sits as before it is
the very font found before, so that its glyphs and its wide letters, drawn
once per font, are not drawn again; a pixel aside it is the same font moved,
still measured against the fit it was first found by.

The cells are DejaVu Sans Mono's glyphs drawn by FreeType, as a terminal
draws them."""

from __future__ import annotations

from typing import Any

import pytest

from noru.ocr import font
from noru.ocr.faces import draw, monospace_faces
from noru.ocr.glyphs import Canvas, Fonts
from tests.parts import require

WIDTH, HEIGHT, SIZE = 9, 18, 15.0
NOISE = 0.01
TEXT = "Traceback most recent call last File app line 3 in module ERROR 2026 12 06"


def _cells(x: int, baseline: int, noise: float = 0.0) -> tuple[list[Any], list[str]]:
    """The text's letters and digits as cells with the pen at (x, baseline),
    with a little ``noise`` (another look's antialiasing, a colour)."""
    import numpy as np

    faces = [f for f in monospace_faces() if f.family == "DejaVu Sans Mono" and f.weight == 80]
    require(bool(faces), "DejaVu Sans Mono is not installed (fonts-dejavu-core)")
    chars = [c for c in TEXT if not c.isspace()]
    drawn = draw(faces[0], SIZE, "light", tuple(sorted(set(chars))))
    assert drawn is not None
    canvas = Canvas(drawn, WIDTH, HEIGHT)
    glyphs = canvas.cells(x, baseline)
    rng = np.random.default_rng(6)
    cells = [
        np.clip(
            glyphs[canvas.index[c]].reshape(HEIGHT, WIDTH) + rng.normal(0, noise, (HEIGHT, WIDTH)),
            0,
            1,
        )
        for c in chars
    ]
    return cells, chars


@pytest.fixture(scope="module")
def found() -> font.Font:
    cells, claims = _cells(0, 14)
    first = font.identify(cells, claims, width=WIDTH, height=HEIGHT)
    assert first is not None
    assert first.face.family == "DejaVu Sans Mono"
    return first


def test_a_font_fitting_again_where_it_sat_keeps_its_drawings(found: font.Font) -> None:
    """The next look's cells fit a little less well (another sample, other
    pixels): the font is the one found before, its glyphs not drawn again."""
    fonts = Fonts()
    fonts.keep(found)
    drawings = fonts.shapes(found)
    cells, claims = _cells(0, 14, noise=NOISE)
    again = font.identify(cells, claims, width=WIDTH, height=HEIGHT, known=fonts.recent())
    assert again is not None
    fonts.keep(again)
    assert fonts.shapes(again) is drawings


def test_a_font_found_first_keeps_the_drawings_its_first_look_made(found: font.Font) -> None:
    """A look finds a font not kept yet, draws its glyphs, then keeps it
    (``terminal_glyphs.decide``): the next look takes those drawings (a
    dense terminal's cost 50 ms a look to draw again), not new ones."""
    fonts = Fonts()
    drawings = fonts.shapes(found)
    fonts.keep(found, drawings)
    assert fonts.shapes(found) is drawings
    fonts.keep(found)  # kept again by a look that drew nothing
    assert fonts.shapes(found) is drawings


def test_a_font_fitting_a_pixel_aside_is_moved_and_keeps_its_first_fit(found: font.Font) -> None:
    cells, claims = _cells(1, 14, noise=NOISE)
    again = font.identify(cells, claims, width=WIDTH, height=HEIGHT, known=[found])
    assert again is not None and again is not found
    assert (again.face, again.size, again.hinting) == (found.face, found.size, found.hinting)
    assert (again.x, again.baseline) == (found.x + 1, found.baseline)
    assert again.fit == found.fit
