"""What the OCR tests share: the ground truth, its helpers, and how an engine is made.

tests/test_ocr_engines.py runs the engine-agnostic tests on every engine (its
``engine`` fixture is parametrised over ``ENGINES``); tests/test_ocr.py and
tests/test_ocr_rapid.py test what is one engine's own. Screens come from
tests/screens.py with ground truth (every word drawn and its ink box).
"""

from __future__ import annotations

from collections.abc import Iterator

from noru.geometry import Rect
from noru.ocr import Engine, OcrLine, OcrResult, describe, get_engine
from tests.parts import require
from tests.screens import FONT_PACKAGE, Screen, Word, fonts_available

__all__ = ["ENGINES", "KNOWN", "TOUCHING", "line_with", "made_engine", "missing", "overlap"]

ENGINES = ("tesseract", "rapidocr")
KNOWN = (
    "Quarterly invoice for customer",
    "Settings Terminal Repository",
    "Download the release notes",
    "Meeting agenda and summary",
)
TOUCHING = ("Forecast Budget Revenue", "Analytics Dashboard Overview", "Delivery payment balance")
PUNCTUATION = ".,;:!?\"'()[]{}|`‘’“”"


def made_engine(name: str) -> Iterator[Engine]:
    """A ready engine for a fixture, closed afterwards. A missing engine or
    font skips on a developer machine and fails under CI=true."""
    status = describe(name)
    require(status.available, f"OCR engine {name} unavailable: {status.problem}")
    require(fonts_available(), f"DejaVu fonts missing: apt-get install {FONT_PACKAGE}")
    made = get_engine(name)
    try:
        yield made
    finally:
        made.close()


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


def overlap(a: Rect, b: Rect) -> float:
    """The share of ``b`` covered by ``a``."""
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (b[2] * b[3])
