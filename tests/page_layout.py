"""Where a browser drew each character of a page's lines: the one measure
of a page's layout that the pixel tests and bench/redact_pixels.py check
what agents get against.

A page tests/real_clients.py writes with ``layout`` posts, once drawn
and again after each resize of its viewport, each of its lines'
characters' DOM Range client rects and where its viewport is, to a
loopback URL (``Layouts``); ``as_laid_out`` grabs the page when its
newest layout is the one it shows, ``drawn`` puts them in the window's
pixels. The boxes come from the program that drew the text, never from
what the engine found.
"""

from __future__ import annotations

import json
import math
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from noru.geometry import Rect
from tests.real_clients import Client

__all__ = ["SETTLE", "Layouts", "as_laid_out", "drawn", "layouts"]

T = TypeVar("T")

# Seconds a grab waits for a later layout (a page posts again when its
# viewport is resized) before it is taken as the one the grab shows.
SETTLE = 1.0


class Layouts:
    """A loopback HTTP server the pages post their layout to."""

    def __init__(self) -> None:
        got: queue.Queue[dict[str, Any]] = queue.Queue()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", "0"))
                got.put(json.loads(self.rfile.read(size)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.got = got
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/layout"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def take(self, timeout: float = 30.0) -> dict[str, Any]:
        return self.got.get(timeout=timeout)

    def newest(self, timeout: float) -> dict[str, Any] | None:
        """The last layout posted until none comes for ``timeout`` seconds;
        None when none came."""
        last = None
        while True:
            try:
                last = self.got.get(timeout=timeout)
            except queue.Empty:
                return last

    def clear(self) -> None:
        while not self.got.empty():
            self.got.get_nowait()


@contextmanager
def layouts() -> Iterator[Layouts]:
    served = Layouts()
    served.thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
        served.thread.join()


def as_laid_out(pages: Layouts, grab: Callable[[], T]) -> tuple[T, dict[str, Any]]:
    """``grab()`` taken when the page's layout is the one it shows, with that
    layout: the page's first, else, when one came within ``SETTLE`` seconds
    of the grab (its viewport was resized: Chromium's bar about its
    ``--no-sandbox`` may show after the page is drawn, and push it down by
    two rows), the page grabbed again with the newest, until none comes."""
    layout = pages.take()
    while True:
        taken = grab()
        newer = pages.newest(SETTLE)
        if newer is None:
            return taken, layout
        layout = newer


def drawn(client: Client, layout: dict[str, Any]) -> dict[str, list[Rect]]:
    """Each line's characters' boxes as the browser laid them out, in the window."""
    if layout["ratio"] != 1:
        raise RuntimeError(f"a page at {layout['ratio']} device pixels a CSS pixel")
    # The viewport is at the window's bottom, centred across it: the
    # toolbars above it, and the border Chromium draws round its own frame
    # (none in Firefox's) on the other three sides. The page posts its
    # layout before the window is moved, so Firefox's ``mozInnerScreenX/Y``
    # do not say where it is.
    _, _, w, h = client.rect
    inner_w, inner_h = layout["inner"]
    dx = (w - inner_w) // 2
    dy = h - inner_h - dx
    return {
        line["text"]: [_pixels(a + dx, b + dy, c + dx, d + dy) for a, b, c, d in line["chars"]]
        for line in layout["lines"]
    }


def _pixels(left: float, top: float, right: float, bottom: float) -> Rect:
    """The pixels a rect of CSS pixels touches (one device pixel each)."""
    x, y = math.floor(left), math.floor(top)
    return (x, y, math.ceil(right) - x, math.ceil(bottom) - y)
