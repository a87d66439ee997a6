"""The global capture shortcut on X11: a passive key grab on the root window.

Pressing it captures the window under the pointer as a user capture. The grab
is repeated with NumLock and CapsLock masks so that those locks do not defeat
it. If another client holds the combination, the app runs without a shortcut
and says so (``noru doctor``, the app's notes).
"""

from __future__ import annotations

import contextlib
import logging
import select
import threading
from typing import Any

from noru import live

__all__ = ["Hotkey", "parse_hotkey"]

log = logging.getLogger("noru.app")

_MODIFIERS = {
    "ctrl": "ControlMask",
    "control": "ControlMask",
    "alt": "Mod1Mask",
    "shift": "ShiftMask",
    "super": "Mod4Mask",
    "win": "Mod4Mask",
}


def parse_hotkey(text: str) -> tuple[list[str], str]:
    """``ctrl+alt+n`` -> (["ControlMask", "Mod1Mask"], "n"); ValueError if unknown."""
    parts = [p.strip().lower() for p in text.split("+") if p.strip()]
    if not parts:
        raise ValueError("empty hotkey")
    *mods, key = parts
    unknown = [m for m in mods if m not in _MODIFIERS]
    if unknown:
        raise ValueError(f"unknown modifier {unknown[0]!r} (use ctrl, alt, shift, super)")
    return [_MODIFIERS[m] for m in mods], key


class Hotkey:
    def __init__(self, app: Any) -> None:
        self.app = app
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._display: Any = None

    def start(self) -> None:
        try:
            self._grab()
        except Exception as exc:  # no X, BadAccess, bad config: run without it
            self.app.hotkey = live.HotkeyState(self.app.config.hotkey, False, str(exc))
            log.warning("shortcut unavailable: %s", exc)
            return
        self.app.hotkey = live.HotkeyState(self.app.config.hotkey, grabbed=True)
        self._thread = threading.Thread(target=self._run, name="noru-hotkey", daemon=True)
        self._thread.start()

    def _grab(self) -> None:
        import os

        from Xlib import XK, X, error

        from noru.capture.x11 import connect

        if os.environ.get("WAYLAND_DISPLAY"):
            # XWayland would see the keys only while an X11 window has the focus.
            raise RuntimeError(
                "Wayland lets no program grab a key for the whole desktop: bind it in the"
                " compositor (`noru config sway` prints the line)"
            )
        mods, key = parse_hotkey(self.app.config.hotkey)
        keysym = XK.string_to_keysym(key)
        if keysym == 0:
            raise ValueError(f"unknown key {key!r}")
        self._display = connect(None)  # $DISPLAY
        keycode = self._display.keysym_to_keycode(keysym)
        mask = 0
        for name in mods:
            mask |= getattr(X, name)
        root = self._display.screen().root
        failures: list[Any] = []
        catcher = error.CatchError(error.BadAccess)
        for extra in (0, X.Mod2Mask, X.LockMask, X.Mod2Mask | X.LockMask):
            root.grab_key(
                keycode, mask | extra, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher
            )
        self._display.sync()
        if catcher.get_error():
            failures.append(catcher.get_error())
            self._display.close()
            self._display = None
            raise RuntimeError(f"{self.app.config.hotkey} is taken by another program")
        self._keycode = keycode

    def _run(self) -> None:
        try:
            self._loop()
        except Exception:  # the X server went away (e.g. stopped before us)
            if not self._stop.is_set():
                self.app.hotkey = live.HotkeyState(
                    self.app.config.hotkey, False, "the connection to the X server was lost"
                )
                log.warning("shortcut stopped: the X connection was lost")

    def _loop(self) -> None:
        from Xlib import X

        display = self._display
        fd = display.fileno()
        while not self._stop.is_set():
            readable, _, _ = select.select([fd], [], [], 0.2)
            if not readable and not display.pending_events():
                continue
            while display.pending_events():
                event = display.next_event()
                if event.type == X.KeyPress and event.detail == self._keycode:
                    threading.Thread(target=self._capture, daemon=True).start()

    def _capture(self) -> None:
        try:
            capture_id = self.app.capture(live.Capture("window", "pointer"), origin="user")
        except Exception as exc:
            log.warning("shortcut capture failed: %s", exc)
            return
        log.warning("shortcut captured %s", capture_id)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._display is not None:
            with contextlib.suppress(Exception):  # already gone with the X server
                self._display.close()
