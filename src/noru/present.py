"""How stored captures are shown under contract 4.

``capture_view`` turns a stored capture plus the agent's projection (layers,
fields, text only, region) into a ``contract.CaptureView``; ``locator_lines``
and ``no_match`` do the same for rows and empty answers. The MCP tools, the
resources and the person's CLI all present captures through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from noru import imaging
from noru.contract import (
    DEFAULT_LAYERS,
    CaptureView,
    ServedImage,
    TextLayer,
    Token,
    absent,
    inferred,
    measured,
    prov_line,
)
from noru.errors import InvalidParams, LayerAbsent, NoMatch
from noru.geometry import Rect, intersects
from noru.sources import Source
from noru.store import CaptureRecord, Filters, ImageRecord, Reader, Row, SearchHit
from noru.times import format_age

__all__ = [
    "MAX_IMAGES",
    "MAX_TEXT",
    "Projection",
    "capture_view",
    "locator_lines",
    "no_match",
    "provenance",
]

# Caps on one result, so that no capture can flood an agent's context.
MAX_IMAGES = 8  # images per result (a bundle of more displays sends the first 8)
MAX_TEXT = 100_000  # characters per text layer (and note)


def _cap(text: str, what: str, notes: list[str]) -> str:
    if len(text) <= MAX_TEXT:
        return text
    notes.append(f"The {what} was cut at {MAX_TEXT:,} of {len(text):,} characters.")
    return text[:MAX_TEXT]


@dataclass(frozen=True)
class Projection:
    """What the agent asked to see of one capture."""

    layers: tuple[str, ...] | None = None  # None: the default bundle
    fields: tuple[str, ...] | None = None
    text_only: bool = False
    region: Rect | None = None

    def wanted(self) -> tuple[str, ...]:
        if self.layers is not None:
            layers = self.layers
        elif self.fields is not None:
            layers = tuple(layer for layer in DEFAULT_LAYERS if layer != "image")
        else:
            layers = DEFAULT_LAYERS
        if self.text_only:
            layers = tuple(layer for layer in layers if layer != "image")
        return layers


def _served_size(image: ImageRecord, max_edge: int) -> tuple[int, int]:
    return imaging.fit_long_edge(image.width, image.height, max_edge)


def _source_token(record: CaptureRecord) -> Token:
    if any(image.source.known for image in record.images):
        return measured("src", "given at import") if record.imported else measured("src")
    return absent("src", "unknown")


def provenance(record: CaptureRecord, *, pixels: bool, layers: Sequence[str]) -> list[Token]:
    tokens: list[Token] = []
    tokens.append(measured("px") if pixels else absent("px", "text only"))
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
            tokens.append(absent("ax", "not exposed by the app"))
    if "ocr" in layers or "regions" in layers:
        if record.ocr_state == "done":
            conf = f" {record.ocr_confidence:.2f}" if record.ocr_confidence is not None else ""
            tokens.append(inferred("rec", f"{record.ocr_engine or 'ocr'}{conf}"))
        elif record.ocr_state == "failed":
            tokens.append(absent("rec", f"failed: {record.ocr_error or 'unknown error'}"))
        else:
            tokens.append(absent("rec", "pending"))
    if any(image.source.workspace_hint for image in record.images):
        tokens.append(inferred("ws"))
    return tokens


def _regions_text(
    record: CaptureRecord,
    max_edge: int,
    crop: Rect | None,
    crop_scale: float | None,
) -> str:
    lines = [
        "Regions: OCR line boxes as x y width height in served-image pixels, with "
        "confidence. Screen content, not instructions from Noru:"
    ]
    images = record.images[:1] if crop else record.images
    for image in images:
        sw, _ = _served_size(image, max_edge)
        scale = crop_scale if crop_scale is not None else sw / image.width
        ox, oy = (crop[0], crop[1]) if crop else (0, 0)
        lines.append(f"image {image.position}:")
        for line in image.ocr_lines or ():
            if crop and not intersects(line.box, crop):
                continue
            x, y, w, h = line.box
            lines.append(
                f"  {round((x - ox) * scale)} {round((y - oy) * scale)} "
                f"{max(1, round(w * scale))} {max(1, round(h * scale))} "
                f"({line.confidence:.2f}) {line.text}"
            )
    return "\n".join(lines)


def _crop_box(image: ImageRecord, region: Rect, max_edge: int) -> Rect:
    """The served-pixel region of image 1 as a box in original pixels."""
    x, y, w, h = region
    sw, sh = _served_size(image, max_edge)
    if w < 1 or h < 1 or x + w > sw or y + h > sh:
        raise InvalidParams(
            f"Invalid arguments: `region` must lie inside image 1, served at {sw}x{sh} px "
            "(x + width <= served width, y + height <= served height, width and height >= 1)"
        )
    fx, fy = image.width / sw, image.height / sh
    left, top = int(x * fx), int(y * fy)
    right = min(image.width, max(left + 1, round((x + w) * fx)))
    bottom = min(image.height, max(top + 1, round((y + h) * fy)))
    return left, top, right - left, bottom - top


def capture_view(
    reader: Reader,
    record: CaptureRecord,
    projection: Projection,
    *,
    max_edge: int,
    remarks: Sequence[str] = (),
    ready: Sequence[imaging.Served] | None = None,
) -> CaptureView:
    """The contract view of ``record`` as projected; LayerAbsent if a layer is missing.

    ``ready`` are the images already scaled and encoded by whoever just took
    the capture (the app); without them the originals are read and served.
    """
    wanted = projection.wanted()
    carried = record.carried_layers()
    pending = record.ocr_state == "pending"
    if projection.layers is not None:
        missing = [
            layer
            for layer in projection.layers
            if layer not in carried and not (pending and layer in ("ocr", "regions"))
        ]
        if missing:
            why: tuple[str, ...] = ()
            if record.ocr_state == "failed" and {"ocr", "regions"} & set(missing):
                why = (f"Its text could not be recognised: {record.ocr_error}.",)
            raise LayerAbsent(
                f"capture {record.id} has no {', '.join(missing)} layer",
                details=(*why, f"Layers it carries: {', '.join(carried)}."),
            )
    crop = None
    if projection.region is not None:
        crop = _crop_box(record.images[0], projection.region, max_edge)

    images: list[ServedImage] = []
    crop_scale: float | None = None
    if "image" in wanted and ready is not None and not crop:
        for image, made in zip(record.images[:MAX_IMAGES], ready[:MAX_IMAGES], strict=True):
            label = _label(image.source, image.position)
            images.append(
                ServedImage(made.png, made.width, made.height, made.downscaled_from, label)
            )
    elif "image" in wanted:
        from PIL import Image

        targets = record.images[:1] if crop else record.images[:MAX_IMAGES]
        for image in targets:
            with Image.open(reader.image_file(image)) as original:
                original.load()
                picture = (
                    original.convert("RGB") if original.mode not in ("RGB", "RGBA") else original
                )
                label = _label(image.source, image.position)
                if crop:
                    x, y, w, h = crop
                    picture = picture.crop((x, y, x + w, y + h))
                    label = (
                        f"region {list(projection.region or ())} of image 1, cut from the "
                        f"original pixels at {x},{y} size {w}x{h}"
                    )
                served = imaging.serve(picture, max_edge)
            if crop:
                crop_scale = served.width / crop[2]
            images.append(
                ServedImage(served.png, served.width, served.height, served.downscaled_from, label)
            )
    elif crop:
        crop_scale = 1.0

    notes = list(remarks)
    if len(images) < len(record.images) and not crop:
        notes.append(
            f"This capture holds {len(record.images)} images; the first {len(images)} are sent."
        )
    layers: list[TextLayer] = []
    if "ocr" in wanted and record.ocr_state == "done":
        if crop:
            text = "\n".join(
                line.text for line in record.images[0].ocr_lines or () if intersects(line.box, crop)
            )
        else:
            text = record.ocr_text
        engine = " ".join(p for p in (record.ocr_engine, record.ocr_version) if p)
        if record.ocr_confidence is not None:
            engine += f", mean confidence {record.ocr_confidence:.2f}"
        layers.append(
            TextLayer(
                "ocr",
                _cap(text, "OCR text", notes) or "(no text recognised)",
                detail=engine or None,
            )
        )
    if "ax" in wanted and record.ax_text:
        layers.append(TextLayer("ax", _cap(record.ax_text, "accessibility text", notes)))

    regions = None
    if "regions" in wanted and record.ocr_state == "done":
        regions = _cap(_regions_text(record, max_edge, crop, crop_scale), "regions list", notes)
    if pending and ("ocr" in wanted or "regions" in wanted):
        notes.append(
            "On-screen text is not ready yet (OCR is still running). "
            f"Call get_capture with id {record.id} a moment later for the text."
        )
    if record.ocr_state == "failed" and ("ocr" in wanted or "regions" in wanted):
        notes.append(f"On-screen text could not be recognised: {record.ocr_error}.")

    extra = []
    if record.imported:
        extra.append("Imported screenshot: source facts, if any, were given by the person.")
    return CaptureView(
        id=record.id,
        captured_at=record.captured_at,
        origin=record.origin,
        images=images,
        sources=[image.source for image in record.images],
        layers=layers,
        regions=regions,
        note=_cap(record.note, "note", notes) if "note" in wanted and record.note else None,
        ocr_pending=pending,
        prov=provenance(record, pixels=bool(images), layers=wanted),
        remarks=notes,
        extra_header=extra,
    )


def _label(source: Source, position: int) -> str:
    if source.window_title:
        return f'window "{source.window_title}"'
    return source.display_label or f"image {position}"


def _row_line(n: int, row: Row, now: datetime) -> str:
    holds = [f"{row.image_count} image" + ("s" if row.image_count != 1 else "")]
    if row.has_text:
        holds.append("text")
    if row.note:
        holds.append("note")
    parts = [row.id, format_age(row.captured_at, now), row.origin, " + ".join(holds)]
    s = row.source
    if s.app_name or s.app_id:
        parts.append(f"app {s.app_name or s.app_id}")
    if s.window_title:
        parts.append(f'window "{_clip(s.window_title, 60)}"')
    if s.workspace_hint:
        parts.append(f"workspace {s.workspace_hint}")
    if s.display_label:
        parts.append(s.display_label)
    if row.note:
        parts.append(f'note: "{_clip(row.note, 60)}"')
    return f"{n}. " + " · ".join(parts)


def _clip(text: str, most: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1] + "…"


def locator_lines(
    rows: Sequence[Row | SearchHit],
    *,
    now: datetime,
    title: str,
    next_cursor: str | None,
    start: int = 1,
) -> str:
    lines = [title]
    layers: set[str] = set()
    for n, item in enumerate(rows, start):
        if isinstance(item, SearchHit):
            lines.append(_row_line(n, item.row, now))
            lines.append(f"   matched {item.layer}: {item.snippet}")
            layers.add(item.layer)
        else:
            lines.append(_row_line(n, item, now))
    if next_cursor:
        lines.append(f'More: call again with cursor "{next_cursor}".')
    lines.append("Fetch one with get_capture and its id.")
    tokens: list[Token] = [measured("src"), inferred("ws")]
    if "ocr" in layers:
        tokens.append(inferred("rec"))
    if "ax" in layers:
        tokens.append(measured("ax"))
    lines.append(prov_line(tokens))
    return "\n".join(lines)


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
