"""Captures as the person sees them in the terminal (``noru show``, ``list``, ``search``).

The same facts as the agent's view, in the person's terms: local time, who
took it, every image with its source and its file, the text layers, the
note and the provenance line; and locator rows with footers that name the
person's own commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from noru.contract import prov_line
from noru.present.agent import provenance
from noru.present.pixels import ImageFiles
from noru.present.rows import locator_lines
from noru.redact import Policy
from noru.redact.apply import agents_get
from noru.store import CaptureRecord, Row, SearchHit
from noru.times import format_age, format_utc

__all__ = [
    "CAPTURE_FIELDS",
    "HIT_FIELDS",
    "ROW_FIELDS",
    "capture_fields",
    "capture_lines",
    "hit_fields",
    "row_fields",
    "rows_text",
]

#: ``noru list --json``: one object per row, in this order (docs/cli.md).
ROW_FIELDS = (
    "id", "captured_at", "origin", "images", "has_text", "note", "shows",
    "display_index", "display_name", "app_id", "app_name", "window_title", "workspace_hint",
)  # fmt: skip
#: ``noru search --json``: a row's fields, then where the words matched.
HIT_FIELDS = (*ROW_FIELDS, "matched_layer", "snippet")
#: ``noru show --json``: everything ``noru show`` says, unredacted.
CAPTURE_FIELDS = (
    "id", "captured_at", "origin", "imported", "delivered", "kept", "note",
    "ocr_state", "ocr_engine", "ocr_version", "ocr_confidence", "ocr_error",
    "ocr_text", "ax_text", "images",
)  # fmt: skip


def _origin(record: CaptureRecord) -> str:
    if record.origin == "agent":
        return "an agent (observe_screen)"
    if record.imported:
        return "you (imported)"
    handed = "; handed to an agent" if record.delivered else ""
    return f"you (shortcut or `noru capture`{handed})"


def _ocr_heading(record: CaptureRecord) -> str:
    engine = " ".join(p for p in (record.ocr_engine, record.ocr_version) if p) or "OCR"
    if record.ocr_confidence is not None:
        engine += f", mean confidence {record.ocr_confidence:.2f}"
    return f"Text recognised by OCR ({engine}):"


def capture_lines(
    record: CaptureRecord,
    *,
    now: datetime,
    files: ImageFiles,
    waiting: tuple[bool, str] | None = None,
    policy: Policy | None = None,
) -> list[str]:
    """``noru show``: everything Noru holds about one capture, for the person.

    ``waiting`` (for a capture whose text is pending): whether the running app
    is reading it, and if not, why (``noru.status.text_wait``). ``policy``:
    what is redacted for agents; the lines it changes are shown as agents get
    them, after the text as taken.
    """
    local = record.captured_at.astimezone()
    lines = [
        record.id,
        f"  taken      {local:%Y-%m-%d %H:%M:%S} (local time), "
        f"{format_age(record.captured_at, now)}",
        f"  by         {_origin(record)}",
    ]
    for image in record.images:
        facts = image.source.describe()
        lines.append(f"  image {image.position}    {image.width}x{image.height} px; {facts}")
        lines.append(f"             {files.image_file(image)}")
    if record.note:
        lines.append(f"  note       {record.note}")
    if record.ocr_state == "done":
        lines += ["", _ocr_heading(record), record.ocr_text or "(no text recognised)"]
    elif record.ocr_state == "failed":
        lines += ["", f"Text could not be recognised: {record.ocr_error}."]
    elif waiting is not None and waiting[0]:
        lines += ["", "Text not recognised yet: the running app is reading it."]
    else:
        why = waiting[1] if waiting is not None else "nothing is reading it"
        lines += ["", f"Text not recognised yet ({why}): start `noru app`, or `noru reocr ID`."]
    if record.ax_text:
        lines += ["", "Accessibility text reported by the app:", record.ax_text]
    lines += _redacted_lines(record, policy)
    # The files are named, not served: no pixels were decoded for this answer.
    layers = ("ocr", "ax", "note")
    lines += ["", prov_line(provenance(record, pixels=False, layers=layers))]
    return lines


def _redacted_lines(record: CaptureRecord, policy: Policy | None) -> list[str]:
    """What agents get instead of the lines redaction changes, or why they get nothing."""
    seen = agents_get(record, policy) if policy is not None else None
    if seen is None or not (seen.held or seen.summary):
        return []
    if seen.held:
        return ["", f"Agents get none of this capture's pixels or text yet: {seen.held}."]
    changed = [f"  {line}" for line in seen.lines]
    return ["", f"Redacted for agents ({seen.summary}); they get these lines as:", *changed]


def rows_text(
    rows: Sequence[Row | SearchHit], *, now: datetime, title: str, footer: Sequence[str]
) -> str:
    """``noru list`` / ``noru search``: the rows with the person's own footer."""
    return locator_lines(rows, now=now, title=title, footer=footer, provenance=False)


def row_fields(row: Row) -> dict[str, Any]:
    """A locator row as data (``ROW_FIELDS``): what ``noru list`` shows, whole."""
    return {
        "id": row.id,
        "captured_at": format_utc(row.captured_at),
        "origin": row.origin,
        "images": row.image_count,
        "has_text": row.has_text,
        "note": row.note,
        "shows": row.source.shows,
        **row.source.as_dict(),
    }


def hit_fields(hit: SearchHit) -> dict[str, Any]:
    """A search match as data (``HIT_FIELDS``): its row, the layer matched and
    the snippet ``noru search`` shows."""
    return {**row_fields(hit.row), "matched_layer": hit.layer, "snippet": hit.snippet}


def capture_fields(record: CaptureRecord, *, files: ImageFiles) -> dict[str, Any]:
    """One capture as data (``CAPTURE_FIELDS``): the person's own, unredacted;
    each image with its size, source and the path of its file."""
    return {
        "id": record.id,
        "captured_at": format_utc(record.captured_at),
        "origin": record.origin,
        "imported": record.imported,
        "delivered": record.delivered,
        "kept": record.kept,
        "note": record.note,
        "ocr_state": record.ocr_state,
        "ocr_engine": record.ocr_engine,
        "ocr_version": record.ocr_version,
        "ocr_confidence": record.ocr_confidence,
        "ocr_error": record.ocr_error,
        "ocr_text": record.ocr_text if record.ocr_state == "done" else None,
        "ax_text": record.ax_text or None,
        "images": [
            {
                "position": image.position,
                "width": image.width,
                "height": image.height,
                "file": str(files.image_file(image)),
                "shows": image.source.shows,
                **image.source.as_dict(),
            }
            for image in record.images
        ],
    }
