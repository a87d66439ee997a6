"""An X11 grab's pixels: from mss's shared memory to an RGB image, fast.

mss asks the X server for a rectangle of the root window into a
shared-memory segment (MIT-SHM) and hands back a copy of it, BGRX: 16 MB
for a 2560x1600 screen, copied in about 2 ms before anything reads it.
Here the same request is made through mss's own XCB bindings and the
segment is read in place: Pillow's raw decoder turns its BGRX rows into
the RGB image directly, in two bands of rows on two threads (the decoder
lets go of the interpreter's lock). A 2560x1600 screen: mss's grab (its
copy included) then the decode on one thread took 9.9 ms; this takes 5.7,
the X server's own copy included (docs/performance.md, "The served image").

That uses three of mss's private attributes (the connection's segment, its
mapping, and whether shared memory has worked yet), pinned to the mss
series this was measured on (pyproject.toml). Whatever is not as expected
(an mss without them, a server without MIT-SHM, a first grab before mss
has seen shared memory work) takes mss's public path: a copy, then the
same two-band decode. ``tests/test_capture_x11.py`` checks both paths give
the same pixels, and that the fast one is the one taken on Xvfb.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import mss
from PIL import Image

__all__ = ["Decoder", "in_place"]

# Rows below which one thread decodes alone (a small window: a second
# thread costs more than it saves).
SPLIT_FROM = 256
ALL_PLANES = 0xFFFFFFFF


class Decoder:
    """BGRX rows into RGB images, in two bands on two threads."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def rgb(self, data: Any, size: tuple[int, int]) -> Image.Image:
        """``data`` (BGRX rows, ``size``, any buffer) as a new RGB image."""
        height = size[1]
        image = Image.new("RGB", size, None)  # not cleared: every pixel is written
        if height < SPLIT_FROM:
            _decode(image, data, 0, height)
            return image
        half = height // 2
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="noru-decode")
            other = self._pool.submit(_decode, image, data, half, height)
        try:
            _decode(image, data, 0, half)
        finally:
            other.result()
        return image

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def _decode(image: Image.Image, data: Any, top: int, bottom: int) -> None:
    """Rows ``top`` to ``bottom`` of ``data`` decoded into the same rows of ``image``."""
    width = image.width
    decoder = Image._getdecoder("RGB", "raw", ("BGRX", 0, 1))
    try:
        decoder.setimage(image.im, (0, top, width, bottom))
        # Views released at once: mss cannot close its mapping while one is left.
        with memoryview(data) as rows, rows[top * width * 4 : bottom * width * 4] as band:
            _, status = decoder.decode(band)
    finally:
        decoder.cleanup()
    if status < 0:
        raise ValueError(f"the grab's pixels could not be decoded (status {status})")


def in_place(
    screen: mss.MSS, rect: tuple[int, int, int, int], decoder: Decoder
) -> Image.Image | None:
    """``rect`` of the root window as an RGB image, its pixels read in
    mss's shared memory where the X server put them; None when that path
    is not there (then mss's public ``grab``)."""
    from mss.linux import xcbgen as xcb
    from mss.linux.xshmgetimage import ShmStatus

    x, y, width, height = rect
    impl: Any = getattr(screen, "_impl", None)
    lock = getattr(screen, "_lock", None)
    if (
        impl is None
        or lock is None
        or getattr(impl, "shm_status", None) is not ShmStatus.AVAILABLE
        or getattr(impl, "_buf", None) is None
        or getattr(impl, "_shmseg", None) is None
        or width * height * 4 > getattr(impl, "_bufsize", 0)
    ):
        return None
    with lock:
        reply = xcb.shm_get_image(
            impl.conn, impl.drawable, x, y, width, height, ALL_PLANES,
            xcb.ImageFormat.ZPixmap, impl._shmseg, 0,
        )  # fmt: skip
        if reply.depth != impl.drawable_depth or reply.visual != impl.drawable_visual_id:
            return None  # not the 24-bit TrueColor rows mss checks for: its own path says why
        return decoder.rgb(impl._buf, (width, height))
