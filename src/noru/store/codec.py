"""How structured values sit in the database's TEXT columns (JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from noru.geometry import Rect
from noru.store.records import OcrLine

__all__ = ["lines_from_json", "lines_to_json", "windows_from_json", "windows_to_json"]


def lines_to_json(lines: Sequence[OcrLine]) -> str:
    return json.dumps(
        [[line.text, *line.box, round(line.confidence, 4)] for line in lines],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def lines_from_json(raw: str | None) -> tuple[OcrLine, ...] | None:
    """None (OCR has not run) stays None."""
    if raw is None:
        return None
    return tuple(
        OcrLine(text, (int(x), int(y), int(w), int(h)), float(conf))
        for text, x, y, w, h, conf in json.loads(raw)
    )


def windows_to_json(windows: Sequence[Rect]) -> str | None:
    return json.dumps([list(w) for w in windows]) if windows else None


def windows_from_json(raw: str | None) -> tuple[Rect, ...]:
    return tuple((int(x), int(y), int(w), int(h)) for x, y, w, h in json.loads(raw or "[]"))
