"""The OCR pipe for tests: the real child process spoken to as the app speaks
to it, and an in-memory child (httpcore's habit: a stream that answers what
the test wrote for it) so that the worker's job logic is tested without a
process.

``MemoryChild`` is what ``OcrWorker(spawn=...)`` starts in place of the
process: it answers each job with the next of the bytes it was given (a
hello first), records every job the worker wrote, and ends (its output
runs out) when its answers do, as a process whose pipe closed.
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

from noru import __version__
from noru.app.ocr_worker import EngineSetting
from noru.appwire import codec
from noru.appwire.messages import Mismatch
from noru.appwire.ocr_pipe import PipeReply, Ready, Recognise
from noru.store import CaptureRecord, Filters, Reader
from tests import processes
from tests.processes import stop

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "MemoryChild",
    "MemorySpawn",
    "answer",
    "child_process",
    "hello",
    "ocr_children",
    "pending_capture",
    "pending_image",
    "queued",
    "record",
    "send",
]

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def pending_capture(home: Path, folder: Path, words: str) -> str:
    """A screenshot of ``words`` in the history, its text not read yet
    (``noru import --no-ocr``): its capture id."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (900, 240), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((40, 90), words, font=ImageFont.truetype(FONT, 40), fill=(0, 0, 0))
    return pending_image(home, folder, image, words.replace(" ", "_"))


def pending_image(home: Path, folder: Path, image: Image.Image, name: str) -> str:
    """``image`` in the history (saved as ``name``.png in ``folder``), its
    text not read yet (``noru import --no-ocr``): its capture id."""
    from click.testing import CliRunner

    from noru.cli import main

    path = folder / f"{name}.png"
    image.save(path)
    result = CliRunner().invoke(main, ["import", "--no-ocr", str(path)])
    assert result.exit_code == 0, result.output
    with Reader.open(home) as reader:
        return reader.list_rows(Filters(), limit=1)[0][0].id


def record(home: Path, capture_id: str) -> CaptureRecord:
    """The capture as the history holds it now."""
    with Reader.open(home) as reader:
        found = reader.get(capture_id)
    assert found is not None
    return found


def hello(engine: str = "tesseract", version: str = "5") -> bytes:
    """The child's first line, as a child of this version says it."""
    return codec.encode(Ready(engine, version, __version__))


class _Jobs(io.BytesIO):
    """The child's standard input: what the worker wrote, kept; written to
    after the child ended: a broken pipe, as the kernel says it."""

    def __init__(self, owner: MemoryChild) -> None:
        super().__init__()
        self.owner = owner

    def write(self, data: object) -> int:
        if self.owner.returncode is not None:
            raise BrokenPipeError("the child ended")
        return super().write(data)  # type: ignore[arg-type]

    def close(self) -> None:
        if not self.closed:
            self.owner.written = self.getvalue()
        super().close()


class _Answers(io.BytesIO):
    """The child's standard output: the answers it was given; reading past
    them is the child ending."""

    def __init__(self, owner: MemoryChild, data: bytes) -> None:
        super().__init__(data)
        self.owner = owner

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        if not line and self.owner.returncode is None:
            self.owner.returncode = self.owner.ends_with
        return line


class MemoryChild:
    """A child process in memory, for ``OcrWorker``: ``answers`` are the
    bytes it says, its hello first; asked for more, it has ended with
    ``ends_with`` (0: idle past ``IDLE_EXIT``; -9: killed)."""

    pid = 0  # no process: nothing to hold still (``OcrWorker.paused``)

    def __init__(self, answers: Sequence[bytes], *, ends_with: int = 0) -> None:
        self.returncode: int | None = None
        self.ends_with = ends_with
        self.stdout: IO[bytes] | None = _Answers(self, b"".join(answers))
        self.stdin: IO[bytes] | None = _Jobs(self)
        self.killed = False
        self.written = b""  # what the worker wrote, once it closed the pipe

    def jobs(self) -> list[Recognise]:
        """Every job the worker wrote to it, decoded with the pipe's codec."""
        assert isinstance(self.stdin, _Jobs)
        written = io.BytesIO(self.written if self.stdin.closed else self.stdin.getvalue())
        found = []
        while (job := codec.read_job(written)) is not None:
            assert isinstance(job, Recognise), job
            found.append(job)
        return found

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self.returncode = self.returncode if self.returncode is not None else self.ends_with
        return self.returncode

    def kill(self) -> None:
        self.killed = True
        self.returncode = -9


class MemorySpawn:
    """``OcrWorker(spawn=...)``: each child started is the next of
    ``children``; ``started`` says which engine each was started for."""

    def __init__(self, *children: MemoryChild) -> None:
        self.children = list(children)
        self.started: list[EngineSetting] = []

    def __call__(self, engine: EngineSetting, home: Path) -> MemoryChild:
        self.started.append(engine)
        if len(self.started) > len(self.children):
            raise AssertionError(f"a child more than the test gave: {engine}")
        return self.children[len(self.started) - 1]


# --- the real child process ----------------------------------------------------


CHILD = ("-m", "noru.app.ocr_process", "tesseract")


@contextmanager
def child_process(home: Path, command: Sequence[str] = CHILD) -> Iterator[subprocess.Popen[bytes]]:
    """The real OCR child on ``home``'s history (Python running ``command``
    and then HOME: Tesseract), stopped by its pid."""
    proc = subprocess.Popen(
        [sys.executable, *command, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        stop(proc)


def send(proc: subprocess.Popen[bytes], message: Recognise | bytes) -> None:
    """A job (or, for what is no job, its raw bytes) down the child's input."""
    assert proc.stdin is not None
    proc.stdin.write(message if isinstance(message, bytes) else codec.encode(message))
    proc.stdin.flush()


def answer(proc: subprocess.Popen[bytes]) -> PipeReply | Mismatch:
    """The child's next answer, decoded with the pipe's codec."""
    assert proc.stdout is not None
    found = codec.read_answer(proc.stdout)
    assert found is not None, "the OCR process ended"
    return found


def ocr_children(pid: int) -> list[int]:
    """The OCR child processes of ``pid`` (any thread's), living or not yet reaped."""
    found = []
    for child in processes.children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"noru.app.ocr_process" in command:
            found.append(child)
    return found


def queued(pid: int) -> int:
    """How many bytes wait in the pipe of ``pid``'s standard input, unread:
    the pipe opened again through /proc (asked, never read from)."""
    import fcntl
    import os
    import struct
    import termios

    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        count: int = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    finally:
        os.close(fd)
    return count
