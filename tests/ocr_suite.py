"""What every OCR engine must do, run against each real engine.

tests/test_ocr.py (Tesseract) and tests/test_ocr_rapid.py (RapidOCR) import
these tests; pytest runs them there with that module's ``engine`` fixture.
Screens come from tests/screens.py with ground truth (every word drawn and
its ink box).
"""

from __future__ import annotations

import threading

import pytest
from PIL import Image

from noru.ocr import Engine, OcrLine, OcrResult
from tests.screens import Pane, Screen, Word, compose, window_screen

__all__ = [
    "KNOWN",
    "TOUCHING",
    "line_with",
    "missing",
    "overlap",
    "test_a_blank_image_gives_no_lines_and_no_confidence",
    "test_a_tiny_image_gives_no_lines_instead_of_crashing",
    "test_lines_come_in_reading_order_across_windows",
    "test_one_engine_can_be_shared_by_threads",
    "test_overlapping_regions_do_not_read_a_line_twice",
    "test_palette_and_alpha_images_are_read_like_rgb",
    "test_text_outside_every_region_is_still_read",
]

KNOWN = (
    "Quarterly invoice for customer",
    "Settings Terminal Repository",
    "Download the release notes",
    "Meeting agenda and summary",
)
TOUCHING = ("Forecast Budget Revenue", "Analytics Dashboard Overview", "Delivery payment balance")
PUNCTUATION = ".,;:!?\"'()[]{}|`‘’“”"


def line_with(result: OcrResult, word: Word) -> OcrLine | None:
    """The OCR line that read ``word`` where it is drawn, if any."""
    cx, cy = word.box[0] + word.box[2] / 2, word.box[1] + word.box[3] / 2
    for line in result.lines:
        x, y, w, h = line.box
        tokens = [t.strip(PUNCTUATION) for t in line.text.split()]
        if word.text in tokens and x <= cx <= x + w and y <= cy <= y + h:
            return line
    return None


def missing(screen: Screen, result: OcrResult, words: list[Word] | None = None) -> list[str]:
    return [w.text for w in (screen.words if words is None else words) if not line_with(result, w)]


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """The share of ``b`` covered by ``a``."""
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (b[2] * b[3])


def test_lines_come_in_reading_order_across_windows(engine: Engine) -> None:
    panes = [
        Pane((20, 20, 420, 200), ["Alpha first window"], title="Left"),
        # A few pixels higher than its neighbour: still read after it.
        Pane((460, 14, 420, 200), ["Bravo second window"], theme="dark", title="Right"),
        Pane((20, 240, 860, 160), ["Charlie third window"], size=16, title="Below"),
    ]
    screen = compose(panes, width=900, height=420)
    text = engine.recognise(screen.image, regions=screen.regions).text
    positions = [text.find(word) for word in ("Alpha", "Bravo", "Charlie")]
    assert -1 not in positions, text
    assert positions == sorted(positions), text


def test_text_outside_every_region_is_still_read(engine: Engine) -> None:
    panes = [
        Pane((200, 20, 660, 200), ["Inside the window"], title="Window"),
        # Not given as a region: like a panel or a window the backend missed.
        Pane((40, 250, 500, 140), ["Outside label here"], theme="dark", title="Dock"),
    ]
    screen = compose(panes, width=900, height=420)
    result = engine.recognise(screen.image, regions=screen.regions[:1])
    assert missing(screen, result) == [], result.text


def test_overlapping_regions_do_not_read_a_line_twice(engine: Engine) -> None:
    screen = window_screen(KNOWN, theme="light", size=16)
    region = screen.regions[0]
    once = engine.recognise(screen.image, regions=[region])
    twice = engine.recognise(screen.image, regions=[region, region])
    assert [line.text for line in twice.lines] == [line.text for line in once.lines]


@pytest.mark.parametrize("colour", ["white", "black", "#3a6ea5"])
def test_a_blank_image_gives_no_lines_and_no_confidence(engine: Engine, colour: str) -> None:
    image = Image.new("RGB", (1280, 800), colour)
    for regions in (None, [(0, 0, 640, 800), (640, 0, 640, 800)]):
        result = engine.recognise(image, regions=regions)
        assert result.lines == ()
        assert result.text == ""
        assert result.mean_confidence is None


@pytest.mark.parametrize("size", [(1, 1), (2, 50), (50, 2)])
def test_a_tiny_image_gives_no_lines_instead_of_crashing(
    engine: Engine, size: tuple[int, int]
) -> None:
    image = Image.new("RGB", size, "white")
    assert engine.recognise(image).lines == ()
    assert engine.recognise(image, regions=[(0, 0, 1, 1)]).lines == ()


def test_palette_and_alpha_images_are_read_like_rgb(engine: Engine) -> None:
    screen = window_screen(KNOWN, theme="light", size=16)
    for mode in ("RGBA", "P", "L"):
        result = engine.recognise(screen.image.convert(mode), regions=screen.regions)
        assert missing(screen, result) == [], mode


def test_one_engine_can_be_shared_by_threads(engine: Engine) -> None:
    screens = [window_screen(KNOWN, theme=t, size=16) for t in ("light", "dark")]
    failures: list[str] = []

    def read(screen: Screen) -> None:
        for _ in range(2):
            result = engine.recognise(screen.image, regions=screen.regions)
            failures.extend(missing(screen, result))

    threads = [threading.Thread(target=read, args=(s,)) for s in screens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
