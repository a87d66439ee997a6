"""A capture as an agent may see it: its secrets' text replaced, their boxes.

``for_agent`` finds what the policy redacts in each image's OCR lines and
accessibility lines, and gives back the record with each such span's text
replaced by ``[redacted: KIND]`` (every layer built from it, the regions
list, the search text), the boxes of those spans in each image's original
pixels (``noru.present.pixels`` fills them in what is served), and the
kinds found. It is a pure function of the record and the policy: the same
capture is redacted the same way every time it is served.

Where a span lies in its line's box: a terminal's row (``noru.ocr.terminal``)
is a grid of equal cells that starts at its first inked column, so a
character's cell is exact; text in a proportional font is only known to
lie along its line, so a span's box there is widened by ``PROPORTIONAL_PAD``
characters each side. Either way it is the line's height.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from noru.geometry import Rect
from noru.redact.detect import Finding, find_lines
from noru.redact.policy import Policy
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine

__all__ = ["PROPORTIONAL_PAD", "Redacted", "for_agent", "replaced", "search_text", "span_box"]

# Characters a span's box is widened by on each side where the line is not a grid.
PROPORTIONAL_PAD = 1.5


@dataclass(frozen=True)
class Redacted:
    """``record`` with its secrets' text replaced; ``boxes``: per image of
    the record, the boxes to fill (original pixels); ``kinds``: each
    finding's kind, in reading order."""

    record: CaptureRecord
    boxes: tuple[tuple[Rect, ...], ...]
    kinds: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.kinds)

    def summary(self) -> str | None:
        """``3: aws-key, password``: how many, and their kinds; None if none."""
        if not self.kinds:
            return None
        return f"{self.count}: " + ", ".join(Counter(self.kinds))


def replaced(text: str, findings: Sequence[Finding]) -> str:
    """``text`` with each finding's span as ``[redacted: KIND]``."""
    out, at = [], 0
    for finding in findings:
        out += [text[at : finding.start], f"[redacted: {finding.kind}]"]
        at = finding.end
    out.append(text[at:])
    return "".join(out)


def span_box(box: Rect, text: str, start: int, end: int) -> Rect:
    """Where characters ``start`` to ``end`` of a line's ``text`` lie in its ``box``."""
    x, y, w, h = box
    lead = len(text) - len(text.lstrip(" "))
    drawn = len(text) - lead  # the characters across the box (indentation is before it)
    if drawn <= 0 or w <= 0:
        return box
    pitch = w / drawn
    # A grid's row: its box is whole cells, one per character.
    pad = 0.0 if w % drawn == 0 else PROPORTIONAL_PAD * pitch
    left = max(x, math.floor(x + (start - lead) * pitch - pad))
    right = min(x + w, math.ceil(x + (end - lead) * pitch + pad))
    return (left, y, max(1, right - left), h)


def _lines(
    lines: Sequence[OcrLine | AxLine], policy: Policy
) -> tuple[list[str], list[Rect], list[str]]:
    found = find_lines([line.text for line in lines], policy.categories, policy.own)
    texts, boxes, kinds = [], [], []
    for line, findings in zip(lines, found, strict=True):
        texts.append(replaced(line.text, findings) if findings else line.text)
        for finding in findings:
            boxes.append(span_box(line.box, line.text, finding.start, finding.end))
            kinds.append(finding.kind)
    return texts, boxes, kinds


def _image(image: ImageRecord, policy: Policy) -> tuple[ImageRecord, list[Rect], list[str]]:
    boxes: list[Rect] = []
    kinds: list[str] = []
    ocr_lines = image.ocr_lines
    if ocr_lines:
        texts, found, named = _lines(ocr_lines, policy)
        if found:
            ocr_lines = tuple(
                replace(line, text=text) for line, text in zip(ocr_lines, texts, strict=True)
            )
        boxes += found
        kinds += named
    ax_lines, ax_text = image.ax_lines, image.ax_text
    if ax_lines:
        texts, found, named = _lines(ax_lines, policy)
        if found:
            ax_lines = tuple(
                replace(line, text=text) for line, text in zip(ax_lines, texts, strict=True)
            )
            ax_text = "\n".join(texts)
        boxes += found
        kinds += named
    elif ax_text:  # text without boxes: its words go, no pixels are known
        split = ax_text.split("\n")
        found_in = find_lines(split, policy.categories, policy.own)
        if any(found_in):
            ax_text = "\n".join(
                replaced(t, f) if f else t for t, f in zip(split, found_in, strict=True)
            )
            kinds += [f.kind for f in (x for fs in found_in for x in fs)]
    new = replace(image, ocr_lines=ocr_lines, ax_lines=ax_lines, ax_text=ax_text)
    return new, boxes, kinds


def for_agent(record: CaptureRecord, policy: Policy) -> Redacted:
    """``record`` as ``policy`` lets an agent see it (see the module's doc).

    The caller has checked that redaction can run (``policy.problem`` is
    None, the capture's text is recognised): this only applies it.
    """
    if not policy.categories:
        return Redacted(record, tuple(() for _ in record.images), ())
    images, boxes, kinds = [], [], []
    for image in record.images:
        new, found, named = _image(image, policy)
        images.append(new)
        boxes.append(tuple(found))
        kinds += named
    if not kinds:
        return Redacted(record, tuple(boxes), ())
    return Redacted(replace(record, images=tuple(images)), tuple(boxes), tuple(kinds))


def search_text(record: CaptureRecord, policy: Policy) -> tuple[str, str, str] | None:
    """What an agent's search may match in ``record`` (``Reader.search``'s
    ``seen``): its OCR, accessibility and note text as redacted; while its
    text is not recognised, only the person's note (its screen text is held
    back, as its pixels are)."""
    if record.ocr_state != "done":
        return "", "", record.note or ""
    seen = for_agent(record, policy).record
    return seen.ocr_text, seen.ax_text, seen.note or ""
