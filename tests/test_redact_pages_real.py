"""Secrets a real browser draws in proportional type never reach an agent's pixels.

Firefox shows a page of planted secrets (made up, in real formats: the
tuned values of tests/redaction_formats.py in its tuned lines, a value
alone on its line, after a label, in a quoted JSON value) in DejaVu Sans.
Its window is grabbed by Noru's capturer, kept by the store's writer,
read by the real engine as the app's OCR child reads it and served as
agents get it (``for_agent``, ``noru.present.pixels.fill``).

Every pixel of ink of every secret the text found is fill in what agents
get: where each character was drawn is the browser's own layout (its DOM
Range rects, tests/page_layout.py), not the boxes the engine found. A
line's span in proportional type is estimated, not known; the engine's
box is tight on the ink it read, and a value's first or last glyph's edge
lies a pixel or two outside it, or its last characters (a base64 value's
``==``) outside what the engine read at all.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL, fill
from tests import real_clients
from tests.drawn_ink import commonest, ink
from tests.page_layout import drawn, layouts
from tests.parts import require
from tests.redaction_cases import leaked
from tests.redaction_formats import TUNED, TUNED_SEED, lines
from tests.served_terminal import stored_and_seen
from tests.xserver import XServer

PAGE_LINES = 20  # what a page of 16 px type shows in the window


def _page() -> list[tuple[str, str]]:
    """(line, value): the tuned values in the tuned lines that fit the window."""
    return [(line, value) for line, value, _ in lines(TUNED_SEED, TUNED) if len(line) <= 110][
        :PAGE_LINES
    ]


def test_every_pixel_of_a_secret_a_browser_draws_is_filled(
    desktop: XServer, home: Path, engine: TesseractEngine
) -> None:
    problem = real_clients.missing("firefox")
    require(problem is None, problem or "")
    shown = _page()
    with layouts() as pages:
        opened = real_clients.open_firefox(
            desktop, "Settings", [line for line, _ in shown], x=60, y=60, width=1800,
            height=1200, layout=pages.url,
        )  # fmt: skip
        with opened as client, Capturer(display=desktop.display) as capturer:
            client.bring_under_pointer()
            (grab,) = capturer.grab_window("pointer")
            boxes = drawn(client, pages.take())
    _, seen, (picture,) = stored_and_seen(home, engine, [grab])
    served = np.asarray(fill(picture, seen.boxes[0]))
    taken = np.asarray(picture)
    text = seen.record.ocr_text
    found = [(line, value) for line, value in shown if leaked(text, value) is None]
    assert len(found) >= PAGE_LINES - 2, text  # the text finds them: their pixels are the test
    for line, value in found:
        start = line.index(value)
        chars = boxes[line][start : start + len(value)]
        x0, y0 = min(x for x, _, _, _ in chars), min(y for _, y, _, _ in chars)
        x1 = max(x + w for x, _, w, _ in chars)
        y1 = max(y + h for _, y, _, h in chars)
        area = taken[y0:y1, x0:x1]
        left = ink(area, commonest(area)) & (served[y0:y1, x0:x1] != np.array(FILL)).any(axis=2)
        where = [
            (i, char)
            for i, (char, (x, _, w, _)) in enumerate(zip(value, chars, strict=True))
            if left[:, x - x0 : x - x0 + w].any()
        ]
        assert not where, (value, where)
