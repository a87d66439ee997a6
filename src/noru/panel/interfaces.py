"""The two D-Bus interfaces a panel host reads: the StatusNotifierItem
(the icon, its tooltip and status) and its com.canonical.dbusmenu (the
items, and the clicks on them). Both only read the menu's state and pass
clicks on; ``noru.panel.item.Panel`` owns the state and the loop.
"""

# No `from __future__ import annotations`: dbus-fast reads the D-Bus
# signatures from the annotations themselves, at class definition.

from pathlib import Path
from typing import Annotated, Any, Protocol

from dbus_fast import PropertyAccess, Variant
from dbus_fast.annotations import DBusSignature
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property, dbus_signal

from noru.panel import menu

__all__ = [
    "ICONS",
    "ITEM_PATH",
    "MENU_PATH",
    "WATCHER",
    "WATCHER_PATH",
    "ItemInterface",
    "MenuInterface",
    "Shown",
    "pixmaps_of",
]

ICONS = Path(__file__).parent / "icons"
ITEM_PATH = "/StatusNotifierItem"
MENU_PATH = "/MenuBar"
WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"

# The D-Bus signatures of the interfaces' arguments and results, each named for
# what it carries (dbus-fast reads the signature; the name is for the reader).
Str = Annotated[str, DBusSignature("s")]
Int32 = Annotated[int, DBusSignature("i")]
UInt32 = Annotated[int, DBusSignature("u")]
Bool = Annotated[bool, DBusSignature("b")]
ObjectPath = Annotated[str, DBusSignature("o")]
AnyValue = Annotated[Variant, DBusSignature("v")]
StrList = Annotated[list[str], DBusSignature("as")]
Int32List = Annotated[list[int], DBusSignature("ai")]
IconPixmaps = Annotated[list[list[Any]], DBusSignature("a(iiay)")]
ToolTipStruct = Annotated[list[Any], DBusSignature("(sa(iiay)ss)")]
MenuLayout = Annotated[tuple[int, list[Any]], DBusSignature("u(ia{sv}av)")]
ItemsProperties = Annotated[list[list[Any]], DBusSignature("a(ia{sv})")]
MenuEvents = Annotated[list[list[Any]], DBusSignature("a(isvu)")]
AboutToShowReply = Annotated[tuple[list[int], list[int]], DBusSignature("aiai")]
PropertiesUpdate = Annotated[
    tuple[list[list[Any]], list[list[Any]]], DBusSignature("a(ia{sv})a(ias)")
]
LayoutRevision = Annotated[tuple[int, int], DBusSignature("ui")]


class Shown(Protocol):
    """What the interfaces read of the menu (``noru.panel.item.Panel``)."""

    revision: int

    @property
    def looking(self) -> bool: ...

    @property
    def icon(self) -> str: ...

    @property
    def tooltip(self) -> str: ...

    def items(self) -> list[menu.Item]: ...

    def pixmaps(self, name: str) -> list[list[Any]]: ...

    def clicked(self, id: int) -> None: ...


def pixmaps_of(name: str) -> list[list[Any]]:
    """The icon as ARGB32 pixmaps (network byte order) at 22, 32, 48 and 64 px,
    for hosts that do not read ``IconThemePath``."""
    from PIL import Image

    out = []
    with Image.open(ICONS / f"{name}.png") as file:
        drawn = file.convert("RGBA")
        for size in (22, 32, 48, 64):
            image = drawn.resize((size, size), Image.Resampling.LANCZOS)
            r, g, b, a = image.split()
            argb = Image.merge("RGBA", (a, r, g, b)).tobytes()
            out.append([size, size, argb])
    return out


def _variant(value: object) -> Variant:
    if isinstance(value, bool):
        return Variant("b", value)
    if isinstance(value, int):
        return Variant("i", value)
    return Variant("s", str(value))


class ItemInterface(ServiceInterface):
    def __init__(self, panel: Shown) -> None:
        super().__init__("org.kde.StatusNotifierItem")
        self.panel = panel

    @dbus_property(access=PropertyAccess.READ)
    def Category(self) -> Str:
        return "ApplicationStatus"

    @dbus_property(access=PropertyAccess.READ)
    def Id(self) -> Str:
        return "noru"

    @dbus_property(access=PropertyAccess.READ)
    def Title(self) -> Str:
        return "Noru"

    @dbus_property(access=PropertyAccess.READ)
    def Status(self) -> Str:
        return "NeedsAttention" if self.panel.looking else "Active"

    @dbus_property(access=PropertyAccess.READ)
    def WindowId(self) -> Int32:
        return 0

    @dbus_property(access=PropertyAccess.READ)
    def IconName(self) -> Str:
        return self.panel.icon

    @dbus_property(access=PropertyAccess.READ)
    def IconThemePath(self) -> Str:
        return str(ICONS)

    @dbus_property(access=PropertyAccess.READ)
    def IconPixmap(self) -> IconPixmaps:
        return self.panel.pixmaps(self.panel.icon)

    @dbus_property(access=PropertyAccess.READ)
    def OverlayIconName(self) -> Str:
        return ""

    @dbus_property(access=PropertyAccess.READ)
    def AttentionIconName(self) -> Str:
        return "noru-looking"

    @dbus_property(access=PropertyAccess.READ)
    def AttentionIconPixmap(self) -> IconPixmaps:
        return self.panel.pixmaps("noru-looking")

    @dbus_property(access=PropertyAccess.READ)
    def ToolTip(self) -> ToolTipStruct:
        return ["", [], "Noru", self.panel.tooltip]

    @dbus_property(access=PropertyAccess.READ)
    def ItemIsMenu(self) -> Bool:
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Menu(self) -> ObjectPath:
        return MENU_PATH

    @dbus_method()
    def ContextMenu(self, x: Int32, y: Int32) -> None:
        return None

    @dbus_method()
    def Activate(self, x: Int32, y: Int32) -> None:
        return None  # ItemIsMenu: hosts open the menu instead

    @dbus_method()
    def SecondaryActivate(self, x: Int32, y: Int32) -> None:
        return None

    @dbus_method()
    def Scroll(self, delta: Int32, orientation: Str) -> None:
        return None

    @dbus_signal()
    def NewIcon(self) -> None:
        return None

    @dbus_signal()
    def NewAttentionIcon(self) -> None:
        return None

    @dbus_signal()
    def NewToolTip(self) -> None:
        return None

    @dbus_signal()
    def NewStatus(self) -> Str:
        return "NeedsAttention" if self.panel.looking else "Active"


class MenuInterface(ServiceInterface):
    def __init__(self, panel: Shown) -> None:
        super().__init__("com.canonical.dbusmenu")
        self.panel = panel

    @dbus_property(access=PropertyAccess.READ)
    def Version(self) -> UInt32:
        return 3

    @dbus_property(access=PropertyAccess.READ)
    def TextDirection(self) -> Str:
        return "ltr"

    @dbus_property(access=PropertyAccess.READ)
    def Status(self) -> Str:
        return "normal"

    @dbus_property(access=PropertyAccess.READ)
    def IconThemePath(self) -> StrList:
        return [str(ICONS)]

    def _item_properties(self, item: menu.Item, names: list[str]) -> dict[str, Variant]:
        return {
            name: _variant(value)
            for name, value in item.properties().items()
            if not names or name in names
        }

    @dbus_method()
    def GetLayout(self, parent: Int32, depth: Int32, names: StrList) -> MenuLayout:
        items = self.panel.items()
        children = [
            Variant("(ia{sv}av)", [item.id, self._item_properties(item, names), []])
            for item in items
            if parent == 0 and depth != 0
        ]
        if parent == 0:
            return self.panel.revision, [0, {"children-display": Variant("s", "submenu")},
                                         children]  # fmt: skip
        found = next((item for item in items if item.id == parent), None)
        if found is None:
            return self.panel.revision, [parent, {}, []]
        return self.panel.revision, [parent, self._item_properties(found, names), []]

    @dbus_method()
    def GetGroupProperties(self, ids: Int32List, names: StrList) -> ItemsProperties:
        items = self.panel.items()
        found = [
            [item.id, self._item_properties(item, names)]
            for item in items
            if not ids or item.id in ids
        ]
        if not ids or 0 in ids:
            # The root is an item too: libdbusmenu-glib asks for its properties
            # at each LayoutUpdated and warns when they are not in the answer.
            root = {"children-display": Variant("s", "submenu")}
            found.insert(0, [0, {k: v for k, v in root.items() if not names or k in names}])
        return found

    @dbus_method()
    def GetProperty(self, id: Int32, name: Str) -> AnyValue:
        item = next((item for item in self.panel.items() if item.id == id), None)
        props = item.properties() if item else {}
        return _variant(props.get(name, ""))

    @dbus_method()
    def Event(self, id: Int32, event: Str, data: AnyValue, timestamp: UInt32) -> None:
        if event == "clicked":
            self.panel.clicked(id)

    @dbus_method()
    def EventGroup(self, events: MenuEvents) -> Int32List:
        known = {item.id for item in self.panel.items()}
        for id, event, _data, _timestamp in events:
            if id in known and event == "clicked":
                self.panel.clicked(id)
        return [id for id, *_ in events if id not in known]

    @dbus_method()
    def AboutToShow(self, id: Int32) -> Bool:
        return False

    @dbus_method()
    def AboutToShowGroup(self, ids: Int32List) -> AboutToShowReply:
        return [], []

    @dbus_signal()
    def LayoutUpdated(self) -> LayoutRevision:
        return self.panel.revision, 0

    @dbus_signal()
    def ItemsPropertiesUpdated(self) -> PropertiesUpdate:
        return [], []
