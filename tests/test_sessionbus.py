"""D-Bus as every part reaches it (noru.sessionbus): the loop thread its
calls run on, a bus joined and left, a refused call in words."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from dbus_fast import Message, MessageType

from noru.sessionbus import (
    BROKEN,
    LoopThread,
    daemon,
    ended,
    error_words,
    join,
    leave,
    method_call,
    said,
    session_address,
)
from tests.session_bus import running_session_bus


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


def test_a_joined_bus_says_a_refused_call_in_words_and_is_left_closed(
    loop: LoopThread, tmp_path: Path
) -> None:
    with running_session_bus(tmp_path) as session:

        async def talk() -> tuple[str, bool, bool]:
            bus = await join(session.address, 10)
            reply = await bus.call(method_call("org.noru.Nobody", "/", "org.noru.Nobody", "Hello"))
            watching = asyncio.ensure_future(ended(bus))
            await leave(bus, 10)
            await asyncio.wait_for(watching, 10)
            return error_words(reply), bus.connected, watching.done()

        words, connected, noticed = loop.run(talk, 30)
    assert words.startswith("org.freedesktop.DBus.Error.ServiceUnknown: ")
    assert "org.noru.Nobody" in words
    assert not connected and noticed


def test_a_call_refused_without_a_message_is_said_by_its_name_alone() -> None:
    reply = Message(
        message_type=MessageType.ERROR,
        error_name="org.freedesktop.DBus.Error.AccessDenied",
        reply_serial=1,
    )
    assert error_words(reply) == "org.freedesktop.DBus.Error.AccessDenied"


def test_a_bus_that_never_answers_is_given_up_as_broken(loop: LoopThread, tmp_path: Path) -> None:
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with silent:  # listens, and never says a word of D-Bus's greeting
        silent.bind(str(tmp_path / "silent"))
        silent.listen(1)

        async def try_it() -> BaseException | None:
            try:
                await join(f"unix:path={tmp_path / 'silent'}", 0.2)
            except BROKEN as exc:
                return exc
            return None

        given_up = loop.run(try_it, 30)
        assert isinstance(given_up, BROKEN)
        assert said(given_up) == "no answer within 0.2 s"  # how long, in words
    with pytest.raises(BROKEN):  # and one where nothing listens at all
        loop.run(lambda: join(f"unix:path={tmp_path / 'silent'}", 10), 30)
