"""The OCR child process: `python -m noru.app.ocr_process ENGINE HOME`.

Runs the engine away from the app: at the lowest CPU priority, on one thread,
outside the app's interpreter (no GIL shared with captures), and gone when
idle, so the app's memory stays small.

It is given capture ids, not paths: it opens HOME's history read-only
(SQLite refuses its writes; the app's writer thread stays the one writer)
and reads each capture with ``noru.recognition.recognise_capture``, the
function ``noru reocr`` and ``noru import`` use, so the app's text and
theirs are the same. One JSON line in per job, ``{"capture": ID}``, and one
JSON line out: ``{"lines": [ENCODED, ...], "engine": NAME, "version": V}``,
one ``noru.ocr.base.encode_lines`` string per image, or ``{"error":
REASON}``. A capture the app has just grabbed comes with its pixels, the
same as its lossless files: ``{"capture": ID, "pixels": [[W, H, S], ...]}``
and then each image's RGB rows, H of S bytes (W x 3, then padding: the app
sends a PNG's rows, ``imaging.Scanlines``), so its PNGs are not
decoded again on the agent's path. A line that
is no such request ends the process (what follows it can no longer be
read), and the app starts a fresh one for its next job. It exits on end
of input (the app stopped), or when idle: ``RECYCLE`` seconds after its
last job (the app then starts a fresh one at once), ``IDLE_EXIT`` seconds
after its start when it read nothing.

The app starts it when it starts, and it warms its engine before it says it
is ready (the models, the bitmap fonts, one small reading), so the first look
an agent takes does not wait for any of that. It stays while looks come.
What reading took is handed back once no job came for ``QUIET`` seconds
(``noru.app.memory``), not after each: an agent looking every few seconds
finds its pages still mapped rather than faulting them in again at every
look. A trim cannot hand back all of what reading large screens left in
the heap, so ``RECYCLE`` seconds after the last job the process makes way
for a fresh one; what that costs is what it remembered: the next look at a
terminal finds its font again and reads every row, not just the changed
ones. A fresh process nobody uses goes after ``IDLE_EXIT``
(docs/performance.md, "Soak and memory").
"""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PIL import Image

    from noru.ocr import Engine
    from noru.store import Reader

__all__ = ["IDLE_EXIT", "RECYCLE", "RECYCLED", "main"]

# Seconds without a job before a process that has read nothing exits.
IDLE_EXIT = 600.0
# Seconds without a job before a process that has read something exits with
# RECYCLED, and the app starts a fresh, warm one at once: what reading left
# behind (Tesseract's page buffers, heap it cannot hand back, RapidOCR's
# libraries) goes with it; the models come back warm in the new one.
RECYCLE = 120.0
RECYCLED = 3
# The largest side of an image sent as pixels (a 16K screen has 15,360).
MAX_SIDE = 32768
# Bytes of padding a row sent may end with (a PNG's rows carry one).
MAX_PAD = 16
# A reason is stored with the capture and shown to agents: keep it short.
REASON_LIMIT = 200


def _job(
    engine: Engine,
    history: Reader,
    request: dict[str, object],
    pictures: Sequence[Image.Image] = (),
) -> dict[str, object]:
    from noru.errors import OcrError
    from noru.ocr.base import encode_lines
    from noru.recognition import recognise_capture

    try:
        text = recognise_capture(history, str(request["capture"]), engine, pictures)
    except OcrError as exc:
        return {"error": str(exc)[:REASON_LIMIT]}
    return {
        "lines": [encode_lines(lines) for lines in text.lines_per_image],
        "engine": text.engine,
        "version": text.version,
    }


def _sizes(request: object) -> list[tuple[int, int, int]]:
    """The sizes of the images whose RGB rows follow a request line (its
    ``pixels``: ``[[width, height, stride], ...]``, a stride of 3 x width
    up to 3 x width + ``MAX_PAD``, each row then its padding; without a
    stride, 3 x width), or ValueError for a request that is not one."""
    if not isinstance(request, dict) or not isinstance(request.get("capture"), str):
        raise ValueError("a request without a capture id")
    sizes = request.get("pixels", [])
    if not isinstance(sizes, list):
        raise ValueError("pixels that are not a list of sizes")
    found = []
    for size in sizes:
        if (
            not isinstance(size, list)
            or len(size) not in (2, 3)
            or not all(type(v) is int and v > 0 for v in size)
            or not all(v <= MAX_SIDE for v in size[:2])
        ):
            raise ValueError(f"an image size that is not one: {size!r}")
        width, height = size[0], size[1]
        stride = size[2] if len(size) == 3 else 3 * width
        if not 3 * width <= stride <= 3 * width + MAX_PAD:
            raise ValueError(f"a row stride that is not one: {size!r}")
        found.append((width, height, stride))
    return found


def _pictures(stream: BinaryIO, sizes: Sequence[tuple[int, int, int]]) -> list[Image.Image] | None:
    """The RGB images of ``sizes`` read from ``stream``; None when it ends first.

    Each image's bytes are let go once Pillow has copied them: a name that
    outlived this loop held the last 2560x1600 screen's 12 MB while the
    process waited for its next job."""
    from PIL import Image

    pictures = []
    for width, height, stride in sizes:
        raw = stream.read(stride * height)
        if len(raw) != stride * height:
            return None
        pictures.append(Image.frombytes("RGB", (width, height), raw, "raw", "RGB", stride))
    return pictures


def _die_with_parent() -> None:
    # Linux: if the app is killed, take the engine down with it at once.
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: end of input still stops us after the current job


def main() -> int:
    _die_with_parent()
    if os.getppid() == 1:
        return 0  # the app died before we could ask to die with it
    os.nice(19)  # captures and agents come first
    from noru.app.memory import QUIET, malloc_trim
    from noru.config import load_config
    from noru.ocr import get_engine, warm
    from noru.store import Reader

    if len(sys.argv) != 3:
        print(json.dumps({"fatal": "usage: python -m noru.app.ocr_process ENGINE HOME"}))
        return 2
    name, home = sys.argv[1], Path(sys.argv[2])
    try:
        history = Reader.open(home)
        engine = get_engine(name, second_opinion=load_config(home).ocr_second_opinion)
        warm(engine)
        malloc_trim()
    except Exception as exc:
        print(json.dumps({"fatal": str(exc)}), flush=True)
        return 1
    print(json.dumps({"ready": f"{engine.name} {engine.version}"}), flush=True)
    stdin = sys.stdin.buffer
    worked = False  # whether a job ran since the last trim
    read = False  # whether a job ran at all
    while True:
        wait = QUIET if worked else (RECYCLE if read else IDLE_EXIT) - QUIET
        readable, _, _ = select.select([stdin], [], [], wait)
        if not readable and worked:
            malloc_trim()  # what the reading took is handed back while it waits
            worked = False
            continue
        if not readable:
            # Idle: a fresh process takes our place (RECYCLED), or, when we
            # read nothing, none until the next job.
            return RECYCLED if read else 0
        line = stdin.readline()
        if not line:
            return 0
        try:
            request = json.loads(line)
            sizes = _sizes(request)
        except ValueError as exc:
            # What follows the line can no longer be told apart: stop, and
            # the app starts a fresh process for its next job.
            print(json.dumps({"error": f"the OCR process was sent {exc}"[:REASON_LIMIT]}))
            return 1
        pictures = _pictures(stdin, sizes)
        if pictures is None:
            return 0  # the app stopped while it sent them
        try:
            reply = _job(engine, history, request, pictures)
        except Exception as exc:  # one bad job fails that capture, not the process
            reply = {"error": f"the OCR process failed on it: {exc}"[:REASON_LIMIT]}
        del pictures
        print(json.dumps(reply), flush=True)
        worked = read = True


if __name__ == "__main__":
    sys.exit(main())
