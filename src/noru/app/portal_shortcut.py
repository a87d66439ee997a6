"""The capture shortcut on a Wayland desktop, through the desktop portal.

Wayland lets no program grab a key for the whole desktop. A desktop whose
portal offers ``org.freedesktop.portal.GlobalShortcuts`` (KDE Plasma) binds
one for the program and says when it is pressed; elsewhere the app refuses
with the reason, and the compositor binds `noru capture` itself
(``noru config sway``, ``noru config hyprland``).

One session for as long as the app runs:

1. ``CreateSession``, with a fixed ``session_handle_token`` (``noru``) and
   the shortcut in its options. For a program outside Flatpak (no app id)
   KDE's backend names the shortcut's component after that token and keeps
   each component's keys in ``kglobalshortcutsrc``. A fresh token each run
   would leave a component behind still holding the key, and the next run's
   would find it taken (Plasma 5.27 logs "skipping because key
   Ctrl+Alt+N is already taken"). With one name, each run gets the keys of
   the last back, a key the person chose in System Settings included.
   Plasma 5.27 binds the shortcuts given here; the portal's answer lists
   them, with the key in the desktop's words (``trigger_description``).
   That answer names the key asked for even when another program holds it
   and the desktop bound none (its ``kglobalaccel`` component then has no
   key, and the press goes to the other program). So where KDE's
   shortcut daemon is on the bus, its own record of the component is
   asked, and a shortcut it gave no key is reported as bound to none.
2. ``BindShortcuts`` only when that answer does not list the shortcut
   already: Plasma 5.27's BindShortcuts binds nothing and opens System
   Settings on its shortcuts page, which must not happen at every start.
   Desktops that bind here may first ask the person (a dialog): the answer
   is awaited in the background, and ``changed`` reports it.
3. ``Activated`` for this session and shortcut: ``pressed`` is called.
   ``ShortcutsChanged`` (the person chose another key): ``changed``. The
   session's ``Closed``, or the session bus going away: ``lost``.

The callbacks run on the portal connection's thread and must not block.
Each request's ``Response`` is subscribed before the call, on the path the
portal will use, as ``noru.capture.portal`` does: both use
``noru.desktop_portal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from noru.app.key_combination import parse_hotkey
from noru.desktop_portal import (
    CALL_TIMEOUT,
    CONNECT_TIMEOUT,
    PORTAL,
    PortalLoop,
    Unoffered,
    add_match,
    call,
    join_bus,
    request,
    version,
)
from noru.errors import CaptureError
from noru.sessionbus import BROKEN, ended, leave, method_call, session_address

__all__ = [
    "GLOBAL_SHORTCUTS",
    "SESSION_TOKEN",
    "SHORTCUT_ID",
    "Bound",
    "NotOffered",
    "PortalShortcut",
    "xdg_trigger",
]

log = logging.getLogger("noru.app")

GLOBAL_SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
SESSION = "org.freedesktop.portal.Session"
SESSION_TOKEN = "noru"  # fixed: see the module's docstring
SHORTCUT_ID = "capture"
KGLOBALACCEL = "org.kde.kglobalaccel"  # KDE's shortcut daemon (in KWin on Wayland)
DESCRIPTION = "Capture with Noru"
# BindShortcuts may wait for the person to answer a dialog.
BIND_TIMEOUT = 300.0

_XDG_MODIFIERS = {
    "ControlMask": "CTRL",
    "Mod1Mask": "ALT",
    "ShiftMask": "SHIFT",
    "Mod4Mask": "LOGO",
}

_ANSWERS = {1: "cancelled: the person declined", 2: "failed"}


class NotOffered(Exception):
    """This session's desktop portal has no global shortcuts (the reason in words)."""


@dataclass(frozen=True)
class Bound:
    """What the desktop bound: its words for the key (``Ctrl+Alt+N``), or
    None when it bound none (the key is another program's)."""

    trigger: str | None


def xdg_trigger(hotkey: str) -> str:
    """``ctrl+alt+n`` -> ``CTRL+ALT+n``, the shortcuts specification's form."""
    mods, key = parse_hotkey(hotkey)
    return "+".join([*(_XDG_MODIFIERS[m] for m in mods), key])


def _listed(shortcuts: Any) -> Bound | None:
    """Our shortcut in a portal's list (``a(sa{sv})``); None when not listed."""
    for shortcut_id, options in shortcuts or ():
        if shortcut_id == SHORTCUT_ID:
            trigger = options.get("trigger_description")
            text = trigger.value if isinstance(trigger, Variant) else None
            return Bound(text if isinstance(text, str) and text else None)
    return None


def _safely(callback: Callable[..., None], *args: Any) -> None:
    try:
        callback(*args)
    except Exception:  # one bad callback must not end the connection's loop
        log.exception("shortcut callback failed")


class PortalShortcut:
    """The capture shortcut bound through the portal; ``start``, then ``stop``."""

    def __init__(
        self,
        hotkey: str,
        *,
        pressed: Callable[[], None],
        changed: Callable[[Bound], None],
        lost: Callable[[str], None],
    ) -> None:
        self._shortcuts = [
            (
                SHORTCUT_ID,
                {
                    "description": Variant("s", DESCRIPTION),
                    "preferred_trigger": Variant("s", xdg_trigger(hotkey)),
                },
            )
        ]
        self._pressed = pressed
        self._changed = changed
        self._lost = lost
        self._loop: PortalLoop | None = None
        self._bus: MessageBus | None = None
        self._session: str | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    def start(self) -> Bound | None:
        """Open the session and bind the shortcut: what the desktop bound, or
        None while it asks the person (``changed`` says the answer).

        Raises ``NotOffered`` when the portal has no global shortcuts, and
        ``CaptureError`` with the portal's words when it fails.
        """
        address = session_address()
        if address is None:
            raise NotOffered("there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        self._loop = PortalLoop()
        try:
            return self._loop.run(lambda: self._open(address), 2 * CALL_TIMEOUT + CONNECT_TIMEOUT)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """End the session (the desktop keeps the key for the next one)."""
        self._stopping = True
        loop, self._loop = self._loop, None
        if loop is None:
            return

        async def close() -> None:
            bus = self._bus
            if bus is None or not bus.connected:
                return
            if self._session is not None:
                with contextlib.suppress(*BROKEN):
                    await asyncio.wait_for(
                        bus.call(method_call(PORTAL, self._session, SESSION, "Close")),
                        CONNECT_TIMEOUT,
                    )
            await leave(bus)

        with contextlib.suppress(CaptureError):
            loop.run(close, 3 * CONNECT_TIMEOUT)
        loop.close()

    # -- on the loop --------------------------------------------------------------

    async def _open(self, address: str) -> Bound | None:
        try:  # a bus that cannot be joined offers nothing either
            bus = self._bus = await join_bus(address)
            await version(bus, GLOBAL_SHORTCUTS, CONNECT_TIMEOUT)
        except Unoffered as exc:
            raise NotOffered(
                f"the desktop portal offers no global shortcuts ({exc.words})"
            ) from exc
        except CaptureError as exc:
            raise NotOffered(str(exc)) from exc
        bus.add_message_handler(self._on_message)
        await add_match(bus, f"type='signal',sender='{PORTAL}',interface='{GLOBAL_SHORTCUTS}'")
        self._spawn(self._watch(bus))
        results = await self._request(
            "CreateSession",
            "a{sv}",
            lambda token: [
                {
                    "handle_token": Variant("s", token),
                    "session_handle_token": Variant("s", SESSION_TOKEN),
                    # Plasma 5.27 binds these (and only these); others ignore them.
                    "shortcuts": Variant("a(sa{sv})", self._shortcuts),
                }
            ],
            CALL_TIMEOUT,
        )
        handle = results.get("session_handle")
        self._session = str(handle.value if isinstance(handle, Variant) else handle)
        await add_match(
            bus,
            f"type='signal',sender='{PORTAL}',interface='{SESSION}',member='Closed',"
            f"path='{self._session}'",
        )
        shortcuts = results.get("shortcuts")
        bound = _listed(shortcuts.value if isinstance(shortcuts, Variant) else None)
        if bound is not None:
            return await self._kde_checked(bound)
        self._spawn(self._bind())
        return None

    async def _kde_checked(self, bound: Bound) -> Bound:
        """KDE's own record of the keys it gave our component, over the
        portal's answer (see the module's docstring); the answer as it is
        where there is no such record."""
        if bound.trigger is None:
            return bound
        assert self._bus is not None
        reply = await call(
            self._bus,
            method_call(
                KGLOBALACCEL,
                f"/component/{SESSION_TOKEN}",
                f"{KGLOBALACCEL}.Component",
                "allShortcutInfos",
            ),
            CONNECT_TIMEOUT,
        )
        if reply.message_type is not MessageType.METHOD_RETURN:
            return bound  # not KDE, or a KDE that names components otherwise
        for info in reply.body[0]:
            # (action, its text, component, its text, context, its text, keys, default keys)
            if info[0] == SHORTCUT_ID and not any(info[6]):
                return Bound(None)
        return bound

    async def _bind(self) -> None:
        session = self._session
        try:
            results = await self._request(
                "BindShortcuts",
                "oa(sa{sv})sa{sv}",
                lambda token: [session, self._shortcuts, "", {"handle_token": Variant("s", token)}],
                BIND_TIMEOUT,
            )
        except CaptureError as exc:
            if not self._stopping:
                _safely(self._lost, str(exc))
            return
        shortcuts = results.get("shortcuts")
        bound = _listed(shortcuts.value if isinstance(shortcuts, Variant) else None)
        _safely(self._changed, bound or Bound(None))

    async def _request(
        self,
        member: str,
        signature: str,
        body: Callable[[str], list[Any]],
        timeout: float,
    ) -> dict[str, Any]:
        """One GlobalShortcuts request (``noru.desktop_portal.request``): its results."""
        assert self._bus is not None
        response, results = await request(
            self._bus, GLOBAL_SHORTCUTS, member, signature, body, timeout, member
        )
        if response != 0:
            words = _ANSWERS.get(response, "an answer Noru does not know")
            raise CaptureError(f"the desktop portal answered {member} with {response} ({words})")
        return results

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)  # kept: the loop holds tasks only weakly
        task.add_done_callback(self._tasks.discard)

    async def _watch(self, bus: MessageBus) -> None:
        await ended(bus)  # however it ended: with an error, or left at the close
        if not self._stopping:
            _safely(self._lost, "the connection to the session bus was lost")

    def _on_message(self, message: Message) -> None:
        if message.message_type is not MessageType.SIGNAL:
            return
        body = message.body
        if message.interface == GLOBAL_SHORTCUTS:
            if not body or self._session is None or str(body[0]) != self._session:
                return
            if message.member == "Activated" and len(body) > 1 and body[1] == SHORTCUT_ID:
                _safely(self._pressed)
            elif message.member == "ShortcutsChanged" and len(body) > 1:
                _safely(self._changed, _listed(body[1]) or Bound(None))
        elif (
            message.interface == SESSION
            and message.member == "Closed"
            and message.path == self._session
            and not self._stopping
        ):
            _safely(self._lost, "the desktop ended the shortcut's portal session")
