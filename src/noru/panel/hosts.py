"""Whether the session has what the Noru menu needs: a StatusNotifierItem
host and a notification server (for ``noru doctor``)."""

from __future__ import annotations

import asyncio

from dbus_fast import MessageType

from noru.panel.interfaces import WATCHER
from noru.sessionbus import BROKEN, daemon, join, leave, said, session_address

__all__ = ["hosts"]


def hosts(timeout: float = 2.0) -> dict[str, bool] | str:
    """Whether the session bus has a StatusNotifierItem host (``menu``) and
    a notification server (``notifications``); the reason, when there is no
    session bus to ask (for ``noru doctor``)."""
    address = session_address()
    if address is None:
        return "no session D-Bus (DBUS_SESSION_BUS_ADDRESS)"

    async def ask() -> dict[str, bool]:
        bus = await join(address, timeout)
        try:
            found = {}
            for key, name in (
                ("menu", WATCHER),
                ("notifications", "org.freedesktop.Notifications"),
            ):
                reply = await bus.call(daemon("NameHasOwner", "s", [name]))
                found[key] = bool(
                    reply and reply.message_type != MessageType.ERROR and reply.body[0]
                )
            return found
        finally:
            await leave(bus)

    try:
        return asyncio.run(asyncio.wait_for(ask(), timeout))
    except TimeoutError:  # the bus joined or not, the time was up
        return f"cannot reach the session D-Bus (no answer within {timeout:g} s)"
    except BROKEN as exc:
        return f"cannot reach the session D-Bus ({said(exc)})"
