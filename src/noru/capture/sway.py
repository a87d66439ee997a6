"""The sway backend (Wayland, wlroots): pixels through ``grim``, facts through sway's IPC.

What every wlroots compositor shares (``grim`` at each output's scale, no
pointer) is ``noru.capture.wlroots``; here is how sway's own IPC socket
(``$SWAYSOCK``, the i3 IPC protocol: ``get_tree``, ``get_outputs``) is read.

Facts and where they come from:

- displays: ``get_outputs``, active ones, in sway's order; each rectangle is
  in the layout's (logical) coordinates, as windows are; ``primary`` is the
  focused output.
- windows: the tree's views (``get_tree``): ``name`` is the title; ``app_id``
  is the Wayland app id, or for an XWayland window (which has none) the
  class its X properties give (``window_properties.class``), never a guess;
  ``pid`` as sway reports it. A window's rectangle is its content
  (``rect`` + ``window_rect``), its frame the container's ``rect``.
  Visible views of the visible workspaces, tiled ones first, then floating
  ones in their stacking order.
- the active window: the focused view.
"""

from __future__ import annotations

import glob
import json
import os
import socket
import struct
from typing import Any

from noru.capture.base import Rect, WindowFacts
from noru.capture.wlroots import Output, View, WlrootsBackend
from noru.errors import CaptureError

__all__ = ["SwayBackend", "sway_socket"]

_MAGIC = b"i3-ipc"
_HEADER = struct.Struct("=6sII")
GET_OUTPUTS, GET_TREE = 3, 4
IPC_TIMEOUT = 5.0


def sway_socket() -> str | None:
    """Sway's IPC socket: ``$SWAYSOCK``, else the one in ``$XDG_RUNTIME_DIR``."""
    named = os.environ.get("SWAYSOCK")
    if named:
        return named
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if not runtime:
        return None
    found = sorted(glob.glob(os.path.join(runtime, f"sway-ipc.{os.getuid()}.*.sock")))
    return found[-1] if found else None


def _rect(node: dict[str, Any], key: str = "rect") -> Rect:
    r = node[key]
    return (int(r["x"]), int(r["y"]), int(r["width"]), int(r["height"]))


class SwayBackend(WlrootsBackend):
    name = "sway"
    compositor = "sway"

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self._ask(GET_OUTPUTS)  # reachable now, or a CaptureError that says why

    # -- IPC ---------------------------------------------------------------------

    def _ask(self, kind: int) -> Any:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(IPC_TIMEOUT)
                sock.connect(self.path)
                sock.sendall(_HEADER.pack(_MAGIC, 0, kind))
                head = self._read(sock, _HEADER.size)
                magic, size, _ = _HEADER.unpack(head)
                if magic != _MAGIC:
                    raise CaptureError("sway's IPC socket answered in another protocol")
                return json.loads(self._read(sock, size))
        except (OSError, ValueError) as exc:
            raise self._lost(exc) from exc

    @staticmethod
    def _read(sock: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise OSError("the socket closed")
            data += chunk
        return data

    # -- facts -------------------------------------------------------------------

    def outputs(self) -> list[Output]:
        return [
            Output(o.get("name"), _rect(o), float(o.get("scale") or 1.0), bool(o.get("focused")))
            for o in self._ask(GET_OUTPUTS)
            if o.get("active")
        ]

    def views(self) -> list[View]:
        found: list[View] = []

        def facts(node: dict[str, Any]) -> WindowFacts:
            props = node.get("window_properties") or {}
            app = node.get("app_id") or props.get("class") or None
            content = _rect(node)
            inner = node.get("window_rect")
            if inner and inner.get("width") and inner.get("height"):
                x, y, _, _ = content
                content = (x + inner["x"], y + inner["y"], inner["width"], inner["height"])
            pid = node.get("pid")
            return WindowFacts(
                title=node.get("name") or None,
                app_id=app,
                app_name=app,
                rect=content,
                pid=pid if isinstance(pid, int) and pid > 0 else None,
            )

        def walk(node: dict[str, Any]) -> None:
            is_view = node.get("type") in ("con", "floating_con") and "pid" in node
            if is_view and not node.get("nodes") and not node.get("floating_nodes"):
                if node.get("visible"):
                    found.append(View(_rect(node), facts(node), bool(node.get("focused"))))
                return
            for child in node.get("nodes") or ():
                walk(child)
            for child in node.get("floating_nodes") or ():  # above the tiled ones
                walk(child)

        walk(self._ask(GET_TREE))
        return found
