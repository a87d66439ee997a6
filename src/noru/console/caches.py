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


def _cropped(image: Image.Image) -> Image.Image:
    """The thumbnail: the image's content (a uniform border, such as an empty
    desktop's margin, cut off) filling the card's 16:10, cut from the top
    (where a window's title and first lines are) rather than letterboxed."""
    from PIL import ImageChops, ImageOps

    corner = image.getpixel((0, 0))
    box = ImageChops.difference(image, Image.new("RGB", image.size, corner)).getbbox()
    if box is not None and (box[2] - box[0]) * (box[3] - box[1]) < image.width * image.height:
        image = image.crop(box)
    return ImageOps.fit(image, THUMB_SIZE, Image.Resampling.LANCZOS, centering=(0.5, 0.0))


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
