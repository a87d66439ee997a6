"""Which lines a display's seam cuts: each image placed on the whole screen
and the parts of one line paired across the seam between two images.

A capture of all displays is one image per display. Each image's place on
the whole screen (``ImageRecord.screen_rect``, root coordinates) puts them
side by side again. Two images meet at a seam where one's right edge is
the other's left edge (``seams_of``). A line of the left image is
continued by a line of the right one (``cut_lines``) when:

- the first runs to within ``SEAM_REACH`` of its height of the seam, and
  the second starts as near it on the other side;
- they lie at one height: they share ``LEVEL`` of the taller one's height;
- where the images' windows are known, both lie in parts of one window:
  a window of each image touching the seam, at the same top and height.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from noru.store import ImageRecord, OcrLine

__all__ = [
    "LEVEL",
    "SEAM_REACH",
    "Placed",
    "cut_lines",
    "placed",
    "scale",
    "seams_of",
    "stacked_of",
]

# How near its seam (in its line's heights) a part must end, or start.
SEAM_REACH = 0.9
# How much of the taller part's height two parts of one line share.
LEVEL = 0.6


@dataclass(frozen=True)
class Placed:
    """One OCR line and where it lies on the whole screen (root coordinates)."""

    image: int
    index: int
    line: OcrLine
    left: float
    top: float
    right: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top


def scale(image: ImageRecord) -> tuple[float, float]:
    """Root units per image pixel, across and down."""
    assert image.screen_rect is not None
    _, _, w, h = image.screen_rect
    return w / image.width, h / image.height


def placed(position: int, image: ImageRecord) -> list[Placed]:
    """The lines with text of ``image`` (at ``position`` in its capture),
    each where it lies on the whole screen."""
    assert image.screen_rect is not None
    sx, sy, _, _ = image.screen_rect
    fx, fy = scale(image)
    return [
        Placed(position, i, line, sx + x * fx, sy + y * fy, sx + (x + w) * fx, sy + (y + h) * fy)
        for i, line in enumerate(image.ocr_lines or ())
        for x, y, w, h in [line.box]
        if line.text.strip()
    ]


def seams_of(images: Sequence[ImageRecord]) -> list[tuple[int, int]]:
    """Pairs of images (left, right) whose rectangles meet at a vertical edge."""
    return _meeting(images, 0)


def stacked_of(images: Sequence[ImageRecord]) -> list[tuple[int, int]]:
    """Pairs of images (upper, lower) whose rectangles meet at a horizontal
    edge, of any scales (``noru.redact.seam_rows``)."""
    return _meeting(images, 1)


def _meeting(images: Sequence[ImageRecord], axis: int) -> list[tuple[int, int]]:
    """Pairs of images whose rectangles meet at an edge: the first's right
    edge the second's left (``axis`` 0), or its bottom edge the second's
    top (1), the two sharing some of that edge."""
    out = []
    for i, a in enumerate(images):
        for j, b in enumerate(images):
            if i == j or a.screen_rect is None or b.screen_rect is None:
                continue
            along, across = axis, 1 - axis
            a_at, a_size = a.screen_rect[along], a.screen_rect[along + 2]
            a_from, a_span = a.screen_rect[across], a.screen_rect[across + 2]
            b_from, b_span = b.screen_rect[across], b.screen_rect[across + 2]
            if a_at + a_size == b.screen_rect[along] and max(a_from, b_from) < min(
                a_from + a_span, b_from + b_span
            ):
                out.append((i, j))
    return out


def _windows_at(image: ImageRecord, side: str) -> list[tuple[float, float]] | None:
    """The tops and bottoms (root) of ``image``'s windows touching its
    ``side`` edge; None when its windows are not known."""
    if not image.windows or image.screen_rect is None:
        return None
    sy = image.screen_rect[1]
    fy = scale(image)[1]
    edge = 0 if side == "left" else image.width
    return [
        (sy + y * fy, sy + (y + h) * fy)
        for x, y, w, h in image.windows
        if (x if side == "left" else x + w) == edge
    ]


def _one_window(
    a: Placed, b: Placed, left: list[tuple[float, float]], right: list[tuple[float, float]]
) -> bool:
    """Whether ``a`` and ``b`` lie in the two parts of one window at the seam."""
    ya, yb = (a.top + a.bottom) / 2, (b.top + b.bottom) / 2
    return any(
        abs(t1 - t2) <= 1.5 and abs(b1 - b2) <= 1.5 and t1 <= ya <= b1 and t2 <= yb <= b2
        for t1, b1 in left
        for t2, b2 in right
    )


def cut_lines(images: Sequence[ImageRecord], left: int, right: int) -> list[tuple[Placed, Placed]]:
    """The lines the seam between images ``left`` and ``right`` cuts: each
    line of the left one with the line of the right one that continues it
    (see the module's doc)."""
    seam_rect = images[right].screen_rect
    assert seam_rect is not None
    seam = seam_rect[0]
    ends = [p for p in placed(left, images[left]) if seam - p.right <= SEAM_REACH * p.height]
    starts = [p for p in placed(right, images[right]) if p.left - seam <= SEAM_REACH * p.height]
    windows_l, windows_r = _windows_at(images[left], "right"), _windows_at(images[right], "left")
    known = windows_l is not None and windows_r is not None
    starts.sort(key=lambda p: p.top)
    tops = [p.top for p in starts]
    taken: set[int] = set()
    out = []
    for a in ends:
        best: tuple[float, Placed] | None = None
        # Only the lines that can share its height (a line is at most twice another's).
        for b in starts[bisect_left(tops, a.top - 2 * a.height) :]:
            if b.top > a.bottom:
                break
            shared = min(a.bottom, b.bottom) - max(a.top, b.top)
            if b.index in taken or shared < LEVEL * max(a.height, b.height):
                continue
            if known and not _one_window(a, b, windows_l or [], windows_r or []):
                continue
            if best is None or shared > best[0]:
                best = (shared, b)
        if best is not None:
            taken.add(best[1].index)
            out.append((a, best[1]))
    return out
