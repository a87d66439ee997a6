"""The desktop portal's client (``org.freedesktop.portal.Desktop`` on the
session bus), for every part that asks it: the Screenshot backend
(``noru.capture.portal``) and the global shortcut (``noru.app.portal_shortcut``).

- ``join_bus`` and ``call``: the session bus joined and one call made, each
  within its timeout, a broken bus said as a ``CaptureError`` (the bus is
  left with ``noru.sessionbus.leave``);
- ``version``: the portal's version of one of its interfaces, or
  ``Unoffered`` with its words and whether the interface is missing;
- ``add_match``: a subscription to the portal's signals, refused said as a
  ``CaptureError``;
- ``request``: one portal request, as the portal's documentation
  prescribes: the reply is a request object whose ``Response`` signal
  carries the answer, so the signal is subscribed before the call, on the
  path the portal will use (``/org/freedesktop/portal/desktop/request/SENDER/TOKEN``:
  our unique name without its colon, dots made underscores, and a token of
  our own in ``handle_token``);
- ``PortalLoop``: the connection's event loop, on a thread of its own
  (``noru-portal``);
- ``portal_missing``: why a session has no portal, in words.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from noru import sessionbus
from noru.errors import CaptureError
from noru.sessionbus import BROKEN, LoopThread, daemon, method_call, said, session_address

__all__ = [
    "CALL_TIMEOUT",
    "CONNECT_TIMEOUT",
    "PORTAL",
    "PORTAL_PATH",
    "REQUEST",
    "PortalLoop",
    "Unoffered",
    "add_match",
    "call",
    "join_bus",
    "portal_missing",
    "request",
    "version",
]

T = TypeVar("T")

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
REQUEST = "org.freedesktop.portal.Request"

CONNECT_TIMEOUT = 5.0
# The first call may start xdg-desktop-portal and the desktop's backends.
CALL_TIMEOUT = 25.0


class PortalLoop(LoopThread):
    """The portal's loop thread: a call that overruns it is a capture error."""

    def __init__(self) -> None:
        super().__init__("noru-portal")
        self._closed = False

    def run(self, work: Callable[[], Awaitable[T]], timeout: float) -> T:
        if self._closed:  # one connection, one loop: never started again
            raise CaptureError("the desktop portal's connection is closed")
        try:
            return super().run(work, timeout)
        except TimeoutError:
            raise CaptureError("the desktop portal did not answer in time") from None

    def close(self, before: Callable[[], Awaitable[None]] | None = None) -> None:
        self._closed = True
        super().close(before)


# The errors that say the portal has no such interface (the others: it failed).
_MISSING = (
    "org.freedesktop.DBus.Error.InvalidArgs",
    "org.freedesktop.DBus.Error.UnknownInterface",
    "org.freedesktop.DBus.Error.UnknownProperty",
)


class Unoffered(CaptureError):
    """The portal answered the version of ``interface`` with an error:
    ``words``, its words; ``missing``, whether they say it has no such interface."""

    def __init__(self, interface: str, reply: Message) -> None:
        self.words = sessionbus.error_words(reply)
        self.missing = reply.error_name in _MISSING
        super().__init__(f"the desktop portal does not offer {interface} ({self.words})")


async def join_bus(address: str) -> MessageBus:
    try:
        return await sessionbus.join(address, CONNECT_TIMEOUT)
    except BROKEN as exc:
        raise CaptureError(
            f"the session bus ({address}) cannot be joined to reach the desktop portal: {said(exc)}"
        ) from exc


async def call(bus: MessageBus, message: Message, timeout: float = CALL_TIMEOUT) -> Message:
    try:
        return await asyncio.wait_for(bus.call(message), timeout)
    except BROKEN as exc:
        raise CaptureError(f"the desktop portal did not answer: {said(exc)}") from exc


async def version(bus: MessageBus, interface: str, timeout: float = CALL_TIMEOUT) -> int:
    """The portal's ``version`` of ``interface`` (``Properties.Get``);
    ``Unoffered`` when it answers with an error."""
    query = method_call(
        PORTAL, PORTAL_PATH, "org.freedesktop.DBus.Properties", "Get", "ss", [interface, "version"]
    )
    reply = await call(bus, query, timeout)
    if reply.message_type is not MessageType.METHOD_RETURN:
        raise Unoffered(interface, reply)
    value = reply.body[0]
    return int(value.value if isinstance(value, Variant) else value)


async def add_match(bus: MessageBus, rule: str) -> None:
    """Subscribe ``bus`` to the signals ``rule`` matches (the bus daemon's ``AddMatch``)."""
    reply = await call(bus, daemon("AddMatch", "s", [rule]), CONNECT_TIMEOUT)
    if reply.message_type is not MessageType.METHOD_RETURN:
        raise CaptureError(
            f"the session bus refused a subscription: {sessionbus.error_words(reply)}"
        )


async def request(
    bus: MessageBus,
    interface: str,
    member: str,
    signature: str,
    body: Callable[[str], list[Any]],
    timeout: float,
    what: str,
) -> tuple[int, dict[str, Any]]:
    """One portal request, ``interface.member`` with ``body(token)``: the
    answer's code (0 success, 1 cancelled, 2 other) and its results.

    Its ``Response`` is subscribed before the call (the answer may come
    before the reply is read), on the path the handle token makes, and on
    the handle the portal names when it differs (a portal older than
    ``handle_token``). Left unanswered ``timeout`` seconds, the request is
    withdrawn (``Request.Close``: the portal drops it and any dialog it
    showed). That, and a refused call or subscription, is a ``CaptureError``
    naming ``what``."""
    token = f"noru_{secrets.token_hex(8)}"
    sender = (bus.unique_name or "").lstrip(":").replace(".", "_")
    paths = {f"{PORTAL_PATH}/request/{sender}/{token}"}
    answered: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()

    def on_message(message: Message) -> None:
        if (
            message.message_type is MessageType.SIGNAL
            and message.interface == REQUEST
            and message.member == "Response"
            and message.path in paths
            and not answered.done()
        ):
            answered.set_result(list(message.body))

    rules: list[str] = []

    async def subscribe(path: str) -> None:
        rule = (
            f"type='signal',sender='{PORTAL}',interface='{REQUEST}',member='Response',path='{path}'"
        )
        await add_match(bus, rule)
        rules.append(rule)

    bus.add_message_handler(on_message)
    try:
        await subscribe(next(iter(paths)))
        reply = await call(
            bus, method_call(PORTAL, PORTAL_PATH, interface, member, signature, body(token))
        )
        if reply.message_type is not MessageType.METHOD_RETURN:
            raise CaptureError(
                f"the desktop portal refused {what}: {sessionbus.error_words(reply)}"
            )
        handle = str(reply.body[0])
        if handle not in paths:
            paths.add(handle)
            await subscribe(handle)
        try:
            response, results = await asyncio.wait_for(answered, timeout)
        except TimeoutError:
            # Sent, not awaited: a portal that does not answer may not answer this either.
            with contextlib.suppress(*BROKEN):
                await bus.send(method_call(PORTAL, handle, REQUEST, "Close"))
            raise CaptureError(
                f"the desktop portal did not answer {what} within {timeout:g} s;"
                " the request was withdrawn"
            ) from None
    finally:
        bus.remove_message_handler(on_message)
        for rule in rules:
            with contextlib.suppress(*BROKEN):
                bus.send(daemon("RemoveMatch", "s", [rule]))
    return int(response), dict(results)


def portal_missing() -> str | None:
    """Why this session has no desktop portal, in words; None when its session
    bus has ``org.freedesktop.portal.Desktop`` (running, or startable on demand)."""
    address = session_address()
    if address is None:
        return "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"

    async def ask() -> str | None:
        bus = await join_bus(address)
        try:
            owned = await call(bus, daemon("NameHasOwner", "s", [PORTAL]), CONNECT_TIMEOUT)
            if owned.message_type is MessageType.METHOD_RETURN and owned.body == [True]:
                return None
            names = await call(bus, daemon("ListActivatableNames"), CONNECT_TIMEOUT)
            if names.message_type is MessageType.METHOD_RETURN and PORTAL in names.body[0]:
                return None
            return (
                f"the session bus offers no desktop portal ({PORTAL}): install "
                "xdg-desktop-portal and the desktop's backend for it "
                "(GNOME: xdg-desktop-portal-gnome, KDE: xdg-desktop-portal-kde, "
                "wlroots compositors: xdg-desktop-portal-wlr)"
            )
        finally:
            await sessionbus.leave(bus)

    loop = PortalLoop()
    try:
        return loop.run(ask, 3 * CONNECT_TIMEOUT)
    except CaptureError as exc:
        return str(exc)
    finally:
        loop.close()
