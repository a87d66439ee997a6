"""Accessibility text: the exact strings an application reports, over AT-SPI.

The measured text layer (``ax``): where OCR reads pixels, this asks the
application what it shows. On Linux that is AT-SPI over D-Bus; the reader
talks to the accessibility bus directly with ``dbus-fast``, from any Python
(no PyGObject, no pyatspi).

- ``read_window(pid, rect, title=...)``: the text of one captured window.
  The window's process (``_NET_WM_PID``) is matched to the applications on
  the bus by their D-Bus connection's process, the window to one of their
  frames by title and extents, and only nodes that are showing and inside
  the grabbed rectangle are walked.
- ``exposing_apps()``: which running applications expose a tree (for
  ``noru doctor``).
- ``session_status()`` and ``set_session_enabled(on)``: the session's
  accessibility switch (``org.a11y.Status.IsEnabled``); off unless the
  person turns it on.

Choices made here:

- **Secrets are never read.** A node with the ``password text`` role is
  skipped with its subtree as soon as its role is known: no text, no
  ``CharacterCount`` (a masked field's length gives the password's away), no
  children, nothing of it in the result. AT-SPI has no "secret" state to go
  by; every toolkit marks a masked field by that role.
- **Lines**: a text is split on its newlines; a line of a several-line text
  is placed where the application says it is, and dropped when scrolled out
  of its node's view; a one-line text is placed at its node's box. Boxes are
  in root coordinates, cut to the grabbed rectangle.
- **Names**: a node's name is a line only when its role shows the name as
  text (a button, a tab, a menu item, a check box...) and it has no text of
  its own; and not when a node below it already gives the same words (a
  button whose label is its child reads once, at the label); and not when
  its box is too narrow to show it (an icon's name). Other names (a
  window's title, a panel's, an image's description) are not text on screen.
- **Reading order**: top to bottom in bands of rows, left to right within a
  band (``noru.geometry.order_boxes``, as for OCR lines).
- **Bounds**: at most ``in_flight`` calls wait at once (32 by default: more
  gains nothing, and an uncapped flood breaks the connection); the whole
  read ends at its budget (150 ms by default) with what it has, marked
  partial; at most ``walk.MAX_NODES`` nodes.
- **Fails soft**: no D-Bus failure leaves ``read_window`` as an exception;
  each becomes an ``AxText`` with ``absent`` and the reason in words.
- One connection per process, kept between reads on the reader's own loop
  thread (``noru.ax.bus``), made again when it broke or the session bus
  changed; ``close()`` ends both.
- **Firefox** builds a page's tree on the first request: a document that
  gives placeholders or no text makes the read partial, with that reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noru.ax.base import AxAbsent, AxApp, AxApps, AxLine, AxSession, AxText

if TYPE_CHECKING:
    from noru.ax.bus import close
    from noru.ax.reader import exposing_apps, read_window, session_status, set_session_enabled

# The reader and its D-Bus library (with asyncio: about 50 ms) load on first
# use, so the parts that only hold these types (``noru mcp`` through
# ``noru.capture.base``) do not pay for them.
_LAZY = {
    "close": "noru.ax.bus",
    "exposing_apps": "noru.ax.reader",
    "read_window": "noru.ax.reader",
    "session_status": "noru.ax.reader",
    "set_session_enabled": "noru.ax.reader",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'noru.ax' has no attribute {name!r}")


__all__ = [
    "AxAbsent",
    "AxApp",
    "AxApps",
    "AxLine",
    "AxSession",
    "AxText",
    "close",
    "exposing_apps",
    "read_window",
    "session_status",
    "set_session_enabled",
]
