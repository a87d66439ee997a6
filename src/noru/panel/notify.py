"""The desktop notification that an agent looked, through org.freedesktop.Notifications.

One notification per burst: a look within ``BURST`` seconds of the previous
one replaces the notification on screen (``replaces_id``) with the count
("looked at your screen 10 times") instead of adding another. Each carries
a **Pause Agent Perception** action; the person's click on it
(``ActionInvoked``) pauses as ``noru pause`` does. Whether to notify is the
person's setting, read at each look: ``notify_observe`` (on by default),
``notify_handoff`` (off by default; the icon shows both).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from noru.sessionbus import daemon, method_call

__all__ = ["BURST", "Burst", "Notifier", "summary"]

NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
BURST = 10.0  # seconds: a look sooner than this after the last joins its notification
SHOWN_FOR = 8000  # ms the notification stays up (the server may differ)


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
    """Notifications on ``bus`` (the panel's connection, used on its loop only)."""

    def __init__(self, bus: MessageBus, icon: str, on_pause: Callable[[], object]) -> None:
        self.bus = bus
        self.icon = icon
        self.on_pause = on_pause
        self.burst = Burst()
        self.problem: str | None = None

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
        await self.bus.call(daemon("AddMatch", "s", [f"type='signal',interface='{NOTIFICATIONS}'"]))

    async def failed(self, what: str, why: str) -> None:
        """Tell the person that something they chose in the menu did not work
        (a capture with no window to take, say): a notification of its own."""
        await self.bus.call(
            _notify(0, "", f"Noru could not {what}", why, [], {})  # not the eye: no agent looked
        )

    async def show(self, how: str, client: str, what: str) -> None:
        now = time.monotonic()
        if self.burst.id and now - self.burst.last > BURST:
            self.burst = Burst()
        self.burst.add(client, now)
        reply = await self.bus.call(
            _notify(
                self.burst.id,
                self.icon,
                summary(self.burst, how),
                what,
                ["pause", "Pause Agent Perception"],
                {"category": Variant("s", "device")},
            )
        )
        if reply is None or reply.message_type == MessageType.ERROR:
            self.problem = (
                "no notification server on the session bus (org.freedesktop.Notifications):"
                " the icon alone shows that an agent looked"
            )
            return
        self.problem = None
        self.burst.id = int(reply.body[0])
