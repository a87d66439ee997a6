"""The default OCR engine on generated screenshots: the real Tesseract, no mocks.

What every engine must do is in tests/test_ocr_engines.py; here is what is
Tesseract's own (the sizes it reads, why it needs the window rectangles, its
data), and the pure-Pillow pieces behind per-region reading. Screens come
from tests/screens.py with ground truth (every word drawn and its ink box). A
missing engine, English data or font skips here and fails under CI=true.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from noru.errors import OcrError
from noru.ocr import (
    INSTALL_ADVICE,
    Engine,
    OcrLine,
    available_engines,
    describe,
    get_engine,
    locate_tessdata,
    mean_confidence,
)
from noru.ocr.band_cuts import split_rows
from noru.ocr.base import clean_line, decode_lines, encode_lines
from noru.ocr.regions import Piece, cut
from tests.ocr_suite import KNOWN, TOUCHING, line_with, missing, overlap
from tests.parts import require
from tests.screens import FONT_PACKAGE, fonts_available, window_screen

# --- reading screens ------------------------------------------------------------


@pytest.mark.parametrize("size", [12, 14, 16, 20])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_known_words_are_found_where_they_are_drawn(engine: Engine, theme: str, size: int) -> None:
    screen = window_screen(KNOWN, theme=theme, size=size)
    for regions in (None, screen.regions):
        result = engine.recognise(screen.image, regions=regions)
        assert missing(screen, result) == [], result.text
        for word in screen.words:
            line = line_with(result, word)
            assert line is not None
            # The line's box covers the word's ink: boxes are original pixels
            # even though the engine read an inverted, scaled, padded copy.
            assert overlap(line.box, word.box) > 0.9, (word, line)


@pytest.mark.parametrize("size", [12, 16, 20])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_words_touching_a_window_border_are_found_when_regions_are_given(
    engine: Engine, theme: str, size: int
) -> None:
    screen = window_screen(KNOWN[:2] + TOUCHING, theme=theme, size=size, touch=TOUCHING)
    touching = [w for w in screen.words if w.touches_border]
    assert len(touching) == 9
    result = engine.recognise(screen.image, regions=screen.regions)
    assert missing(screen, result, touching) == [], result.text
    assert missing(screen, result) == []


def test_reading_the_whole_screen_loses_border_touching_words_that_regions_recover(
    engine: Engine,
) -> None:
    """The measured reason for per-region reading: Tesseract 5 binarises a
    light window's border and the glyphs against it into one shape and drops
    it. If this starts failing, a new Tesseract fixed it: the test says so."""
    screen = window_screen(KNOWN[:2] + TOUCHING, theme="light", size=14, touch=TOUCHING)
    touching = [w for w in screen.words if w.touches_border]
    whole = engine.recognise(screen.image)
    lost = missing(screen, whole, touching)
    assert lost, "whole-screen OCR now finds border-touching words"
    by_region = engine.recognise(screen.image, regions=screen.regions)
    assert missing(screen, by_region, touching) == []


# --- finding the engine and its data ---------------------------------------------

DEBIAN_DATA = sorted(Path("/usr/share/tesseract-ocr").glob("*/tessdata/eng.traineddata"))


def test_locate_tessdata_finds_the_system_english_data(monkeypatch: pytest.MonkeyPatch) -> None:
    require(bool(DEBIAN_DATA), "apt-get install tesseract-ocr-eng")
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    found = locate_tessdata()
    assert found is not None
    assert (found / "eng.traineddata").is_file()
    assert found in {p.parent for p in DEBIAN_DATA}


def test_a_configured_path_may_name_the_folder_the_file_or_the_folder_above(
    tmp_path: Path,
) -> None:
    data = tmp_path / "tessdata"
    data.mkdir()
    (data / "eng.traineddata").write_bytes(b"not a real model")
    assert locate_tessdata(data) == data
    assert locate_tessdata(data / "eng.traineddata") == data
    assert locate_tessdata(tmp_path) == data


def test_tessdata_prefix_is_searched_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "eng.traineddata").write_bytes(b"not a real model")
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    assert locate_tessdata() == tmp_path


def test_a_configured_path_without_data_is_an_error_that_says_what_to_install(
    tmp_path: Path,
) -> None:
    require(describe().available, "OCR engine unavailable")
    assert locate_tessdata(tmp_path) is None
    with pytest.raises(OcrError) as caught:
        get_engine(tessdata=tmp_path)
    message = str(caught.value)
    assert str(tmp_path) in message
    assert "apt-get install tesseract-ocr-eng" in message
    status = describe(tessdata=tmp_path)
    assert not status.available
    assert status.problem is not None and INSTALL_ADVICE in status.problem
    assert "apt-get install tesseract-ocr-eng" in str(status)
    assert "tesseract" not in available_engines(tessdata=tmp_path)


def test_describe_reports_engine_version_and_data_path() -> None:
    status = describe()
    require(status.available, f"OCR engine unavailable: {status.problem}")
    assert status.name == "tesseract"
    assert status.version and status.version[0].isdigit()
    assert status.data_path is not None and (status.data_path / "eng.traineddata").is_file()
    assert str(status) == f"tesseract {status.version}, data {status.data_path}"
    assert "tesseract" in available_engines()


def test_an_unknown_engine_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(OcrError, match="known: tesseract"):
        get_engine("nonesuch")
    status = describe("nonesuch")
    assert not status.available
    assert "'nonesuch'" in (status.problem or "") and "tesseract" in (status.problem or "")


def test_importing_noru_ocr_loads_neither_tesserocr_nor_pillow() -> None:
    code = "import sys, noru.ocr; print(sorted({'tesserocr', 'PIL'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the pieces behind per-region reading (pure Pillow), and lines ------------------


def test_a_piece_maps_boxes_back_through_scale_and_padding() -> None:
    piece = Piece(Image.new("L", (1, 1)), origin=(100, 50), size=(400, 200), scale=1.25, pad=16)
    # A box found at (16 + 25, 16 + 50) to (16 + 125, 16 + 75) in the piece.
    assert piece.to_original((41, 66, 141, 91)) == (120, 90, 80, 20)
    # Clamped to the region it came from, never outside it.
    assert piece.to_original((0, 0, 10_000, 10_000)) == (100, 50, 400, 200)


def test_cutting_a_region_strips_its_border_and_makes_dark_themes_dark_on_light() -> None:
    require(fonts_available(), f"apt-get install {FONT_PACKAGE}")
    screen = window_screen(KNOWN, theme="dark", size=14)
    region = screen.regions[0]
    piece = cut(screen.image, region, scale=1.0, pad=8)
    assert piece is not None
    # The 1 px border is gone from the sides; at the top the title bar's
    # blank rows may go with it (uniform rows, at most a few).
    x, y, w, h = region
    assert piece.origin[0] == x + 1 and piece.size[0] == w - 2
    assert y + 1 <= piece.origin[1] <= y + 3
    assert piece.origin[1] + piece.size[1] == y + h - 1
    # Inverted: the window's dark ground is now the light, commonest grey.
    histogram = piece.image.histogram()
    assert max(range(256), key=histogram.__getitem__) > 200


def test_bands_are_cut_between_text_lines_never_through_a_word() -> None:
    require(fonts_available(), f"apt-get install {FONT_PACKAGE}")
    screen = window_screen(KNOWN + TOUCHING[:1], theme="light", size=20, height=460)
    region = screen.regions[0]
    bands = split_rows(screen.image, region, 3)
    assert len(bands) == 3
    assert bands[0][1] == region[1] and sum(b[3] for b in bands) == region[3]
    for band in bands[1:]:
        for word in screen.words:
            top, bottom = word.box[1], word.box[1] + word.box[3]
            assert not top < band[1] < bottom, (word, band)


def test_mean_confidence_weighs_lines_by_their_characters() -> None:
    lines = [OcrLine("a" * 30, (0, 0, 1, 1), 0.9), OcrLine("x", (0, 0, 1, 1), 0.0)]
    assert mean_confidence(lines) == pytest.approx(0.9 * 30 / 31)
    assert mean_confidence([]) is None


def test_an_engines_raw_line_is_kept_tidy_and_lone_punctuation_is_not_text() -> None:
    box = (10, 20, 300, 18)
    assert clean_line("  Quarterly \t invoice\n", box, 0.93) == OcrLine(
        "Quarterly invoice", box, 0.93
    )
    assert clean_line("| — •", box, 0.9) is None  # an icon or a rule, read as punctuation
    assert clean_line("", box, 0.9) is None
    assert clean_line("x", box, 1.7) == OcrLine("x", box, 1.0)
    assert clean_line("x", box, -0.01) == OcrLine("x", box, 0.0)


def test_lines_come_back_from_their_stored_form_as_they_went_in() -> None:
    lines = [
        OcrLine("Größe: 12 € — naïve “quotes”", (0, 5, 640, 22), 0.912345678),
        OcrLine("def main():", (100, 240, 200, 30), 1.0),
    ]
    raw = encode_lines(lines)
    assert "Größe" in raw  # kept as text, not \u escapes
    assert decode_lines(raw) == (
        OcrLine("Größe: 12 € — naïve “quotes”", (0, 5, 640, 22), 0.9123),
        lines[1],
    )
    assert decode_lines(encode_lines([])) == ()
    for damaged in ("not json", '[["text", 1, 2]]', '{"a": 1}'):
        with pytest.raises(ValueError, match="not OCR lines"):
            decode_lines(damaged)


def test_a_grid_row_keeps_its_grid_width_and_rows_stored_before_it_still_read() -> None:
    row = OcrLine("  export TOKEN=ghp_x", (20, 40, 170, 20), 0.99, columns=80)
    raw = encode_lines([row, OcrLine("Save", (0, 0, 40, 20), 0.9)])
    assert raw == '[["  export TOKEN=ghp_x",20,40,170,20,0.99,80],["Save",0,0,40,20,0.9]]'
    assert decode_lines(raw) == (row, OcrLine("Save", (0, 0, 40, 20), 0.9))
    # A row stored before the grid's width was kept: six values, no width.
    (old,) = decode_lines('[["$ ls",0,0,40,20,0.98]]')
    assert old.columns is None


def test_with_no_data_anywhere_the_error_says_where_it_looked_and_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noru.ocr import tessdata

    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setattr(tessdata, "_VERSIONED", (tmp_path / "versioned",))
    monkeypatch.setattr(tessdata, "_FIXED", (tmp_path / "fixed",))
    assert locate_tessdata() is None
    with pytest.raises(OcrError) as caught:
        tessdata.require_tessdata()
    assert str(tmp_path / "fixed") in str(caught.value)
    assert "apt-get install tesseract-ocr-eng" in str(caught.value)
    status = describe()
    assert not status.available and "apt-get install tesseract-ocr-eng" in (status.problem or "")
