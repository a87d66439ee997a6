"""A panel, as far as the Noru menu can tell: a StatusNotifierWatcher on a
real session bus, and the calls a host makes on the item and its menu.

``PanelHost(address)`` connects to the bus (``dbus-daemon --session``, from
``tests.session_bus``), owns ``org.kde.StatusNotifierWatcher`` and records
each item that registers, and the item's signals (``NewIcon``,
``LayoutUpdated``, ...), and with ``notifications=True`` also owns
``org.freedesktop.Notifications`` (the specification's server, recording
each ``Notify``; ``invoke`` clicks a notification's action; ``hold`` makes
it take each ``Notify`` and answer none, as a hung server does, until
``release``). ``props``
reads the item's properties as a host does
(``org.freedesktop.DBus.Properties.GetAll``), ``layout`` the menu
(``GetLayout``), ``click`` sends ``Event(id, "clicked")``. Its loop runs in
one thread; ``close`` ends it.
"""

# No `from __future__ import annotations`: dbus-fast reads the D-Bus
# signatures from the annotations themselves, at class definition.

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, TypeVar

from dbus_fast import Message, MessageType, PropertyAccess, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.annotations import DBusSignature
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property, dbus_signal

T = TypeVar("T")
Str = Annotated[str, DBusSignature("s")]
Bool = Annotated[bool, DBusSignature("b")]
Int32 = Annotated[int, DBusSignature("i")]
StrList = Annotated[list[str], DBusSignature("as")]

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


class Watcher(ServiceInterface):
    def __init__(self) -> None:
        super().__init__(WATCHER)
        self.items: list[str] = []

    @dbus_method()
    def RegisterStatusNotifierItem(self, service: Str) -> None:
        self.items.append(service)
        self.StatusNotifierItemRegistered(service)

    @dbus_method()
    def RegisterStatusNotifierHost(self, service: Str) -> None:
        return None

    @dbus_property(access=PropertyAccess.READ)
    def RegisteredStatusNotifierItems(self) -> StrList:
        return self.items

    @dbus_property(access=PropertyAccess.READ)
    def IsStatusNotifierHostRegistered(self) -> Bool:
        return True

    @dbus_property(access=PropertyAccess.READ)
    def ProtocolVersion(self) -> Int32:
        return 0

    @dbus_signal()
    def StatusNotifierItemRegistered(self, service: Str) -> Str:
        return service


UInt32 = Annotated[int, DBusSignature("u")]
NotificationHints = Annotated[dict[str, Variant], DBusSignature("a{sv}")]
ServerInformation = Annotated[tuple[str, str, str, str], DBusSignature("ssss")]
ActionInvokedArgs = Annotated[tuple[int, str], DBusSignature("us")]
ClosedArgs = Annotated[tuple[int, int], DBusSignature("uu")]


class Notifications(ServiceInterface):
    """org.freedesktop.Notifications as the Desktop Notifications
    Specification 1.2 defines it: each Notify recorded, ids from 1, a
    replaces_id that names a shown notification replaced in place."""

    def __init__(self) -> None:
        super().__init__("org.freedesktop.Notifications")
        self.shown: list[dict[str, Any]] = []  # every Notify answered, in order
        self.asked = 0  # every Notify taken, answered or not
        self.holding = False  # take each Notify, answer none (``hold``, on the host's loop)
        self.held: list[asyncio.Future[None]] = []  # the answers owed
        self._next = 1

    @dbus_method()
    def GetCapabilities(self) -> StrList:
        return ["actions", "body", "icon-static"]

    @dbus_method()
    def GetServerInformation(self) -> ServerInformation:
        return "noru-tests", "noru", "1", "1.2"

    @dbus_method()
    async def Notify(
        self, app: Str, replaces: UInt32, icon: Str, summary: Str, body: Str, actions: StrList,
        hints: NotificationHints, timeout: Int32,
    ) -> UInt32:  # fmt: skip
        self.asked += 1
        if self.holding:
            owed = asyncio.get_running_loop().create_future()
            self.held.append(owed)
            await owed
        known = {n["id"] for n in self.shown}
        if replaces and replaces in known:
            id = replaces
        else:
            id, self._next = self._next, self._next + 1
        self.shown.append(
            {"id": id, "replaces": replaces, "app": app, "icon": icon, "summary": summary,
             "body": body, "actions": actions, "timeout": timeout}
        )  # fmt: skip
        return id

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        for owed in self.held:
            owed.set_result(None)
        self.held.clear()

    @dbus_method()
    def CloseNotification(self, id: UInt32) -> None:
        self.NotificationClosed(id, 3)

    @dbus_signal()
    def ActionInvoked(self, id: UInt32, action: Str) -> ActionInvokedArgs:
        return id, action

    @dbus_signal()
    def NotificationClosed(self, id: UInt32, reason: UInt32) -> ClosedArgs:
        return id, reason


def _plain(value: Any) -> Any:
    if isinstance(value, Variant):
        return _plain(value.value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class PanelHost:
    def __init__(self, address: str, *, notifications: bool = False) -> None:
        self.address = address
        self.watcher = Watcher()
        self.notifications = Notifications() if notifications else None
        self.signals: Counter[str] = Counter()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.bus: MessageBus = self._run(self._connect())

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=30)

    async def _connect(self) -> MessageBus:
        bus = await MessageBus(bus_address=self.address).connect()
        bus.export("/StatusNotifierWatcher", self.watcher)
        await bus.request_name(WATCHER)
        if self.notifications is not None:
            bus.export("/org/freedesktop/Notifications", self.notifications)
            await bus.request_name("org.freedesktop.Notifications")

        def heard(message: Message) -> None:
            if message.message_type == MessageType.SIGNAL and message.interface in (ITEM, MENU):
                self.signals[message.member] += 1

        bus.add_message_handler(heard)
        for interface in (ITEM, MENU):
            await self._call(
                bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "AddMatch", "s", [f"type='signal',interface='{interface}'"],
            )  # fmt: skip
        return bus

    @staticmethod
    async def _call(
        bus: MessageBus,
        dest: str,
        path: str,
        interface: str,
        member: str,
        sig: str,
        body: list[Any],
    ) -> list[Any]:
        reply = await bus.call(
            Message(destination=dest, path=path, interface=interface, member=member,
                    signature=sig, body=body)
        )  # fmt: skip
        assert reply is not None
        if reply.message_type == MessageType.ERROR:
            raise RuntimeError(f"{member}: {reply.error_name} {reply.body}")
        return list(reply.body)

    def call(self, path: str, interface: str, member: str, sig: str, body: list[Any]) -> list[Any]:
        (item,) = self.watcher.items
        return self._run(self._call(self.bus, item, path, interface, member, sig, body))

    @property
    def items(self) -> list[str]:
        return list(self.watcher.items)

    def props(self) -> dict[str, Any]:
        (found,) = self.call(
            "/StatusNotifierItem", "org.freedesktop.DBus.Properties", "GetAll", "s", [ITEM]
        )
        return {k: _plain(v) for k, v in found.items()}

    def menu_props(self) -> dict[str, Any]:
        (found,) = self.call("/MenuBar", "org.freedesktop.DBus.Properties", "GetAll", "s", [MENU])
        return {k: _plain(v) for k, v in found.items()}

    def layout(self) -> tuple[int, list[tuple[int, dict[str, Any]]]]:
        """The menu's revision and its items (id, properties) in order."""
        revision, (root, _props, children) = self.call(
            "/MenuBar", MENU, "GetLayout", "iias", [0, -1, []]
        )
        assert root == 0
        return revision, [(c[0], _plain(c[1])) for c in (_plain(v) for v in children)]

    def labels(self) -> dict[str, dict[str, Any]]:
        return {props["label"]: props for _, props in self.layout()[1] if "label" in props}

    def id_of(self, label: str) -> int:
        return next(i for i, props in self.layout()[1] if props.get("label") == label)

    def click(self, label: str) -> None:
        self.call(
            "/MenuBar", MENU, "Event", "isvu", [self.id_of(label), "clicked", Variant("i", 0), 0]
        )

    def _on_server(self, act: Callable[[Notifications], object]) -> None:
        """``act`` done to the notification server, on its loop."""
        server = self.notifications
        assert server is not None

        async def done() -> None:
            act(server)

        self._run(done())

    def invoke(self, id: int, action: str) -> None:
        """The person clicks ``action`` on notification ``id``."""
        self._on_server(lambda server: server.ActionInvoked(id, action))

    def hold(self) -> None:
        """From now on the server takes each ``Notify`` and answers none."""
        self._on_server(Notifications.hold)

    def release(self) -> None:
        """The server answers every ``Notify`` it held, and each one after."""
        self._on_server(Notifications.release)

    def close(self) -> None:
        if self.notifications is not None and self.notifications.held:
            self.release()  # no call left pending on the loop that ends
        try:
            self.bus.disconnect()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()
