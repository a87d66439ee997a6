"""The loop thread every D-Bus speaker runs its calls on (noru.sessionbus)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from noru.sessionbus import LoopThread, daemon, session_address


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread("noru-test-loop")
    yield thread
    thread.close()


def _threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_run_gives_the_works_result_from_the_loops_own_thread(loop: LoopThread) -> None:
    async def where() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    assert loop.run(where, 10) == "noru-test-loop"


def test_the_works_own_timeout_is_its_error_not_the_wait_running_out(loop: LoopThread) -> None:
    async def fails() -> None:
        raise TimeoutError("the bus did not answer AddMatch")

    with pytest.raises(TimeoutError, match="did not answer AddMatch"):
        loop.run(fails, 10)


def test_work_that_overruns_is_cancelled_and_the_wait_says_so(loop: LoopThread) -> None:
    cancelled = threading.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError, match=r"no answer within 0\.05 s"):
        loop.run(slow, 0.05)
    assert cancelled.wait(10)


def test_close_runs_the_cleanup_cancels_what_is_left_and_ends_the_thread() -> None:
    loop = LoopThread("noru-test-close")
    ran, left_cancelled = threading.Event(), threading.Event()

    async def linger() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            left_cancelled.set()
            raise

    kept: list[asyncio.Future[None]] = []

    async def start() -> None:
        kept.append(asyncio.ensure_future(linger()))  # left running on purpose

    async def cleanup() -> None:
        ran.set()

    loop.run(start, 10)
    assert _threads("noru-test-close")
    loop.close(cleanup)
    assert ran.is_set() and left_cancelled.is_set()
    assert not _threads("noru-test-close")
    loop.close()  # twice: nothing to do


def test_a_cleanup_that_fails_still_ends_the_thread() -> None:
    loop = LoopThread("noru-test-failing-close")

    async def nothing() -> None:
        return None

    async def broken() -> None:
        raise ValueError("cleanup went wrong")

    loop.run(nothing, 10)
    with pytest.raises(ValueError, match="cleanup went wrong"):
        loop.close(broken)
    assert not _threads("noru-test-failing-close")


def test_the_session_bus_is_found_as_dbus_clients_find_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runtime = tmp_path
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/noru-test/bus")
    assert session_address() == "unix:path=/run/noru-test/bus"
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert session_address() is None
    (runtime / "bus").touch()
    assert session_address() == f"unix:path={runtime / 'bus'}"
    call = daemon("NameHasOwner", "s", ["org.freedesktop.portal.Desktop"])
    assert (call.destination, call.path, call.member) == (
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "NameHasOwner",
    )
