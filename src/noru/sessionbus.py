"""D-Bus as every part that speaks it reaches it (the accessibility reader,
the desktop portal, the portal's shortcut, the Noru menu): where the
session bus is, a bus joined within a timeout and left again, how long the
Noru menu waits on it (``BUS_TIMEOUT``), a method call as they all build it,
the bus daemon's own calls, a refused call's error in words, what a broken
connection raises, and the event loop thread that code which is not
asynchronous itself runs its calls on.

``LoopThread``: an asyncio event loop on a daemon thread of its own. It
starts on first use and again after ``close``; ``run`` waits at most its
timeout and cancels the work it gave up on; ``close`` leaves no task
pending (a task destroyed unfinished with its loop would run its cleanup at
some later garbage collection, in whatever the process is doing then).

Imported only where D-Bus is spoken: it loads ``dbus-fast``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait
from pathlib import Path
from typing import Any, TypeVar

from dbus_fast import Message
from dbus_fast.aio import MessageBus
from dbus_fast.errors import DBusFastError

__all__ = [
    "BROKEN",
    "BUS_TIMEOUT",
    "LoopThread",
    "daemon",
    "ended",
    "error_words",
    "join",
    "leave",
    "method_call",
    "said",
    "session_address",
]

T = TypeVar("T")

# What a failing connection raises: the socket's errors, and dbus-fast's own
# (a bad address, refused authentication, a message it cannot read).
BROKEN = (OSError, EOFError, DBusFastError, asyncio.TimeoutError)

# Seconds the Noru menu waits on the session bus: to join it, for each of its
# calls (its setup, the host's registration, a notification). A bus or a
# service that does not answer costs the menu or a notification, never the
# app: its start waits no longer, its stop is not held, its loop holds no
# call for ever.
BUS_TIMEOUT = 5.0


def said(exc: BaseException) -> str:
    """An exception's words, or its kind when it has none (a bare timeout)."""
    return str(exc) or type(exc).__name__


def session_address() -> str | None:
    """The session bus as D-Bus clients find it: ``DBUS_SESSION_BUS_ADDRESS``,
    else the systemd user bus at ``$XDG_RUNTIME_DIR/bus``; None when neither."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if address:
        return address
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and (Path(runtime) / "bus").exists():
        return f"unix:path={Path(runtime) / 'bus'}"
    return None


async def join(address: str, timeout: float) -> MessageBus:
    """The bus at ``address`` joined, within ``timeout`` seconds: a bus that
    does not answer is given up, never waited on for ever. Fails with one of
    ``BROKEN``, which the caller says in its own words (a timeout's own words
    say how long it waited)."""
    try:
        return await asyncio.wait_for(MessageBus(bus_address=address).connect(), timeout)
    except TimeoutError as exc:
        raise TimeoutError(f"no answer within {timeout:g} s") from exc


async def ended(bus: MessageBus) -> None:
    """Returns when ``bus``'s connection has ended, however it ended."""
    with contextlib.suppress(Exception):
        await bus.wait_for_disconnect()  # type: ignore[no-untyped-call]


async def leave(bus: MessageBus, timeout: float = 1.0) -> None:
    """Disconnect ``bus`` and wait, at most ``timeout`` seconds, until its
    socket is closed; never fails (it was being left)."""
    bus.disconnect()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(ended(bus), timeout)


def error_words(reply: Message) -> str:
    """A refused call's error in words: its D-Bus error name, then its
    message when it has one (``org.freedesktop.DBus.Error.ServiceUnknown:
    The name ... was not provided by any .service files``)."""
    detail = reply.body[0] if reply.body and isinstance(reply.body[0], str) else ""
    return f"{reply.error_name}: {detail}".strip().rstrip(":")


def method_call(
    destination: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: Sequence[Any] = (),
) -> Message:
    """A method call, its parts in ``busctl call``'s order: whom, which object,
    which interface, which method, then the arguments' D-Bus signature and
    the arguments (none by default)."""
    return Message(destination, path, interface, member, signature=signature, body=list(body))


def daemon(member: str, signature: str = "", body: Sequence[Any] = ()) -> Message:
    """A call of the bus daemon's own ``member`` (``org.freedesktop.DBus``:
    ``AddMatch``, ``NameHasOwner``, ``ListActivatableNames``)."""
    bus = "org.freedesktop.DBus"
    return method_call(bus, "/org/freedesktop/DBus", bus, member, signature, body)


CLOSE_TIMEOUT = 5.0  # seconds for the loop's own shutdown, then for its thread

Handler = Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object]


class LoopThread:
    """One event loop and its thread, named ``name`` (threads list it)."""

    def __init__(self, name: str, *, exception_handler: Handler | None = None) -> None:
        self.name = name
        self._handler = exception_handler
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The running loop, started now if it is not."""
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                if self._handler is not None:
                    loop.set_exception_handler(self._handler)
                thread = threading.Thread(target=loop.run_forever, name=self.name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, work: Callable[[], Awaitable[T]], timeout: float) -> T:
        """``work()`` run on the loop; its result, or ``TimeoutError`` when it
        has not finished within ``timeout`` seconds (it is then cancelled)."""

        async def wrapped() -> T:
            return await work()

        future = asyncio.run_coroutine_threadsafe(wrapped(), self.loop)
        # Waited for apart from its result: a TimeoutError the work raises
        # itself is its own error, not the wait running out.
        done, _ = wait([future], timeout)
        if future not in done:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s")
        return future.result()

    def close(self, before: Callable[[], Awaitable[None]] | None = None) -> None:
        """Run ``before()`` on the loop (its own cleanup), cancel and await
        every task left, stop the loop and join its thread. A connection
        that breaks meanwhile is not an error: it was being closed."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return

        async def shut() -> None:
            try:
                if before is not None:
                    await before()
            finally:
                others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in others:
                    task.cancel()
                await asyncio.gather(*others, return_exceptions=True)

        try:
            if thread.is_alive():
                with contextlib.suppress(FutureTimeout, FutureCancelled, *BROKEN):
                    asyncio.run_coroutine_threadsafe(shut(), loop).result(CLOSE_TIMEOUT)
        finally:  # a cleanup that failed is raised, the loop ended all the same
            if thread.is_alive():
                loop.call_soon_threadsafe(loop.stop)
                thread.join(CLOSE_TIMEOUT)
            loop.close()
