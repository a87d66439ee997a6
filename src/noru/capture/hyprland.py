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
  pixels, so its layout size is that divided by its scale (its sides
  swapped when ``transform`` turns it a quarter); ``primary`` is the
  ``focused`` one. The scale is printed with two decimals (4/3 as 1.33):
  the exact one is the multiple of 1/120 next to it that divides the mode,
  as Hyprland chooses its scales.
- windows: ``clients``, those mapped, not hidden, and on a workspace some
  monitor shows (its ``activeWorkspace`` or its open ``specialWorkspace``).
  ``title`` is the title; ``class`` the app: the Wayland app id, or for an
  XWayland window (``xwayland: true``) its X class, which is what Hyprland
  puts there, never a guess; ``pid`` as Hyprland reports it. The rectangle
  is ``at`` + ``size``, the window's content in layout coordinates; Hyprland
  draws its border outside it and does not list it, so the frame is the
  same rectangle.
  Bottom to top as Hyprland draws each monitor: its workspace, then an open
  special workspace, then pinned windows; in a workspace, tiled windows
  (the focused one last), then floating ones, in ``clients``'s order (a
  window raised moves to its end); a full-screen window hides the rest of
  its workspace but floating windows listed after it.
- the active window: ``activewindow`` (``{}`` when none); among the
  windows, the one with its ``address``.

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
    # Where Hyprland 0.40 and later put it (hyprctl's fallback for an unset
    # $XDG_RUNTIME_DIR is /run/user/UID), and where older ones did.
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    places = [Path(runtime, "hypr", signature, ".socket.sock")]
    places.append(Path("/tmp/hypr", signature, ".socket.sock"))
    return next((str(p) for p in places if _is_socket(p)), None)


def _is_socket(path: Path) -> bool:
    try:
        return path.is_socket()
    except OSError:  # a folder this user may not enter: no socket of ours
        return False


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is not a number: {value!r}")
    return float(value)


def _pair(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{what} is not a pair of numbers: {value!r}")
    return (round(_number(value[0], what)), round(_number(value[1], what)))


def _exact_scale(printed: float, width: float, height: float) -> float:
    """The monitor's scale, from the two decimals ``hyprctl`` prints.

    Hyprland keeps a fractional scale a multiple of 1/120 (the fractional
    scale protocol's unit) that divides the mode evenly, and prints it
    rounded (4/3 as 1.33): the multiple next to the printed one that divides
    both sides is the scale; without one, the printed one."""
    near = round(printed * 120)
    for n in (near, near - 1, near + 1):
        if n > 0 and all(
            abs(side * 120 / n - round(side * 120 / n)) < 1e-6 for side in (width, height)
        ):
            return n / 120
    return printed


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
                sock.shutdown(socket.SHUT_WR)  # the request is whole: newer Hyprland reads to EOF
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
            scale = _exact_scale(scale, w, h)
            name = m.get("name") if isinstance(m.get("name"), str) else None
            rect = (x, y, round(w / scale), round(h / scale))
            found.append(Output(name, rect, scale, bool(m.get("focused"))))
        return found

    def views(self) -> list[View]:
        # Each monitor shows its active workspace, an open special workspace
        # over it, and pinned windows over both (Hyprland's renderer).
        shown: list[int] = []
        for m in self._monitors():
            for key in ("activeWorkspace", "specialWorkspace"):
                ident = _workspace_id(m.get(key))
                if ident:  # 0: none (no special workspace open)
                    shown.append(ident)
        active = self._ask("activewindow")
        focused = active.get("address") if isinstance(active, dict) else None
        on: dict[int, list[tuple[dict[str, Any], View]]] = {ident: [] for ident in shown}
        pinned: list[View] = []
        for client in self._list("clients"):
            if not client.get("mapped", True) or client.get("hidden"):
                continue  # hidden: a group's tab behind the one shown
            workspace = _workspace_id(client.get("workspace"))
            if workspace not in on:
                continue
            view = self._view(client, focused)
            if view is None:
                continue
            if client.get("pinned") and client.get("floating"):
                pinned.append(view)
            else:
                on[workspace].append((client, view))
        return [view for ident in shown for view in _stacked(on[ident])] + pinned

    def active_window(self) -> WindowFacts | None:
        # Hyprland's own word, even for a window its stacking hides.
        active = self._ask("activewindow")
        if not isinstance(active, dict) or "at" not in active:
            return None  # {}: nothing has the focus
        view = self._view(active, active.get("address"))
        return view.facts if view is not None else None

    @staticmethod
    def _view(client: dict[str, Any], focused: Any) -> View | None:
        try:
            x, y = _pair(client.get("at"), "at")
            w, h = _pair(client.get("size"), "size")
        except ValueError as exc:
            raise CaptureError(f"Hyprland described a window it cannot mean: {exc}") from None
        if w <= 0 or h <= 0:
            return None
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
        return View(rect, facts, focused is not None and client.get("address") == focused)


def _stacked(windows: list[tuple[dict[str, Any], View]]) -> list[View]:
    """One workspace's windows bottom to top, as Hyprland draws them.

    ``clients`` lists windows in Hyprland's own order (a window raised moves
    to the end), which is not the drawing order: tiled windows are drawn
    with the focused one last, then floating ones. A full-screen window
    (``fullscreen`` true, or a mode above 0 since Hyprland 0.42) hides the
    others but floating windows raised after it, which ``clients`` lists
    after it; that is the nearest the IPC lets one tell."""
    full = next((n for n, (c, _) in enumerate(windows) if c.get("fullscreen")), None)
    if full is not None:
        after = [v for c, v in windows[full + 1 :] if c.get("floating")]
        return [windows[full][1], *after]
    tiled = [v for c, v in windows if not c.get("floating")]
    tiled.sort(key=lambda v: v.focused)  # stable: the focused one last
    return [*tiled, *(v for c, v in windows if c.get("floating"))]
