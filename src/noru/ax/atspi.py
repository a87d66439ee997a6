"""The AT-SPI names the reader uses: D-Bus names, roles and states, as numbers.

Roles and states are AT-SPI's enums (at-spi2-core's ``atspi-constants.h``,
``AtspiRole`` and ``AtspiStateType``): every toolkit sends the numbers, so a
role's name is looked up here rather than asked of the application (one call
fewer per node, and WebKitGTK answers ``GetRoleName`` with nothing). A name
is the enum's own word in lower case, as ``atspi_role_get_name`` gives it
("push button", "password text"); a number newer than this table reads
``"role N"``.
"""

from __future__ import annotations

__all__ = [
    "ACCESSIBLE",
    "APPLICATION",
    "BUS_NAME",
    "BUS_PATH",
    "COMPONENT",
    "COORD_SCREEN",
    "DBUS",
    "DBUS_NAME",
    "DBUS_PATH",
    "DOCUMENT_ROLES",
    "LABEL_ROLES",
    "NAMED_ROLES",
    "PROPERTIES",
    "REGISTRY",
    "ROLE_APPLICATION",
    "ROLE_PASSWORD_TEXT",
    "ROOT_PATH",
    "SECRET_ROLES",
    "STATE_DEFUNCT",
    "STATE_SHOWING",
    "STATE_VISIBLE",
    "STATUS",
    "TEXT",
    "role_name",
    "states",
]

# The session bus's launcher of the accessibility bus, and its switch.
BUS_NAME = "org.a11y.Bus"
BUS_PATH = "/org/a11y/bus"
STATUS = "org.a11y.Status"

# On the accessibility bus.
REGISTRY = "org.a11y.atspi.Registry"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
ACCESSIBLE = "org.a11y.atspi.Accessible"
APPLICATION = "org.a11y.atspi.Application"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
PROPERTIES = "org.freedesktop.DBus.Properties"
DBUS = "org.freedesktop.DBus"
DBUS_NAME = "org.freedesktop.DBus"
DBUS_PATH = "/org/freedesktop/DBus"

COORD_SCREEN = 0  # ATSPI_COORD_TYPE_SCREEN: root-window coordinates on X11

_ROLES = """
invalid, accelerator label, alert, animation, arrow, calendar, canvas, check box,
check menu item, color chooser, column header, combo box, date editor, desktop icon,
desktop frame, dial, dialog, directory pane, drawing area, file chooser, filler,
focus traversable, font chooser, frame, glass pane, html container, icon, image,
internal frame, label, layered pane, list, list item, menu, menu bar, menu item,
option pane, page tab, page tab list, panel, password text, popup menu, progress bar,
push button, radio button, radio menu item, root pane, row header, scroll bar,
scroll pane, separator, slider, spin button, split pane, status bar, table, table cell,
table column header, table row header, tearoff menu item, terminal, text, toggle button,
tool bar, tool tip, tree, tree table, unknown, viewport, window, extended, header,
footer, paragraph, ruler, application, autocomplete, editbar, embedded, entry, chart,
caption, document frame, heading, page, section, redundant object, form, link,
input method window, table row, tree item, document spreadsheet, document presentation,
document text, document web, document email, comment, list box, grouping, image map,
notification, info bar, level bar, title bar, block quote, audio, video, definition,
article, landmark, log, marquee, math, rating, timer, static, math fraction, math root,
subscript, superscript, description list, description term, description value,
footnote, content deletion, content insertion, mark, suggestion, push button menu,
switch
"""
ROLES: tuple[str, ...] = tuple(word.strip() for word in _ROLES.replace("\n", " ").split(","))

ROLE_FRAME = ROLES.index("frame")
ROLE_APPLICATION = ROLES.index("application")
ROLE_PASSWORD_TEXT = ROLES.index("password text")

# A node with one of these roles holds a secret: skipped whole, asked nothing
# more (not its text, not its length, not its children). AT-SPI has no
# "secret" state; every toolkit marks a masked field by this role (GTK 3's
# entry with visibility off, Qt's password line edit, Firefox's and
# Chromium's <input type=password>).
SECRET_ROLES = frozenset({ROLE_PASSWORD_TEXT})

# Roles whose name is text the window shows (a button's label, a tab's
# title), read when the node has no Text of its own. Other names (a panel's,
# an image's description) are not on the screen as text.
NAMED_ROLES = frozenset(
    ROLES.index(role)
    for role in (
        "check box",
        "check menu item",
        "column header",
        "combo box",
        "link",
        "list item",
        "menu",
        "menu item",
        "page tab",
        "push button",
        "push button menu",
        "radio button",
        "radio menu item",
        "row header",
        "switch",
        "table cell",
        "table column header",
        "table row header",
        "toggle button",
        "tool tip",
        "tree item",
    )
)

# Roles whose text is their Text, or their name when they have none: a GTK
# label has Text (and the same words as its name), a Qt label only a name.
# The name is asked only when the Text is not there.
LABEL_ROLES = frozenset(
    ROLES.index(role) for role in ("label", "static", "caption", "heading", "accelerator label")
)

# A document: a page, or a text, in a view of its own.
DOCUMENT_ROLES = frozenset(
    ROLES.index(role)
    for role in (
        "document frame",
        "document web",
        "document text",
        "document email",
        "document spreadsheet",
        "document presentation",
    )
)


# AtspiStateType: bit N of the state set, sent as two 32-bit words.
STATE_DEFUNCT = 6
STATE_SHOWING = 25
STATE_VISIBLE = 30


def role_name(role: int) -> str:
    return ROLES[role] if 0 <= role < len(ROLES) else f"role {role}"


def states(words: list[int]) -> int:
    """The state set as one integer: bit N set when state N holds."""
    value = 0
    for index, word in enumerate(words):
        value |= (word & 0xFFFFFFFF) << (32 * index)
    return value
