"""Katakana's long mark and ``エ`` read as bars and ``工`` (noru.ocr.kana)."""

from __future__ import annotations

import pytest

from noru.ocr.base import OcrLine
from noru.ocr.kana import KANA_MISS, kana_lines, with_kana


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("エラ- : 内存使用率过高", "エラー: 内存使用率过高"),  # a hyphen and its second cell
        ("エラ-—: 报告书", "エラー: 报告书"),  # a hyphen and a dash
        ("工ラ -: 报告书", "エラー: 报告书"),  # a space, then the bar; 工 before a kana
        ("ユーザ- 一覧", "ユーザー一覧"),
    ],
)
def test_a_bar_after_a_katakana_letter_is_its_long_mark(read: str, meant: str) -> None:
    assert with_kana(read)[0] == meant


@pytest.mark.parametrize(
    "text",
    [
        "ユーザー一覧の表示",  # the ideograph one after the mark
        "データ - 説明",  # a dash between words
        "コマンド --help",  # an option after a word
        "工場の作業",  # 工 before no kana
        "a-b c - d",  # no kana at all
        "エラ-:",  # a bar over one cell only: not the mark's two
    ],
)
def test_other_bars_and_ideographs_stay(text: str) -> None:
    assert with_kana(text) == (text, 0)


def test_a_line_with_a_mark_taken_is_less_sure_by_its_chance() -> None:
    (line,) = kana_lines([OcrLine("エラ- : x", (0, 0, 10, 10), 0.9)])
    assert line.text == "エラー: x"
    assert line.confidence == pytest.approx(0.9 * (1 - KANA_MISS))
    (same,) = kana_lines([OcrLine("ok - fine", (0, 0, 10, 10), 0.9)])
    assert (same.text, same.confidence) == ("ok - fine", 0.9)
