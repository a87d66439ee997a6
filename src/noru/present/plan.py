"""What to show of one capture: the pure step between a request and its pixels.

``plan`` takes a stored capture and what was asked of it (``Projection``:
layers, structured fields, text only, a region) and decides, without any
I/O, which layers are wanted, which stored images are served and at what
size, and the crop box in original pixels. A layer the capture lacks raises
``LayerAbsent``; a region outside image 1 raises ``BadRegion`` (a
``ValueError``: the agent's tools answer it -32602, the CLI as a usage error).
"""

from __future__ import annotations

from dataclasses import dataclass

from noru import imaging
from noru.contract import DEFAULT_LAYERS
from noru.errors import LayerAbsent
from noru.geometry import Rect
from noru.store import CaptureRecord, ImageRecord

__all__ = ["MAX_IMAGES", "BadRegion", "Plan", "Projection", "plan"]

# Images per result: a bundle of more displays sends the first 8, so that no
# capture can flood an agent's context.
MAX_IMAGES = 8


class BadRegion(ValueError):
    """The region asked for does not lie inside image 1 as served."""


@dataclass(frozen=True)
class Projection:
    """What was asked to see of one capture."""

    layers: tuple[str, ...] | None = None  # None: the default bundle
    fields: tuple[str, ...] | None = None
    text_only: bool = False
    region: Rect | None = None  # in served-image pixels of image 1

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


@dataclass(frozen=True)
class Plan:
    """What a capture's answer holds, decided before any pixel is read.

    ``images`` are the stored images to serve (none for text only; image 1
    alone for a region); ``crop`` is the region as a box in image 1's
    original pixels; ``scale`` maps original pixels of what is shown (the
    crop, else each image) to served pixels, per image.
    """

    record: CaptureRecord
    projection: Projection
    layers: tuple[str, ...]
    max_edge: int
    images: tuple[ImageRecord, ...]
    crop: Rect | None

    @property
    def pixels(self) -> bool:
        return "image" in self.layers

    def wants(self, *layers: str) -> bool:
        return any(layer in self.layers for layer in layers)

    @property
    def capped(self) -> bool:
        """True when the bundle holds more images than one answer sends."""
        return self.pixels and self.crop is None and len(self.record.images) > MAX_IMAGES

    def served_size(self, image: ImageRecord) -> tuple[int, int]:
        """How large ``image`` (or, for a region, the crop) is served."""
        if self.crop is not None:
            return imaging.fit_long_edge(self.crop[2], self.crop[3], self.max_edge)
        return imaging.fit_long_edge(image.width, image.height, self.max_edge)

    def scale(self, image: ImageRecord) -> float:
        """Served pixels per original pixel, for boxes drawn over what is shown.

        A region sent as text only keeps native pixels (scale 1): its boxes
        are then in the original pixels of the crop.
        """
        if self.crop is not None:
            return self.served_size(image)[0] / self.crop[2] if self.pixels else 1.0
        return self.served_size(image)[0] / image.width


def _crop_box(image: ImageRecord, region: Rect, max_edge: int) -> Rect:
    """The served-pixel region of image 1 as a box in original pixels."""
    x, y, w, h = region
    sw, sh = imaging.fit_long_edge(image.width, image.height, max_edge)
    if w < 1 or h < 1 or x + w > sw or y + h > sh:
        raise BadRegion(
            f"`region` must lie inside image 1, served at {sw}x{sh} px "
            "(x + width <= served width, y + height <= served height, width and height >= 1)"
        )
    fx, fy = image.width / sw, image.height / sh
    left, top = int(x * fx), int(y * fy)
    right = min(image.width, max(left + 1, round((x + w) * fx)))
    bottom = min(image.height, max(top + 1, round((y + h) * fy)))
    return left, top, right - left, bottom - top


def _check_layers(record: CaptureRecord, asked: tuple[str, ...]) -> None:
    carried = record.carried_layers()
    pending = record.ocr_state == "pending"
    # Text still being recognised is not absent: the answer says it is pending.
    missing = [
        layer
        for layer in asked
        if layer not in carried and not (pending and layer in ("ocr", "regions"))
    ]
    if not missing:
        return
    why: tuple[str, ...] = ()
    if record.ocr_state == "failed" and {"ocr", "regions"} & set(missing):
        why = (f"Its text could not be recognised: {record.ocr_error}.",)
    raise LayerAbsent(
        f"capture {record.id} has no {', '.join(missing)} layer",
        details=(*why, f"Layers it carries: {', '.join(carried)}."),
    )


def plan(record: CaptureRecord, projection: Projection, *, max_edge: int) -> Plan:
    """What to show of ``record`` for ``projection``; raises ``LayerAbsent`` / ``BadRegion``."""
    if projection.layers is not None:
        _check_layers(record, projection.layers)
    layers = projection.wanted()
    crop = None
    if projection.region is not None:
        crop = _crop_box(record.images[0], projection.region, max_edge)
    images: tuple[ImageRecord, ...] = ()
    if "image" in layers:
        images = record.images[:1] if crop is not None else record.images[:MAX_IMAGES]
    return Plan(record, projection, layers, max_edge, images, crop)
