"""Captures of a terminal that straddles the seam of two displays, as each
display's terminal reader gives its part: for the seams' tests
(tests/test_redact_seams.py) and their bench (bench/redact_seams.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from noru.sources import Source
from noru.store import CaptureRecord, ImageRecord, OcrLine

CELL_W, CELL_H = 8, 15
# The left display's right edge on the whole screen.
SEAM = 2560

Rect = tuple[int, int, int, int]


def image(
    position: int, rect: Rect, lines: list[OcrLine], windows: tuple[Rect, ...]
) -> ImageRecord:
    """Display ``position``'s image at ``rect`` on the whole screen."""
    return ImageRecord(
        position=position, path=f"{position}.png", width=rect[2], height=rect[3],
        source=Source(display_index=position), display_mode=None, ax_text=None,
        ocr_lines=tuple(lines), windows=windows, screen_rect=rect,
    )  # fmt: skip


def record(*images: ImageRecord) -> CaptureRecord:
    return CaptureRecord(
        seq=1, id="c", captured_at=datetime(2026, 12, 5, tzinfo=UTC), origin="agent", note=None,
        ocr_state="done", ocr_engine="t", ocr_version="1", ocr_confidence=None, ocr_error=None,
        imported=False, delivered=False, images=images,
    )  # fmt: skip


def cut_terminal(
    rows: list[str],
    cut: int,
    columns: int = 120,
    *,
    misread: str = "\\",
    left_display: Rect = (0, 0, 2560, 1440),
    right_display: Rect = (SEAM, 0, 1920, 1080),
) -> CaptureRecord:
    """A terminal ``columns`` wide across the seam, which cuts its column
    ``cut`` 2 pixels in (read as ``misread`` on the right display)."""
    x0 = SEAM - cut * CELL_W - 2
    left, right = [], []
    for r, text in enumerate(rows):
        y = 40 + r * CELL_H
        head, tail = text[:cut].rstrip(), text[cut:].rstrip()
        if head.strip():
            lead = len(head) - len(head.lstrip(" "))
            box = (x0 + lead * CELL_W, y, (len(head) - lead) * CELL_W, CELL_H)
            left.append(OcrLine(head, box, 0.99, cut))
        if tail.strip():
            tail = (misread if tail[0] != " " else " ") + tail[1:]
            lead = len(tail) - len(tail.lstrip(" "))
            box = (-2 + lead * CELL_W, y, (len(tail) - lead) * CELL_W, CELL_H)
            right.append(OcrLine(tail, box, 0.99, columns - cut))
    height = 40 + len(rows) * CELL_H + 10
    return record(
        image(1, left_display, left, ((x0 - 2, 30, SEAM - x0 + 2, height),)),
        image(2, right_display, right, ((0, 30, (columns - cut) * CELL_W + 4, height),)),
    )
