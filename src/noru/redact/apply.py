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
character's cell is exact. A line is taken as a grid's row when its box is
whole cells of one pitch and the reader recorded its grid's width with it
(``OcrLine.columns``), or at least ``GRID_ROWS`` lines of its image lie on
the same grid (same pitch, same first column): one line can be whole
cells by chance, a terminal's rows are all on one grid. Text in a
proportional font is only known to lie along its line: its span starts
where the characters before it would end at typical widths, less
``PROPORTIONAL_PAD`` characters (Arial's or Helvetica's widths put a
character up to three characters later than the typical ones do, in a
line of 150), and its box runs to the line's end (a
capital-letter key beside lower-case words lies further right than any
average puts it), ``PROPORTIONAL_BLEED`` of the line's height left and
right of the engine's box (the box is tight on what the engine took for
ink; a glyph's edge may lie a pixel or two outside it), and ``END_REACH`` line
heights past its end when nothing but punctuation follows the span there
(the engine's line may stop short of a value's last characters: a base64
value's ``==`` padding, read as no text). An accessibility line's box is
its widget's, not its text's: a span found there fills the whole box.
Either way it is the line's height.

A terminal's rows are searched as the lines they were wrapped from
(``noru.redact.wrap``): a token cut at the last column is found whole, and
each row's part is replaced and filled there. A capture's images are put
side by side as they lie on the whole screen, and a line a display's edge
cuts is searched as one across the seam (``noru.redact.seams``); each
part is replaced and filled in its own image. Displays stacked one above
the other have their rows near the edge searched as one screen's, a row
the edge cuts filled beside a secret (``noru.redact.seam_rows``). An OCR line too uncertain to
check that lies beside a secret is filled whole (``noru.redact.unsure``).
A form's field read apart from its label beside or above it is searched
with that label (``noru.redact.fields``).

A capture's source facts are looked at too (``facts``): a secret in a
window title (a terminal titled with the command it runs), an app's or a
display's name is replaced there, and the workspace hint is inferred again
from the title as agents get it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from noru.geometry import Rect
from noru.redact import fields, seam_rows, seams
from noru.redact.detect import Finding, find_lines
from noru.redact.facts import source_for_agent
from noru.redact.policy import Policy
from noru.redact.unsure import UNSURE_KIND, lost_rows, unsure
from noru.redact.wrap import GRID_ROWS, find_written, grid_of, merged, parts_of
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine

__all__ = [
    "END_REACH",
    "FILL",
    "GRID_ROWS",
    "PROPORTIONAL_BLEED",
    "PROPORTIONAL_PAD",
    "AgentsGet",
    "Redacted",
    "agents_get",
    "for_agent",
    "redact_texts",
    "replaced",
    "search_text",
    "source_for_agent",
    "span_box",
]

# What a redacted span's box is filled with, in what agents get and at rest:
# solid black, never a blur.
FILL = (0, 0, 0)
# Characters a proportional line's span starts earlier than its estimate.
PROPORTIONAL_PAD = 3.0
# A proportional span reaches this share of its line's height left and
# right of the engine's box (its ink is a pixel or two wider than the box).
PROPORTIONAL_BLEED = 0.15
# Line heights a proportional span reaches past its line's box when only
# punctuation follows it on the line: characters the engine left out.
END_REACH = 2.0
# A grid's span reaches this share of a cell past its cells each way: a
# glyph's ink may run a pixel or two out of its cell (a `W`, an `M`), and
# the grid read from the pixels may sit a pixel off the terminal's own.
GRID_BLEED = 0.25
# Typical advance widths (em) of a sans-serif font, for where a span of a
# proportional line starts; any other character counts as DEFAULT_WIDTH.
_WIDTHS = {
    **dict.fromkeys("il.,:;'|!`", 0.3),
    **dict.fromkeys("fjrtI()[]{}/\\- ", 0.38),
    **dict.fromkeys("mwMW@%", 0.92),
    **dict.fromkeys("ABCDEFGHJKLNOPQRSTUVXYZ&", 0.7),
}
DEFAULT_WIDTH = 0.6
# A span already taken out at rest (``redact_at_rest``): counted, nothing to fill.
_AT_REST = re.compile(r"\[redacted: ([a-z0-9-]{1,32})\]")


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


def redact_texts(texts: Sequence[str], policy: Policy) -> tuple[list[str], list[list[Finding]]]:
    """Lines of text as ``policy`` lets an agent see them, and what was found
    in each (one capture's lines together: a private key spans several)."""
    found = find_lines(texts, policy.categories, policy.own)
    return [replaced(t, f) if f else t for t, f in zip(texts, found, strict=True)], found


def _width(text: str) -> float:
    return sum(_WIDTHS.get(char, DEFAULT_WIDTH) for char in text)


def span_box(box: Rect, text: str, start: int, end: int, *, grid: bool = False) -> Rect:
    """Where characters ``start`` to ``end`` of a line's ``text`` lie in its
    ``box``: its cells on a ``grid``, ``GRID_BLEED`` of a cell more each
    way; else from where they would start in a proportional font to the
    line's end, a little past the engine's box (see the module's doc)."""
    x, y, w, h = box
    lead = len(text) - len(text.lstrip(" "))
    drawn = text[lead:]
    if not drawn or w <= 0:
        return box
    if grid:
        pitch = w / len(drawn)
        bleed = math.ceil(GRID_BLEED * pitch)
        left = max(0, math.floor(x + (start - lead) * pitch) - bleed)
        right = math.ceil(x + (end - lead) * pitch) + bleed
        return (left, y, max(1, right - left), h)
    bleed = math.ceil(PROPORTIONAL_BLEED * h)
    scale = w / _width(drawn)
    before = _width(drawn[: max(0, start - lead)])
    left = max(x, math.floor(x + (before - PROPORTIONAL_PAD * DEFAULT_WIDTH) * scale)) - bleed
    right = x + w + bleed
    if not any(char.isalnum() for char in text[end:]):
        right += math.ceil(END_REACH * h)
    left = max(0, left)
    return (left, y, max(1, right - left), h)


def _ax_lines(
    lines: Sequence[AxLine], policy: Policy
) -> tuple[list[str], list[Rect], list[str], list[tuple[str, str]]]:
    """Each accessibility line's text as an agent gets it, the boxes to fill
    (a widget's whole: its box is the widget's, not its text's), the kinds
    found and the values found (with their kinds)."""
    texts, found = redact_texts([line.text for line in lines], policy)
    boxes, kinds, values = [], [], []
    for line, findings in zip(lines, found, strict=True):
        boxes += [line.box] * len(findings)
        kinds += [finding.kind for finding in findings]
        kinds += _AT_REST.findall(line.text)
        values += [(line.text[f.start : f.end], f.kind) for f in findings]
    return texts, boxes, kinds, values


def _ocr_lines(
    lines: Sequence[OcrLine],
    policy: Policy,
    values: Sequence[tuple[str, str]] = (),
    cut: seams.Across | None = None,
    position: int = 0,
    stack: seam_rows.Stacked | None = None,
    frames: Sequence[Rect] = (),
) -> tuple[list[str], list[Rect], list[str]]:
    """Each OCR line's text as an agent gets it, the boxes to fill and the
    kinds found: a terminal's rows as written (``wrap``), the parts of
    ``values`` (secrets the capture's accessibility text gives whole), a
    line too uncertain to check beside a secret whole (``unsure``); and,
    where the image at ``position`` meets others at a seam (``cut``), the
    parts of what was found across the seams (a line the seams' search
    searched whole is searched on its own only near its seam, and what
    its part alone gives up to the seam is kept only where the line
    across it gives that too); where it is stacked with others (``stack``),
    what was found across the horizontal seams and the cut rows to fill;
    ``frames``: the image's windows (or its whole), where a row the engine
    lost beside an unsure line may reach (``unsure.lost_rows``)."""
    near = cut.near_of(position, len(lines)) if cut is not None else None
    found, groups = find_written(
        lines, policy.categories, policy.own, near=near, reach=seams.PART_REACH
    )
    if cut is not None:
        found = cut.alone(position, lines, found)
    if "secrets" in policy.categories:
        found = [merged(f, extra) for f, extra in zip(found, fields.beside(lines), strict=True)]
    if values:
        found = [
            merged(f, parts_of(line.text, values)) for f, line in zip(found, lines, strict=True)
        ]
    if cut is not None:
        more = cut.found[position]
        found = [merged(f, extra) for f, extra in zip(found, more, strict=True)]
    if stack is not None:
        more = stack.found[position]
        found = [merged(f, extra) for f, extra in zip(found, more, strict=True)]
    doubtful = unsure(lines, found, groups) if "secrets" in policy.categories else set()
    if stack is not None:
        doubtful |= stack.unsure[position]
    grid = {i for i, cells in enumerate(grid_of(lines)) if cells is not None}
    texts, boxes, kinds = [], [], []
    for i, (line, findings) in enumerate(zip(lines, found, strict=True)):
        kinds += [finding.kind for finding in findings]
        kinds += _AT_REST.findall(line.text)
        if i in doubtful:
            lead = len(line.text) - len(line.text.lstrip(" "))
            texts.append(" " * lead + f"[redacted: {UNSURE_KIND}]")
            # Its whole text as a span: its ink may lie past the engine's box too.
            boxes.append(span_box(line.box, line.text, lead, len(line.text), grid=i in grid))
            kinds.append(UNSURE_KIND)
            continue
        texts.append(replaced(line.text, findings) if findings else line.text)
        boxes += [span_box(line.box, line.text, f.start, f.end, grid=i in grid) for f in findings]
    boxes += lost_rows(lines, doubtful, frames)
    return texts, boxes, kinds


@dataclass(frozen=True)
class _Ax:
    """An image's accessibility text as an agent gets it, the boxes to fill,
    the kinds found and the values found (with their kinds)."""

    lines: tuple[AxLine, ...]
    text: str | None
    boxes: list[Rect]
    kinds: list[str]
    values: list[tuple[str, str]]


def _ax(image: ImageRecord, policy: Policy) -> _Ax:
    ax_lines, ax_text = image.ax_lines, image.ax_text
    if ax_lines:
        texts, boxes, kinds, values = _ax_lines(ax_lines, policy)
        if boxes:
            ax_lines = tuple(
                replace(line, text=text) for line, text in zip(ax_lines, texts, strict=True)
            )
            ax_text = "\n".join(texts)
        return _Ax(ax_lines, ax_text, boxes, kinds, values)
    if ax_text:  # text without boxes: its words go, no pixels are known
        lines = ax_text.split("\n")
        texts, found_in = redact_texts(lines, policy)
        if any(found_in):
            kinds = [finding.kind for findings in found_in for finding in findings]
            values = [
                (text[f.start : f.end], f.kind)
                for text, fs in zip(lines, found_in, strict=True)
                for f in fs
            ]
            return _Ax(ax_lines, "\n".join(texts), [], kinds, values)
    return _Ax(ax_lines, ax_text, [], [], [])


def _image(
    image: ImageRecord,
    policy: Policy,
    ax: _Ax,
    values: Sequence[tuple[str, str]],
    cut: seams.Across | None,
    position: int,
    stack: seam_rows.Stacked | None = None,
) -> tuple[ImageRecord, list[Rect], list[str]]:
    """``image`` as an agent gets it, its boxes to fill and the kinds found:
    its accessibility text as ``ax`` gives it, and its OCR lines with the
    parts of ``values`` (secrets the capture's accessibility text gives
    whole: a line an app wraps softly, a window's text beyond this display)
    and of what was found across the seams (``cut``, this image's at
    ``position``)."""
    boxes: list[Rect] = []
    kinds: list[str] = []
    ocr_lines = image.ocr_lines
    if ocr_lines:
        searched = cut.lines(position, ocr_lines) if cut is not None else ocr_lines
        frames = image.windows or ((0, 0, image.width, image.height),)
        texts, found, named = _ocr_lines(searched, policy, values, cut, position, stack, frames)
        if found:
            # a line whose text is as read is kept as it is: most are
            ocr_lines = tuple(
                line if line.text == text else replace(line, text=text)
                for line, text in zip(ocr_lines, texts, strict=True)
            )
        boxes += found
        kinds += named
    boxes += ax.boxes
    kinds += ax.kinds
    source, named = source_for_agent(image.source, policy)
    kinds += named
    new = replace(image, ocr_lines=ocr_lines, ax_lines=ax.lines, ax_text=ax.text, source=source)
    return new, boxes, kinds


def for_agent(record: CaptureRecord, policy: Policy) -> Redacted:
    """``record`` as ``policy`` lets an agent see it (see the module's doc).

    The caller has checked that redaction can run (``policy.problem`` is
    None, the capture's text is recognised): this only applies it.
    """
    if not policy.categories:
        return Redacted(record, tuple(() for _ in record.images), ())
    # The accessibility text first: a line an app wraps softly is whole
    # there, and so is a window's text beyond the display this image shows;
    # what is found in it is taken out of the OCR lines' parts, in every image.
    axes = [_ax(image, policy) for image in record.images]
    values = [value for ax in axes for value in ax.values]
    cut = seams.across(record.images, policy.categories, policy.own)
    stack = seam_rows.stacked(record.images, policy.categories, policy.own)
    images, boxes, kinds = [], [], []
    for i, (image, ax) in enumerate(zip(record.images, axes, strict=True)):
        new, found, named = _image(image, policy, ax, values, cut, i, stack)
        if cut is not None:
            found += cut.strips[i]
        if stack is not None:
            found += stack.strips[i]
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


@dataclass(frozen=True)
class AgentsGet:
    """What redaction changes of a capture for agents, for the person's views
    (``noru show``, the console): ``held``, why they get none of it yet; or
    ``summary`` (``3: aws-key, password``, None: nothing redacted), the lines
    as they get them (and ``source: ...``, an image's source facts, where
    they differ), and the boxes filled, per image."""

    held: str | None = None
    summary: str | None = None
    lines: tuple[str, ...] = ()
    boxes: tuple[tuple[Rect, ...], ...] = ()


def agents_get(record: CaptureRecord, policy: Policy) -> AgentsGet | None:
    """What agents get of ``record`` under ``policy``; None with redaction off."""
    if not policy.on:
        return None
    if policy.problem or record.ocr_state != "done":
        why = policy.problem or "its text is not recognised, so it cannot be checked for secrets"
        return AgentsGet(held=why)
    seen = for_agent(record, policy)
    if not seen.count:
        return AgentsGet()
    changed = []
    for before, after in zip(record.images, seen.record.images, strict=True):
        ocr = zip(before.ocr_lines or (), after.ocr_lines or (), strict=True)
        ax = zip(before.ax_lines, after.ax_lines, strict=True)
        texts = [*((o.text, n.text) for o, n in ocr), *((o.text, n.text) for o, n in ax)]
        if before.source != after.source:  # its title, hint, app or display name
            texts.append(("", f"source: {after.source.describe()}"))
        changed += [new for old, new in texts if old != new]
    return AgentsGet(summary=seen.summary(), lines=tuple(changed), boxes=seen.boxes)
