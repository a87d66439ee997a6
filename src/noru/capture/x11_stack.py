"""The X11 window stack and its windows' facts, in a few round trips.

Asked one at a time, each fact is a round trip to the X server: about 20
for a screen with one window, 15 more for each further window, so a desktop
of twenty windows would spend tens of milliseconds of every capture only
waiting. Here every request of a step is sent before any reply is read
(python-xlib's deferred requests: one write, one wait), so the whole stack
takes a round trip per step whatever the number of windows: the root's
children; their attributes and geometry; which of them, or of their
children, level by level, is the client (``WM_STATE``); and the clients'
facts. A window closed while this looks answers with an error; it is left
out (a frame), or its facts are unknown (a client), as one at a time.

The facts are those ``noru.capture.x11`` documents: the title
(``_NET_WM_NAME``, else ``WM_NAME``), the ``WM_CLASS`` class, the pid
(``_NET_WM_PID``), and the client's rectangle in root coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from Xlib import X, Xatom
from Xlib import error as xerror
from Xlib.protocol import request

from noru.capture.base import Rect, WindowFacts

__all__ = ["clients_below", "decode", "facts_of", "stack"]

# Property bytes asked for at once (in 4-byte units): a title longer than
# 1 KB is read again whole.
LENGTH = 256
GONE = (xerror.BadWindow, xerror.BadDrawable)

Atom = Callable[[str], int]


def stack(dpy: Any, root: Any) -> list[tuple[Any, Rect]]:
    """The root's viewable children, bottom to top (the stacking order), each
    with its frame's rectangle (border included) in root coordinates."""
    children = root.query_tree().children
    asked = [
        (
            win,
            request.GetWindowAttributes(display=dpy.display, defer=True, window=win.id),
            request.GetGeometry(display=dpy.display, defer=True, drawable=win.id),
        )
        for win in children
    ]
    found = []
    for win, attributes, geometry in asked:
        try:
            attributes.reply()
            geometry.reply()
        except GONE:
            continue  # closed while we looked
        if attributes.map_state != X.IsViewable:
            continue
        border = int(geometry.border_width)
        width = int(geometry.width) + 2 * border
        height = int(geometry.height) + 2 * border
        if width > 1 and height > 1:
            found.append((win, (int(geometry.x), int(geometry.y), width, height)))
    return found


def clients_below(dpy: Any, tops: Sequence[Any], atom: Atom, depth: int) -> list[Any | None]:
    """For each root child in ``tops``, the client window inside it: itself
    when it carries ``WM_STATE``, else the first that does among its
    children (topmost first), then theirs, down to ``depth`` levels; the
    root child itself when none does (no reparenting window manager); None
    when it closed while this looked."""
    wm_state = atom("WM_STATE")
    found: list[Any | None] = list(tops)
    # Per top still searched: the windows of the level being looked at.
    searching: dict[int, list[Any]] = {i: [top] for i, top in enumerate(tops)}
    for level in range(depth + 1):
        if not searching:
            break
        asked = {
            i: [(win, _property(dpy, win, wm_state, X.AnyPropertyType, 0)) for win in level_wins]
            for i, level_wins in searching.items()
        }
        below: dict[int, list[Any]] = {}
        for i, replies in asked.items():
            client = None
            for win, state in replies:
                try:
                    state.reply()
                except GONE:
                    if level == 0:
                        found[i] = None  # the frame itself is gone
                        break
                    continue
                if state.property_type != X.NONE:
                    client = win
                    break
            else:
                if client is None and level < depth:
                    below[i] = [win for win, _ in replies]
            if client is not None:
                found[i] = client
        if not below:
            break
        trees = {
            i: [request.QueryTree(display=dpy.display, defer=True, window=w.id) for w in wins]
            for i, wins in below.items()
        }
        searching = {}
        for i, asked_trees in trees.items():
            children: list[Any] = []
            for tree in asked_trees:
                try:
                    tree.reply()
                except GONE:
                    continue
                # query_tree lists bottom to top; the client sits on top of a
                # frame's decoration windows, so look there first.
                children.extend(reversed(tree.children))
            if children:
                searching[i] = children
    return found


def facts_of(
    dpy: Any, root: Any, windows: Sequence[Any | None], atom: Atom
) -> list[WindowFacts | None]:
    """Each client window's facts; None for one that closed while this looked."""
    props = (
        (atom("_NET_WM_NAME"), atom("UTF8_STRING")),
        (Xatom.WM_NAME, X.AnyPropertyType),
        (Xatom.WM_CLASS, Xatom.STRING),
        (atom("_NET_WM_PID"), Xatom.CARDINAL),
    )
    asked: list[tuple[Any, Any, Any, list[Any]] | None] = []
    for win in windows:
        if win is None:
            asked.append(None)
            continue
        origin = request.TranslateCoords(
            display=dpy.display, defer=True, src_wid=win.id, dst_wid=root.id, src_x=0, src_y=0
        )
        geometry = request.GetGeometry(display=dpy.display, defer=True, drawable=win.id)
        values = [_property(dpy, win, name, kind, LENGTH) for name, kind in props]
        asked.append((win, origin, geometry, values))
    found: list[WindowFacts | None] = []
    for item in asked:
        if item is None:
            found.append(None)
            continue
        win, origin, geometry, values = item
        try:
            origin.reply()
            geometry.reply()
            net_name, wm_name, wm_class, pid = (
                _value(win, v, kind) for v, (_, kind) in zip(values, props, strict=True)
            )
        except GONE:
            found.append(None)
            continue
        app = wm_class_of(wm_class)
        found.append(
            WindowFacts(
                title=title_of(net_name, wm_name),
                app_id=app,
                app_name=app,
                rect=(int(origin.x), int(origin.y), int(geometry.width), int(geometry.height)),
                pid=pid_of(pid),
            )
        )
    return found


def _property(dpy: Any, win: Any, name: int, kind: int, length: int) -> Any:
    return request.GetProperty(
        display=dpy.display, defer=True, delete=False, window=win.id,
        property=name, type=kind, long_offset=0, long_length=length,
    )  # fmt: skip


class Property:
    """A property's value as python-xlib's ``get_full_property`` gives it."""

    def __init__(self, property_type: int, format: int, value: Any) -> None:
        self.property_type, self.format, self.value = property_type, format, value


def _value(win: Any, asked: Any, kind: int) -> Property | None:
    """The reply to a property asked for: None when the window has none; a
    value longer than asked for is read again whole."""
    asked.reply()
    if not asked.property_type:
        return None
    if asked.bytes_after:
        full = win.get_full_property(asked.property, kind, sizehint=LENGTH)  # rare: a long title
        return None if full is None else Property(full.property_type, full.format, full.value)
    fmt, value = asked.value
    return Property(asked.property_type, fmt, value)


def decode(value: Any, encoding: str) -> str | None:
    text = value if isinstance(value, str) else bytes(value).decode(encoding, "replace")
    text = text.replace("\0", "").strip()
    return text or None


def title_of(net_name: Property | None, wm_name: Property | None) -> str | None:
    """``_NET_WM_NAME`` (UTF-8), else ``WM_NAME``."""
    if net_name is not None and net_name.format == 8 and (title := decode(net_name.value, "utf-8")):
        return title
    if wm_name is None or wm_name.format != 8:
        return None
    # ICCCM STRING is Latin-1; clients that set UTF8_STRING or COMPOUND_TEXT
    # here are nearly always plain ASCII, which UTF-8 reads the same.
    encoding = "latin-1" if wm_name.property_type == Xatom.STRING else "utf-8"
    return decode(wm_name.value, encoding)


def wm_class_of(prop: Property | None) -> str | None:
    """The class part of ``WM_CLASS`` ("instance\\0class\\0")."""
    if prop is None or prop.format != 8:
        return None
    raw = prop.value if isinstance(prop.value, bytes) else str(prop.value).encode("latin-1")
    parts = raw.split(b"\0")
    return decode(parts[1], "latin-1") if len(parts) >= 2 else None


def pid_of(prop: Property | None) -> int | None:
    if prop is None or prop.format != 32 or len(prop.value) == 0:
        return None
    return int(prop.value[0]) or None
