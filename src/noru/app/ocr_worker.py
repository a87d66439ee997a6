"""The app's OCR queue: one job at a time, run in a child process.

A capture is committed before its OCR starts. The engine runs in
``noru.app.ocr_process`` (lowest priority, one thread, no GIL shared with
captures, stopped when idle), which is given the capture's id and reads it
from the history itself, read-only (``noru.recognition``), with the pixels
the app just grabbed when it has them (not its files decoded again); its
text comes back here and is saved through the writer thread. The two speak
the OCR pipe of ``noru.appwire``. Work left pending by a crash or a stop is
picked up at the next start (``Store.pending_ocr``).

The child is started with the app (warm for the first look) and whenever a
job finds none; it is stopped, and waited for, once it has had no job for
``LOOK_LINGER`` seconds after a look an agent waits for (an agent at work
looks again within seconds, and finds the terminal's font and rows
remembered) or ``LINGER`` seconds after any other job (the person's
captures, a backlog). An idle app then holds no OCR process at all: the
engine's memory (models, what reading left in its heap) is the larger part
of what the two hold together. A look after that waits for a child to
start (docs/performance.md, "Soak and memory").

The engine is the one the person's configuration names now
(``ocr_engine``, ``ocr_second_opinion``), read before each job: when
either changed, the child is replaced before the job. What each way a job
can end does:

- the child answers: its text is saved, or the reason it could not be read
  is (the capture's results then say ``-rec(failed: reason)``);
- the child ends before it answers (recycled at rest, killed): the job is
  asked once more of a fresh child, and fails with the reason if that one
  ends too;
- the child answers what is not an answer of the pipe (garbled, or of
  another kind): it is stopped, the capture fails with what was wrong, and
  the next job has a fresh child;
- the child is of another protocol (the installed Noru changed under the
  running app): it is stopped, captures stay pending, and the app's status
  says to restart the app; so does an engine that is not available, until
  the configuration names one that is.

What the app knows of its engine comes from the child: its version from the
child's hello, and that it cannot run from a child that did not start (only
then is ``noru.ocr.describe`` asked why). The app itself never loads an
engine's library: Tesseract's (tesserocr, libtesseract, leptonica) would
stay mapped in the app for its whole life, the child's gone or not.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from noru import appwire, imaging
from noru.app.ocr_child import Child, ChildProcess, EngineSetting, Garbled, Stale, spawn_child
from noru.app.writer import Writer
from noru.appwire.ocr_pipe import Recognised, Unreadable
from noru.config import Config
from noru.errors import OcrError
from noru.recognition import CaptureText
from noru.store import Store

__all__ = ["LINGER", "LOOK_LINGER", "ChildProcess", "EngineSetting", "OcrWorker", "spawn_child"]

log = logging.getLogger("noru.app")

# Seconds of an empty queue before the store is asked for pending work again
# (and an ended or idle child is waited for).
RESCAN = 5.0
# Seconds an idle child is kept after a job no one waits for, and after a look
# an agent waits for (or the app's start), before it is stopped.
LINGER = 3.0
LOOK_LINGER = 45.0
# Captures whose grabbed pixels are kept for the child until it reads them
# (about 12 MB each at 2560x1600); an older one is read from its file.
PIXELS_KEPT = 2
# A capture whose job fails this often (not its text: the job itself) is left
# pending until the next start rather than retried forever.
MAX_ATTEMPTS = 3


class _Unavailable(OcrError):
    """The configured engine cannot run here: captures wait for one that can."""


class OcrWorker:
    """The queue and its one child. ``settings``: the configuration as it
    stands now (read before each job); ``spawn``: how a child is started
    (a real process, or tests' in-memory one)."""

    def __init__(
        self,
        writer: Writer,
        *,
        settings: Callable[[], Config],
        on_settled: Callable[[str], None],
        spawn: Callable[[EngineSetting, Path], ChildProcess] = spawn_child,
    ) -> None:
        self.writer = writer
        self.home: Path = writer.call(lambda store: store.home)  # where the child reads
        self.settings = settings
        self.on_settled = on_settled
        self.spawn = spawn
        self._child: Child | None = None
        self._starting: ChildProcess | None = None  # a child not yet past its hello
        self._closing = False
        self._versions: dict[str, str] = {}  # engines a child ran: their versions
        self._problems: dict[str, str] = {}  # engines a child could not start: why
        self._stale: str | None = None  # why no child of this app can run any more
        self._said: str | None = None  # the last reason it could not run, as logged
        self.engine = EngineSetting.of(settings())
        # (priority, order, id): live captures (0) go before resumed backlog (1).
        self._queue: queue.PriorityQueue[tuple[int, int, str | None]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._failures: dict[str, int] = {}  # pending captures whose job raised: how often
        self._pixels: dict[str, list[imaging.Scanlines]] = {}
        self._pixels_lock = threading.Lock()
        self._awaited: set[str] = set()  # queued captures an agent waits for
        self._idle_until: float | None = None  # when the idle child is stopped
        self._looked: float | None = None  # when the latest awaited job was read
        self._thread = threading.Thread(target=self._run, name="noru-ocr", daemon=True)

    def _problem(self, name: str) -> str | None:
        """Why engine ``name`` cannot run here, or None. Its child tells: an
        engine ``noru.ocr`` knows is taken to run until a child of it did
        not start, and then ``noru.ocr.describe`` says why, asked again each
        time (it may have been installed since). The app does not ask it
        first: for Tesseract that loads tesserocr and its libraries into the
        app, which reads no text itself; the engine's version comes with its
        child's hello. A name no engine has is told at once."""
        from noru import ocr

        if name in ocr.registered_engines() and name not in self._problems:
            return None
        status = ocr.describe(name)
        if status.available:
            self._problems.pop(name, None)
            return None
        self._problems[name] = problem = status.problem or f"{name} is unavailable"
        return problem

    def state(self) -> appwire.OcrState:
        """The engine the configuration names now, and whether it runs (its
        version once a child of it has started)."""
        name = EngineSetting.of(self.settings()).name
        problem = self._stale or self._problem(name)
        if problem is not None:
            return appwire.OcrState(False, name, problem=problem)
        return appwire.OcrState(True, name, self._versions.get(name))

    @property
    def available(self) -> bool:
        return self.state().available

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

    def enqueue(
        self, capture_id: str, pixels: Sequence[imaging.Scanlines] = (), *, awaited: bool = False
    ) -> None:
        """Read this capture next; ``pixels``: its images as grabbed (a PNG's
        rows), which the child then reads instead of decoding their files;
        ``awaited``: an agent waits for its text (the child then stays
        ``LOOK_LINGER``, for its next look)."""
        if awaited:
            with self._pixels_lock:
                self._awaited.add(capture_id)
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
            resting = self._child is not None and self._idle_until is not None
            wait = (self._idle_until or 0.0) - time.monotonic() if resting else RESCAN
            try:
                return self._queue.get(timeout=min(RESCAN, max(wait, 0.01)))[2]
            except queue.Empty:
                self._reap()
                self._retire()
                if not self.available:
                    continue  # they wait for an engine that runs
                pending = self.writer.call(lambda store: store.pending_ocr())
                self._forget_failures(pending)
                for capture_id in pending:
                    if self._failures.get(capture_id, 0) < MAX_ATTEMPTS:
                        self._queue.put((1, next(self._order), capture_id))

    def _forget_failures(self, pending: Sequence[str]) -> None:
        """Keep the failed jobs' counts of captures still pending only: one
        read since, or deleted (by the person, by retention), is never
        queued again, and its count would stay for the app's whole life."""
        still = set(pending)
        self._failures = {c: n for c, n in self._failures.items() if c in still}

    def _reap(self) -> None:
        """A child that ended on its own (killed, or idle past ``IDLE_EXIT``)
        is waited for now, not at the next job: until then it stayed a
        zombie (``<defunct>``) beside an idle app, with its pipes open. The
        next job starts a fresh one."""
        if self._child is None or self._child.alive:
            return
        self._forget_child(kill=False)

    def _rest(self, *, look: bool) -> None:
        """A job is done: the child may rest ``LINGER`` from now before it is
        stopped, ``LOOK_LINGER`` from the latest look an agent waited for."""
        now = time.monotonic()
        if look:
            self._looked = now
        self._idle_until = max(now + LINGER, (self._looked or -LOOK_LINGER) + LOOK_LINGER)

    def _retire(self) -> None:
        """Stop the child once it has rested as long as it may: its pipe is
        closed, it ends, and it is waited for (never left ``<defunct>``)."""
        if self._child is not None and time.monotonic() >= (self._idle_until or 0.0):
            log.debug("the OCR process had no job for a while: stopped")
            self._forget_child(kill=False)

    def _run(self) -> None:
        # The engine starts with the app, not at the first capture: the first
        # look an agent takes does not wait for it (ocr_process: warm).
        try:
            self._engine()
        except OcrError as exc:
            log.warning("the OCR engine did not start: %s", exc)
        # Kept for an agent's first look (a job's own rest then replaces it).
        self._idle_until = time.monotonic() + LOOK_LINGER
        while (capture_id := self._next()) is not None:
            with self._pixels_lock:
                awaited = capture_id in self._awaited
                self._awaited.discard(capture_id)
            try:
                self._recognise(capture_id)
            except Exception:  # one bad job must never stop the queue
                log.exception("OCR job failed")
                self._failures[capture_id] = self._failures.get(capture_id, 0) + 1
            finally:
                self._rest(look=awaited)
                self.on_settled(capture_id)
        if self._child is not None:
            self._child.stop()

    def _engine(self) -> Child:
        """The child for the engine the configuration names now: the one
        running, or a fresh one when it ended or the configuration changed."""
        wanted = EngineSetting.of(self.settings())
        if self._child is not None and self._child.alive and self._child.engine == wanted:
            return self._child
        if self._child is not None:
            self._child.stop()
            self._child = None
        self._refuse(self._stale or self._problem(wanted.name))
        self.engine = wanted
        self._starting = proc = self.spawn(wanted, self.home)
        if self._closing:  # close() may have looked before it was set
            proc.kill()
        try:
            self._child = Child(proc, wanted)
        except Stale as exc:  # its hello was of another protocol
            self._stale = str(exc)
            raise
        except OcrError as exc:  # it did not start: is its engine one that cannot run here?
            self._problems[wanted.name] = str(exc)
            self._refuse(self._problem(wanted.name))
            raise  # it can: the child failed otherwise, and the job fails with why
        finally:
            self._starting = None
        self._versions[wanted.name] = self._child.version
        return self._child

    def _refuse(self, problem: str | None) -> None:
        """With a ``problem``, the engine cannot run: ``_Unavailable`` (said
        in the log once, not at every job)."""
        if problem is None:
            self._said = None
            return
        if problem != self._said:
            log.warning("OCR unavailable: %s", problem)
        self._said = problem
        raise _Unavailable(problem)

    def _ask(self, capture_id: str, pixels: Sequence[imaging.Scanlines]) -> Recognised | Unreadable:
        """The child's answer for one capture. A child that ended before it
        answered (it exits when idle past ``IDLE_EXIT`` just as the job came,
        or it was killed) is replaced, and the fresh one asked,
        once."""
        child = self._engine()
        try:
            return child.run(capture_id, pixels)
        except (Garbled, Stale):
            raise
        except (OcrError, OSError) as exc:
            try:
                ended = child.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                raise OcrError("the OCR process stopped answering") from None
            log.info("the OCR process ended (%s) before it answered (%s): a fresh one", ended, exc)
        return self._engine().run(capture_id, pixels)

    def _recognise(self, capture_id: str) -> None:
        # Its state alone: the OCR child reads the record (once, for this job).
        def state(store: Store) -> str | None:
            return store.ocr_state(capture_id)

        with self._pixels_lock:
            pixels = self._pixels.pop(capture_id, [])
        if self.writer.call(state) != "pending":
            return
        try:
            answer = self._ask(capture_id, pixels)
        except _Unavailable:
            return  # it stays pending: the status says why
        except Stale as exc:
            self._forget_child(kill=True)
            self._stale = str(exc)
            return
        except (OcrError, OSError) as exc:
            # The child died or answered nonsense: start a fresh one next time.
            self._forget_child(kill=isinstance(exc, Garbled))
            answer = Unreadable(f"the OCR process failed ({exc})")
        if isinstance(answer, Recognised):
            text = CaptureText(capture_id, answer.engine, answer.version, answer.lines)
            self.writer.call(text.save)
            return
        reason = answer.reason
        engine, version = self.engine.name, self._versions.get(self.engine.name)

        def fail(store: Store) -> bool:
            return store.set_ocr(capture_id, engine=engine, version=version, error=reason)

        self.writer.call(fail)

    def _forget_child(self, *, kill: bool) -> None:
        if self._child is not None:
            self._child.stop(kill=kill)
            self._child = None
        self._idle_until = None

    def close(self) -> None:
        # A child still starting is stopped: on a loaded machine its engine can
        # take longer to load than the app may take to stop (a job in flight is
        # let finish, or its capture would be marked failed, not left pending).
        self._closing = True
        self._queue.put((-1, next(self._order), None))
        if (starting := self._starting) is not None:
            starting.kill()
        self._thread.join(timeout=60)
