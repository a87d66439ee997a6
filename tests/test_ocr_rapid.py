"""The optional RapidOCR engine on generated screenshots: the real engine, no mocks.

What every engine must do is in tests/test_ocr_engines.py; here is what is
RapidOCR's own: the sizes it reads, its blocks of text, and that it never
reaches the network. Only the network is faked, and only to prove it is never
used. Without the ``rapidocr`` extra (``pip install 'noru[rapidocr]'``) these
tests skip on a developer machine and fail under CI=true.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import random
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from noru.errors import OcrError
from noru.ocr import Engine, available_engines, describe, get_engine
from noru.ocr.rapid import RapidEngine
from tests.ocr_suite import KNOWN, TOUCHING, line_with, made_engine, missing, overlap
from tests.parts import require
from tests.screens import FONT_PACKAGE, font, fonts_available
from tests.screens import window_screen as screen_of

ROOT = Path(__file__).resolve().parent.parent
MODEL_FILES = {
    "PP-OCRv6_det_small.onnx",
    "PP-OCRv6_rec_small.onnx",
    "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


def installed() -> bool:
    return (
        importlib.util.find_spec("rapidocr") is not None
        and importlib.util.find_spec("onnxruntime") is not None
    )


def require_rapidocr() -> None:
    require(installed(), "the rapidocr extra is missing: pip install 'noru[rapidocr]'")
    require(fonts_available(), f"DejaVu fonts missing: apt-get install {FONT_PACKAGE}")


def package_dir() -> Path:
    spec = importlib.util.find_spec("rapidocr")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).resolve().parent


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    yield from made_engine("rapidocr")


# --- reading screens ------------------------------------------------------------


@pytest.mark.parametrize("size", [14, 16, 20])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_known_words_are_found_where_they_are_drawn(engine: Engine, theme: str, size: int) -> None:
    screen = screen_of(KNOWN, theme=theme, size=size)
    for regions in (None, screen.regions):
        result = engine.recognise(screen.image, regions=regions)
        assert missing(screen, result) == [], result.text
        for word in screen.words:
            line = line_with(result, word)
            assert line is not None
            # Boxes are original pixels although the engine read an inverted,
            # padded block of the window.
            assert overlap(line.box, word.box) > 0.9, (word, line)
            # ...and fall on the word, not on the whole window.
            assert line.box[3] < 3 * word.box[3], (word, line)


@pytest.mark.parametrize("size", [14, 20])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_words_touching_a_window_border_are_found_when_regions_are_given(
    engine: Engine, theme: str, size: int
) -> None:
    screen = screen_of(KNOWN[:2] + TOUCHING, theme=theme, size=size, touch=TOUCHING)
    touching = [w for w in screen.words if w.touches_border]
    assert len(touching) == 9
    result = engine.recognise(screen.image, regions=screen.regions)
    assert missing(screen, result, touching) == [], result.text
    assert missing(screen, result) == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_windows_title_is_read_before_its_text(engine: Engine, theme: str) -> None:
    # The title sits right of the text and close above it: a column of its
    # own to a cut along blank space, yet read first.
    screen = screen_of(KNOWN[:2], theme=theme, size=14)
    for regions in (None, screen.regions):
        text = engine.recognise(screen.image, regions=regions).text
        positions = [text.find(line) for line in ("Known Words", *KNOWN[:2])]
        assert -1 not in positions, text
        assert positions == sorted(positions), text


def test_a_sidebar_is_read_before_the_page_beside_it(engine: Engine) -> None:
    """One window, two columns whose lines share rows: column by column, as
    Tesseract reads it, not row by row across the gap."""
    image = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 899, 299), outline=(160, 160, 166))
    face = font("sans", 16)
    side = ["Inbox", "Drafts", "Archive"]
    page = ["Alpha message about budgets", "Bravo message about travel", "Charlie closing note"]
    for row, (left, right) in enumerate(zip(side, page, strict=True)):
        draw.text((24, 40 + 30 * row), left, fill=(33, 33, 33), font=face)
        draw.text((300, 40 + 30 * row), right, fill=(33, 33, 33), font=face)
    text = engine.recognise(image, regions=[(0, 0, 900, 300)]).text
    positions = [text.find(word) for word in [*side, "Alpha", "Bravo", "Charlie"]]
    assert -1 not in positions, text
    assert positions == sorted(positions), text


def test_text_on_a_busy_background_is_read_once_in_overlapping_bands(engine: Engine) -> None:
    """A noisy wallpaper has no blank rows to cut it between lines, so it is
    read in overlapping bands (the detector's memory grows with its input):
    each line is read whole, once.

    The noise is seeded: Pillow's ``effect_noise`` is not, and on 2 of 8
    seeded noises (2 and 5) RapidOCR's detector finds no line 8 in its band
    at all (a miss, not a band cut in two: measured 2026-12-03)."""
    rng = random.Random(1)
    noise = bytes(min(255, max(0, round(rng.gauss(128, 40)))) for _ in range(1200 * 1000))
    image = Image.frombytes("L", (1200, 1000), noise).convert("RGB")
    draw = ImageDraw.Draw(image)
    captions = [f"Caption line{i} reads here" for i in range(16)]
    for i, caption in enumerate(captions):
        draw.text((80 + 23 * i, 30 + 60 * i), caption, fill="black", font=font("sans", 18))
    result = engine.recognise(image)
    found = [line.text for line in result.lines]
    for i in range(16):
        assert sum(f"line{i} " in f"{text} " for text in found) == 1, (i, found)


# --- offline, always ------------------------------------------------------------------


def test_nothing_is_downloaded_the_models_are_the_wheels_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_rapidocr()
    import requests

    models = package_dir() / "models"
    before = sorted(p.name for p in models.iterdir())
    attempts: list[str] = []

    def no_network(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[:2]))
        raise OSError("network access during an OCR test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.setattr(requests, "get", no_network)
    monkeypatch.setattr(requests.Session, "request", no_network)

    # A fresh engine, so every model is loaded with the network gone.
    made = get_engine("rapidocr")
    try:
        screen = screen_of(KNOWN, theme="light", size=14)
        result = made.recognise(screen.image, regions=screen.regions)
        assert missing(screen, result) == [], result.text
        assert isinstance(made, RapidEngine)
        paths = made.model_paths
    finally:
        made.close()
    assert attempts == []
    assert {p.name for p in paths} >= {"PP-OCRv6_det_small.onnx", "PP-OCRv6_rec_small.onnx"}
    for path in paths:
        assert path.resolve().is_relative_to(models.resolve()), path
        assert path.name in MODEL_FILES and path.is_file()
    assert sorted(p.name for p in models.iterdir()) == before  # nothing fetched to disk


def test_if_rapidocr_ever_tries_to_download_it_fails_loudly(engine: Engine, tmp_path: Path) -> None:
    from rapidocr.utils.download_file import DownloadFile, DownloadFileInput

    target = tmp_path / "model.onnx"
    request = DownloadFileInput(
        file_url="https://example.invalid/model.onnx",
        save_path=target,
        logger=logging.getLogger("test"),
    )
    with pytest.raises(OcrError, match="only uses the models the rapidocr wheel ships"):
        DownloadFile.run(request)
    assert not target.exists()


# --- finding the engine ----------------------------------------------------------------


def test_describe_reports_version_and_the_bundled_model_folder() -> None:
    require(installed(), "the rapidocr extra is missing: pip install 'noru[rapidocr]'")
    status = describe("rapidocr")
    assert status.available, status.problem
    assert status.name == "rapidocr"
    assert status.version == importlib.metadata.version("rapidocr")
    assert status.data_path == package_dir() / "models"
    assert {p.name for p in status.data_path.iterdir()} >= MODEL_FILES
    assert str(status) == f"rapidocr {status.version}, data {status.data_path}"
    assert "rapidocr" in available_engines()


def test_get_engine_by_name_gives_a_ready_rapidocr_engine(engine: Engine) -> None:
    assert engine.name == "rapidocr"
    assert engine.version == importlib.metadata.version("rapidocr")


def test_without_the_extra_the_doctor_says_what_to_install() -> None:
    """A real interpreter without site-packages: rapidocr is not there."""
    code = (
        "from noru.ocr import describe, get_engine\n"
        "from noru.errors import OcrError\n"
        "status = describe('rapidocr')\n"
        "print(status.available)\n"
        "print(status)\n"
        "try:\n"
        "    get_engine('rapidocr')\n"
        "except OcrError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env
    )
    available, status, error = out.stdout.splitlines()
    assert available == "False"
    assert (
        status == "rapidocr: unavailable: rapidocr is not installed: pip install 'noru[rapidocr]'"
    )
    assert error == "rapidocr is not installed: pip install 'noru[rapidocr]'"


def test_importing_noru_ocr_and_asking_the_doctor_loads_nothing_heavy() -> None:
    code = (
        "import sys, noru.ocr\n"
        "status = noru.ocr.describe('rapidocr')\n"
        "heavy = {'rapidocr', 'onnxruntime', 'numpy', 'cv2', 'PIL'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
