"""The accessibility bus: one cached connection per process, on its own loop thread.

The reader speaks D-Bus with ``dbus-fast`` (asyncio; its message codec is
compiled), so the connection lives on an event loop, and that loop runs in
one daemon thread (``noru-ax``) started at the first read. Callers in any
thread hand it a coroutine and wait for the answer (``run``); a read that
overruns its budget is cut off there, and a connection still being made
goes on in the background, so the next read finds it ready.

The link is made once and kept: the session bus is asked for the
accessibility bus's address (``org.a11y.Bus.GetAddress``, which also starts
``at-spi-bus-launcher`` when it does not run yet), then the accessibility bus
is joined. A link whose connection closed, or that belongs to another
session bus than the one ``DBUS_SESSION_BUS_ADDRESS`` names now, is made
again. Whatever goes wrong on the way is an ``Unreachable`` with the reason
in words; ``close`` ends the connection and the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from noru import sessionbus
from noru.ax import atspi
from noru.sessionbus import BROKEN, LoopThread, method_call, said, session_address

__all__ = [
    "BROKEN",
    "Calls",
    "Link",
    "Unreachable",
    "close",
    "forget",
    "link",
    "no_session",
    "run",
    "said",
    "session_address",
    "session_call",
]

T = TypeVar("T")

# Joining a bus that does not answer is given up after this long: the read
# that asked has long returned, but the attempt must not linger for ever.
CONNECT_TIMEOUT = 5.0


class Unreachable(Exception):
    """The accessibility bus cannot be reached; ``reason`` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def no_session() -> Unreachable:
    return Unreachable(
        "no accessibility bus in this session: there is no D-Bus session bus "
        "(DBUS_SESSION_BUS_ADDRESS is not set)"
    )


async def _join(address: str, what: str) -> MessageBus:
    try:
        return await sessionbus.join(address, CONNECT_TIMEOUT)
    except BROKEN as exc:
        raise Unreachable(
            f"no accessibility bus in this session: the {what} ({address}) "
            f"cannot be joined: {said(exc)}"
        ) from exc


async def session_call(
    address: str, member: str, *, interface: str, signature: str = "", body: Sequence[Any] = ()
) -> Any:
    """One call to the launcher's object on the session bus at ``address``,
    on a connection of its own; the reply's first value, or ``Unreachable``."""
    bus = await _join(address, "session bus")
    try:
        reply = await asyncio.wait_for(
            bus.call(
                method_call(atspi.BUS_NAME, atspi.BUS_PATH, interface, member, signature, body)
            ),
            CONNECT_TIMEOUT,
        )
    except BROKEN as exc:
        raise Unreachable(
            f"no accessibility bus in this session: the session bus ({address}) "
            f"did not answer: {said(exc)}"
        ) from exc
    finally:
        await sessionbus.leave(bus, CONNECT_TIMEOUT)
    if reply.message_type is not MessageType.METHOD_RETURN:
        missing = reply.error_name in (
            "org.freedesktop.DBus.Error.ServiceUnknown",
            "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Spawn.ExecFailed",
            "org.freedesktop.DBus.Error.Spawn.ChildExited",
        )
        hint = " (at-spi2-core is not installed or cannot start; apt: at-spi2-core)"
        raise Unreachable(
            f"no accessibility bus in this session: {atspi.BUS_NAME} on the session bus "
            f"answers {sessionbus.error_words(reply)}{hint if missing else ''}"
        )
    return reply.body[0] if reply.body else None


@dataclass
class Link:
    """The connection to the accessibility bus, made from one session bus.

    ``pids`` remembers each application's process by its bus name (a unique
    name is never given to another connection while the bus runs).
    ``ended`` finishes when the connection ends, however it ends (so the
    end's error, which dbus-fast keeps, is always taken: asyncio would log it
    with its traceback when the connection is collected, at any moment).
    """

    session: str
    address: str
    bus: MessageBus
    ended: asyncio.Task[None]
    pids: dict[str, int | None] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return bool(self.bus.connected)


class Calls:
    """Method calls on the accessibility bus with at most ``in_flight`` waiting
    for their answers. Past 32 nothing is gained (the application answers
    one call at a time), and an uncapped flood breaks the connection
    (``bench/ax_read.py --in-flight 100000`` shows most reads failing). A call
    past the cap waits its turn in order.

    ``call`` hands back a future, not a coroutine: a walk makes thousands of
    calls, and a task for each would cost more than the call itself. The
    answers are taken from the connection by a message handler of this
    ``Calls``, installed until ``close`` (a late answer to a read that was cut
    short is then left to dbus-fast, which drops it).
    """

    def __init__(self, link: Link, in_flight: int) -> None:
        self._bus = link.bus
        self._ended = link.ended
        self._loop = asyncio.get_running_loop()
        self._cap = max(1, in_flight)
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._queued: deque[tuple[Message, asyncio.Future[Any]]] = deque()
        self.count = 0
        self._bus.add_message_handler(self._answer)
        # A connection that closes leaves its calls unanswered: fail them.
        self._ended.add_done_callback(self._closed)

    def _closed(self, _: asyncio.Task[None]) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(EOFError("the accessibility bus closed the connection"))

    def close(self) -> None:
        self._ended.remove_done_callback(self._closed)
        self._bus.remove_message_handler(self._answer)
        for future in [*self._waiting.values(), *(f for _, f in self._queued)]:
            if not future.done():
                future.cancel()
            elif not future.cancelled():
                # A failure no one awaited (the walk had already ended) is taken
                # here: asyncio would log it when the future is collected.
                future.exception()
        self._waiting.clear()
        self._queued.clear()

    def call(
        self,
        name: str,
        path: str,
        interface: str,
        member: str,
        signature: str = "",
        body: Sequence[Any] = (),
    ) -> asyncio.Future[Any]:
        """A future of the reply's value (its values, when several), or of None when the application
        answers with an error (the node has gone, or lacks the interface). A
        connection that fails to send raises one of ``BROKEN`` from it."""
        message = method_call(name, path, interface, member, signature, body)
        future: asyncio.Future[Any] = self._loop.create_future()
        if len(self._waiting) < self._cap:
            self._send(message, future)
        else:
            self._queued.append((message, future))
        return future

    def _send(self, message: Message, future: asyncio.Future[Any]) -> None:
        message.serial = self._bus.next_serial()
        self._waiting[message.serial] = future
        self.count += 1
        self._bus.send(message).add_done_callback(partial(_sent, future))

    def _answer(self, message: Message) -> None:
        if message.message_type is MessageType.METHOD_CALL:
            return
        future = self._waiting.pop(message.reply_serial, None)
        if future is None:
            return  # another read's, or a signal
        if not future.done():
            value = None
            body = message.body
            if message.message_type is MessageType.METHOD_RETURN and body:
                # Most answers are one value; a few are several (GetRangeExtents: x, y, w, h).
                value = body[0] if len(body) == 1 else body
                value = value.value if isinstance(value, Variant) else value
            future.set_result(value)
        while self._queued and len(self._waiting) < self._cap:
            queued, waiting = self._queued.popleft()
            if not waiting.done():
                self._send(queued, waiting)


def _sent(future: asyncio.Future[Any], written: asyncio.Future[Any]) -> None:
    """A message that could not be written fails its call."""
    if written.cancelled():
        return
    problem = written.exception()
    if problem is not None and not future.done():
        future.set_exception(problem)


def _quiet_ends(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's handler of errors no one took: a connection's end is not one.

    dbus-fast fails its own futures (a message's write, say) when a connection
    breaks; the read that met the break has said so already. Left to asyncio,
    each would be logged with its traceback whenever the garbage collector
    happens to free it, in whatever the process is doing then.
    """
    if isinstance(context.get("exception"), BROKEN):
        return
    loop.default_exception_handler(context)


class _Loop:
    """The event loop thread and the link it keeps."""

    def __init__(self) -> None:
        self._thread = LoopThread("noru-ax", exception_handler=_quiet_ends)
        self._link: Link | None = None
        self._joining: asyncio.Task[Link] | None = None
        self._joining_session: str | None = None

    def run(self, work: Callable[[], Awaitable[T]], timeout: float) -> T:
        """``work()`` run on the loop thread; its result, or ``TimeoutError`` when
        it has not finished within ``timeout`` seconds (it is then cancelled)."""
        return self._thread.run(work, timeout)

    async def link(self) -> Link:
        """The link for the session bus named now: kept, made again when it
        broke or the session changed. Made in a task of its own, so a read
        that gives up waiting does not stop it."""
        session = session_address()
        if session is None:
            raise no_session()
        link = self._link
        if link is not None and link.alive and link.session == session:
            return link
        joining = self._joining
        if joining is None or joining.done() or self._joining_session != session:
            joining = asyncio.ensure_future(self._make(session))
            # A made link is kept even when no read waits for it any more.
            joining.add_done_callback(self._made)
            self._joining, self._joining_session = joining, session
        return await asyncio.shield(joining)

    def _made(self, task: asyncio.Task[Link]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        old, self._link = self._link, task.result()
        if old is not None and old is not self._link:
            old.bus.disconnect()

    async def _make(self, session: str) -> Link:
        address = await session_call(session, "GetAddress", interface=atspi.BUS_NAME)
        if not isinstance(address, str) or not address:
            raise Unreachable(
                f"no accessibility bus in this session: {atspi.BUS_NAME} gave no address"
            )
        bus = await _join(address, "accessibility bus")
        return Link(session, address, bus, asyncio.ensure_future(sessionbus.ended(bus)))

    def forget(self, link: Link) -> None:
        """Drop ``link`` (called on the loop): the next read makes a new one."""
        if self._link is link:
            self._link = None
        link.bus.disconnect()

    def close(self) -> None:
        async def before() -> None:
            if self._joining is not None:
                self._joining.cancel()
                with contextlib.suppress(BaseException):
                    await self._joining
            if self._link is not None:
                self._link.bus.disconnect()
                # The socket is closed once the loop has seen the end of it.
                with contextlib.suppress(*BROKEN):
                    await asyncio.wait_for(asyncio.shield(self._link.ended), 1.0)
            self._link = self._joining = None

        self._thread.close(before)


_LOOP = _Loop()


def run(work: Callable[[], Awaitable[T]], timeout: float) -> T:
    """Run ``work()`` on the reader's loop thread (see ``_Loop.run``)."""
    return _LOOP.run(work, timeout)


async def link() -> Link:
    return await _LOOP.link()


def forget(link_: Link) -> None:
    _LOOP.forget(link_)


def close() -> None:
    """End the cached connection and the loop thread (a later read starts them again)."""
    _LOOP.close()
