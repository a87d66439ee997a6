"""The desktop notification that an agent looked, through org.freedesktop.Notifications.

One notification per burst: a look within ``BURST`` seconds of the previous
one replaces the notification on screen (``replaces_id``) with the count
("looked at your screen 10 times") instead of adding another. Each carries
a **Pause Agent Perception** action; the person's click on it
(``ActionInvoked``) pauses as ``noru pause`` does. Whether to notify is the
person's setting, read at each look: ``notify_observe`` (on by default),
``notify_handoff`` (off by default; the icon shows both).

Every call to the server is waited on at most ``BUS_TIMEOUT``, one at a
time. A server that takes a call and does not answer it (a hung
org.freedesktop.Notifications) costs the notifications, never the menu's
loop: the call is given up, ``problem`` says why (``noru status`` shows it),
and no other is sent while that one is owed. D-Bus cannot take a call back,
so each call sent to such a server would stay pending, in the bus and in
this connection, for as long as it does not answer; the one owed ends when
it answers (notifications then work again) or leaves the bus.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from noru.sessionbus import BROKEN, BUS_TIMEOUT, daemon, error_words, method_call

__all__ = ["BURST", "Burst", "Notifier", "summary"]

log = logging.getLogger("noru.app")

NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
BURST = 10.0  # seconds: a look sooner than this after the last joins its notification
SHOWN_FOR = 8000  # ms the notification stays up (the server may differ)
ICON_ALONE = "the icon alone shows that an agent looked"
NO_SERVER = (
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
)


@dataclass
class Burst:
    """The looks one notification tells of."""

    id: int = 0  # the server's notification id; 0 before the first
    count: int = 0
    clients: list[str] = field(default_factory=list)
    last: float = 0.0  # monotonic time of the latest look

    def add(self, client: str, now: float) -> None:
        self.count += 1
        if client not in self.clients:
            self.clients.append(client)
        self.last = now

    def shown(self, reply: Message) -> None:
        """The server showed it (its answer to ``Notify``, however late): its id."""
        self.id = int(reply.body[0])


def summary(burst: Burst, how: str) -> str:
    """``Claude Code looked at your screen`` / ``... 10 times`` / ``Agents (a, b) ...``."""
    who = burst.clients[0] if len(burst.clients) == 1 else f"Agents ({', '.join(burst.clients)})"
    did = "took the capture you just made" if how == "handoff" else "looked at your screen"
    times = f" {burst.count} times" if burst.count > 1 else ""
    return f"{who} {did}{times}"


def _notify(
    replaces: int, icon: str, title: str, body: str, actions: list[str], hints: dict[str, Variant]
) -> Message:
    """A ``Notify`` call from Noru, normal urgency, shown ``SHOWN_FOR`` ms."""
    return method_call(
        NOTIFICATIONS, NOTIFICATIONS_PATH, NOTIFICATIONS, "Notify", "susssasa{sv}i",
        ["Noru", replaces, icon, title, body, actions,
         {"urgency": Variant("y", 1), **hints}, SHOWN_FOR],
    )  # fmt: skip


class Notifier:
    """Notifications on ``bus`` (the panel's connection, used on its loop only);
    ``problem``: why they are not shown, None while they are (or untried)."""

    def __init__(self, bus: MessageBus, icon: str, on_pause: Callable[[], object]) -> None:
        self.bus = bus
        self.icon = icon
        self.on_pause = on_pause
        self.burst = Burst()
        self.problem: str | None = None
        self._turn = asyncio.Lock()  # a look's call waits for the previous one's id
        self._owed: asyncio.Future[Message] | None = None  # a call given up, unanswered

    async def watch(self) -> None:
        """Hear the person's click on Pause, and a notification closing."""

        def on_signal(message: Message) -> None:
            if message.message_type != MessageType.SIGNAL or message.interface != NOTIFICATIONS:
                return
            if not message.body or message.body[0] != self.burst.id:
                return
            if message.member == "ActionInvoked" and message.body[1] == "pause":
                self.on_pause()
            elif message.member == "NotificationClosed":
                self.burst = Burst()  # the next look starts a new one

        self.bus.add_message_handler(on_signal)
        match = daemon("AddMatch", "s", [f"type='signal',interface='{NOTIFICATIONS}'"])
        await asyncio.wait_for(self.bus.call(match), BUS_TIMEOUT)

    async def failed(self, what: str, why: str) -> None:
        """Tell the person that something they chose in the menu did not work
        (a capture with no window to take, say): a notification of its own."""
        # Not the eye: no agent looked.
        await self._ask(lambda: _notify(0, "", f"Noru could not {what}", why, [], {}))

    async def show(self, how: str, client: str, what: str) -> None:
        now = time.monotonic()
        if self.burst.id and now - self.burst.last > BURST:
            self.burst = Burst()
        self.burst.add(client, now)
        burst = self.burst
        await self._ask(
            lambda: _notify(
                burst.id,  # read once the previous look's call has its answer
                self.icon,
                summary(burst, how),
                what,
                ["pause", "Pause Agent Perception"],
                {"category": Variant("s", "device")},
            ),
            burst.shown,
        )

    async def _ask(
        self, call: Callable[[], Message], answered: Callable[[Message], None] | None = None
    ) -> None:
        """``call()`` sent once it is its turn, waited on at most
        ``BUS_TIMEOUT``; ``answered`` is given the server's answer, however
        late. Nothing is sent while the server owes an answer."""
        async with self._turn:
            if self._owed is not None:
                return
            pending = asyncio.ensure_future(self.bus.call(call()))
            done, _ = await asyncio.wait({pending}, timeout=BUS_TIMEOUT)
            if pending in done:
                self._heard(pending, answered)
                return
            self._owed = pending
            pending.add_done_callback(lambda late: self._answered_late(late, answered))
            self._said(
                f"the notification server ({NOTIFICATIONS}) did not answer within"
                f" {BUS_TIMEOUT:g} s: {ICON_ALONE} until it answers",
                warn=True,
            )

    def _answered_late(
        self, pending: asyncio.Future[Message], answered: Callable[[Message], None] | None
    ) -> None:
        self._owed = None
        self._heard(pending, answered)

    def _heard(
        self, pending: asyncio.Future[Message], answered: Callable[[Message], None] | None
    ) -> None:
        """The server's answer given to ``answered``, and ``problem`` set by it.
        A connection that ended is the menu's own problem, said there."""
        if pending.cancelled():
            return
        try:
            reply: Message | None = pending.result()  # None: the connection was left
        except BROKEN:
            return
        if reply is None:
            return
        if reply.message_type == MessageType.ERROR:
            if reply.error_name in NO_SERVER:
                self._said(
                    f"no notification server on the session bus ({NOTIFICATIONS}): {ICON_ALONE}"
                )
            else:
                self._said(f"the notification server refused ({error_words(reply)}): {ICON_ALONE}")
            return
        self._said(None)
        if answered is not None:
            answered(reply)

    def _said(self, problem: str | None, *, warn: bool = False) -> None:
        """``problem`` recorded, and logged once: when it changes."""
        if problem == self.problem:
            return
        if problem is None:
            log.info("notifications are shown again")
        else:
            log.log(logging.WARNING if warn else logging.INFO, "%s", problem)
        self.problem = problem
