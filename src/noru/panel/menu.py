"""The Noru menu as data: its items and its icon for an access state.

Pure: no D-Bus here. ``layout`` gives the items in order, each with the
dbusmenu properties a panel shows (label, enabled, a radio mark for the
state in force); ``icon`` the icon's name. The item ids are fixed, so a
panel's click (``Event(id, "clicked")``) names the same action whatever
changed since it drew the menu.
"""

from __future__ import annotations

from dataclasses import dataclass

from noru.access import AccessState, mode

__all__ = ["ACTIONS", "Item", "icon", "layout", "mode"]

# id -> action; the access ones are `noru.access.set_control`'s commands.
ACTIONS = {
    1: "allow",
    2: "pause",
    3: "resume",
    4: "revoke",
    10: "capture-window",
    11: "capture-display",
    20: "console",
    30: "quit",
}


@dataclass(frozen=True)
class Item:
    # 0 is the root. Every id is positive, separators' too: libdbusmenu-glib
    # (XFCE's panel, and the hosts built on it) drops an item with a negative id.
    id: int
    label: str = ""
    enabled: bool = True
    checked: bool | None = None  # None: not a toggle
    separator: bool = False

    def properties(self) -> dict[str, object]:
        """This item's dbusmenu properties (only those not at their default)."""
        if self.separator:
            return {"type": "separator"}
        props: dict[str, object] = {"label": self.label}
        if not self.enabled:
            props["enabled"] = False
        if self.checked is not None:
            props["toggle-type"] = "radio"
            props["toggle-state"] = 1 if self.checked else 0
        return props


def layout(state: AccessState, *, console: bool = True) -> list[Item]:
    """The menu's items, top to bottom, for ``state``."""
    now = mode(state)
    items = [
        Item(1, "Allow Agent Observations", enabled=now != "allowed", checked=now == "allowed"),
        Item(2, "Pause Agent Perception", enabled=now == "allowed"),
        Item(3, "Resume Agent Perception", enabled=now == "paused", checked=now == "paused"),
        Item(4, "Revoke Agent Access", enabled=now != "revoked", checked=now == "revoked"),
        Item(5, separator=True),
        Item(10, "Capture Window Now"),
        Item(11, "Capture Display"),
        Item(12, separator=True),
    ]
    if console:
        items.append(Item(20, "Open Console"))
    items.append(Item(30, "Quit Noru"))
    return items


def icon(state: AccessState, *, looking: bool) -> str:
    """The icon's name: ``noru-looking`` while an agent looks (for a few
    seconds after it did), else the access mode's."""
    return "noru-looking" if looking else f"noru-{mode(state)}"
