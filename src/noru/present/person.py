"""Captures as the person sees them in the terminal (``noru show``, ``list``, ``search``).

The same facts as the agent's view, in the person's terms: local time, who
took it, every image with its source and its file, the text layers, the
note and the provenance line; and locator rows with footers that name the
person's own commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from noru.contract import prov_line
from noru.present.agent import provenance
from noru.present.pixels import ImageFiles
from noru.present.rows import locator_lines
from noru.redact import Policy
from noru.redact.apply import agents_get
from noru.store import CaptureRecord, Row, SearchHit
from noru.times import format_age

__all__ = ["capture_lines", "rows_text"]


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
