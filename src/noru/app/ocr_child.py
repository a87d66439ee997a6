"""The OCR child process (``noru.app.ocr_process``) as the app's OCR queue
sees it: how one is started, and how it is spoken to over the OCR pipe of
``noru.appwire`` (its hello, one job at a time, its end)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, NamedTuple, Protocol

from noru import appwire, imaging
from noru.appwire import codec
from noru.appwire.ocr_pipe import PARENT, Fatal, Ready, Recognise, Recognised, Unreadable
from noru.config import Config
from noru.errors import OcrError


class EngineSetting(NamedTuple):
    """The engine a child runs, as the configuration names it."""

    name: str
    second_opinion: bool

    @classmethod
    def of(cls, config: Config) -> EngineSetting:
        return cls(config.ocr_engine, config.ocr_second_opinion)


class ChildProcess(Protocol):
    """What the worker needs of its child: ``subprocess.Popen``'s own
    (tests give an in-memory one, ``tests/ocr_pipe.py``)."""

    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def kill(self) -> None: ...


def spawn_child(engine: EngineSetting, home: Path) -> ChildProcess:
    """The OCR child process (``noru.app.ocr_process``) for ``engine``."""
    # Leave the other core to captures; numpy's BLAS (the glyph reader
    # multiplies small matrices) needs no pool of threads and their buffers.
    # PARENT: the child tells an app that died before it started from an
    # adoptive parent. The kernel kills the child when the thread that started
    # it ends: the worker's own thread, which lives as long as the worker.
    env = {
        **os.environ,
        "OMP_THREAD_LIMIT": "1",
        "OPENBLAS_NUM_THREADS": "1",
        PARENT: str(os.getpid()),
    }
    second = "second" if engine.second_opinion else "single"
    return subprocess.Popen(
        [sys.executable, "-m", "noru.app.ocr_process", engine.name, str(home), second],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )


class Garbled(OcrError):
    """The child answered what is not an answer of the pipe."""


class Stale(OcrError):
    """The child is of another protocol: the app must restart."""


class Child:
    """One running engine process, spoken to over the OCR pipe."""

    def __init__(self, proc: ChildProcess, engine: EngineSetting) -> None:
        self.proc = proc
        self.engine = engine
        try:
            hello = self._read()
        except OcrError:  # it ended, or said what is no hello: not left running
            self.stop(kill=True)
            raise
        if not isinstance(hello, Ready):
            self.stop()
            if isinstance(hello, Fatal):
                raise OcrError(hello.reason or "the OCR engine did not start")
            raise Garbled(f"the OCR process began with {type(hello).__name__}, not its hello")
        self.version = hello.version  # the engine's, as its child said it

    def _read(self) -> appwire.ocr_pipe.PipeReply:
        assert self.proc.stdout is not None
        try:
            answer = codec.read_answer(self.proc.stdout)
        except appwire.Malformed as exc:
            raise Garbled(f"the OCR process answered what is no answer: {exc}") from None
        if answer is None:
            raise OcrError("the OCR process stopped")
        if isinstance(answer, appwire.Mismatch):
            theirs = answer.app_version or f"protocol {answer.protocol}"
            raise Stale(f"the OCR process is of another Noru ({theirs}): restart the Noru app")
        return answer

    def run(
        self, capture_id: str, pixels: Sequence[imaging.Scanlines] = ()
    ) -> Recognised | Unreadable:
        """Read a capture: from the history, or from ``pixels`` (its images as
        grabbed, as a PNG's rows: the same pixels as its lossless files)
        sent after the request line, so the child need not decode what was
        just encoded."""
        assert self.proc.stdin is not None
        for piece in codec.encode_parts(Recognise(capture_id, tuple(pixels))):
            self.proc.stdin.write(piece)
        self.proc.stdin.flush()
        answer = self._read()
        if isinstance(answer, Fatal):
            raise OcrError(answer.reason)
        if isinstance(answer, Ready):
            raise Garbled("the OCR process answered a job with its hello")
        return answer

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, *, kill: bool = False) -> None:
        """Stop it (at once with ``kill``: one that answers nonsense is not
        waited for) and wait for it: no child is left ``<defunct>``."""
        if kill:
            with suppress(ProcessLookupError):
                self.proc.kill()
        if self.proc.stdin:
            with suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
