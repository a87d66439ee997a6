"""How a terminal cell's way of being decided counts against its line's
confidence (``noru.ocr.terminal_confidence``): the engine's copies read
alike are doubted when the cell's own glyphs say otherwise. And which rows
of marks are text (``noru.ocr.base.ascii_border``)."""

from __future__ import annotations

from collections import Counter

import pytest

from noru.ocr.base import ascii_border
from noru.ocr.glyphs import Decision
from noru.ocr.terminal_confidence import chance, way


def _line(*ways: str) -> float:
    return chance(Counter(ways))


def test_copies_read_alike_against_a_far_nearer_glyph_leave_the_line_unsure() -> None:
    """A Powerline arrow drawn in Konsole beside CMU Typewriter Text: its
    nearest glyph is the arrow, 0.13 from it, but not sure; the engine read
    every copy `P`, whose drawing is 0.45 away (under the 0.5 that alone
    doubts a reading). Its line was served at 0.9946, wrong."""
    arrow = Decision("\ue0b0", 0.134, 0.396, 0, claim=0.451)
    assert not arrow.sure
    taken = way("P", font_known=True, by="copies", glyph=arrow)
    assert taken == "agreed-far"
    assert _line(taken, *["glyph"] * 40) < 0.9


def test_copies_read_alike_near_their_own_drawing_keep_the_line_sure() -> None:
    """A cell its glyphs left unsure whose copies agree on a character
    whose drawing is about as near as its nearest glyph: the engine tells
    two close shapes apart, and its line stays sure."""
    close = Decision("l", 0.09, 0.12, 0, claim=0.12)
    taken = way("1", font_known=True, by="copies", glyph=close)
    assert taken == "agreed"
    assert _line(taken, *["glyph"] * 40) >= 0.99


@pytest.mark.parametrize(
    ("text", "border"),
    [
        ("+──────+───+", "+------+---+"),
        ("  +-—–-+--+", "  +----+--+"),
        ("+---+", "+---+"),
        ("────────", None),  # a rule, no table's
        ("+ ok +", None),
        ("┼───┼", None),  # box drawing's own joints
        ("+", None),
    ],
)
def test_an_ascii_table_s_border_is_told_by_its_joints(text: str, border: str | None) -> None:
    assert ascii_border(text) == border
