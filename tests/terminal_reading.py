"""Reading a real terminal as the tests of terminal text do: a cold engine
each test (``engine``: a row read once is not read again, so each test
reads its screen afresh), the client's window once its pixels settle
(``window``), the lines as drawn (``as_drawn``) and all of it at once
(``read_on``). The terminal test modules take them from here, with the
session's ``desktop`` and its ``capturer`` from the tests.xserver plugin.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from noru.capture import Capturer
from noru.ocr import OcrLine
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.real_clients import Client
from tests.terminal_shown import Shown
from tests.xserver import XServer

__all__ = ["ALIGNED", "MONO", "as_drawn", "engine", "read_on", "window"]

MONO = "DejaVu Sans Mono"
# Rows with aligned gaps: what the engine's page layout cuts into columns.
ALIGNED = [
    f"{n:04d}  {body:<40}# {comment}"
    for n, (body, comment) in enumerate(
        [
            ("def job_247(ctx, batch):", "handles ledger batches"),
            ("    total    = 0", "running sum"),
            ("    pending  = batch.get(62)", "rows still to settle"),
            ("    if pending > 7297: return total", "nothing to do"),
            ("    for entry in pending:", "one at a time"),
            ("        total += entry.amount", "cents, never floats"),
            ("    region   = ctx.region", "eu-west-3 by default"),
            ("    pool     = ctx.pool(17)", "seventeen workers"),
            ("    return total", "the ledger's sum"),
        ],
        start=1,
    )
] + [
    f"{name:<28}{ready:<8}{status:<20}{restarts:<10}{age}"
    for name, ready, status, restarts, age in [
        ("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
        ("ledger-api-7c9f4d-x2k8q", "1/1", "Running", "0", "41m"),
        ("ledger-worker-5b7d9-pq4rz", "0/1", "CrashLoopBackOff", "23", "36m"),
        ("quartz-cache-66f8b-m9zt2", "1/1", "Running", "2", "3h12m"),
        ("billing-cron-28821930-7xk", "0/1", "Completed", "0", "12m"),
    ]
]


@pytest.fixture
def engine() -> Iterator[TesseractEngine]:
    found = TesseractEngine()
    try:
        yield found
    finally:
        found.close()


def window(capturer: Capturer, client: Client) -> Image.Image:
    """The client's window once its pixels stay the same between two grabs:
    a terminal paints what it printed a frame or more later (VTE at 192 dpi
    was once caught before its first paint)."""
    client.bring_under_pointer()
    before: bytes | None = None
    deadline = time.monotonic() + 5
    while True:
        (grab,) = capturer.grab_window("pointer")
        assert grab.geometry == client.rect
        pixels = grab.image.tobytes()
        if pixels == before or time.monotonic() > deadline:
            return grab.image
        before = pixels
        time.sleep(0.25)


def as_drawn(lines: list[OcrLine]) -> list[str]:
    return [line.text.rstrip() for line in lines]


def read_on(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    shown: list[Shown] | list[str],
    **drawn: Any,
) -> list[str]:
    """The rows ``engine`` reads of ``term`` showing ``shown`` (``drawn``:
    ``open_terminal``'s columns, rows, font, size, dpi, theme)."""
    real_terminals.need(term)
    with real_terminals.open_terminal(desktop, term, shown, x=60, y=60, **drawn) as client:
        image = window(capturer, client)
    return as_drawn(list(engine.recognise(image).lines))
