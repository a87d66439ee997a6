"""What the console keeps in memory between requests: thumbnails, and the
values the timeline's filters offer. Nothing of it is written to disk."""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from pathlib import Path

from PIL import Image

from noru.store import Reader

__all__ = ["THUMB_WIDTH", "Choices", "Thumbnails"]

THUMB_WIDTH = 240
THUMB_SIZE = (THUMB_WIDTH, THUMB_WIDTH * 10 // 16)  # the card's 16:10


def _region(size: tuple[int, int], content: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The 16:10 part of an image of ``size`` that shows its ``content`` box:
    widened (or deepened) into the margin around it, never zoomed in past
    the thumbnail's own size; where the image cannot hold all of it at
    16:10, its top left (a window's title, its lines' beginnings)."""
    width, height = size
    left, top, right, bottom = content
    want_w = max(right - left, THUMB_SIZE[0], round((bottom - top) * 1.6))
    want_h = max(bottom - top, THUMB_SIZE[1], round(want_w / 1.6))
    want_w = round(want_h * 1.6)
    if want_w > width:  # the image is too narrow for it: its full width, from the top
        want_w, want_h = width, min(height, round(width / 1.6))
    if want_h > height:  # too shallow: its full height, from the left
        want_w, want_h = min(width, round(height * 1.6)), height
    want_w, want_h = min(want_w, round(want_h * 1.6)), min(want_h, round(want_w / 1.6))
    # Centred on the content where the image allows, else against its edge.
    x = min(max(0, (left + right - want_w) // 2), width - want_w)
    x = min(x, left) if right - left > want_w else x
    y = min(max(0, top - (want_h - (bottom - top)) // 4), height - want_h)
    y = min(y, top) if bottom - top > want_h else y
    return x, y, x + want_w, y + want_h


def _cropped(image: Image.Image) -> Image.Image:
    """The thumbnail: the part of the image that holds its content (a uniform
    border, such as an empty desktop's margin, left out), filling the card's
    16:10 rather than letterboxed in grey."""
    from PIL import ImageChops

    # The content's box, found on a quarter-size copy (a screen's pixels
    # compared at full size cost as much as the rest of the thumbnail).
    step = 4 if min(image.size) >= 64 else 1
    small = image.reduce(step) if step > 1 else image
    corner = small.getpixel((0, 0))
    found = ImageChops.difference(small, Image.new("RGB", small.size, corner)).getbbox()
    box = (0, 0, image.width, image.height)
    if found is not None:
        left, top, right, bottom = (v * step for v in found)
        box = (left, top, min(right, image.width), min(bottom, image.height))
    region = _region(image.size, box)
    if (region[2] - region[0]) // step >= THUMB_SIZE[0]:  # the copy has pixels enough
        image, region = small, (region[0] // step, region[1] // step, region[2] // step,
                                region[3] // step)  # fmt: skip
    return image.crop(region).resize(THUMB_SIZE, Image.Resampling.BICUBIC)


class Thumbnails:
    """Small JPEG thumbnails, made once per capture and kept in memory (never
    on disk: a deleted or pruned capture leaves no copy behind)."""

    def __init__(self, most: int = 2000) -> None:
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.most = most

    def get(self, home: Path, capture_id: str) -> bytes | None:
        with self._lock:
            if capture_id in self._cache:
                self._cache.move_to_end(capture_id)
                return self._cache[capture_id]
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            if record is None:
                return None
            with Image.open(reader.image_file(record.images[0])) as image:
                image.draft("RGB", (THUMB_WIDTH * 2, THUMB_WIDTH * 2))
                small = _cropped(image.convert("RGB"))
        out = io.BytesIO()
        small.save(out, format="JPEG", quality=70, optimize=True)
        data = out.getvalue()
        with self._lock:
            self._cache[capture_id] = data
            while len(self._cache) > self.most:
                self._cache.popitem(last=False)
        return data

    def forget(self, capture_id: str) -> None:
        with self._lock:
            self._cache.pop(capture_id, None)


class Choices:
    """The apps, workspaces and displays the timeline's filters offer: a pass
    over every image row (most of a timeline page's time at 100,000
    captures), so kept until a capture is added or deleted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mark: tuple[int, int] | None = None
        self._values: dict[str, list[str]] = {}

    def get(self, reader: Reader) -> dict[str, list[str]]:
        mark = reader.mark()
        with self._lock:
            if mark == self._mark:
                return self._values
        values = reader.present_values(most=50)
        with self._lock:
            self._mark, self._values = mark, values
        return values
