"""The app's OCR queue: one job at a time, run in a child process.

A capture is committed before its OCR starts. The engine runs in
``noru.app.ocr_process`` (lowest priority, one thread, no GIL shared with
captures, exits when idle), which is given the capture's id and reads it
from the history itself, read-only (``noru.recognition``), with the pixels
the app just grabbed when it has them (not its files decoded again); its
text comes back here and is saved through the writer thread. Work left pending by a
crash or a stop is picked up at the next start (``Store.pending_ocr``). When
an image fails, or the child dies, the capture is recorded as failed with the
reason (its results then say ``-rec(failed: reason)``) and the queue goes on.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from noru import imaging
from noru.app.ocr_process import RECYCLED
from noru.app.writer import Writer
from noru.errors import OcrError
from noru.ocr.base import decode_lines
from noru.recognition import CaptureText
from noru.store import Store

__all__ = ["OcrWorker"]

log = logging.getLogger("noru.app")

# Seconds of an empty queue before the store is asked for pending work again.
RESCAN = 5.0
# Captures whose grabbed pixels are kept for the child until it reads them
# (about 12 MB each at 2560x1600); an older one is read from its file.
PIXELS_KEPT = 2
# A capture whose job fails this often (not its text: the job itself) is left
# pending until the next start rather than retried forever.
MAX_ATTEMPTS = 3


class _Child:
    """One running engine process."""

    def __init__(self, engine: str, home: Path) -> None:
        # Leave the other core to captures; numpy's BLAS (the glyph reader
        # multiplies small matrices) needs no pool of threads and their buffers.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "noru.app.ocr_process", engine, str(home)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        hello = self._read()
        if "ready" not in hello:
            self.stop()
            raise OcrError(str(hello.get("fatal") or "the OCR engine did not start"))
        self.label = str(hello["ready"])

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise OcrError("the OCR process stopped")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run(self, capture_id: str, pixels: Sequence[imaging.Scanlines] = ()) -> dict[str, Any]:
        """Read a capture: from the history, or from ``pixels`` (its images as
        grabbed, as a PNG's rows: the same pixels as its lossless files)
        sent after the request line, so the child need not decode what was
        just encoded."""
        assert self.proc.stdin is not None
        request: dict[str, Any] = {"capture": capture_id}
        if pixels:
            request["pixels"] = [[*rows.size, rows.stride] for rows in pixels]
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        for rows in pixels:
            self.proc.stdin.write(rows.data)
        self.proc.stdin.flush()
        return self._read()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


class OcrWorker:
    def __init__(
        self, writer: Writer, *, engine_name: str, on_settled: Callable[[str], None]
    ) -> None:
        from noru.ocr import describe

        status = describe(engine_name)
        if not status.available:  # say so at start, not at the first capture
            raise OcrError(status.problem or f"{engine_name} is unavailable")
        self.engine_name = engine_name
        self.version = status.version
        self.label = f"{status.name} {status.version}"
        self.writer = writer
        self.home: Path = writer.call(lambda store: store.home)  # where the child reads
        self.on_settled = on_settled
        self._child: _Child | None = None
        # (priority, order, id): live captures (0) go before resumed backlog (1).
        self._queue: queue.PriorityQueue[tuple[int, int, str | None]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._failures: dict[str, int] = {}
        self._pixels: dict[str, list[imaging.Scanlines]] = {}
        self._pixels_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="noru-ocr", daemon=True)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hold the engine still while a capture runs: on two cores, nice 19 alone
        still lets OCR take the core the capture's second thread needs."""
        child = self._child
        pid = child.proc.pid if child is not None and child.alive else None
        if pid is not None:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            if pid is not None:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)

    def start(self) -> None:
        for capture_id in self.writer.call(lambda store: store.pending_ocr()):
            self._queue.put((1, next(self._order), capture_id))
        self._thread.start()

    def enqueue(self, capture_id: str, pixels: Sequence[imaging.Scanlines] = ()) -> None:
        """Read this capture next; ``pixels``: its images as grabbed (a PNG's
        rows), which the child then reads instead of decoding their files."""
        if pixels:
            with self._pixels_lock:
                self._pixels[capture_id] = list(pixels)
                while len(self._pixels) > PIXELS_KEPT:
                    self._pixels.pop(next(iter(self._pixels)))
        self._queue.put((0, next(self._order), capture_id))

    def _next(self) -> str | None:
        """The next capture to read; None to stop. When the queue stays empty
        for ``RESCAN`` seconds, captures left pending by someone else (a
        `noru import --no-ocr` while the app runs) are queued: a capture
        waiting for its text is always either being read or about to be."""
        while True:
            try:
                return self._queue.get(timeout=RESCAN)[2]
            except queue.Empty:
                self._reap()
                for capture_id in self.writer.call(lambda store: store.pending_ocr()):
                    if self._failures.get(capture_id, 0) < MAX_ATTEMPTS:
                        self._queue.put((1, next(self._order), capture_id))

    def _reap(self) -> None:
        """A child that ended on its own (idle, or killed) is waited for now,
        not at the next job: until then it stayed a zombie (``<defunct>``)
        beside an idle app, with its pipes open. One that made way for a
        fresh one (``RECYCLED``, idle after reading) is replaced at once,
        so the next look finds an engine warm."""
        if self._child is None or self._child.alive:
            return
        recycled = self._child.proc.returncode == RECYCLED
        self._child.stop()
        self._child = None
        if recycled:
            try:
                self._engine()
            except OcrError as exc:  # the next job tries again
                log.warning("the OCR engine did not start again: %s", exc)

    def _run(self) -> None:
        # The engine starts with the app, not at the first capture: the first
        # look an agent takes does not wait for it (ocr_process: warm).
        try:
            self._engine()
        except OcrError as exc:
            log.warning("the OCR engine did not start: %s", exc)
        while (capture_id := self._next()) is not None:
            try:
                self._recognise(capture_id)
            except Exception:  # one bad job must never stop the queue
                log.exception("OCR job failed")
                self._failures[capture_id] = self._failures.get(capture_id, 0) + 1
            finally:
                self.on_settled(capture_id)
        if self._child is not None:
            self._child.stop()

    def _engine(self) -> _Child:
        if self._child is None or not self._child.alive:
            if self._child is not None:
                self._child.stop()
            self._child = _Child(self.engine_name, self.home)
        return self._child

    def _ask(self, capture_id: str, pixels: Sequence[imaging.Scanlines]) -> dict[str, Any]:
        """The child's answer for one capture. A child that ended by itself,
        idle, just as the job came (it exits when idle: ``RECYCLE`` after its
        last job) has read nothing of it: a fresh one is asked, once."""
        child = self._engine()
        try:
            return child.run(capture_id, pixels)
        except (OcrError, OSError):
            try:
                ended = child.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                raise OcrError("the OCR process stopped answering") from None
            if ended not in (0, RECYCLED):
                raise
        return self._engine().run(capture_id, pixels)

    def _recognise(self, capture_id: str) -> None:
        # Its state alone: the OCR child reads the record (once, for this job).
        def state(store: Store) -> str | None:
            return store.ocr_state(capture_id)

        with self._pixels_lock:
            pixels = self._pixels.pop(capture_id, [])
        if self.writer.call(state) != "pending":
            return
        text: CaptureText | None = None
        try:
            reply = self._ask(capture_id, pixels)
            if "error" in reply:
                reason = str(reply["error"])
            else:
                text = CaptureText(
                    capture_id,
                    str(reply["engine"]),
                    str(reply["version"]),
                    tuple(decode_lines(raw) for raw in reply["lines"]),
                )
        except (OcrError, OSError, ValueError, KeyError, TypeError) as exc:
            # The child died or answered nonsense: start a fresh one next time.
            if self._child is not None:
                self._child.stop()
                self._child = None
            reason = f"the OCR process failed ({exc})"
        if text is not None:
            self.writer.call(text.save)
            return
        engine, version = self.engine_name, self.version

        def fail(store: Store) -> bool:
            return store.set_ocr(capture_id, engine=engine, version=version, error=reason)

        self.writer.call(fail)

    def close(self) -> None:
        self._queue.put((-1, next(self._order), None))
        self._thread.join(timeout=60)
