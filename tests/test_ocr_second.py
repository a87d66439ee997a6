"""The second opinion's merge (noru.ocr.second.spaced): RapidOCR's reading of
a line, with the gaps Tesseract saw between characters both read alike.
The second opinion on real screens is in tests/test_terminal_text.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from noru.ocr.second import WIDE, cells, fitting, spaced, wide_letters
from noru.recognition import open_engine


@pytest.mark.parametrize(
    ("first", "second", "served"),
    [
        # Closed-up gaps between characters both read come back.
        (
            "4 06:47:28.120 WARN [RBM ARM] MISHRA, user_id=66087",
            "406:47:28.120WARN[配置文件加载完成]新增导出报表功能，user_id=66087",
            "4 06:47:28.120 WARN [配置文件加载完成] 新增导出报表功能， user_id=66087",
        ),
        # A terminal's aligned gap keeps its width.
        (
            "-rw-r--r-- 1 me me  913136 Mar",
            "-rw-r--r--1meme913136Mar",
            "-rw-r--r-- 1 me me  913136 Mar",
        ),
        # Spaces inside what the first reader misread are not carried over.
        (
            "-- 1 me me 913136 Mar 19 10:18 dBi # AY _2022.md",
            "-- 1 me me 913136 Mar 19 10:18 数据库连接超时_2022.md",
            "-- 1 me me 913136 Mar 19 10:18 数据库连接超时_2022.md",
        ),
        # The second reader's characters are kept, full-width forms too.
        ("REX Mem (#623)", "配置文件加载完成（#623）", "配置文件加载完成（#623）"),
        ("", "数据", "数据"),
        ("a b", "a b", "a b"),
    ],
)
def test_the_second_reading_gets_the_gaps_the_first_saw(
    first: str, second: str, served: str
) -> None:
    assert spaced(first, second) == served


def test_only_letters_of_scripts_english_lacks_count_as_wide() -> None:
    assert len(WIDE.findall("数据库 テスト 한국어")) == 9
    # Full-width Latin and CJK punctuation are what RapidOCR gives Latin text.
    assert WIDE.findall("（#623），：ＡＢ。、") == []


@pytest.mark.parametrize(
    ("read", "run", "served"),
    [
        ("数据库连接超时", 14, "数据库连接超时"),
        # Full-width punctuation where the run's cells hold ASCII.
        ("エラー：", 7, "エラー:"),
        ("（#623）", 6, "(#623)"),
        # Where the screen's cells hold the full-width form, it stays.
        ("エラー：", 8, "エラー："),
        # A reading that does not fill the run is not the run's text.
        ("数据库", 5, None),
        ("", 4, None),
    ],
)
def test_a_run_s_reading_is_kept_only_where_it_fills_the_run_s_cells(
    read: str, run: int, served: str | None
) -> None:
    assert fitting(read, run) == served


def test_wide_letters_take_two_cells_and_combining_marks_none() -> None:
    assert cells("ab") == 2
    assert cells("数据") == 4
    assert cells("ｅ") == 2  # a full-width Latin letter
    assert cells("e\u0301") == 1


def test_one_letter_repeated_is_a_row_of_marks_not_a_script() -> None:
    # A row of carets under a traceback's line, read as katakana he.
    assert wide_letters("ヘヘヘヘヘヘヘヘA") == 1
    assert wide_letters("echo 用户登录失败") == 6


@pytest.mark.parametrize(("setting", "asks"), [("", True), ("ocr_second_opinion = false\n", False)])
def test_config_toml_says_whether_the_engine_the_app_opens_asks_rapidocr(
    tmp_path: Path, setting: str, asks: bool
) -> None:
    # The app's OCR process and `noru reocr`/`import` open their engine here.
    (tmp_path / "config.toml").write_text(setting)
    engine = open_engine(tmp_path)
    try:
        assert engine.settings.second_opinion is asks  # type: ignore[attr-defined]
        assert (engine.second is not None) is asks  # type: ignore[attr-defined]
    finally:
        engine.close()
