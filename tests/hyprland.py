"""Hyprland's request socket, answering for a real headless sway: the one seam
where the Hyprland tests stand in for a program.

Hyprland is not packaged for Debian (12 or 13), so no test here can run it.
What Noru's Hyprland backend needs from it is two things: the pixels, which
Hyprland gives through ``wlr-screencopy`` as every wlroots compositor does
(so the real ``grim`` reads them here from a real sway), and its window and
monitor facts, which come from its IPC socket. ``HyprlandSocket`` is that
socket: at ``$XDG_RUNTIME_DIR/hypr/SIGNATURE/.socket.sock``, one request per
connection as Hyprland serves it (the client writes ``j/clients``, the
answer is written and the connection closed), each answer built at the
moment it is asked from sway's own tree and outputs, so the windows and
pixels it describes are the real ones on screen.

The answers follow Hyprland's ``hyprctl -j`` (as its ``src/debug/HyprCtl.cpp``
writes them): every field, in its order, in the units it uses,
which are not sway's: a monitor's ``width, height`` are its mode in
pixels (sway gives the layout size), ``x, y`` its place in the layout; a
window's ``at, size`` are its content's layout rectangle; ``class`` is the
app id, or an X window's class; ``scale`` has two decimals (4/3 is 1.33);
workspaces have numeric ids, 0 for none;
``activewindow`` is ``{}`` when nothing has the focus; an unknown request
is answered ``unknown request``. ``fullscreen`` is the newer numeric mode.

A test can make it answer otherwise (``answer``: a request's reply replaced,
bytes or None for a connection closed unanswered) and reads what was asked
(``asked``; ``half_closed``: whether each request was ended by the
client's EOF, which newer Hyprland waits for). ``stop`` closes it as a
Hyprland that quit.
"""

from __future__ import annotations

import json
import secrets
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from tests.sway import Sway

__all__ = ["HyprlandSocket", "hyprland_socket_for"]


def _views(
    node: dict[str, Any], workspace: dict[str, Any] | None = None
) -> Iterator[tuple[dict[str, Any], dict[str, Any], bool]]:
    """Every window of the tree, tiled before floating, with its workspace
    and whether it floats."""
    if node.get("type") == "workspace":
        workspace = node
    for key, floating in (("nodes", False), ("floating_nodes", True)):
        for child in node.get(key) or ():
            if "pid" in child and not child.get("nodes") and workspace is not None:
                yield child, workspace, floating
            else:
                yield from _views(child, workspace)


def _workspace(node: dict[str, Any]) -> dict[str, Any]:
    return {"id": int(node.get("num", -1)), "name": str(node.get("name", ""))}


class HyprlandSocket:
    """Hyprland's ``.socket.sock`` for ``sway``'s session (see the module)."""

    def __init__(self, sway: Sway, signature: str) -> None:
        self.sway = sway
        self.signature = signature
        self.folder = sway.runtime_dir / "hypr" / signature
        self.path = self.folder / ".socket.sock"
        self.asked: list[str] = []
        self.half_closed: list[bool] = []  # per request: the client ended it (EOF)
        self.replies: dict[str, bytes | None] = {}
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def env(self) -> dict[str, str]:
        """A Hyprland session's environment: its signature, no sway socket."""
        env = {k: v for k, v in self.sway.env.items() if k != "SWAYSOCK"}
        env["HYPRLAND_INSTANCE_SIGNATURE"] = self.signature
        return env

    def answer(self, request: str, reply: bytes | None) -> None:
        """Answer ``request`` (``j/monitors``) with ``reply``; None: close unanswered."""
        self.replies[request] = reply

    # -- the answers, in Hyprland's format ---------------------------------------------

    def _monitors(self) -> list[dict[str, Any]]:
        numbers = {
            ws["name"]: ws
            for out in self.sway.tree()["nodes"]
            for ws in out.get("nodes") or ()
            if ws.get("type") == "workspace"
        }
        found = []
        for n, o in enumerate(o for o in self.sway.outputs() if o.get("active")):
            mode, rect = o["current_mode"], o["rect"]
            shown = numbers.get(o.get("current_workspace") or "", {})
            found.append(
                {
                    "id": n,
                    "name": o["name"],
                    "description": f"{o.get('make', '')} {o.get('model', '')}".strip(),
                    "make": o.get("make", ""),
                    "model": o.get("model", ""),
                    "serial": o.get("serial", ""),
                    "width": mode["width"],  # pixels, not the layout's size
                    "height": mode["height"],
                    "refreshRate": mode.get("refresh", 60000) / 1000,
                    "x": rect["x"],
                    "y": rect["y"],
                    "activeWorkspace": _workspace(shown) if shown else {"id": 0, "name": ""},
                    "specialWorkspace": {"id": 0, "name": ""},
                    "reserved": [0, 0, 0, 0],
                    "scale": round(float(o.get("scale") or 1.0), 2),  # as {:.2f} prints it
                    "transform": 0,
                    "focused": bool(o.get("focused")),
                    "dpmsStatus": True,
                    "vrr": False,
                    "solitary": "0",
                    "activelyTearing": False,
                    "directScanoutTo": "0",
                    "disabled": False,
                    "currentFormat": "XRGB8888",
                    "mirrorOf": "none",
                    "availableModes": [f"{mode['width']}x{mode['height']}@60.00Hz"],
                }
            )
        return found

    def _clients(self) -> list[dict[str, Any]]:
        tree = self.sway.tree()
        outputs = [o for o in tree["nodes"] if o.get("name") != "__i3"]
        found = []
        for monitor, output in enumerate(outputs):
            for node, workspace, floating in _views(output):
                x, y = node["rect"]["x"], node["rect"]["y"]
                inner = node["window_rect"]
                props = node.get("window_properties") or {}
                app = node.get("app_id") or props.get("class") or ""
                title = node.get("name") or ""
                found.append(
                    {
                        "address": f"0x{node['id']:x}",
                        "mapped": True,
                        "hidden": False,
                        "at": [x + inner["x"], y + inner["y"]],
                        "size": [inner["width"], inner["height"]],
                        "workspace": _workspace(workspace),
                        "floating": floating,
                        "pseudo": False,
                        "monitor": monitor,
                        "class": app,
                        "title": title,
                        "initialClass": app,
                        "initialTitle": title,
                        "pid": node["pid"],
                        "xwayland": node.get("shell") == "xwayland",
                        "pinned": False,
                        "fullscreen": 2 if node.get("fullscreen_mode") else 0,
                        "fullscreenClient": 2 if node.get("fullscreen_mode") else 0,
                        "grouped": [],
                        "tags": [],
                        "swallowing": "0x0",
                        "focusHistoryID": 0 if node.get("focused") else 1,
                        "inhibitingIdle": False,
                        "xdgTag": "",
                        "xdgDescription": "",
                    }
                )
        return found

    def _reply(self, request: str) -> bytes | None:
        self.asked.append(request)
        if request in self.replies:
            return self.replies[request]
        if request == "j/monitors":
            body: Any = self._monitors()
        elif request == "j/clients":
            body = self._clients()
        elif request == "j/activewindow":
            body = next((c for c in self._clients() if c["focusHistoryID"] == 0), {})
        else:
            return b"unknown request"
        return json.dumps(body, indent=4).encode()

    # -- the socket -------------------------------------------------------------------

    def start(self) -> None:
        owner = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                conn.settimeout(5)
                request = conn.recv(8192).decode(errors="replace")
                # Newer Hyprland reads a request to its end: the client's EOF.
                try:
                    owner.half_closed.append(conn.recv(1) == b"")
                except TimeoutError:
                    owner.half_closed.append(False)
                reply = owner._reply(request)
                if reply is not None:
                    conn.sendall(reply)

        self.folder.mkdir(parents=True, exist_ok=True)
        self._server = socketserver.ThreadingUnixStreamServer(str(self.path), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Close it as a Hyprland that quit: the socket file stays, nothing answers."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None


@contextmanager
def hyprland_socket_for(sway: Sway) -> Iterator[HyprlandSocket]:
    """A ``HyprlandSocket`` for ``sway``, started, and removed on the way out."""
    # Hyprland's signatures are a commit hash, a time and a number; the shape
    # is kept, shorter, for a socket path within 108 bytes.
    ipc = HyprlandSocket(sway, f"{secrets.token_hex(6)}_{secrets.randbelow(10**9)}")
    ipc.start()
    try:
        yield ipc
    finally:
        ipc.stop()
        ipc.path.unlink(missing_ok=True)
        for folder in (ipc.folder, ipc.folder.parent):
            with suppress(OSError):  # not empty: another test's
                folder.rmdir()
