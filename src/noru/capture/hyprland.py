"""The Hyprland backend (Wayland): pixels through ``grim``, facts through Hyprland's IPC.

What every wlroots-style compositor shares (``grim`` at each output's
scale, no pointer) is ``noru.capture.wlroots``; here is how Hyprland's own
request socket is read: ``$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/.socket.sock``
(before Hyprland 0.40, ``/tmp/hypr/SIGNATURE/.socket.sock``). One request
per connection: the client writes it (``j/monitors``: ``j`` asks for JSON),
Hyprland writes the answer and closes; ``hyprctl -j monitors`` does the same.
Hyprland implements ``wlr-screencopy``, so ``grim`` reads its pixels.

Facts and where they come from (the fields are ``hyprctl -j``'s):

- displays: ``monitors``, the enabled ones, in Hyprland's order. ``x, y`` is
  the monitor's place in the layout; ``width, height`` are its mode in
  pixels, so its layout size is that divided by ``scale`` (its sides swapped
  when ``transform`` turns it a quarter); ``primary`` is the ``focused`` one.
- windows: ``clients``, those mapped, not hidden, and on a workspace some
  monitor shows (its ``activeWorkspace`` or its open ``specialWorkspace``).
  ``title`` is the title; ``class`` the app: the Wayland app id, or for an
  XWayland window (``xwayland: true``) its X class, which is what Hyprland
  puts there, never a guess; ``pid`` as Hyprland reports it. The rectangle
  is ``at`` + ``size``, the window's content in layout coordinates; Hyprland
  draws its border outside it and does not list it, so the frame is the
  same rectangle.
  Bottom to top: tiled windows, then full-screen ones, then floating ones,
  each in the order ``clients`` lists them (Hyprland's own order: a window
  raised moves to the end).
- the active window: ``activewindow`` (``{}`` when none), by its
  ``address``.

Not run against a real Hyprland: none is packaged for Debian, so the tests
(tests/hyprland.py) answer on this socket, in Hyprland's own format, for a
real headless wlroots compositor whose pixels ``grim`` reads.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from noru.capture.base import Rect, WindowFacts
from noru.capture.wlroots import Output, View, WlrootsBackend
from noru.errors import CaptureError

__all__ = ["HyprlandBackend", "hyprland_socket"]

IPC_TIMEOUT = 5.0
MAX_ANSWER = 32 << 20  # bytes: thousands of windows fit; a runaway answer does not


def hyprland_socket() -> str | None:
    """Hyprland's request socket for ``$HYPRLAND_INSTANCE_SIGNATURE``, where it exists."""
    signature = os.environ.get("HYPRLAND_INSTANCE_SIGNATURE")
    if not signature or "/" in signature or signature in (".", ".."):
        return None
    places = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        places.append(Path(runtime, "hypr", signature, ".socket.sock"))
    places.append(Path("/tmp/hypr", signature, ".socket.sock"))  # Hyprland before 0.40
    return next((str(p) for p in places if p.is_socket()), None)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is not a number: {value!r}")
    return float(value)


def _pair(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{what} is not a pair of numbers: {value!r}")
    return (round(_number(value[0], what)), round(_number(value[1], what)))


def _workspace_id(value: Any) -> int | None:
    if isinstance(value, dict) and isinstance(value.get("id"), int):
        return int(value["id"])
    return None


class HyprlandBackend(WlrootsBackend):
    name = "hyprland"
    compositor = "Hyprland"

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self._ask("monitors")  # reachable now, or a CaptureError that says why

    # -- IPC ---------------------------------------------------------------------

    def _ask(self, request: str) -> Any:
        """The JSON answer to ``j/REQUEST``."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(IPC_TIMEOUT)
                sock.connect(self.path)
                sock.sendall(f"j/{request}".encode())
                chunks, size = [], 0
                while chunk := sock.recv(1 << 16):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_ANSWER:
                        raise CaptureError(
                            f"Hyprland's answer to {request} is over {MAX_ANSWER} bytes"
                        )
        except OSError as exc:
            raise self._lost(exc) from exc
        text = b"".join(chunks).decode(errors="replace")
        try:
            return json.loads(text)
        except ValueError:
            said = text.strip().splitlines()[0][:200] if text.strip() else "nothing"
            raise CaptureError(
                f"Hyprland's IPC socket did not answer {request} in JSON (it said: {said})"
            ) from None

    def _list(self, request: str) -> list[dict[str, Any]]:
        answer = self._ask(request)
        if not isinstance(answer, list) or not all(isinstance(a, dict) for a in answer):
            raise CaptureError(f"Hyprland's answer to {request} is not a list of objects")
        return answer

    # -- facts -------------------------------------------------------------------

    def _monitors(self) -> list[dict[str, Any]]:
        return [m for m in self._list("monitors") if not m.get("disabled")]

    def outputs(self) -> list[Output]:
        found = []
        for m in self._monitors():
            try:
                scale = _number(m.get("scale", 1), "scale") or 1.0
                x, y = round(_number(m["x"], "x")), round(_number(m["y"], "y"))
                w, h = _number(m["width"], "width"), _number(m["height"], "height")
            except (KeyError, ValueError) as exc:
                raise CaptureError(f"Hyprland described a monitor it cannot mean: {exc}") from None
            if m.get("transform") in (1, 3, 5, 7):  # turned a quarter: its sides swap
                w, h = h, w
            name = m.get("name") if isinstance(m.get("name"), str) else None
            rect = (x, y, round(w / scale), round(h / scale))
            found.append(Output(name, rect, scale, bool(m.get("focused"))))
        return found

    def views(self) -> list[View]:
        shown: set[int] = set()
        for m in self._monitors():
            for key in ("activeWorkspace", "specialWorkspace"):
                ident = _workspace_id(m.get(key))
                if ident:  # 0: no special workspace open
                    shown.add(ident)
        active = self._ask("activewindow")
        focused = active.get("address") if isinstance(active, dict) else None
        layers: tuple[list[View], list[View], list[View]] = ([], [], [])
        for client in self._list("clients"):
            if not client.get("mapped", True) or client.get("hidden"):
                continue
            if _workspace_id(client.get("workspace")) not in shown:
                continue
            try:
                x, y = _pair(client.get("at"), "at")
                w, h = _pair(client.get("size"), "size")
            except ValueError as exc:
                raise CaptureError(f"Hyprland described a window it cannot mean: {exc}") from None
            if w <= 0 or h <= 0:
                continue
            rect: Rect = (x, y, w, h)
            pid = client.get("pid")
            app = client.get("class") if isinstance(client.get("class"), str) else None
            title = client.get("title") if isinstance(client.get("title"), str) else None
            facts = WindowFacts(
                title=title or None,
                app_id=app or None,
                app_name=app or None,
                rect=rect,
                pid=pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None,
            )
            view = View(rect, facts, focused is not None and client.get("address") == focused)
            # A full-screen window (``fullscreen`` true, or a mode above 0 in
            # newer Hyprland) lies over its tiled ones, floating ones over all.
            if client.get("floating"):
                layers[2].append(view)
            elif client.get("fullscreen"):
                layers[1].append(view)
            else:
                layers[0].append(view)
        return [*layers[0], *layers[1], *layers[2]]
