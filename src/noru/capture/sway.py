"""The sway backend (Wayland, wlroots): pixels through ``grim``, facts through sway's IPC.

A Wayland client cannot read other clients' pixels or windows; a wlroots
compositor gives both to tools that ask it: the pixels through the
``wlr-screencopy`` protocol, which Debian's ``grim`` speaks, and the windows
and outputs through sway's own IPC socket (``$SWAYSOCK``, the i3 IPC
protocol: ``get_tree``, ``get_outputs``).

Why ``grim`` and not the protocol directly: PyPI's ``pywayland`` ships
``ext-image-copy-capture`` but not ``wlr-screencopy``, the only one sway 1.7
offers, so speaking it ourselves means generating and keeping protocol
bindings; ``grim`` is one small C program that does exactly this, and
measured about 50 ms for 2560x1600 here (docs/performance.md).

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
- the pointer: Wayland gives no client the pointer's position, and sway's
  IPC does not either, so "the window under the pointer" is the focused
  window and "the display under the pointer" the focused output
  (``degraded_modes`` says so).

Pixels: a rectangle is grabbed at the scale of the outputs it lies on
(``grim -s``), so a HiDPI output gives its own pixels, neither upscaled nor
downscaled; the facade maps rectangles into the image by its size.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shutil
import socket
import struct
import subprocess
from typing import Any

from PIL import Image

from noru.capture.base import Backend, Degraded, DegradedMode, Display, Rect, WindowFacts
from noru.errors import CaptureError
from noru.geometry import clip

__all__ = ["SwayBackend", "sway_socket"]

_MAGIC = b"i3-ipc"
_HEADER = struct.Struct("=6sII")
GET_OUTPUTS, GET_TREE = 3, 4
IPC_TIMEOUT = 5.0
GRIM_TIMEOUT = 10.0


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


class SwayBackend(Backend):
    name = "sway"

    def __init__(self, path: str) -> None:
        self.path = path
        self._broken = False
        if shutil.which("grim") is None:
            raise CaptureError(
                "screen capture on sway needs grim, which is not installed (apt install grim)"
            )
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
            self._broken = True
            raise CaptureError(f"sway does not answer on its IPC socket ({exc})") from exc

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

    def _outputs(self) -> list[dict[str, Any]]:
        return [o for o in self._ask(GET_OUTPUTS) if o.get("active")]

    def screen_rect(self) -> Rect:
        rects = [_rect(o) for o in self._outputs()]
        if not rects:
            raise CaptureError("sway has no active output to capture")
        x0 = min(x for x, _, _, _ in rects)
        y0 = min(y for _, y, _, _ in rects)
        x1 = max(x + w for x, _, w, _ in rects)
        y1 = max(y + h for _, y, _, h in rects)
        return (x0, y0, x1 - x0, y1 - y0)

    def displays(self) -> list[Display]:
        outputs = self._outputs()
        if not outputs:
            raise CaptureError("sway has no active output to capture")
        return [
            Display(n, o.get("name"), *_rect(o), primary=bool(o.get("focused")))
            for n, o in enumerate(outputs, start=1)
        ]

    def _views(self) -> list[tuple[Rect, WindowFacts, bool]]:
        """Visible views bottom to top: frame, facts, focused."""
        found: list[tuple[Rect, WindowFacts, bool]] = []

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
                    found.append((_rect(node), facts(node), bool(node.get("focused"))))
                return
            for child in node.get("nodes") or ():
                walk(child)
            for child in node.get("floating_nodes") or ():  # above the tiled ones
                walk(child)

        walk(self._ask(GET_TREE))
        return found

    def stacked_windows(self, *, facts: bool = True) -> list[tuple[Rect, WindowFacts | None]]:
        return [(frame, info if facts else None) for frame, info, _ in self._views()]

    def active_window(self) -> WindowFacts | None:
        return next((info for _, info, focused in self._views() if focused), None)

    def pointer_window(self) -> WindowFacts | None:
        return self.active_window()  # Wayland does not say where the pointer is

    def pointer_position(self) -> tuple[int, int]:
        displays = self.displays()
        shown = next((d for d in displays if d.primary), displays[0])
        return (shown.x + shown.width // 2, shown.y + shown.height // 2)

    # -- pixels ------------------------------------------------------------------

    def grab(self, rect: Rect) -> Image.Image:
        scales = [
            float(o.get("scale") or 1.0)
            for o in self._outputs()
            if clip(_rect(o), rect) is not None
        ]
        scale = max(scales, default=1.0)
        x, y, w, h = rect
        try:
            done = subprocess.run(
                ["grim", "-s", f"{scale:g}", "-g", f"{x},{y} {w}x{h}", "-t", "ppm", "-"],
                capture_output=True,
                timeout=GRIM_TIMEOUT,
                env={**os.environ, "SWAYSOCK": self.path},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CaptureError(f"grim could not capture the screen ({exc})") from exc
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            raise CaptureError(
                "grim could not capture the screen: " + (said[-1] if said else "no reason given")
            )
        with Image.open(io.BytesIO(done.stdout)) as image:
            return image.convert("RGB")

    def degraded_modes(self) -> list[DegradedMode]:
        return [
            DegradedMode(
                Degraded.NO_POINTER,
                "Wayland does not tell where the pointer is: a window capture takes the focused"
                " window, a display capture the focused output",
            )
        ]

    @property
    def broken(self) -> bool:
        return self._broken

    def close(self) -> None:
        return None
