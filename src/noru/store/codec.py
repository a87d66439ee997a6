"""How structured values sit in the database's TEXT columns (JSON).

OCR lines use the one codec of ``noru.ocr.base`` (the OCR child speaks it too).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from noru.geometry import Rect
from noru.ocr.base import decode_lines, encode_lines
from noru.store.records import AxLine, OcrLine

__all__ = [
    "ax_from_json",
    "ax_to_json",
    "lines_from_json",
    "lines_to_json",
    "rect_from_json",
    "rect_to_json",
    "windows_from_json",
    "windows_to_json",
]


def lines_to_json(lines: Sequence[OcrLine]) -> str:
    return encode_lines(lines)


def lines_from_json(raw: str | None) -> tuple[OcrLine, ...] | None:
    """None (OCR has not run) stays None."""
    return None if raw is None else decode_lines(raw)


def windows_to_json(windows: Sequence[Rect]) -> str | None:
    return json.dumps([list(w) for w in windows]) if windows else None


def windows_from_json(raw: str | None) -> tuple[Rect, ...]:
    return tuple((int(x), int(y), int(w), int(h)) for x, y, w, h in json.loads(raw or "[]"))


def rect_to_json(rect: Rect | None) -> str | None:
    return None if rect is None else json.dumps(list(rect))


def rect_from_json(raw: str | None) -> Rect | None:
    if raw is None:
        return None
    x, y, w, h = json.loads(raw)
    return (int(x), int(y), int(w), int(h))


def ax_to_json(lines: Sequence[AxLine]) -> str | None:
    if not lines:
        return None
    return json.dumps([[line.text, *line.box, line.role] for line in lines], ensure_ascii=False)


def ax_from_json(raw: str | None) -> tuple[AxLine, ...]:
    return tuple(
        AxLine(str(text), (int(x), int(y), int(w), int(h)), str(role))
        for text, x, y, w, h, role in json.loads(raw or "[]")
    )
