"""The OCR child process: `python -m noru.app.ocr_process ENGINE HOME [SECOND]`.

Runs the engine away from the app: at the lowest CPU priority, on one thread,
outside the app's interpreter (no GIL shared with captures), and gone when
idle, so the app's memory stays small. ``SECOND`` is ``second`` (lines
Tesseract is unsure of read again by RapidOCR) or ``single``; without it,
``ocr_second_opinion`` in HOME's configuration says.

It is given capture ids, not paths: it opens HOME's history read-only
(SQLite refuses its writes; the app's writer thread stays the one writer)
and reads each capture with ``noru.recognition.recognise_capture``, the
function ``noru reocr`` and ``noru import`` use, so the app's text and
theirs are the same. It speaks the OCR pipe of ``noru.appwire`` (its
messages: ``noru.appwire.ocr_pipe``): ``Ready`` when it has started, then
for each ``Recognise`` one ``Recognised`` or ``Unreadable``. A capture the
app has just grabbed comes with its pixels (a PNG's rows, after the line),
so its PNGs are not decoded again on the agent's path. A request it cannot
read ends the process with ``Fatal`` (what follows it can no longer be
read), one of another protocol with ``Mismatch``, and the app starts a
fresh one for its next job. It exits on end of input: the app closes its
pipe when it stops, and when the process has had no job for a while
(``noru.app.ocr_worker.LINGER``: 45 s after a look an agent waits for,
3 s after a capture no one waits for); ``IDLE_EXIT`` seconds
without a job end it too, should the app never do so.

The fonts terminals were found drawn in are kept in HOME's ``fonts.json``
(``FONTS_FILE``, written when they change, ``noru.ocr.font_memory``), so a
fresh process knows the person's terminals' fonts without looking for them
among the installed faces again; it is only this process's to write, and
only a hint (a font there is fitted to a grid before it is used).

It warms its engine before it says it is ready (the models, the bitmap
fonts, one small reading), so a look waits for none of that beyond the
start. What reading took is handed back once no job came for ``QUIET``
seconds (``noru.app.memory``), not after each: an agent looking every few
seconds finds its pages still mapped rather than faulting them in again at
every look. A trim cannot hand back all that reading large screens left
(glibc keeps the top of each reading thread's arena, and the reader keeps
what it remembers), which is why the app ends an idle process rather than
keeping it (docs/performance.md, "Soak and memory").
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from noru import __version__
from noru.appwire import codec
from noru.appwire.messages import PROTOCOL, Malformed, Mismatch
from noru.appwire.ocr_pipe import (
    PARENT,
    REASON_LIMIT,
    Fatal,
    PipeReply,
    Ready,
    Recognise,
    Recognised,
    Unreadable,
)

if TYPE_CHECKING:
    from noru.ocr import Engine
    from noru.ocr.glyphs import Font, Fonts
    from noru.store import Reader

__all__ = ["FONTS_FILE", "IDLE_EXIT", "main"]

# In the data dir: the fonts found on terminals' grids (``noru.ocr.font_memory``).
FONTS_FILE = "fonts.json"

# Seconds without a job before the process exits by itself: the app ends an
# idle one much sooner (ocr_worker.LINGER); this is for an app that does not.
IDLE_EXIT = 600.0


def _job(engine: Engine, history: Reader, jobs: list[Recognise]) -> PipeReply:
    """The answer to the one job in ``jobs``, which it takes out, so that
    nothing else holds the job: its images' rows are let go as soon as
    Pillow has copied them, before the pictures are read (a 2560x1600
    screen's rows are 12 MB beside its pixels' 16)."""
    from noru.errors import OcrError
    from noru.recognition import recognise_capture

    job = jobs.pop()
    capture, pictures = job.capture, [rows.image() for rows in job.pixels]
    del job
    try:
        text = recognise_capture(history, capture, engine, pictures)
    except OcrError as exc:
        return Unreadable(str(exc)[:REASON_LIMIT])
    return Recognised(text.engine, text.version, tuple(text.lines_per_image))


def _remembered(home: Path) -> Fonts:
    """The fonts kept in ``home`` by the processes before, tried first."""
    from noru.ocr import font_memory
    from noru.ocr.glyphs import Fonts

    fonts = Fonts()
    try:
        text = (home / FONTS_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return fonts  # none yet, or not readable: they are looked for again
    for font in reversed(font_memory.load(text)):
        fonts.keep(font)
    return fonts


def _remember(home: Path, fonts: list[Font]) -> None:
    """Keep ``fonts`` (most recent first) for the next process. Not kept
    (a full disk, a read-only data dir) costs the next process the search."""
    from noru.atomic import replace_text
    from noru.ocr import font_memory

    with contextlib.suppress(OSError):
        replace_text(home / FONTS_FILE, font_memory.dump(fonts), mode=0o600)


def _say(out: BinaryIO, reply: PipeReply | Mismatch) -> None:
    out.write(codec.encode(reply))
    out.flush()


def _die_with_parent() -> bool:
    """Ask the kernel to kill this process when the app dies; whether the app
    is still its parent (False: it died first, and there is nothing to do).

    Linux's ``PR_SET_PDEATHSIG`` covers the app dying from now on, even in
    the middle of a job (an end of input would only be seen after it). It
    cannot cover an app that died before the request: this process has
    then been adopted, by pid 1 or by a subreaper (``systemd --user``, a
    container's init, tini), so only a parent that is not the app's pid
    (``PARENT`` of ``noru.appwire.ocr_pipe``, which ``spawn_child`` sets)
    tells; the pid this process finds its parent to be as it starts could
    already be the adopter's.
    Started without it (by hand, by a test), it trusts the parent it has.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: end of input still stops us after the current job
    app = os.environ.get(PARENT)
    return app is None or not app.isdigit() or os.getppid() == int(app)


def main() -> int:
    if not _die_with_parent():
        return 0  # the app died before we could ask to die with it
    os.nice(19)  # captures and agents come first
    from noru.app.memory import QUIET, malloc_trim, tune_reader_malloc

    tune_reader_malloc()  # before the engine's threads and buffers
    from noru.config import load_config
    from noru.ocr import get_engine, warm
    from noru.store import Reader

    out = sys.stdout.buffer
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["second"], ["single"]):
        _say(out, Fatal("usage: python -m noru.app.ocr_process ENGINE HOME [second|single]"))
        return 2
    name, home = sys.argv[1], Path(sys.argv[2])
    try:
        history = Reader.open(home)
        second = sys.argv[3] == "second" if len(sys.argv) == 4 else None
        if second is None:
            second = load_config(home).ocr_second_opinion
        fonts = _remembered(home)
        kept = fonts.recent()
        engine = get_engine(name, second_opinion=second, fonts=fonts)
        warm(engine)
        malloc_trim()
    except Exception as exc:
        _say(out, Fatal(str(exc)[:REASON_LIMIT]))
        return 1
    _say(out, Ready(engine.name, engine.version, __version__))
    stdin = sys.stdin.buffer
    worked = False  # whether a job ran since the last trim
    while True:
        readable, _, _ = select.select([stdin], [], [], QUIET if worked else IDLE_EXIT)
        if not readable and worked:
            malloc_trim()  # what the reading took is handed back while it waits
            worked = False
            continue
        if not readable:
            return 0  # idle that long: the app starts one at its next job
        try:
            job = codec.read_job(stdin)
        except codec.Cut:
            return 0  # the app stopped while it sent it
        except Malformed as exc:
            # What follows the line can no longer be told apart: stop, and
            # the app starts a fresh process for its next job.
            _say(out, Fatal(f"the OCR process was sent {exc}"[:REASON_LIMIT]))
            return 1
        if job is None:
            return 0
        if isinstance(job, Mismatch):  # an app of another version: it is told, and we go
            _say(out, Mismatch(PROTOCOL, __version__))
            return 1
        jobs = [job]
        del job
        try:
            reply = _job(engine, history, jobs)
        except Exception as exc:  # one bad job fails that capture, not the process
            reply = Unreadable(f"the OCR process failed on it: {exc}"[:REASON_LIMIT])
        del jobs
        _say(out, reply)
        worked = True
        now = fonts.recent()
        if set(now) != set(kept):  # found one (their order is not worth a write)
            kept = now
            _remember(home, kept)


if __name__ == "__main__":
    sys.exit(main())
