"""Box drawing joined from row to row (noru.ocr.box_joints): what a joint's
missing arm is, told by the rows around it."""

from __future__ import annotations

from noru.ocr.box_joints import join


def test_a_corner_under_a_line_down_is_the_joint_the_line_meets() -> None:
    rows = {0: "├─┬ eslint", 1: "│ └── debug", 2: "┌─┬ vite", 3: "│ ┌── rollup", 4: "└── zod"}
    assert join(rows) == {
        0: "├─┬ eslint",
        1: "│ └── debug",
        2: "├─┬ vite",
        3: "│ ├── rollup",
        4: "└── zod",
    }


def test_a_corner_over_a_line_up_is_the_joint_the_line_leaves() -> None:
    assert join({3: "└── src", 4: "│   └── lib.rs"}) == {3: "├── src", 4: "│   └── lib.rs"}


def test_an_engine_s_bar_met_by_box_drawing_is_a_line() -> None:
    assert join({0: "├── a", 1: "|   └── b"}) == {0: "├── a", 1: "│   └── b"}


def test_drawings_that_do_not_meet_stay_as_read() -> None:
    boxes = {0: "┌──┐", 1: "│  │", 2: "└──┘", 3: "┌──┐", 4: "└──┘"}
    assert join(boxes) == boxes
    # A pipe between commands, a corner under text, a line with gaps between rows.
    plain = {0: "cat x | grep y", 1: "a   ┌── b", 2: "", 3: "┌── c"}
    assert join(plain) == plain


def test_a_row_with_wide_letters_is_left_as_read() -> None:
    # Its characters are not its columns: `配` takes two cells.
    rows = {0: "│ 配置", 1: "┌─ │"}
    assert join(rows) == rows
