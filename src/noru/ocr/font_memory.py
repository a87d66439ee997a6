"""The fonts terminals were found drawn in, kept from one OCR process to the next.

Finding a terminal's font among the installed faces (``noru.ocr.font``) is
most of what a first look at a new terminal costs, and the app ends an idle
OCR process, so every look after a pause would pay it again; a person's
terminals keep their fonts for months. ``dump`` writes the fonts found as
JSON, ``load`` reads them back for a fresh process, which tries them first:
each is a candidate, fitted to a grid's cells before it is used, so one that
no longer fits costs a fit, not a wrong reading.

``load`` keeps only what it can trust: faces installed now, found by their
file and index among the monospace faces fontconfig lists (a face is never
opened from a path the file names), hintings and numbers of the right kind
and range; anything else, or a file that is not this JSON, is left out, as
if it had never been written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from noru.ocr.faces import HINTINGS, Face, bold_of, monospace_faces
from noru.ocr.glyphs import KEPT_FONTS, Font

__all__ = ["dump", "load"]

FORMAT = 1
# A cell larger than this (pixels) is no terminal's: an entry that says so is left out.
CELL_MOST = 512


def dump(fonts: Sequence[Font]) -> str:
    """``fonts`` (most recent first) as the JSON ``load`` reads."""
    entries = [
        {
            "path": f.face.path,
            "index": f.face.index,
            "family": f.face.family,
            "size": f.size,
            "hinting": f.hinting,
            "shift": f.shift,
            "x": f.x,
            "baseline": f.baseline,
            "width": f.width,
            "height": f.height,
            "fit": f.fit,
        }
        for f in fonts[:KEPT_FONTS]
    ]
    return json.dumps({"format": FORMAT, "fonts": entries}, indent=1) + "\n"


def load(text: str) -> list[Font]:
    """The fonts ``text`` names that can be trusted (most recent first); none
    when it is not what ``dump`` writes."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return []
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return []
    entries = document.get("fonts")
    if not isinstance(entries, list):
        return []
    installed = {(face.path, face.index): face for face in monospace_faces()}
    found = []
    for entry in entries[:KEPT_FONTS]:
        font = _font(entry, installed)
        if font is not None:
            found.append(font)
    return found


def _font(entry: Any, installed: dict[tuple[str, int], Face]) -> Font | None:
    if not isinstance(entry, dict):
        return None
    path, index = entry.get("path"), _whole(entry.get("index"), 0, 1 << 16)
    face = installed.get((path, index)) if isinstance(path, str) and index is not None else None
    hinting = entry.get("hinting")
    if face is None or hinting not in HINTINGS:
        return None
    size = _number(entry.get("size"), 1.0, 1000.0)
    shift = _number(entry.get("shift"), 0.0, 1.0)
    fit = _number(entry.get("fit"), 0.0, 1.0)
    width = _whole(entry.get("width"), 1, CELL_MOST)
    height = _whole(entry.get("height"), 1, CELL_MOST)
    x = _whole(entry.get("x"), -CELL_MOST, CELL_MOST)
    baseline = _whole(entry.get("baseline"), -CELL_MOST, CELL_MOST)
    if (
        size is None
        or shift is None
        or fit is None
        or width is None
        or height is None
        or x is None
        or baseline is None
    ):
        return None
    return Font(face, bold_of(face), size, hinting, shift, x, baseline, width, height, fit)


def _number(value: Any, least: float, most: float) -> float | None:
    """``value`` when it is a finite number within [least, most]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and least <= value <= most else None


def _whole(value: Any, least: int, most: int) -> int | None:
    """``value`` when it is a whole number within [least, most]."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if least <= value <= most else None
