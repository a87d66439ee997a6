"""Reading order of boxes, shared by the OCR engines and the accessibility text."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from noru.geometry import Rect, order_boxes, overlap_height


def banded(boxes: Sequence[Rect]) -> list[int]:
    """The rule as first written, box against box: what order_boxes must equal."""
    remaining = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    ordered: list[int] = []
    while remaining:
        first = boxes[remaining[0]]
        band = [
            i
            for i in remaining
            if overlap_height(first, boxes[i]) >= 0.5 * min(first[3], boxes[i][3])
        ]
        ordered += sorted(band, key=lambda i: boxes[i][0])
        remaining = [i for i in remaining if i not in band]
    return ordered


def test_boxes_in_one_band_of_rows_read_left_to_right() -> None:
    boxes = [(500, 12, 400, 300), (0, 20, 400, 300), (0, 400, 900, 100), (10, 0, 100, 10)]
    assert order_boxes(boxes) == [3, 1, 0, 2]


def test_lines_stacked_one_under_another_read_top_to_bottom() -> None:
    boxes = [(10, 20 * i, 100, 17) for i in reversed(range(500))]
    assert order_boxes(boxes) == list(reversed(range(500)))


small = st.integers(min_value=0, max_value=60)
boxes = st.lists(st.tuples(small, small, small, st.integers(min_value=0, max_value=30)))


@given(boxes)
def test_the_order_is_the_band_rule_box_against_box(found: list[Rect]) -> None:
    # Boxes with no height and equal edges included: the fast search keeps
    # the rule's every tie.
    assert order_boxes(found) == banded(found)
