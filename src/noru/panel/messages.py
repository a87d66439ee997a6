"""The D-Bus messages the menu sends to the bus daemon itself
(``org.freedesktop.DBus``: ``AddMatch``, ``NameHasOwner``)."""

from __future__ import annotations

from typing import Any

from dbus_fast import Message

__all__ = ["daemon"]


def daemon(member: str, signature: str, body: list[Any]) -> Message:
    """A call of the bus daemon's ``member``."""
    return Message(
        destination="org.freedesktop.DBus",
        path="/org/freedesktop/DBus",
        interface="org.freedesktop.DBus",
        member=member,
        signature=signature,
        body=body,
    )
