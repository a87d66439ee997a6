"""One capture's page: its images with the boxes of what was read and what
agents get redacted, its text layers, its provenance and its note."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noru.console.pages.frame import capture_of, local, render
from noru.geometry import Rect
from noru.redact.apply import AgentsGet
from noru.sources import Source
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine, folded_words

__all__ = ["capture_page"]


@dataclass(frozen=True)
class Box:
    """A rectangle drawn over an image: a line read (``hit``: it holds a
    searched word), or a box redacted for agents."""

    x: int
    y: int
    width: int
    height: int
    text: str
    kind: str = ""  # "", "hit" or "redacted"


@dataclass(frozen=True)
class Shown:
    """One image of the capture as the page shows it."""

    image: ImageRecord
    alt: str
    caption: str
    boxes: list[Box]
    found: str  # what the search it was opened from found in it, or ""


def _boxes(
    image: ImageRecord, wanted: set[str], redacted: Sequence[Rect] = ()
) -> tuple[list[Box], int]:
    """The image's lines as boxes over it, and how many hold one of the
    ``wanted`` words (boxed as hits). OCR lines where OCR has run, else the
    accessibility lines that have boxes; and the boxes ``redacted`` for
    agents, marked."""
    lines: Sequence[OcrLine | AxLine] = image.ocr_lines or image.ax_lines
    boxes, hits = [], 0
    for line in lines:
        hit = bool(wanted & folded_words(line.text))
        hits += hit
        boxes.append(Box(*line.box, line.text, "hit" if hit else ""))
    boxes += [Box(*box, "redacted in what agents get", "redacted") for box in redacted]
    return boxes, hits


def capture_page(
    record: CaptureRecord,
    *,
    readers: Sequence[str],
    query: str = "",
    agents_get: AgentsGet | None = None,
    newer: str | None = None,
    older: str | None = None,
    notice: str | None = None,
) -> str:
    """The viewer, with links to the captures ``newer`` and ``older`` than it:
    ``query`` (the search it was opened from) boxes the lines
    that hold its words; ``agents_get``, what redaction changes for agents:
    its boxes are marked on the image and its lines listed as they get them."""
    wanted = folded_words(query)
    images = []
    for image in record.images:
        marked = agents_get.boxes[image.position - 1] if agents_get and agents_get.boxes else ()
        boxes, hits = _boxes(image, wanted, marked)
        found = ""
        if wanted:
            found = (
                f" · {hits} line{'s' if hits != 1 else ''} with “{query}” boxed"
                if hits
                else f" · “{query}” is not in a line of this image"
            )
        images.append(
            Shown(image, _alt_record(record, image.position), _facts(image), boxes, found)
        )
    return render(
        "capture.html",
        title=f"Capture {record.id}",
        record=record,
        images=images,
        texts=[
            ("On-screen text (OCR)", record.ocr_text, "ocr", record.ocr_state),
            ("Accessibility text", record.ax_text, "ax", "done" if record.ax_text else "none"),
        ],
        agents_get=agents_get,
        facts=_provenance(record),
        readers=readers,
        newer=newer,
        older=older,
        notice=notice,
    )


def _provenance(record: CaptureRecord) -> list[tuple[str, str]]:
    """Where the capture came from, in plain words: what was measured at the
    capture, and what was inferred (the workspace, from the title)."""
    facts = [
        ("Taken", f"{'by an agent' if record.origin == 'agent' else 'by you'}, "
         f"{local(record.captured_at):%Y-%m-%d %H:%M:%S %Z}"
         + (" (imported from a file)" if record.imported else "")),
    ]  # fmt: skip
    for image in record.images:
        source, at = image.source, f" (image {image.position})" if len(record.images) > 1 else ""
        if source.shows:
            facts.append((f"Shows{at}", _shows(source)))
        window = "Active window" if source.whole else "Window"
        if source.app_name or source.app_id:
            whose = "the active window" if source.whole else "the window"
            facts.append((f"App{at}", f"{source.app_name or source.app_id}, as {whose} says"))
        if source.window_title:
            facts.append((f"{window}{at}", f"“{source.window_title}”, its title at the capture"))
        if source.display_label:
            mode = f", {image.display_mode}" if image.display_mode else ""
            facts.append((f"Display{at}", f"{source.display_label}{mode}"))
        if source.workspace_hint:
            facts.append(
                (
                    f"Workspace{at}",
                    f"{source.workspace_hint}, inferred from the title; may be wrong",
                )
            )
        if image.excluded:
            facts.append((f"Hidden{at}", f"{image.excluded} excluded window(s) painted black"))
    if record.ocr_state == "done":
        engine = " ".join(v for v in (record.ocr_engine, record.ocr_version) if v) or "OCR"
        sure = f", confidence {record.ocr_confidence:.2f}" if record.ocr_confidence else ""
        facts.append(("Text", f"read by {engine}{sure}"))
    elif record.ocr_state == "failed":
        facts.append(("Text", f"could not be read: {record.ocr_error or 'unknown error'}"))
    else:
        facts.append(("Text", "not read yet (the app reads it)"))
    if record.ax_note:
        facts.append(("Accessibility", record.ax_note))
    return facts


def _shows(source: Source) -> str:
    """What the image is, in the person's words."""
    where = source.display_label
    if source.shows == "window":
        return "one window" + (f", on {where}" if where else "")
    if source.shows == "region":
        return f"a region of {where}" if where else "a region of the screen"
    return f"the whole of {where}" if where else "a whole display"


def _alt_record(record: CaptureRecord, position: int) -> str:
    source = record.images[position - 1].source
    return f"Capture of {capture_of(source)}, {local(record.captured_at):%Y-%m-%d %H:%M}"


def _facts(image: ImageRecord) -> str:
    """An image's caption: what it is first (``Source.subject``), then the
    window and app."""
    source = image.source
    display = f"display {source.display_index}" if source.display_index else None
    if source.whole:
        title = f"active: {source.window_title}" if source.window_title else None
        facts = [source.subject, title, source.app_name]
    elif source.shows == "window":
        facts = [f"window: {source.window_title or 'untitled'}", source.app_name, display]
    else:
        facts = [source.window_title, source.app_name, display]
    return " · ".join(f for f in facts if f) or "no source facts"
