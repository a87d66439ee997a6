"""The Noru menu of one running app: its state, the person's clicks acted on, and
the StatusNotifierItem and its com.canonical.dbusmenu (``interfaces``) on their
own loop thread.

Names and paths are the ones hosts look for: the item is exported at
``/StatusNotifierItem`` on the bus name ``org.kde.StatusNotifierItem-PID-1``
and registered with ``org.kde.StatusNotifierWatcher``; its menu is at
``/MenuBar``. ``ItemIsMenu`` is true: a click on the icon opens the menu.

A click on an item (``Event(id, "clicked")``) runs its action in a worker
thread, never on the loop: the access actions through
``access.set_control``; the captures through the app (origin ``user``: the
person chose it); Open Console starts ``noru console --open`` (the app
stops it when it stops); Quit Noru stops the app as SIGTERM would.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, Protocol

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from noru import access, appwire
from noru.access import AccessState
from noru.panel import menu
from noru.panel.interfaces import (
    ICONS,
    ITEM_PATH,
    MENU_PATH,
    WATCHER,
    WATCHER_PATH,
    ItemInterface,
    MenuInterface,
    pixmaps_of,
)
from noru.panel.notify import Notifier
from noru.sessionbus import (
    BROKEN,
    BUS_TIMEOUT,
    daemon,
    join,
    leave,
    method_call,
    said,
    session_address,
)
from noru.settings import snapshot
from noru.store import Reader

__all__ = ["FOLLOW", "LOOK_SHOWN", "Panel", "console_command"]

log = logging.getLogger("noru.app")

FOLLOW = 0.5  # seconds between looks at the access file
LOOK_SHOWN = 5.0  # seconds the icon says an agent looked


class Capturing(Protocol):
    """What the menu needs of the app (``noru.app.core.App``)."""

    home: Path

    def capture(self, request: appwire.Capture, *, origin: Literal["user", "agent"]) -> str: ...


class Panel:
    """The Noru menu of one running app.

    ``quit``: how Quit Noru stops the app (run_app's own stop). ``console``:
    the command that opens the console, or None to leave the item out.
    """

    def __init__(
        self,
        app: Capturing,
        *,
        quit: Callable[[], None],
        console: list[str] | None = None,
    ) -> None:
        self.app = app
        self.home = app.home
        self._quit = quit
        self._console_command = console
        self._console: subprocess.Popen[bytes] | None = None
        self.state: AccessState = access.load(self.home)
        self.revision = 1
        self._looked_at = -LOOK_SHOWN
        # (mode, looking) as the host was last told; a change sends the signals.
        self._told: tuple[str, bool] = (menu.mode(self.state), False)
        self._pixmaps: dict[str, list[list[Any]]] = {}
        self._actions = ThreadPoolExecutor(max_workers=1, thread_name_prefix="noru-menu")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="noru-panel", daemon=True)
        self._stopped = asyncio.Event()
        self.bus_name: str | None = None
        self.registered = False
        self.problem: str | None = None  # why the menu is not shown, when it is not
        self._item: ItemInterface | None = None
        self._menu: MenuInterface | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self._notifier: Notifier | None = None
        self._first_registration_tried = threading.Event()

    # --- what the interfaces read -------------------------------------------------

    @property
    def looking(self) -> bool:
        return time.monotonic() - self._looked_at < LOOK_SHOWN

    @property
    def icon(self) -> str:
        return menu.icon(self.state, looking=self.looking)

    @property
    def tooltip(self) -> str:
        words = {
            "allowed": "agents may look (Allow Agent Observations)",
            "paused": "agent perception paused",
            "revoked": "agent access revoked",
            "unset": "agents may not look until you allow it",
        }[menu.mode(self.state)]
        return ("An agent looked just now. " if self.looking else "") + words.capitalize()

    def menu_state(self) -> appwire.MenuState:
        """Whether a panel host shows the menu now, and if not, why (the app's
        status: ``noru mcp`` then points the person at the console); why
        notifications are not shown, when they are not."""
        if self.registered:
            problem = None
        elif self._first_registration_tried.is_set():
            problem = self.problem
        else:
            problem = "the app is starting: it is asking the session bus for a panel"
        return appwire.MenuState(
            self.registered,
            problem,
            notifications=self._notifier.problem if self._notifier is not None else None,
        )

    def items(self) -> list[menu.Item]:
        return menu.layout(self.state, console=self._console_command is not None)

    def pixmaps(self, name: str) -> list[list[Any]]:
        if name not in self._pixmaps:
            self._pixmaps[name] = pixmaps_of(name)
        return self._pixmaps[name]

    # --- events -------------------------------------------------------------------

    def looked(self, how: str, client: str | None, capture_id: str) -> None:
        """An agent was given a capture (``how``: observe or handoff): show it,
        and tell the person in a notification if they want one (any thread)."""
        self._looked_at = time.monotonic()
        with contextlib.suppress(RuntimeError):  # the loop has stopped
            self._loop.call_soon_threadsafe(self._refresh)  # the poll clears it after
        self._actions.submit(self._notify_look, how, client, capture_id)

    def _notify_look(self, how: str, client: str | None, capture_id: str) -> None:
        config = snapshot(self.home).config
        if self._notifier is None or not (
            config.notify_observe if how == "observe" else config.notify_handoff
        ):
            return
        try:
            what = self._describe(capture_id)
        except Exception as exc:  # the notification says less, but it is shown
            log.warning("describing capture %s for the notification failed: %s", capture_id, exc)
            what = ""
        with contextlib.suppress(RuntimeError):
            asyncio.run_coroutine_threadsafe(
                self._notifier.show(how, client or "An agent", what), self._loop
            )

    def _describe(self, capture_id: str) -> str:
        """What the agent got, in words: the window, or the display(s)."""
        with Reader.open(self.home) as reader:
            record = reader.get(capture_id)
        if record is None:
            return ""
        if len(record.images) > 1:
            return f"all {len(record.images)} displays"
        source = record.images[0].source
        if source.whole:  # a display (or region): named as one, not as its active window
            return source.subject or "the screen"
        if source.window_title or source.app_name:
            title = f"“{source.window_title}”" if source.window_title else ""
            app = f" ({source.app_name})" if source.app_name and title else source.app_name or ""
            return f"the window {title}{app}".strip()
        return source.display_label or "the screen"

    def clicked(self, id: int) -> None:
        action = menu.ACTIONS.get(id)
        if action is not None:
            self._actions.submit(self._run_action, action)

    def _run_action(self, action: str) -> None:
        try:
            if action in ("allow", "pause", "resume", "revoke"):
                access.set_control(self.home, action)
                log.info("the person chose %s in the Noru menu", action)
            elif action == "capture-window":
                self.app.capture(appwire.Capture("window", "active"), origin="user")
            elif action == "capture-display":
                self.app.capture(appwire.Capture("display"), origin="user")
            elif action == "console":
                self._open_console()
            elif action == "quit":
                log.info("the person chose Quit Noru in the Noru menu")
                self._quit()
        except Exception as exc:  # the menu never takes the app down
            log.warning("the Noru menu's %s failed: %s", action, exc)
            words = {
                "capture-window": "capture the window",
                "capture-display": "capture the display",
            }
            if self._notifier is not None:  # the person clicked: they are told, not a log
                with contextlib.suppress(RuntimeError):
                    asyncio.run_coroutine_threadsafe(
                        self._notifier.failed(words.get(action, action), str(exc)), self._loop
                    )
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._refresh)

    def _open_console(self) -> None:
        if self._console is not None and self._console.poll() is None:
            self._console.terminate()  # a new sign-in link: the old one was used
            self._console.wait(timeout=10)
        assert self._console_command is not None
        self._console = subprocess.Popen(
            self._console_command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    # --- the loop -----------------------------------------------------------------

    def _refresh(self) -> None:
        """Tell the host what changed, if anything did."""
        self.state = access.load(self.home)
        now_shown = (menu.mode(self.state), self.looking)
        if now_shown == self._told or self._item is None or self._menu is None:
            return
        mode_changed = now_shown[0] != self._told[0]
        self._told = now_shown
        self._item.NewIcon()
        self._item.NewStatus()
        self._item.NewToolTip()
        if mode_changed:
            self.revision += 1
            self._menu.LayoutUpdated()

    async def _follow_access(self) -> None:
        while not self._stopped.is_set():
            self._refresh()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), FOLLOW)

    async def _register(self, bus: MessageBus) -> None:
        call = method_call(
            WATCHER, WATCHER_PATH, WATCHER, "RegisterStatusNotifierItem", "s", [self.bus_name]
        )
        try:
            reply = await asyncio.wait_for(bus.call(call), BUS_TIMEOUT)
        except TimeoutError:
            self.registered = False
            self.problem = (
                f"the StatusNotifierItem host did not answer within {BUS_TIMEOUT:g} s: the Noru"
                " menu is not shown until a host starts"
            )
            log.warning(self.problem)
            return
        if reply is None or reply.message_type == MessageType.ERROR:
            self.registered = False
            self.problem = (
                "no StatusNotifierItem host on the session bus (KDE, GNOME with the"
                " AppIndicator extension, XFCE, waybar show one): the Noru menu is not shown"
            )
            log.info("%s; it appears when a host starts", self.problem)
            self.problem += " until a host starts"
        else:
            self.registered, self.problem = True, None
            log.info("the Noru menu is in the panel")

    async def _main(self) -> None:
        address = session_address()
        if address is None:
            self.problem = "no session D-Bus (DBUS_SESSION_BUS_ADDRESS): the Noru menu is not shown"
            self._first_registration_tried.set()
            return
        try:
            bus = await join(address, BUS_TIMEOUT)
        except BROKEN as exc:
            self.problem = (
                f"cannot reach the session D-Bus ({said(exc)}): the Noru menu is not shown"
            )
            log.warning(self.problem)
            self._first_registration_tried.set()
            return
        try:
            try:
                await asyncio.wait_for(self._show(bus), BUS_TIMEOUT)
            except TimeoutError:  # said in words, as join says its own
                raise TimeoutError(f"no answer within {BUS_TIMEOUT:g} s") from None
            await self._register(bus)
            self._first_registration_tried.set()
            await self._follow_access()
        except BROKEN as exc:
            self.problem = f"the session D-Bus failed ({said(exc)}): the Noru menu is gone"
            log.warning(self.problem)
        finally:
            self._first_registration_tried.set()
            await leave(bus)

    async def _show(self, bus: MessageBus) -> None:
        """The item and its menu exported on ``bus``, a name taken, and the
        host's comings and goings heard."""
        self._item, self._menu = ItemInterface(self), MenuInterface(self)
        bus.export(ITEM_PATH, self._item)
        bus.export(MENU_PATH, self._menu)
        self.bus_name = f"org.kde.StatusNotifierItem-{os.getpid()}-1"
        await bus.request_name(self.bus_name)

        def watcher_changed(message: Message) -> None:
            if message.member != "NameOwnerChanged" or message.body[0] != WATCHER:
                return
            if not message.body[2]:  # the host went away, and the menu with it
                self.registered = False
                self.problem = (
                    "the StatusNotifierItem host left the session bus: the Noru menu is"
                    " not shown until a host starts"
                )
                log.info(self.problem)
                return
            task = asyncio.ensure_future(self._register(bus))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        bus.add_message_handler(watcher_changed)
        self._notifier = Notifier(
            bus,
            str(ICONS / "noru-looking.png"),
            lambda: self._actions.submit(self._run_action, "pause"),
        )
        await self._notifier.watch()
        await bus.call(
            daemon(
                "AddMatch",
                "s",
                [
                    "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
                    f"arg0='{WATCHER}'"
                ],
            )
        )

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        except Exception:  # a bug: said; the app goes on without its menu
            log.exception("the Noru menu stopped")
        finally:
            self._loop.close()

    def start(self, wait: float = BUS_TIMEOUT + 1.0) -> None:
        """Start, and wait up to ``wait`` seconds for the first registration
        (a bus that answers takes milliseconds; one that does not is given up
        within ``BUS_TIMEOUT``), so the app can say at its start whether the
        menu is shown (``problem``)."""
        self._thread.start()
        self._first_registration_tried.wait(wait)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._stopped.set)
        if self._thread.ident is not None:  # started
            self._thread.join(timeout=10)
        self._actions.shutdown(wait=True)
        if self._console is not None and self._console.poll() is None:
            self._console.terminate()
            try:
                self._console.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._console.kill()
                self._console.wait()


def console_command() -> list[str]:
    """How the menu opens the console: this Python's ``noru console --open``."""
    return [sys.executable, "-m", "noru", "console", "--open"]
