"""One capture's page: its images with the boxes of what was read and what
agents get redacted, its text layers, its provenance and its note."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from noru.console.pages.frame import capture_of, local, page, source_words
from noru.geometry import Rect
from noru.redact.apply import AgentsGet
from noru.sources import Source
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine, folded_words

__all__ = ["capture_page"]


def _boxes(image: ImageRecord, wanted: set[str], redacted: Sequence[Rect] = ()) -> tuple[str, int]:
    """The image's lines as an SVG over it (no inline styles: the page's
    policy forbids them), and how many hold one of the ``wanted`` words
    (boxed as hits). OCR lines where OCR has run, else the accessibility
    lines that have boxes; and the boxes ``redacted`` for agents, marked."""
    lines: Sequence[OcrLine | AxLine] = image.ocr_lines or image.ax_lines
    rects, hits = [], 0
    for line in lines:
        x, y, w, h = line.box
        hit = bool(wanted & folded_words(line.text))
        hits += hit
        mark = ' class="hit"' if hit else ""
        rects.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}"{mark}>'
            f"<title>{escape(line.text)}</title></rect>"
        )
    for x, y, w, h in redacted:
        rects.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" class="redacted">'
            "<title>redacted in what agents get</title></rect>"
        )
    svg = (
        f'<svg class="boxes" viewBox="0 0 {image.width} {image.height}" '
        f'preserveAspectRatio="none" aria-hidden="true">{"".join(rects)}</svg>'
    )
    return svg, hits


def capture_page(
    record: CaptureRecord,
    *,
    readers: Sequence[str],
    query: str = "",
    agents_get: AgentsGet | None = None,
) -> str:
    """The viewer: ``query`` (the search it was opened from) boxes the lines
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
                f" · {hits} line{'s' if hits != 1 else ''} with “{escape(query)}” boxed"
                if hits
                else f" · “{escape(query)}” is not in a line of this image"
            )
        images.append(
            f'<figure class="shot"><div class="frame">'
            f'<img src="/image/{escape(record.id)}/{image.position}" '
            f'alt="{escape(_alt_record(record, image.position))}" '
            f'width="{image.width}" height="{image.height}">{boxes}</div>'
            f"<figcaption>{image.width}x{image.height} px · {escape(_facts(image))}{found} "
            '<button type="button" class="zoom" aria-pressed="false">Actual size</button>'
            '</figcaption><output class="line" aria-live="polite"></output></figure>'
        )
    ocr = record.ocr_text
    ax = record.ax_text
    texts = _text_block("On-screen text (OCR)", ocr, "ocr", record.ocr_state) + _text_block(
        "Accessibility text", ax, "ax", "done" if ax else "none"
    )
    if agents_get is not None:
        texts += _agents_get(agents_get)
    note = escape(record.note or "")
    read_by = (
        "<ul>" + "".join(f"<li>{escape(r)}</li>" for r in readers) + "</ul>"
        if readers
        else "<p>No agent has read this capture.</p>"
    )
    body = (
        f"<h1>{local(record.captured_at):%Y-%m-%d %H:%M:%S}</h1>"
        f'<p class="src">{escape(source_words(record))} · '
        f"{'taken by an agent' if record.origin == 'agent' else 'taken by you'}"
        f"{' · kept forever' if record.kept else ''}</p>"
        + "".join(images)
        + texts
        + '<section><h2>Note</h2><form method="post" action="'
        f'/capture/{escape(record.id)}/note"><textarea name="note" rows="3" aria-label="Note">'
        f"{note}</textarea><button>Save note</button></form></section>"
        + _provenance(record)
        + f"<section><h2>Read by agents</h2>{read_by}</section>"
        f'<section><h2>Delete</h2><form method="post" action="/capture/{escape(record.id)}/delete">'
        '<label><input type="checkbox" name="confirm" value="yes" required> Delete this capture,'
        " its text and its files</label> <button>Delete</button></form></section>"
    )
    return page(f"Capture {record.id}", body)


def _agents_get(seen: AgentsGet) -> str:
    if seen.held:
        body = f"<p>Agents get none of this capture's pixels or text yet: {escape(seen.held)}.</p>"
    elif seen.summary:
        body = (
            f"<p>Redacted for agents ({escape(seen.summary)}): the boxes marked on the image"
            " are filled, and they get these lines as:</p>"
            f"<pre>{escape(chr(10).join(seen.lines))}</pre>"
        )
    else:
        body = "<p>Nothing redacted: agents get this capture as taken.</p>"
    return f"<section><h2>What agents get</h2>{body}</section>"


def _provenance(record: CaptureRecord) -> str:
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
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<section><h2>Where it came from</h2><dl class="facts">{rows}</dl></section>'


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


def _text_block(title: str, text: str, layer: str, state: str) -> str:
    if not text:
        why = {"pending": "not read yet", "failed": "could not be read"}.get(state, "none")
        return f"<section><h2>{escape(title)}</h2><p>{why}</p></section>"
    return (
        f'<section><h2>{escape(title)}</h2><button type="button" class="copy" '
        f'data-copy="text-{layer}">Copy</button>'
        f'<pre id="text-{layer}">{escape(text)}</pre></section>'
    )
