"""The global capture shortcut: a key grab on X11, the desktop portal on Wayland.

Pressing it captures the window under the pointer as a user capture (where
the capture goes through the desktop portal, which gives no windows, the
capture backend refuses that with its reason).

- X11: a passive key grab on the root window, repeated with NumLock and
  CapsLock masks so that those locks do not defeat it.
- Wayland (``WAYLAND_DISPLAY`` set): no program may grab a key there. Where
  the desktop portal offers global shortcuts (KDE Plasma), the desktop binds
  it (``noru.app.portal_shortcut``) and its key is the desktop's to choose;
  elsewhere the app refuses, and the compositor binds `noru capture`
  (``noru config sway``, ``noru config hyprland``).

If another client holds the combination, the app runs without a shortcut
and says so (``noru doctor``, the app's notes).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from typing import Any

from noru import appwire
from noru.app.key_combination import parse_hotkey

__all__ = ["WAYLAND_REFUSAL", "Hotkey"]

log = logging.getLogger("noru.app")

WAYLAND_REFUSAL = (
    "Wayland lets no program grab a key for the whole desktop: bind it in the"
    " compositor (`noru config sway` or `noru config hyprland` prints the line)"
)


class Hotkey:
    def __init__(self, app: Any) -> None:
        self.app = app
        self._stop = threading.Event()
        # Written to on stop: the listening thread sleeps on its X connection
        # and this pipe, with no timeout, so an idle app does not wake for it.
        self._wake_read, self._wake_write = os.pipe()
        self._thread: threading.Thread | None = None
        self._display: Any = None
        self._portal: Any = None  # a PortalShortcut, on Wayland

    def start(self) -> None:
        if os.environ.get("WAYLAND_DISPLAY"):
            # XWayland would see the keys only while an X11 window has the focus.
            self._start_portal()
            return
        try:
            self._grab()
        except Exception as exc:  # no X, BadAccess, bad config: run without it
            self.app.hotkey = appwire.HotkeyState(self.app.config.hotkey, False, str(exc))
            log.warning("shortcut unavailable: %s", exc)
            return
        self.app.hotkey = appwire.HotkeyState(self.app.config.hotkey, grabbed=True)
        self._thread = threading.Thread(target=self._run, name="noru-hotkey", daemon=True)
        self._thread.start()

    def _start_portal(self) -> None:
        from noru.app.portal_shortcut import NotOffered, PortalShortcut

        key = self.app.config.hotkey
        try:
            shortcut = PortalShortcut(
                key, pressed=self._pressed, changed=self._bound, lost=self._lost
            )
            bound = shortcut.start()
        except NotOffered as exc:
            self.app.hotkey = appwire.HotkeyState(key, False, WAYLAND_REFUSAL)
            log.warning("shortcut unavailable: %s (%s)", WAYLAND_REFUSAL, exc)
            return
        except Exception as exc:  # the portal failed, or a bad config
            problem = f"the desktop portal did not bind it: {exc}"
            self.app.hotkey = appwire.HotkeyState(key, False, problem)
            log.warning("shortcut unavailable: %s", problem)
            return
        self._portal = shortcut
        if bound is None:
            self.app.hotkey = appwire.HotkeyState(
                key, False, "waiting for the desktop to bind it (it may be asking you)"
            )
        else:
            self._bound(bound)

    def _bound(self, bound: Any) -> None:
        """What the desktop bound (a ``portal_shortcut.Bound``), now or later."""
        key = self.app.config.hotkey
        if bound.trigger is None:
            self.app.hotkey = appwire.HotkeyState(
                key,
                False,
                f"the desktop bound no key to it ({key} may be another program's): choose one"
                " in the desktop's shortcut settings (KDE: System Settings, Shortcuts, noru)",
            )
            log.warning("shortcut bound without a key: %s", self.app.hotkey.problem)
            return
        # The desktop's words for the key: the person may have chosen another.
        self.app.hotkey = appwire.HotkeyState(bound.trigger, grabbed=True)
        log.info("shortcut bound through the desktop portal: %s", bound.trigger)

    def _lost(self, reason: str) -> None:
        self.app.hotkey = appwire.HotkeyState(self.app.config.hotkey, False, reason)
        log.warning("shortcut stopped: %s", reason)

    def _pressed(self) -> None:
        threading.Thread(target=self._capture, daemon=True).start()

    def _grab(self) -> None:
        from Xlib import XK, X, error

        from noru.capture.x11 import connect

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
                self.app.hotkey = appwire.HotkeyState(
                    self.app.config.hotkey, False, "the connection to the X server was lost"
                )
                log.warning("shortcut stopped: the X connection was lost")

    def _loop(self) -> None:
        from Xlib import X

        display = self._display
        fd = display.fileno()
        while not self._stop.is_set():
            # Every event read off the connection is handled before sleeping
            # again (this thread alone uses it), so a readable socket is the
            # only news.
            select.select([fd, self._wake_read], [], [])
            if self._stop.is_set():
                return
            while display.pending_events():
                event = display.next_event()
                if event.type == X.KeyPress and event.detail == self._keycode:
                    self._pressed()

    def _capture(self) -> None:
        try:
            capture_id = self.app.capture(self._request(), origin="user")
        except Exception as exc:
            log.warning("shortcut capture failed: %s", exc)
            return
        log.warning("shortcut captured %s", capture_id)

    def _request(self) -> appwire.Capture:
        """The window under the pointer, as on X11; where the platform gives
        no windows (the desktop portal), the display: what it can give."""
        capturer = getattr(self.app, "capturer", None)
        if capturer is not None and not capturer.gives_windows():
            return appwire.Capture("display")
        return appwire.Capture("window", "pointer")

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        os.write(self._wake_write, b"\0")
        if self._portal is not None:
            self._portal.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._thread is None or not self._thread.is_alive():
            for fd in (self._wake_read, self._wake_write):
                os.close(fd)
        if self._display is not None:
            with contextlib.suppress(Exception):  # already gone with the X server
                self._display.close()
