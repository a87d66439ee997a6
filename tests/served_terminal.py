"""A real terminal as agents get it from ``all_displays``: an xterm put at a
place on a running X server, grabbed by Noru's capturer (one image per
display, each with its place on the screen), kept by the store's writer,
read by the real engine as the app's OCR child reads it
(``noru.recognition``), and served as agents get it (``for_agent``,
``noru.present.pixels.fill``). The terminal's own rows and cells come back
with it, so a test can check what it drew against what was served."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from noru.capture import Capturer, Grab
from noru.geometry import Rect
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import fill
from noru.recognition import recognise_capture
from noru.redact import policy
from noru.redact.apply import Redacted, for_agent
from noru.store import CaptureRecord, NewImage, Reader, Store
from tests import real_terminals
from tests.xserver import XServer

__all__ = ["Served", "served_grabs", "served_terminal", "settled", "stored_and_seen"]

# Grabs of every display taken until two in a row are the same, at most.
SETTLE_TRIES = 20


@dataclass(frozen=True)
class Served:
    """What the terminal drew and what agents got of each display."""

    rows: list[str]  # the terminal's rows
    cell: tuple[int, int, int, int]  # cell width, height, and its padding left and top
    origin: tuple[int, int]  # where its first cell is on the screen
    taken: list[Image.Image]  # each display as grabbed
    screens: list[Rect | None]  # each stored image's place on the screen
    texts: list[str]  # each display's text as agents get it
    served: list[Image.Image]  # each display's pixels as agents get them


def served_terminal(
    server: XServer,
    home: Path,
    engine: TesseractEngine,
    lines: list[str],
    *,
    columns: int,
    rows: int,
    x: int,
    y: int,
) -> Served:
    """``lines`` in an xterm (DejaVu Sans Mono 9) whose window is put at
    ``x``, ``y``, with secrets and cards redacted."""
    opened = real_terminals.open_xterm(
        server, lines, columns=columns, rows=rows, font="DejaVu Sans Mono", size=9, x=x, y=y
    )
    with opened as client, Capturer(display=server.display) as capturer:
        grabs = capturer.grab_all_displays()
        cell = client.cell
        shown = list(client.lines)
        origin = (client.rect[0] + cell[2], client.rect[1] + cell[3])
    screens, texts, served = served_grabs(home, engine, grabs)
    pictures = [grab.image.convert("RGB") for grab in grabs]
    return Served(shown, cell, origin, pictures, screens, texts, served)


def settled(capturer: Capturer) -> list[Grab]:
    """Every display, grabbed until two grabs in a row are the same: a
    window just drawn or moved has finished drawing."""
    grabs = capturer.grab_all_displays()
    for _ in range(SETTLE_TRIES):
        again = capturer.grab_all_displays()
        if [g.image.tobytes() for g in again] == [g.image.tobytes() for g in grabs]:
            return again
        grabs = again
    raise RuntimeError(f"the displays still changed after {SETTLE_TRIES} grabs")


def served_grabs(
    home: Path, engine: TesseractEngine, grabs: Sequence[Grab]
) -> tuple[list[Rect | None], list[str], list[Image.Image]]:
    """``grabs`` (one capture's images: each display's, from any backend)
    kept by the store's writer, read by ``engine`` as the app's OCR child
    reads them and served as agents get them, secrets and cards redacted:
    each stored image's place on the screen, its text and its pixels."""
    stored, seen, pictures = stored_and_seen(home, engine, grabs)
    texts = ["\n".join(line.text for line in image.ocr_lines or ()) for image in seen.record.images]
    served = [fill(p, boxes) for p, boxes in zip(pictures, seen.boxes, strict=True)]
    return [i.screen_rect for i in stored.images], texts, served


def stored_and_seen(
    home: Path, engine: TesseractEngine, grabs: Sequence[Grab]
) -> tuple[CaptureRecord, Redacted, list[Image.Image]]:
    """``grabs`` kept and read as ``served_grabs`` does: the capture as
    stored (its text as read), as agents get it (``for_agent``: its text and
    the boxes filled in each image) and each image's pixels as grabbed."""
    pictures = [grab.image.convert("RGB") for grab in grabs]
    images = []
    for grab, picture in zip(grabs, pictures, strict=True):
        png = io.BytesIO()
        picture.save(png, format="PNG")
        images.append(
            NewImage(
                png.getvalue(), *grab.size, source=grab.source, display_mode=grab.display_mode,
                windows=grab.windows, screen_rect=grab.geometry,
            )
        )  # fmt: skip
    with Store.open(home) as store:
        capture_id = store.add_capture(images, origin="agent").id
        recognise_capture(store, capture_id, engine, pictures).save(store)
    with Reader.open(home) as reader:
        stored = reader.get(capture_id)
    assert stored is not None
    return stored, for_agent(stored, policy.Policy.of(["secrets", "cards"])), pictures
