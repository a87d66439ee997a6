"""The pixels a plan serves: read from the stored originals, or as the app made
them; with the boxes redaction gives (``noru.redact``) filled solid."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from noru import imaging
from noru.contract import ServedImage
from noru.geometry import Rect
from noru.present.plan import Plan
from noru.redact.apply import FILL
from noru.store import ImageRecord

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["FILL", "ImageFiles", "fill", "load", "reuse_served"]

# What a box is widened by in served pixels, each side, when it is filled in
# an image already scaled: Lanczos spreads each original pixel over up to 3
# served pixels either side, so a secret's ink reaches that far past its box.
SERVED_MARGIN = 3


class ImageFiles(Protocol):
    """Where a stored image's original file is (``noru.store.Reader``)."""

    def image_file(self, image: ImageRecord) -> Path: ...


def _label(plan: Plan, image: ImageRecord) -> str:
    if plan.crop is None or plan.projection.region is None:
        return image.source.image_label(image.position)
    x, y, w, h = plan.crop
    return (
        f"region {list(plan.projection.region)} of image 1, cut from the "
        f"original pixels at {x},{y} size {w}x{h}"
    )


def _rects(boxes: Sequence[Rect], scale: float) -> list[imaging.Edges]:
    """``boxes`` (pixels ``scale`` times an image's) as that image's edges,
    widened by ``SERVED_MARGIN`` when scaled (``imaging`` cuts them to it)."""
    margin = SERVED_MARGIN if scale != 1.0 else 0
    return [
        (
            math.floor(x * scale) - margin,
            math.floor(y * scale) - margin,
            math.ceil((x + w) * scale) + margin,
            math.ceil((y + h) * scale) + margin,
        )
        for x, y, w, h in boxes
    ]


def fill(picture: Image.Image, boxes: Sequence[Rect], scale: float = 1.0) -> Image.Image:
    """``picture`` with each of ``boxes`` (in pixels ``scale`` times the
    picture's own) filled with ``FILL``; a copy, the original left as it was."""
    if not boxes:
        return picture
    return imaging.fill_rects(picture, _rects(boxes, scale), FILL)


def load(files: ImageFiles, plan: Plan, boxes: Sequence[Sequence[Rect]] = ()) -> list[ServedImage]:
    """The plan's images, read from the originals, their ``boxes`` (per image
    of the record, original pixels) filled, then cropped and scaled to serve."""
    served: list[ServedImage] = []
    for image in plan.images:
        filled = boxes[image.position - 1] if boxes else ()
        path = files.image_file(image)
        # One of Noru's own PNGs is served from its rows; a region, or any
        # other PNG (an import kept as it came), is decoded.
        made = (
            imaging.serve_png(
                path.read_bytes(), plan.max_edge, boxes=_rects(filled, 1.0), colour=FILL
            )
            if plan.crop is None
            else None
        ) or _decoded(path, plan, filled)
        label = _label(plan, image)
        served.append(ServedImage(made.png, made.width, made.height, made.downscaled_from, label))
    return served


def _decoded(path: Path, plan: Plan, boxes: Sequence[Rect]) -> imaging.Served:
    """The original at ``path`` decoded, ``boxes`` filled, cropped to the plan, served."""
    from PIL import Image

    with Image.open(path) as original:
        original.load()
        picture = original.convert("RGB") if original.mode not in ("RGB", "RGBA") else original
        if boxes:
            picture = fill(picture, boxes)
        if plan.crop is not None:
            x, y, w, h = plan.crop
            picture = picture.crop((x, y, x + w, y + h))
        return imaging.serve(picture, plan.max_edge)


def reuse_served(
    plan: Plan, made: Sequence[imaging.Served], boxes: Sequence[Sequence[Rect]] = ()
) -> list[ServedImage] | None:
    """The plan's images as the app already served them, their ``boxes`` (per
    image of the record, original pixels) filled, or None when they do not
    fit the plan (a region, another size, another count) and the originals
    must be read."""
    if plan.crop is not None or len(made) < len(plan.images):
        return None
    served = []
    for image, item in zip(plan.images, made, strict=False):
        if (item.width, item.height) != plan.served_size(image):
            return None
        png = item.png
        if boxes and boxes[image.position - 1]:
            rects = _rects(boxes[image.position - 1], plan.scale(image))
            png = imaging.fill_png(png, rects, FILL)
        served.append(
            ServedImage(png, item.width, item.height, item.downscaled_from, _label(plan, image))
        )
    return served
