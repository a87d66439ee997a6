"""Which backend captures here: by platform, then by what the session offers
(on Wayland sway or Hyprland by their IPC, else the desktop portal, never
XWayland; on X11 the X server). Each backend is imported only when chosen."""

from __future__ import annotations

import os
import sys

from noru.capture.base import Backend
from noru.errors import CaptureError

__all__ = ["open_backend"]


def open_backend(display: str | None) -> Backend:
    """The backend for this platform. ``display`` names an X display explicitly."""
    platform = sys.platform
    if platform == "darwin":
        raise CaptureError("screen capture on macOS is not supported yet")
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        raise CaptureError(f"screen capture on {platform} is not supported yet")
    if display is None:
        if os.environ.get("WAYLAND_DISPLAY"):
            # Never through XWayland: it shows only X11 clients, so an X11 grab
            # of a Wayland session would be mostly black and silently wrong.
            from noru.capture.hyprland import HyprlandBackend, hyprland_socket
            from noru.capture.sway import SwayBackend, sway_socket

            # $SWAYSOCK before Hyprland's signature, a socket found by glob after.
            path = None if os.environ.get("SWAYSOCK") else hyprland_socket()
            if path is not None:
                return HyprlandBackend(path)
            path = sway_socket()
            if path is not None:
                return SwayBackend(path)
            from noru.capture.portal import PortalBackend
            from noru.desktop_portal import portal_missing

            missing = portal_missing()
            if missing is None:
                return PortalBackend()
            raise CaptureError(
                "screen capture in this Wayland session is not supported yet: Noru captures"
                " sway, Hyprland and X11 sessions itself, and other Wayland desktops through"
                f" the desktop portal, but {missing}"
            )
        display = os.environ.get("DISPLAY") or None
    if display is None:
        raise CaptureError("no display to capture: $DISPLAY is not set (Noru needs an X11 session)")
    from noru.capture.x11 import X11Backend

    backend = X11Backend(display)
    try:
        xwayland = any((d.name or "").startswith("XWAYLAND") for d in backend.displays())
    except CaptureError:
        xwayland = False  # the backend says what is wrong at its first use
    if xwayland:
        backend.close()
        raise CaptureError(
            f"the X display {display} is XWayland (its outputs are named XWAYLAND...): it shows"
            " only X11 applications, the rest black, so Noru does not capture through it; run"
            " Noru with your Wayland session's WAYLAND_DISPLAY"
        )
    return backend
