"""Rectangles: the one type for windows, displays, OCR boxes and crops.

A ``Rect`` is ``(x, y, width, height)`` in pixels of whatever it is measured
against (root-window coordinates for the screen, image pixels for OCR boxes).
A plain tuple, so it unpacks, compares and goes into JSON as it is.
"""

from __future__ import annotations

__all__ = ["Rect", "centre", "clip", "contains", "intersects", "iou", "overlap_height", "shift"]

Rect = tuple[int, int, int, int]


def clip(rect: Rect, bounds: Rect) -> Rect | None:
    """``rect`` cut to ``bounds``, or None when nothing of it is inside."""
    x, y, w, h = rect
    bx, by, bw, bh = bounds
    left, top = max(x, bx), max(y, by)
    right, bottom = min(x + w, bx + bw), min(y + h, by + bh)
    if right <= left or bottom <= top:
        return None
    return (left, top, right - left, bottom - top)


def intersects(a: Rect, b: Rect) -> bool:
    """True when the two share at least one pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def iou(a: Rect, b: Rect) -> float:
    """Intersection over union."""
    inter = clip(a, b)
    area = inter[2] * inter[3] if inter else 0
    union = a[2] * a[3] + b[2] * b[3] - area
    return area / union if union else 0.0


def overlap_height(a: Rect, b: Rect) -> int:
    """How many rows the two share, wherever they sit horizontally."""
    return max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))


def centre(rect: Rect) -> tuple[int, int]:
    x, y, w, h = rect
    return (x + w // 2, y + h // 2)


def contains(rect: Rect, point: tuple[int, int]) -> bool:
    x, y, w, h = rect
    px, py = point
    return x <= px < x + w and y <= py < y + h


def shift(rect: Rect, dx: int, dy: int) -> Rect:
    """``rect`` moved by ``(dx, dy)``: into another origin's coordinates."""
    x, y, w, h = rect
    return (x + dx, y + dy, w, h)
