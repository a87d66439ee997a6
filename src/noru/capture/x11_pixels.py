"""An X11 grab's pixels: from mss's shared memory to a PNG's rows, fast.

mss asks the X server for a rectangle of the root window into a
shared-memory segment (MIT-SHM) and hands back a copy of it, BGRX: 16 MB
for a 2560x1600 screen, copied in about 2 ms before anything reads it.
Here the same request is made through mss's own XCB bindings and the
segment is read in place, once: Pillow's raw packer turns its BGRX rows
straight into the RGB scanlines both PNGs are written from and the OCR
process reads (``imaging.Scanlines``). No image is decoded on the way:
``Grab.image`` is made from the rows only when something asks for it. A
2560x1600 screen: mss's grab, the decode into an image and its scanlines
took 13 ms; this takes about 5, the X server's own copy included
(docs/performance.md, "The served image").

That uses three of mss's private attributes (the connection's segment, its
mapping, and whether shared memory has worked yet), pinned to the mss
series this was measured on (pyproject.toml). Whatever is not as expected
(an mss without them, a server without MIT-SHM, a first grab before mss
has seen shared memory work) takes mss's public path: its copy, packed the
same way. ``tests/test_capture_x11.py`` checks both give the pixels mss
hands back, and that the fast one is the one taken on Xvfb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mss
from PIL import Image

from noru.imaging import Scanlines

__all__ = ["in_place", "rows_of"]

ALL_PLANES = 0xFFFFFFFF


def rows_of(data: Any, size: tuple[int, int]) -> Scanlines:
    """BGRX rows as RGB scanlines in one pass: seen by Pillow as an RGBX
    image (in place, no copy), whose bands packed in the order B, G, R are
    the screen's R, G, B; each row followed by the zero ``Scanlines`` keeps."""
    width, height = size
    stride = 3 * width + 1
    with memoryview(data) as view, view[: width * height * 4] as pixels:
        seen = Image.frombuffer("RGBX", size, pixels, "raw", "RGBX", 0, 1)  # type: ignore[arg-type]
        encoder = Image._getencoder("RGBX", "raw", ("BGR", stride))
        try:
            encoder.setimage(seen.im, (0, 0, width, height))
            _, status, packed = encoder.encode(stride * height)
        finally:
            encoder.cleanup()
            del encoder, seen  # their hold on the pixels, before the views go
    if status != 1 or len(packed) != stride * height:
        raise ValueError(f"the grab's rows could not be packed (status {status})")
    return Scanlines(packed, size, "RGB")


def in_place(
    screen: mss.MSS, rect: tuple[int, int, int, int], handed_over: Callable[[], None] | None = None
) -> Scanlines | None:
    """``rect`` of the root window as RGB scanlines, read in mss's shared
    memory where the X server put them; None when that path is not there
    (then mss's public ``grab``)."""
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
        if handed_over is not None:
            handed_over()  # the server is done: others may ask it questions while these are packed
        return rows_of(impl._buf, (width, height))
