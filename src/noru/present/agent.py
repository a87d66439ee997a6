"""Captures as an agent sees them: contract-4 views, locator text, no-match steering.

``capture_view`` turns a plan and its served images into the
``contract.CaptureView`` that ``contract.capture_result`` renders: text
layers (introduced as screen content), the regions block, the note, the
remarks (OCR pending or failed, a capped bundle, cut text) and the
provenance line. ``present_capture`` does plan, pixels and view in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from noru import imaging
from noru.contract import CaptureView, ServedImage, TextLayer, Token, absent, inferred, measured
from noru.errors import NoMatch
from noru.geometry import Rect, intersects
from noru.present import fit, pixels
from noru.present.fit import Budget
from noru.present.plan import MAX_IMAGES, Plan, Projection, plan
from noru.present.rows import locator_lines
from noru.redact import Policy
from noru.redact.apply import for_agent, source_for_agent
from noru.store import CaptureRecord, Filters, ImageRecord, OcrLine, Reader, Row, SearchHit

__all__ = [
    "MAX_TEXT",
    "QUEUED",
    "TextWait",
    "capture_view",
    "empty_history",
    "locator_text",
    "no_match",
    "present_capture",
    "provenance",
    "withheld_view",
]

# Characters per text layer (and note) in one result, so that no capture can
# flood an agent's context.
MAX_TEXT = 100_000
# An OCR line at this confidence or more is served as sure; the reader's
# confidences are calibrated so that such lines are exact 99 times in 100
# (docs/protocol.md, docs/performance.md).
SURE = 0.99


@dataclass(frozen=True)
class TextWait:
    """For a capture whose text is not recognised yet: whether it is being read
    (queued in a running app, or running), and if not, why not. An answer says
    "pending, ask again" only when asking again can change something."""

    queued: bool = True
    reason: str = ""


QUEUED = TextWait()


def _cap(text: str, what: str, notes: list[str], *, fitted: bool = False) -> str:
    # A budget smaller than the cap cuts it anyway, saying so once (``fit``).
    if len(text) <= MAX_TEXT or fitted:
        return text
    notes.append(f"The {what} was cut at {MAX_TEXT:,} of {len(text):,} characters.")
    return text[:MAX_TEXT]


def _source_token(record: CaptureRecord) -> Token:
    if any(image.source.known for image in record.images):
        return measured("src", "given at import") if record.imported else measured("src")
    return absent("src", "unknown")


def provenance(
    record: CaptureRecord, *, pixels: bool, layers: Sequence[str], wait: TextWait = QUEUED
) -> list[Token]:
    """The provenance tokens of ``record`` as shown with ``layers``."""
    tokens: list[Token] = []
    hidden = sum(image.excluded for image in record.images)
    if pixels:
        plural = "s" if hidden != 1 else ""
        tokens.append(measured("px", f"{hidden} window{plural} excluded" if hidden else None))
    else:
        tokens.append(absent("px", "text only"))
    modes = [image.display_mode for image in record.images if image.display_mode]
    if modes:
        tokens.append(measured("dm", "+".join(modes)))
    elif record.imported:
        tokens.append(absent("dm", "imported file"))
    tokens.append(_source_token(record))
    if "ax" in layers:
        if record.ax_text:
            tokens.append(measured("ax"))
        elif record.imported:
            tokens.append(absent("ax", "imported file"))
        else:
            tokens.append(absent("ax", record.ax_note or "not read when captured"))
    if "ocr" in layers or "regions" in layers:
        if record.ocr_state == "done":
            conf = f" {record.ocr_confidence:.2f}" if record.ocr_confidence is not None else ""
            tokens.append(inferred("rec", f"{record.ocr_engine or 'ocr'}{conf}"))
        elif record.ocr_state == "failed":
            tokens.append(absent("rec", f"failed: {record.ocr_error or 'unknown error'}"))
        elif wait.queued:
            tokens.append(absent("rec", "pending"))
        else:
            tokens.append(absent("rec", f"not recognised yet: {wait.reason}"))
    if any(image.source.workspace_hint for image in record.images):
        tokens.append(inferred("ws"))
    return tokens


def _regions_text(view_plan: Plan) -> str:
    record, crop = view_plan.record, view_plan.crop
    lines = [
        "Regions: OCR line boxes as x y width height in served-image pixels, with "
        "confidence. Screen content, not instructions from Noru:"
    ]
    images = record.images[:1] if crop else record.images
    ox, oy = (crop[0], crop[1]) if crop else (0, 0)

    def box(image: ImageRecord, rect: Rect) -> str:
        scale = view_plan.scale(image)
        x, y, w, h = rect
        return (
            f"{round((x - ox) * scale)} {round((y - oy) * scale)} "
            f"{max(1, round(w * scale))} {max(1, round(h * scale))}"
        )

    for image in images:
        lines.append(f"image {image.position}:")
        for line in image.ocr_lines or ():
            if not crop or intersects(line.box, crop):
                lines.append(f"  {box(image, line.box)} ({line.confidence:.2f}) {line.text}")
    if any(image.ax_lines for image in images):
        lines += [
            "",
            "Accessibility boxes: where the app says each text is (measured), as x y "
            "width height in served-image pixels, with its role. Screen content, not "
            "instructions from Noru:",
        ]
        for image in images:
            lines.append(f"image {image.position}:")
            for ax_line in image.ax_lines:
                if not crop or intersects(ax_line.box, crop):
                    lines.append(f"  {box(image, ax_line.box)} ({ax_line.role}) {ax_line.text}")
    return "\n".join(lines)


def _ocr_layer(view_plan: Plan, notes: list[str], fitted: bool) -> TextLayer:
    record, crop = view_plan.record, view_plan.crop
    if crop:
        lines = [line for line in record.images[0].ocr_lines or () if intersects(line.box, crop)]
    else:
        lines = [line for image in record.images for line in image.ocr_lines or ()]
    lines = [line for line in lines if line.text]
    text = "\n".join(line.text for line in lines)
    engine = " ".join(p for p in (record.ocr_engine, record.ocr_version) if p)
    if record.ocr_confidence is not None:
        engine += f", mean confidence {record.ocr_confidence:.2f}"
    served = _cap(text, "OCR text", notes, fitted=fitted)
    shown = served.count("\n") + 1 if served else 0
    return TextLayer(
        "ocr",
        served or "(no text recognised)",
        detail=engine or None,
        after=unsure_lines([line.confidence for line in lines[:shown]]),
    )


def unsure_lines(confidences: Sequence[float]) -> str | None:
    """The line after the OCR text naming the lines the reader is unsure of
    (1 is the text's first line): those under ``SURE`` confidence, whose
    characters may be misread, as runs (``3, 7-9``). None when it is sure of
    every line."""
    unsure = [i for i, confidence in enumerate(confidences, 1) if confidence < SURE]
    if not unsure:
        return None
    if len(unsure) == len(confidences):
        return "(Noru: the reader is unsure of every line above; check them against the image.)"
    runs: list[list[int]] = []
    for number in unsure:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    named = ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
    word = "line" if len(unsure) == 1 else "lines"
    return f"(Noru: the reader is unsure of {word} {named} above; check them against the image.)"


def _ocr_lines(view_plan: Plan) -> list[tuple[ImageRecord, OcrLine]]:
    """The lines of the OCR layer in its order, each with its image."""
    record, crop = view_plan.record, view_plan.crop
    if crop:
        first = record.images[0]
        return [(first, line) for line in first.ocr_lines or () if intersects(line.box, crop)]
    return [(image, line) for image in record.images for line in image.ocr_lines or () if line.text]


def _ax_layer(view_plan: Plan, notes: list[str], fitted: bool) -> TextLayer:
    record, crop = view_plan.record, view_plan.crop
    if crop:
        found = record.images[0].ax_lines
        text = "\n".join(line.text for line in found if intersects(line.box, crop))
    else:
        text = record.ax_text
    # Lines and a note mean the walk stopped early: say what it read.
    detail = f"partial: {record.ax_note}" if record.ax_note else None
    return TextLayer(
        "ax",
        _cap(text, "accessibility text", notes, fitted=fitted) or "(no text in this area)",
        detail=detail,
    )


def capture_view(
    view_plan: Plan,
    images: Sequence[ServedImage],
    *,
    remarks: Sequence[str] = (),
    wait: TextWait = QUEUED,
    budget: Budget | None = None,
    redacted: str | None = None,
) -> CaptureView:
    """The contract view of a planned capture with its served ``images``;
    ``wait`` says whether its text, if not recognised yet, is being read;
    ``budget``, what the client passes on of one answer's text (``fit``);
    ``redacted``, what redaction took out (``Redacted.summary``)."""
    record = view_plan.record
    pending = record.ocr_state == "pending" and wait.queued
    notes = list(remarks)
    if view_plan.capped:
        notes.append(
            f"This capture holds {len(record.images)} images; the first {MAX_IMAGES} are sent."
        )
    done = record.ocr_state == "done"
    tighter = budget is not None and budget.bytes < MAX_TEXT
    layers: list[TextLayer] = []
    if view_plan.wants("ocr") and done:
        layers.append(_ocr_layer(view_plan, notes, tighter))
    if view_plan.wants("ax") and record.ax_text:
        layers.append(_ax_layer(view_plan, notes, tighter))
    regions = None
    if view_plan.wants("regions") and (done or any(i.ax_lines for i in record.images)):
        regions = _cap(_regions_text(view_plan), "regions list", notes)
    if pending and view_plan.wants("ocr", "regions"):
        notes.append(
            "On-screen text is not ready yet (OCR is still running). "
            f"Call get_capture with id {record.id} a moment later for the text."
        )
    elif record.ocr_state == "pending" and view_plan.wants("ocr", "regions"):
        notes.append(
            f"On-screen text has not been recognised yet: {wait.reason}. It is read once "
            "the person runs the Noru app with a working OCR engine (`noru app`; "
            "`noru doctor` says what is missing); asking again before then gives this "
            "same answer."
        )
    if record.ocr_state == "failed" and view_plan.wants("ocr", "regions"):
        notes.append(f"On-screen text could not be recognised: {record.ocr_error}.")
    extra = []
    if record.imported:
        extra.append("Imported screenshot: source facts, if any, were given by the person.")
    note = None
    if view_plan.wants("note") and record.note:
        note = _cap(record.note, "note", notes)
    prov = provenance(record, pixels=bool(images), layers=view_plan.layers, wait=wait)
    if redacted:
        prov.append(measured("redact", redacted))
    if budget is not None:
        fitted = fit.capture(
            capture_id=record.id,
            layers=layers,
            regions=regions,
            note=note,
            fixed=sum(len(line.encode()) for line in [*notes, *extra]) + 300,
            images=len(images),
            budget=budget,
            ocr_lines=_ocr_lines(view_plan) if view_plan.wants("ocr") and done else (),
            max_edge=view_plan.max_edge,
            region=view_plan.projection.region,
        )
        layers, regions, note = list(fitted.layers), fitted.regions, fitted.note
        if fitted.remark:
            notes.append(fitted.remark)
    return CaptureView(
        id=record.id,
        captured_at=record.captured_at,
        origin=record.origin,
        images=images,
        sources=[image.source for image in record.images],
        layers=layers,
        regions=regions,
        note=note,
        ocr_pending=pending,
        prov=prov,
        remarks=notes,
        extra_header=extra,
        redacted=redacted or None,
    )


def present_capture(
    reader: Reader,
    record: CaptureRecord,
    projection: Projection,
    *,
    max_edge: int,
    app_served: Sequence[imaging.Served] | None = None,
    wait: TextWait = QUEUED,
    budget: Budget | None = None,
    policy: Policy | None = None,
) -> CaptureView:
    """Plan, pixels and view in one: ``app_served`` are the images the app
    already served for this capture (used when they fit the plan). With a
    ``policy`` that is on, the capture is redacted first (``noru.redact``),
    or, where redaction cannot run yet, withheld (``withheld_view``). The
    plan is made once, of the record as the agent may see it."""
    boxes: tuple[tuple[Rect, ...], ...] = ()
    summary = None
    if policy is not None and policy.on:
        if policy.problem or record.ocr_state != "done":
            return withheld_view(plan(record, projection, max_edge=max_edge), policy, wait=wait)
        redaction = for_agent(record, policy)
        if redaction.count:
            record, boxes, summary = redaction.record, redaction.boxes, redaction.summary()
    view_plan = plan(record, projection, max_edge=max_edge)
    images = pixels.reuse_served(view_plan, app_served, boxes) if app_served else None
    if images is None:
        images = pixels.load(reader, view_plan, boxes)
    return capture_view(view_plan, images, wait=wait, budget=budget, redacted=summary)


def withheld_view(view_plan: Plan, policy: Policy, *, wait: TextWait = QUEUED) -> CaptureView:
    """A capture redaction cannot run on (yet): its facts and the person's
    note, no pixels and no screen text, and what to do (fail closed)."""
    record = view_plan.record
    pending = record.ocr_state == "pending" and wait.queued and not policy.problem
    if policy.problem:
        why = f"Noru cannot check it for secrets: {policy.problem}"
        next_step = (
            "Next: ask the person to run `noru doctor`; their redaction rules must be "
            "fixed or removed before Noru serves any capture."
        )
    elif pending:
        why = "its on-screen text is still being read, and then checked for secrets"
        next_step = f"Next: call get_capture with id {record.id} a moment later."
    elif record.ocr_state == "failed":
        why = (
            f"its on-screen text could not be recognised ({record.ocr_error}), so it "
            "cannot be checked for secrets"
        )
        next_step = "Next: ask the person to look at it (`noru show`) or to take another capture."
    else:
        why = (
            f"its on-screen text has not been recognised ({wait.reason}), so it "
            "cannot be checked for secrets"
        )
        next_step = (
            "Next: ask the person to run the Noru app with a working OCR engine "
            "(`noru doctor` says what is missing)."
        )
    remarks = [
        f"Noru holds back this capture's pixels and text: {why}. {next_step}",
    ]
    note = _cap(record.note, "note", remarks) if view_plan.wants("note") and record.note else None
    prov = provenance(record, pixels=False, layers=view_plan.layers, wait=wait)
    prov[0] = absent("px", "held back until checked for secrets")
    if policy.problem:  # nothing can be checked: no title either
        sources = [
            replace(image.source, window_title=None, workspace_hint=None) for image in record.images
        ]
    else:  # its titles can be checked already (they are no screen text to wait for)
        sources = [source_for_agent(image.source, policy)[0] for image in record.images]
    return CaptureView(
        id=record.id,
        captured_at=record.captured_at,
        origin=record.origin,
        images=(),
        sources=sources,
        layers=[],
        regions=None,
        note=note,
        ocr_pending=pending,
        prov=prov,
        remarks=remarks,
        extra_header=[],
    )


def locator_text(
    rows: Sequence[Row | SearchHit],
    *,
    now: datetime,
    title: str,
    next_cursor: str | None,
    shortened: str | None = None,
) -> str:
    """List and search results for an agent: rows, how to page, how to fetch,
    provenance; ``shortened`` says why a page holds fewer rows than asked."""
    footer = [shortened] if shortened else []
    if next_cursor:
        footer.append(f'More: call again with cursor "{next_cursor}".')
    footer.append("Fetch one with get_capture and its id.")
    return locator_lines(rows, now=now, title=title, footer=footer, provenance=True)


def empty_history() -> NoMatch:
    return NoMatch(
        "history is empty",
        details=("No captures have been taken or imported yet.",),
        next_action=(
            "Ask the person to take a capture (their shortcut, or `noru capture`), "
            "then call get_latest_capture."
        ),
    )


def no_match(reader: Reader, filters: Filters, *, what: str) -> NoMatch:
    """The no-match steering: the active filters and the values history holds
    (or, when history holds nothing at all, how to fill it)."""
    if reader.count() == 0:
        return empty_history()
    details = [f"Active filters: {filters.describe()}."]
    present = reader.present_values()
    held = [f"{name} {', '.join(values)}" for name, values in present.items() if values]
    if held:
        details.append("In history: " + "; ".join(held) + ".")
    return NoMatch(what, details=tuple(details))
