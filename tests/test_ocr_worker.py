"""The app's OCR worker (``noru.app.ocr_worker``) over the OCR pipe, its
child in memory (``tests/ocr_pipe.py``): what each answer a child may give,
and each way it may end, does to the capture and to the next job. A real
history and writer; the real child's side is tests/test_ocr_process.py, and
the two together in the app, tests/test_app_ocr.py."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from noru import __version__, imaging, ocr
from noru.app.ocr_worker import ChildProcess, EngineSetting, OcrWorker, spawn_child
from noru.app.writer import Writer
from noru.appwire import PROTOCOL, Mismatch, OcrState, Pong, codec
from noru.appwire.ocr_pipe import Fatal, Recognised, Unreadable
from noru.config import Config
from noru.ocr.base import EngineStatus, OcrLine
from tests.app_process import wait_until
from tests.ocr_pipe import (
    MemoryChild,
    MemorySpawn,
    hello,
    ocr_children,
    pending_capture,
    queued,
    record,
)

READ = Recognised("tesseract", "5", ((OcrLine("quarterly ledger", (40, 90, 400, 44), 0.9),),))


class Worked:
    """A worker started on ``home`` with the children of ``spawn``, and a
    way to wait for each capture's job to settle."""

    def __init__(
        self,
        home: Path,
        spawn: Callable[[EngineSetting, Path], ChildProcess],
        settings: Callable[[], Config],
    ) -> None:
        self.writer = Writer(home)
        self.settled: dict[str, threading.Event] = {}
        self.lock = threading.Lock()
        self.worker = OcrWorker(
            self.writer, settings=settings, on_settled=self._settle, spawn=spawn
        )

    def _event(self, capture_id: str) -> threading.Event:
        with self.lock:
            return self.settled.setdefault(capture_id, threading.Event())

    def _settle(self, capture_id: str) -> None:
        self._event(capture_id).set()

    def wait(self, capture_id: str) -> None:
        assert self._event(capture_id).wait(60), "the job never settled"
        self._event(capture_id).clear()

    def read(self, capture_id: str, *, awaited: bool = False) -> str:
        """``capture_id`` queued and its job settled; the id."""
        self.worker.enqueue(capture_id, awaited=awaited)
        self.wait(capture_id)
        return capture_id

    def close(self) -> None:
        self.worker.close()
        self.writer.close()


@pytest.fixture
def work(home: Path) -> Iterator[Callable[..., Worked]]:
    made: list[Worked] = []

    def start(*children: MemoryChild, settings: Callable[[], Config] = Config) -> Worked:
        worked = Worked(home, MemorySpawn(*children), settings)
        made.append(worked)
        return worked

    yield start
    for worked in made:
        worked.close()


def test_a_childs_answer_is_saved_and_its_job_went_down_the_pipe_typed(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    child = MemoryChild([hello(), codec.encode(READ)])
    worked = work(child)
    worked.worker.start()
    worked.wait(capture_id)
    found = record(home, capture_id)
    assert found.ocr_state == "done" and found.ocr_text == "quarterly ledger"
    assert [job.capture for job in child.jobs()] == [capture_id]


def test_the_grabbed_pixels_go_down_the_pipe_after_the_jobs_line(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    rows = imaging.Scanlines(bytes(range(7)) * 2, (2, 2), "RGB")
    child = MemoryChild([hello(), codec.encode(READ)])
    worked = work(child)
    worked.worker.enqueue(capture_id, [rows])  # before its start: the live queue comes first
    worked.worker.start()
    worked.wait(capture_id)
    (job,) = child.jobs()
    assert job.pixels == (rows,)


GARBLED = [
    b"not json\n",
    b'{"noru": %d, "reply": "recognised", "engine": "t", "version": "5", "lines": ["[[1]]"]}\n'
    % PROTOCOL,
    b'{"noru": %d, "reply": "recognised", "engine": "t", "version": "5", "lines": [7]}\n'
    % PROTOCOL,
    b'{"noru": %d, "reply": "recognised", "engine": 5, "version": "5", "lines": []}\n' % PROTOCOL,
    b'{"noru": %d, "reply": "shrug"}\n' % PROTOCOL,
    codec.encode(Pong(__version__)),  # the app socket's reply, not the pipe's
    hello(),  # a second hello, to a job
    b'{"noru": %d, "reply": "unreadable", "reason": "%s"}\n' % (PROTOCOL, b"x" * 5000),
    b'{"noru": %d, "reply": "recognised", "engine": "t"' % PROTOCOL,  # cut short, then it ends
]


@pytest.mark.parametrize("said", GARBLED, ids=range(len(GARBLED)))
def test_a_garbled_answer_fails_that_capture_and_the_next_job_has_a_fresh_child(
    home: Path, tmp_path: Path, work: Callable[..., Worked], said: bytes
) -> None:
    """Nothing of a garbled answer is saved as text: the capture fails with
    what was wrong, the child is stopped (killed: it is not waited for), and
    the next capture is read by a fresh one."""
    first = pending_capture(home, tmp_path, "quarterly ledger")
    broken = MemoryChild([hello(), said])
    fresh = MemoryChild([hello(), codec.encode(READ)])
    worked = work(broken, fresh)
    worked.worker.start()
    worked.wait(first)
    failed = record(home, first)
    assert failed.ocr_state == "failed" and failed.ocr_text in ("", None)
    assert failed.ocr_error is not None and "the OCR process failed (" in failed.ocr_error
    assert broken.killed or said.endswith(b'"t"')  # one cut short ended by itself
    second = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    assert record(home, second).ocr_state == "done"
    assert [job.capture for job in fresh.jobs()] == [second]


def test_an_unreadable_capture_is_recorded_failed_with_the_childs_reason(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    worked = work(MemoryChild([hello(), codec.encode(Unreadable("the image file is damaged"))]))
    worked.worker.start()
    worked.wait(capture_id)
    found = record(home, capture_id)
    assert (found.ocr_state, found.ocr_error) == ("failed", "the image file is damaged")


@pytest.mark.parametrize("ends_with", [0, -9], ids=["idle", "killed"])
def test_a_child_that_ends_before_it_answers_is_replaced_and_the_job_asked_again(
    home: Path, tmp_path: Path, work: Callable[..., Worked], ends_with: int
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    ending = MemoryChild([hello()], ends_with=ends_with)
    fresh = MemoryChild([hello(), codec.encode(READ)])
    worked = work(ending, fresh)
    worked.worker.start()
    worked.wait(capture_id)
    assert record(home, capture_id).ocr_state == "done"
    assert [job.capture for job in ending.jobs()] == [capture_id]  # it had been asked
    assert [job.capture for job in fresh.jobs()] == [capture_id]


def test_a_job_whose_fresh_child_ends_too_fails_with_the_reason(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    worked = work(MemoryChild([hello()], ends_with=-11), MemoryChild([hello()], ends_with=-11))
    worked.worker.start()
    worked.wait(capture_id)
    found = record(home, capture_id)
    assert found.ocr_state == "failed"
    assert found.ocr_error == "the OCR process failed (the OCR process stopped)"


def test_a_child_that_could_not_start_fails_the_job_with_its_reason(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    no_models = codec.encode(Fatal("the RapidOCR models are missing"))
    worked = work(MemoryChild([no_models]), MemoryChild([no_models]))
    worked.worker.start()
    worked.wait(capture_id)
    found = record(home, capture_id)
    assert found.ocr_state == "failed"
    assert found.ocr_error == "the OCR process failed (the RapidOCR models are missing)"


@pytest.mark.parametrize(
    "greeting",
    [
        codec.encode(Mismatch(PROTOCOL + 1, "9.9.9")),
        b'{"ready": "tesseract 5.3.0"}\n',  # a child of a release before the typed pipe
        b'{"noru": %d, "reply": "ready", "engine": "tesseract 6"}\n' % (PROTOCOL + 1),
    ],
    ids=["mismatch", "bare dicts", "newer"],
)
def test_a_child_of_another_protocol_is_not_misread_and_the_status_says_restart(
    home: Path, tmp_path: Path, work: Callable[..., Worked], greeting: bytes
) -> None:
    """The installed Noru changed under the running app: its child's hello is
    of another protocol. The capture is not failed (it waits, pending, for
    the app's restart), no further child is started, and the app's status
    says what to do."""
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    stale = MemoryChild([greeting])
    worked = work(stale)  # a second child would fail the test (MemorySpawn)
    worked.worker.start()
    worked.wait(capture_id)
    assert record(home, capture_id).ocr_state == "pending"
    assert stale.killed  # stopped, not left running
    state = worked.worker.state()
    assert not state.available and state.problem is not None
    assert state.problem.endswith("restart the Noru app")
    second = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    assert record(home, second).ocr_state == "pending"


def test_a_changed_engine_setting_replaces_the_child_before_the_next_job(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    config = [Config()]
    first = MemoryChild([hello(), codec.encode(READ)])
    second = MemoryChild([hello("rapidocr", "3"), codec.encode(replace(READ, engine="rapidocr"))])
    worked = work(first, second, settings=lambda: config[0])
    spawn = worked.worker.spawn
    assert isinstance(spawn, MemorySpawn)
    worked.worker.start()
    worked.read(pending_capture(home, tmp_path, "quarterly ledger"))
    config[0] = Config(ocr_engine="rapidocr", ocr_second_opinion=False)
    two = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    assert spawn.started == [EngineSetting("tesseract", True), EngineSetting("rapidocr", False)]
    assert first.returncode is not None  # stopped, and waited for
    assert record(home, two).ocr_engine == "rapidocr"
    assert worked.worker.state().engine == "rapidocr"


def test_an_engine_that_cannot_run_leaves_captures_pending_and_says_why(
    home: Path, tmp_path: Path, work: Callable[..., Worked]
) -> None:
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    worked = work(settings=lambda: Config(ocr_engine="nonsense"))  # no child is started
    worked.worker.start()
    worked.wait(capture_id)
    assert record(home, capture_id).ocr_state == "pending"
    state = worked.worker.state()
    assert not state.available and "unknown OCR engine 'nonsense'" in (state.problem or "")


def test_the_status_names_the_version_the_engines_child_said(
    home: Path, work: Callable[..., Worked]
) -> None:
    """The app learns its engine's version from the child's hello: it never
    loads the engine's library itself (tesserocr would stay in the app)."""
    worked = work(MemoryChild([hello("tesseract", "5.9.1")]))
    worked.worker.start()
    wait_until(lambda: worked.worker.state().version is not None, "the child's hello")
    assert worked.worker.state() == OcrState(True, "tesseract", "5.9.1")


def test_an_engine_its_child_cannot_start_leaves_captures_pending_and_says_why(
    home: Path, tmp_path: Path, work: Callable[..., Worked], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine Noru knows that is not installed: its child says so as it
    starts, the engine's own probe says why, and no other child is started
    for it while it stays so (a second would fail the test: MemorySpawn)."""
    monkeypatch.setattr(ocr, "_REGISTRY", dict(ocr._REGISTRY))

    def missing(tessdata: Path | None) -> EngineStatus:
        return EngineStatus("absent", False, problem="absent is not installed: pip install absent")

    ocr.register_engine("absent", factory=lambda *_: None, probe=missing)  # type: ignore[arg-type]
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    child = MemoryChild([codec.encode(Fatal("absent is not installed"))])
    worked = work(child, settings=lambda: Config(ocr_engine="absent"))
    worked.worker.start()
    worked.wait(capture_id)
    assert record(home, capture_id).ocr_state == "pending"
    assert worked.worker.state() == OcrState(
        False, "absent", problem="absent is not installed: pip install absent"
    )
    second = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    assert record(home, second).ocr_state == "pending"


def test_a_failed_jobs_count_is_forgotten_once_its_capture_is_gone(
    home: Path, tmp_path: Path, work: Callable[..., Worked], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that raises (here: ``redact_at_rest`` on and the person's rules
    damaged, so its text may not be stored) is counted, and its capture
    asked again up to ``MAX_ATTEMPTS``, then left pending. Once the capture
    is gone (deleted by the person) its count goes too: the counts of a
    long-running app stay those of captures still pending."""
    from click.testing import CliRunner

    from noru.app import ocr_worker
    from noru.cli import main

    monkeypatch.setattr(ocr_worker, "RESCAN", 0.02)
    (home / "config.toml").write_text("redact_at_rest = true\n")
    (home / "redactions.json").write_text("{ damaged")
    capture_id = pending_capture(home, tmp_path, "quarterly ledger")
    child = MemoryChild([hello(), *[codec.encode(READ)] * ocr_worker.MAX_ATTEMPTS])
    worked = work(child)
    worked.worker.start()
    wait_until(lambda: len(child.jobs()) == ocr_worker.MAX_ATTEMPTS, "every attempt")
    assert record(home, capture_id).ocr_state == "pending"
    result = CliRunner().invoke(main, ["delete", "--yes", capture_id])
    assert result.exit_code == 0, result.output
    wait_until(lambda: not worked.worker._failures, "the count forgotten", seconds=30)


# --- with the real child process ------------------------------------------------


def test_a_job_that_meets_a_killed_child_is_read_by_a_fresh_one(home: Path, tmp_path: Path) -> None:
    """The child is alive when the job is written to it, and is killed (by
    its pid) before it reads it: the job is asked again of a fresh child,
    and the capture gets its text."""
    first = pending_capture(home, tmp_path, "quarterly ledger")
    settled: dict[str, threading.Event] = {first: threading.Event()}
    writer = Writer(home)
    worker = OcrWorker(writer, settings=Config, on_settled=lambda c: settled[c].set())
    try:
        worker.start()
        assert settled[first].wait(120), "the first job never settled"
        (child,) = ocr_children(os.getpid())
        os.kill(child, signal.SIGSTOP)  # alive, but reading nothing more
        second = pending_capture(home, tmp_path, "marmalade inventory")
        settled[second] = threading.Event()
        worker.enqueue(second)
        wait_until(lambda: queued(child) > 0, "the job written to the OCR process")
        os.kill(child, signal.SIGKILL)
        assert settled[second].wait(120), "the job never settled"
        found = record(home, second)
        assert found.ocr_state == "done", found.ocr_error
        assert "marmalade" in (found.ocr_text or "").lower()
        (fresh,) = ocr_children(os.getpid())
        assert fresh != child
    finally:
        worker.close()
        writer.close()
    assert not ocr_children(os.getpid())  # none left, not even <defunct>


def test_a_stop_while_the_engine_still_loads_stops_its_child(home: Path) -> None:
    """On a loaded machine the engine can take longer to load than the app
    may take to stop: a real child, held still before its hello (as a
    starved one is), is stopped by the worker's close, and its thread ends."""
    started: list[int] = []

    def starved(engine: EngineSetting, where: Path) -> ChildProcess:
        child = spawn_child(engine, where)
        os.kill(child.pid, signal.SIGSTOP)
        started.append(child.pid)
        return child

    writer = Writer(home)
    worker = OcrWorker(writer, settings=Config, on_settled=lambda c: None, spawn=starved)
    try:
        worker.start()
        wait_until(lambda: bool(started), "the OCR process started")
    finally:
        worker.close()
        writer.close()
    assert not [t for t in threading.enumerate() if t.name == "noru-ocr"]  # its thread ended
    assert not ocr_children(os.getpid())  # killed and waited for, not left <defunct>


# --- how long a child is kept --------------------------------------------------


@pytest.fixture
def brief(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child rests no time after a job no one waits for, ten minutes after
    a look, and the worker looks at its idle child often."""
    from noru.app import ocr_worker

    monkeypatch.setattr(ocr_worker, "LINGER", 0.0)
    monkeypatch.setattr(ocr_worker, "LOOK_LINGER", 600.0)
    monkeypatch.setattr(ocr_worker, "RESCAN", 0.02)


def _stopped(child: MemoryChild) -> bool:
    """Its pipe closed by the worker and its end waited for."""
    assert child.stdin is not None
    return child.stdin.closed and child.returncode is not None


def test_an_idle_child_is_stopped_and_the_next_job_starts_a_fresh_one(
    home: Path, tmp_path: Path, work: Callable[..., Worked], brief: None
) -> None:
    """After a job no agent waits for (the person's capture, a backlog) the
    child is stopped once it has rested ``LINGER``: an idle app holds no
    engine. The next capture starts a fresh child, which reads it."""
    first = pending_capture(home, tmp_path, "quarterly ledger")
    resting = MemoryChild([hello(), codec.encode(READ)])
    fresh = MemoryChild([hello(), codec.encode(READ)])
    worked = work(resting, fresh)
    worked.worker.start()
    worked.wait(first)
    wait_until(lambda: _stopped(resting), "the idle child stopped")
    assert not resting.killed  # asked to end (its pipe closed), not killed
    second = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    assert record(home, second).ocr_state == "done"
    assert [job.capture for job in fresh.jobs()] == [second]


def test_after_a_look_the_child_is_kept_for_the_next_look(
    home: Path, tmp_path: Path, work: Callable[..., Worked], brief: None
) -> None:
    """A capture an agent waits for (``awaited``) keeps its child for
    ``LOOK_LINGER`` (the agent's next look finds the engine warm and its
    memory of the screen), and a job no one waits for after it does not cut
    that short: both are read by the one child."""
    look = pending_capture(home, tmp_path, "quarterly ledger")
    child = MemoryChild([hello(), codec.encode(READ), codec.encode(READ)])
    worked = work(child)
    worked.worker.start()
    worked.read(look, awaited=True)
    later = worked.read(pending_capture(home, tmp_path, "bravo ledger"))
    threading.Event().wait(0.5)  # many of the worker's looks at its idle child
    assert not _stopped(child)
    assert [job.capture for job in child.jobs()] == [look, later]


def test_a_real_idle_child_is_reaped_and_a_fresh_one_reads_the_next_capture(
    home: Path, tmp_path: Path, brief: None
) -> None:
    """The real OCR process, idle after its job: stopped and waited for (not
    left ``<defunct>``: no child of this process remains, ended or not);
    the next capture starts a fresh one, which reads it."""
    from tests.ocr_pipe import ocr_children

    worked = Worked(home, spawn_child, Config)
    try:
        first = pending_capture(home, tmp_path, "quarterly ledger")
        worked.worker.start()
        worked.wait(first)
        assert "quarterly ledger" in (record(home, first).ocr_text or "").lower()
        wait_until(lambda: not ocr_children(os.getpid()), "the idle OCR process reaped")
        second = worked.read(pending_capture(home, tmp_path, "marmalade inventory"))
        assert "marmalade inventory" in (record(home, second).ocr_text or "").lower()
    finally:
        worked.close()
    assert not ocr_children(os.getpid())
