"""An answer's text fitted within what the client passes on of one result.

A client measured to cut a long tool result (``noru.mcp.clients``: past a
size it keeps a head, or a preview and a file path, and the ``prov:`` line
is lost) gives its session a ``Budget``: how many UTF-8 bytes of text one
answer may carry, and the client's name. An answer over it is cut here, by
Noru, in whole lines, and says so, with how to ask for the rest:

- a capture (``capture``): the note is kept whole, then the on-screen text,
  the accessibility text and the regions get what is left, in that order; a
  line of remark names what was cut and, where the on-screen text of image 1
  was cut, the ``region`` of image 1 that holds the rest;
- locator rows (``rows``): the page is shortened to the rows that fit, and
  its cursor continues from there, so no row is lost.

What a client adds around the text (its own wrappers, a line per image) and
the answer's fixed parts (header, labels, remarks, the prov line) are kept
free of the layers' share (``FRAME``, ``PER_IMAGE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from noru import imaging
from noru.contract import TextLayer
from noru.geometry import Rect
from noru.store import ImageRecord, OcrLine

__all__ = ["FRAME", "PER_IMAGE", "Budget", "Fitted", "capture", "head", "rows"]

# Bytes kept free in every answer for its header, the prov line and what a
# client wraps around each block; and for each image's label and the line
# some clients add after it (a saved file's path).
FRAME = 1_500
PER_IMAGE = 400

T = TypeVar("T")


@dataclass(frozen=True)
class Budget:
    """UTF-8 bytes of text one answer may carry for ``product``'s model."""

    bytes: int
    product: str


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def head(text: str, most: int) -> tuple[str, int]:
    """The whole lines of ``text`` that fit in ``most`` bytes, and how many."""
    kept: list[str] = []
    used = 0
    for line in text.split("\n"):
        cost = _size(line) + (1 if kept else 0)
        if used + cost > most:
            break
        kept.append(line)
        used += cost
    return "\n".join(kept), len(kept)


@dataclass(frozen=True)
class Fitted:
    layers: tuple[TextLayer, ...]
    regions: str | None
    note: str | None
    remark: str | None  # what was cut and how to ask for the rest; None: nothing cut


def _rest_of_image_1(
    image: ImageRecord, line: OcrLine, *, max_edge: int, region: Rect | None
) -> Rect:
    """The part of image 1, in its served pixels, from ``line`` down (within
    ``region``, when the answer was one)."""
    width, height = imaging.fit_long_edge(image.width, image.height, max_edge)
    top = round(line.box[1] * width / image.width)
    if region is None:
        return (0, top, width, height - top)
    x, y, w, h = region
    top = min(max(top, y), y + h - 1)
    return (x, top, w, y + h - top)


def capture(
    *,
    capture_id: str,
    layers: Sequence[TextLayer],
    regions: str | None,
    note: str | None,
    fixed: int,
    images: int,
    budget: Budget,
    ocr_lines: Sequence[tuple[ImageRecord, OcrLine]],
    max_edge: int,
    region: Rect | None,
) -> Fitted:
    """The layers, regions and note of a capture's answer within ``budget``.

    ``fixed`` is what the answer's other text weighs (remarks, the prov
    line); ``ocr_lines`` are the lines of the OCR layer in its order, each
    with its image, so that a cut can say where the rest is.
    """
    room = budget.bytes - FRAME - PER_IMAGE * images - fixed
    parts = [_size(layer.text) for layer in layers]
    parts += [_size(regions)] if regions is not None else []
    parts += [_size(note)] if note is not None else []
    if sum(parts) <= room:
        return Fitted(tuple(layers), regions, note, None)
    room -= 400  # for the remark saying what was cut
    if note is not None:
        note, _ = head(note, max(room, 0))
        room -= _size(note)
    said: list[str] = []
    pointer = ""
    fitted: list[TextLayer] = []
    for layer in layers:
        whole = len(ocr_lines) if layer.name == "ocr" and ocr_lines else layer.text.count("\n") + 1
        text, kept = head(layer.text, max(room, 0))
        room -= _size(text)
        what = "on-screen text" if layer.name == "ocr" else "accessibility text"
        if kept < whole:
            said.append(f"the {what} after {kept:,} of {whole:,} lines")
            if layer.name == "ocr" and kept < len(ocr_lines):
                image, line = ocr_lines[kept]
                if image.position == 1:
                    x, y, w, h = _rest_of_image_1(image, line, max_edge=max_edge, region=region)
                    pointer = (
                        f" The rest of image 1's text: get_capture with id {capture_id} and "
                        f"region [{x}, {y}, {w}, {h}] (that part at native resolution, with "
                        "only its text)."
                    )
                else:
                    pointer = (
                        f" The text of image {image.position} and after was not sent; "
                        "`region` reads a part of image 1, and observe_screen with target "
                        '"display" one display.'
                    )
        fitted.append(replace(layer, text=text or "(cut: see below)"))
    if regions is not None:
        whole = regions.count("\n") + 1
        kept_regions, kept = head(regions, max(room, 0))
        if kept < whole:
            said.append(f"the regions after {kept:,} of {whole:,} lines")
        regions = kept_regions or None
    remark = (
        f"Cut to fit: {budget.product} passes its model at most about {budget.bytes:,} "
        f"bytes of one answer's text, so Noru left out {', '.join(said)}.{pointer} "
        "A smaller region, or fewer layers (`layers`), sends less."
    )
    return Fitted(tuple(fitted), regions, note, remark)


def rows(
    page: Callable[[int], tuple[Sequence[T], str]], *, limit: int, budget: Budget
) -> tuple[Sequence[T], str]:
    """A locator page within ``budget``: ``page(n)`` is the page of ``n`` rows
    and its text; the first page that fits, of ``limit`` rows or fewer."""
    found, text = page(limit)
    while _size(text) + FRAME > budget.bytes and len(found) > 1:
        # Shrink in proportion, at least by one row.
        share = (budget.bytes - FRAME) / max(_size(text), 1)
        found, text = page(max(1, min(len(found) - 1, int(len(found) * share))))
    return found, text
