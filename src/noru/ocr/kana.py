"""Katakana's long mark ``ー`` and its ``エ`` where a line's cells were read
as something else: both are drawn as plain strokes, alike to characters of
other scripts, and only the letters beside them tell them apart.

Pure Python.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from noru.ocr.base import OcrLine

__all__ = ["KANA_MISS", "kana_lines", "with_kana"]

# The chance that a mark so taken is wrong, as a wide letter taken as its
# nearest drawing but not beyond doubt is (docs/performance.md).
KANA_MISS = 0.11
_KATAKANA = "\u30a1-\u30fa\u30fc"
# A narrow bar after a katakana letter, with a space or another bar over
# the mark's two cells, or a space and a bar with no space or bar after it
# (``データ - 説明`` is a dash, ``コマンド --help`` an option): a hyphen
# or a dash never follows a kana so; the long mark is drawn as a plain
# bar. (A wide ``一`` stays: ``ユーザー一覧``.)
_MARK = re.compile(rf"(?<=[{_KATAKANA}])(?:[\-‐–—][ \-‐–—─]| [\-‐–—](?![ \-‐–—]))")
# ``工`` right before a katakana letter: the kana ``エ``, drawn alike.
_E = re.compile(rf"工(?=[{_KATAKANA}])")


def with_kana(text: str) -> tuple[str, int]:
    """``text`` with katakana's long mark and ``エ`` where they were read as
    bars and ``工``, and how many were so taken."""
    if not re.search(f"[{_KATAKANA}工]", text):
        return text, 0
    text, marks = _MARK.subn("ー", text)
    # A mark taken may make the letter before it a kana's neighbour again.
    text, more = _MARK.subn("ー", text)
    text, es = _E.subn("エ", text)
    return text, marks + more + es


def kana_lines(lines: Iterable[OcrLine]) -> list[OcrLine]:
    """``lines`` with ``with_kana``'s marks taken, each line's confidence
    times the chance (``KANA_MISS``) of each mark so taken being right."""
    out = []
    for line in lines:
        text, taken = with_kana(line.text)
        if taken:
            line = dataclasses.replace(
                line, text=text, confidence=line.confidence * (1.0 - KANA_MISS) ** taken
            )
        out.append(line)
    return out
