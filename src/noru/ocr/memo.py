"""Lines already read, by the exact pixels they were read from.

An agent that looks again at a screen that has not changed, or changed in
one window, should not wait for the unchanged windows to be read again. The
engines read a screenshot as jobs (``regions.Job``: a window, a band of one,
or what lies around the windows); ``Memo`` keeps what each recent job read,
keyed by a hash of the job's exact input (its pixels, what covers it, how it
is read). A job whose key is known gets the same lines again, moved to where
the job sits now: reading the same pixels the same way gives the same lines,
so what is stored is exactly what a fresh reading would have stored.

The memo lives as long as its engine (in the app, the OCR process, which
the app stops once it has had no job for a while: ``noru.app.ocr_worker``);
it holds lines only, never pixels.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noru.geometry import Rect
from noru.ocr.base import OcrLine
from noru.ocr.regions import Job

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["MEMO_JOBS", "Memo"]

# Jobs remembered: a few screens' worth of windows and bands.
MEMO_JOBS = 256
# Rows of a job's pixels hashed at a time for its key.
KEY_ROWS = 64

# Lines, boxes relative to the region: text, box, confidence, columns, unexplained.
_Stored = tuple[tuple[str, Rect, float, int | None, tuple[tuple[int, int, float], ...]], ...]


class Memo:
    """Recently read jobs' lines by the hash of their input. Thread-safe."""

    def __init__(self, *, most: int = MEMO_JOBS) -> None:
        self.most = most
        self.hits = 0
        self.misses = 0
        self._lines: OrderedDict[bytes, _Stored] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(job: Job, how: str) -> bytes:
        """What decides a job's lines: its pixels, the windows over it, and ``how``
        the engine reads it (its settings, the page segmentation for this job)."""
        x, y, w, h = job.region
        digest = hashlib.sha256()
        digest.update(f"{how}|{job.source.mode}|{w}x{h}|{job.unit < 0}|".encode())
        for cx, cy, cw, ch in job.covered:  # where they lie relative to the region
            digest.update(f"{cx - x},{cy - y},{cw},{ch};".encode())
        # A strip of rows at a time: the same bytes in the same order as the
        # region's whole, without a copy of a screen's pixels and their bytes.
        for top in range(y, y + h, KEY_ROWS):
            digest.update(job.source.crop((x, top, x + w, min(y + h, top + KEY_ROWS))).tobytes())
        return digest.digest()

    @staticmethod
    def pixels_key(image: Image.Image, how: str) -> bytes:
        """What decides the lines of a strip read on its own (a terminal's
        title bar): its pixels and ``how`` it is read."""
        digest = hashlib.sha256()
        digest.update(f"{how}|{image.mode}|{image.width}x{image.height}|".encode())
        digest.update(image.tobytes())
        return digest.digest()

    def recall(self, key: bytes, region: Rect) -> list[OcrLine] | None:
        """The lines read before from this input, placed at ``region``; None if new."""
        with self._lock:
            stored = self._lines.get(key)
            if stored is None:
                self.misses += 1
                return None
            self._lines.move_to_end(key)
            self.hits += 1
        x, y = region[0], region[1]
        return [
            OcrLine(text, (bx + x, by + y, bw, bh), conf, columns, unexplained)
            for text, (bx, by, bw, bh), conf, columns, unexplained in stored
        ]

    def keep(self, key: bytes, region: Rect, lines: Sequence[OcrLine]) -> None:
        x, y = region[0], region[1]
        stored = tuple(
            (
                line.text,
                (line.box[0] - x, line.box[1] - y, line.box[2], line.box[3]),
                line.confidence,
                line.columns,
                line.unexplained,
            )
            for line in lines
        )
        with self._lock:
            self._lines[key] = stored
            self._lines.move_to_end(key)
            while len(self._lines) > self.most:
                self._lines.popitem(last=False)
