"""The pixels a plan serves: read from the stored originals, or as the app made them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from noru import imaging
from noru.contract import ServedImage
from noru.present.plan import Plan
from noru.store import ImageRecord

__all__ = ["ImageFiles", "load", "ready"]


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


def load(files: ImageFiles, plan: Plan) -> list[ServedImage]:
    """The plan's images, read from the originals, cropped and scaled to serve."""
    from PIL import Image

    served: list[ServedImage] = []
    for image in plan.images:
        with Image.open(files.image_file(image)) as original:
            original.load()
            picture = original.convert("RGB") if original.mode not in ("RGB", "RGBA") else original
            if plan.crop is not None:
                x, y, w, h = plan.crop
                picture = picture.crop((x, y, x + w, y + h))
            made = imaging.serve(picture, plan.max_edge)
        served.append(
            ServedImage(
                made.png, made.width, made.height, made.downscaled_from, _label(plan, image)
            )
        )
    return served


def ready(plan: Plan, made: Sequence[imaging.Served]) -> list[ServedImage] | None:
    """The plan's images as the app already served them, or None when they do not fit
    the plan (a region, another size, another count) and the originals must be read."""
    if plan.crop is not None or len(made) < len(plan.images):
        return None
    served = []
    for image, item in zip(plan.images, made, strict=False):
        if (item.width, item.height) != plan.served_size(image):
            return None
        served.append(
            ServedImage(
                item.png, item.width, item.height, item.downscaled_from, _label(plan, image)
            )
        )
    return served
