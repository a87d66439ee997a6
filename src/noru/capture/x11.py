"""X11 backend: pixels through mss, facts through python-xlib.

Two connections to the same X server: mss (XCB, MIT-SHM when the server
allows it) only grabs rectangles of the root window, because that is the fast
path; python-xlib answers every question about monitors and windows, because
it speaks RandR and reads properties without ctypes.

Facts and where they come from:

- displays: RandR 1.5 monitors (``RRGetMonitors``, active only), in the order
  the server lists them; ``name`` is the monitor's name atom ("DP-1",
  "eDP-1", or a name given with ``xrandr --setmonitor``). Without RandR 1.5 the
  root window is treated as one display and ``degraded_modes`` says so.
- the active window: EWMH ``_NET_ACTIVE_WINDOW`` on the root, trusted only while
  a live window manager answers ``_NET_SUPPORTING_WM_CHECK`` (a crashed WM
  leaves a stale value behind).
- the window under the pointer: ``QueryPointer`` gives the root's child, which
  is a window manager frame when a WM runs. The client inside it is the window
  carrying ``WM_STATE`` (ICCCM): we follow the pointer down first (cheap, and
  right when the pointer is over the client area), then search the frame
  breadth-first, topmost first (pointer over the title bar). With no
  ``WM_STATE`` anywhere there is no reparenting WM and the root's child is
  the client itself, as in ``XmuClientWindow``. The window list (every
  frame's client, for exclusions and for the windows OCR reads) searches
  breadth-first only, every frame at once (``x11_stack``: a round trip per
  step, not per question).
- ``window_title``: ``_NET_WM_NAME`` (UTF-8), else ``WM_NAME``.
- ``app_id`` and ``app_name``: both the class part of ``WM_CLASS`` ("XTerm",
  "Code", "firefox", "Tk"). The class is what desktop files match
  (``StartupWMClass``) and what a person sees in window lists; the instance
  part follows ``argv[0]`` or ``-name`` and is "Navigator" for Firefox, so it
  identifies nothing. X has no separate human name, and a desktop-file lookup
  would be a guess about which file belongs to the window, so both facts carry
  the class until a better measured source exists.

Window geometry is the client area (without the WM's decorations) translated
to root coordinates; the facade clips it to the screen.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import mss
from mss.exception import ScreenShotError
from PIL import Image
from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.protocol import display as xprotocol_display

from noru.capture import x11_pixels, x11_stack
from noru.capture.base import Backend, Degraded, DegradedMode, Display, Rect, WindowFacts
from noru.errors import CaptureError, PermissionDenied

if TYPE_CHECKING:
    from types import TracebackType

    from noru.imaging import Scanlines

__all__ = ["PERMISSION_HOW", "PERMISSION_NEXT_ACTION", "X11Backend", "connect", "map_x11_errors"]

# How deep to look below a frame for the client window. Real WMs nest one or
# two levels (frame > client, or frame > decoration parent > client).
_MAX_DEPTH = 4

# Phrases the X server (via Xlib) uses when it refuses a client for lack of a
# valid cookie: "Authorization required, but no authorization protocol
# specified", "Invalid MIT-MAGIC-COOKIE-1 key", "No protocol specified".
_AUTH_REFUSALS = ("authoriz", "magic-cookie", "protocol specified", "authenticat")

# How access is granted, in the person's words: a detail line of the refusal,
# so the person's own `noru capture` and `noru status` show it too.
PERMISSION_HOW = (
    "To grant it: run Noru inside your own desktop session, or give it the display's "
    "X authority (XAUTHORITY), or allow this user with `xhost +SI:localuser:$USER`."
)

PERMISSION_NEXT_ACTION = (
    "Ask the person to start Noru inside their own desktop session, or to give it "
    "the X authority of the display (XAUTHORITY, or `xhost +SI:localuser:$USER`), "
    "then retry."
)


def _is_auth_refusal(reason: object) -> bool:
    text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    text = text.lower()
    return any(phrase in text for phrase in _AUTH_REFUSALS)


def _reason_text(reason: object) -> str:
    text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    return text.strip()


def _close_leaked_sockets(exc: BaseException) -> None:
    """Close the sockets python-xlib leaves open when a connection fails.

    python-xlib 0.33 raises ``DisplayConnectionError`` without closing the
    socket it opened (refused setup, or a failed connect and its TCP
    fallback). Left to the garbage collector they raise ``ResourceWarning``
    at an arbitrary later moment; a long-running app that retries would also
    hold descriptors. The sockets are still reachable from the traceback.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        tb: TracebackType | None = current.__traceback__
        while tb is not None:
            for value in tb.tb_frame.f_locals.values():
                if isinstance(value, xprotocol_display.Display):
                    value = getattr(value, "socket", None)
                if isinstance(value, socket.socket):
                    value.close()
            tb = tb.tb_next
        current = current.__context__


@contextmanager
def map_x11_errors() -> Iterator[None]:
    """Turn python-xlib and mss exceptions into Noru's, in the person's words."""
    try:
        yield
    except xerror.DisplayConnectionError as exc:
        _close_leaked_sockets(exc)
        if _is_auth_refusal(exc.msg):
            raise PermissionDenied(
                "the X server refused Noru's connection (authorization)",
                details=(f"Display {exc.display}: {_reason_text(exc.msg)}", PERMISSION_HOW),
                next_action=PERMISSION_NEXT_ACTION,
            ) from exc
        raise CaptureError(
            f"no X server is reachable at display {exc.display} ({_reason_text(exc.msg)})"
        ) from exc
    except xerror.DisplayNameError as exc:
        raise CaptureError(f"{exc.display!r} is not a valid X display name") from exc
    except xerror.ConnectionClosedError as exc:
        raise CaptureError("the X server closed Noru's connection") from exc
    except (xerror.BadWindow, xerror.BadDrawable) as exc:
        raise CaptureError("the window closed while Noru was reading it") from exc
    except xerror.XError as exc:
        raise CaptureError(f"the X server refused a request ({type(exc).__name__})") from exc
    except ScreenShotError as exc:
        if _is_auth_refusal(exc):
            raise PermissionDenied(
                "the X server refused Noru's connection (authorization)",
                details=(PERMISSION_HOW,),
                next_action=PERMISSION_NEXT_ACTION,
            ) from exc
        raise CaptureError(f"the screen could not be read ({exc})") from exc
    except OSError as exc:
        # A socket error mid-request: the server went away.
        raise CaptureError(f"the connection to the X server failed ({exc})") from exc


def _let_go(close: Callable[[], object]) -> None:
    """Close an X connection; one the server already dropped is not an error
    (Ctrl-C reaches the app and its X server together)."""
    with suppress(xerror.ConnectionClosedError, xerror.XError, ScreenShotError, OSError):
        close()


# More windows than this on one screen are read as part of the background.
_MAX_WINDOWS = 64


# python-xlib keeps the event codes of a server's extensions in one dict on
# the connection *class*, so a second connection to a server with another
# layout of extensions (XWayland beside Xvfb, say) rewrites the first one's
# and then fails ("'type' object does not support item assignment"). Each
# connection gets a dict of its own: a fresh copy on the class while it
# connects (under a lock), then pinned on the connection.
_PRISTINE_EVENTS = dict(xprotocol_display.Display.event_classes)
_CONNECTING = threading.Lock()


def connect(display_name: str | None) -> Any:
    """A python-xlib connection with its own table of extension events."""
    with _CONNECTING:
        own = dict(_PRISTINE_EVENTS)
        xprotocol_display.Display.event_classes = own
        dpy = xdisplay.Display(display_name)
        dpy.display.event_classes = own
        return dpy


class X11Backend(Backend):
    name = "x11"
    lists_beside_grab = True  # python-xlib lists, mss grabs: two connections

    def __init__(self, display_name: str) -> None:
        self._broken = False
        self._display_name = display_name
        with map_x11_errors():
            self._dpy: Any = connect(display_name)
        self._mss: mss.MSS | None = None
        self.grabs_in_place = 0  # grabs read in mss's shared memory (for tests)
        try:
            self._screen()
        except BaseException:
            _let_go(self._dpy.close)
            raise
        self._root: Any = self._dpy.screen().root
        self._atoms: dict[str, int] = {}

    # -- plumbing ---------------------------------------------------------

    def _screen(self) -> mss.MSS:
        """mss, opened again after ``release``."""
        if self._mss is None:
            with map_x11_errors():
                self._mss = mss.MSS(display=self._display_name)
        return self._mss

    def release(self) -> None:
        """mss holds a shared-memory segment the size of the screen (16 MB at
        2560x1600, mapped by the X server too) to grab into; let it go. The
        next grab makes a new one: a few ms, once after a quiet spell."""
        screen, self._mss = self._mss, None
        if screen is not None:
            _let_go(screen.close)

    @contextmanager
    def _x(self) -> Iterator[None]:
        """``map_x11_errors`` that also notices a lost connection, so the
        facade reopens instead of failing forever after an X server restart."""
        try:
            with map_x11_errors():
                yield
        except CaptureError as exc:
            cause = exc.__cause__
            if isinstance(cause, xerror.ConnectionClosedError | OSError) or (
                isinstance(cause, ScreenShotError) and "connection" in str(cause).lower()
            ):
                self._broken = True
            raise

    def _atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = int(self._dpy.intern_atom(name))
        return self._atoms[name]

    def _window(self, wid: int) -> Any:
        return self._dpy.create_resource_object("window", wid)

    def _window_prop(self, win: Any, name: str) -> int | None:
        prop = win.get_full_property(self._atom(name), Xatom.WINDOW)
        if prop is None or prop.format != 32 or len(prop.value) == 0:
            return None
        wid = int(prop.value[0])
        return wid or None

    def _has_wm_state(self, win: Any) -> bool:
        return win.get_property(self._atom("WM_STATE"), X.AnyPropertyType, 0, 0) is not None

    # -- window manager ---------------------------------------------------

    def _wm_present(self) -> bool:
        """True when a live EWMH window manager answers the supporting-WM check."""
        wid = self._window_prop(self._root, "_NET_SUPPORTING_WM_CHECK")
        if wid is None:
            return False
        try:
            echoed = self._window_prop(self._window(wid), "_NET_SUPPORTING_WM_CHECK")
        except xerror.BadWindow:
            # The WM died and left its root property behind.
            return False
        return echoed == wid

    def _wm_reports_active(self) -> bool:
        prop = self._root.get_full_property(self._atom("_NET_SUPPORTED"), Xatom.ATOM)
        return prop is not None and self._atom("_NET_ACTIVE_WINDOW") in prop.value

    # -- window facts -----------------------------------------------------

    def _facts(self, win: Any) -> WindowFacts | None:
        """One client window's facts; None when it closed while this looked."""
        return x11_stack.facts_of(self._dpy, self._root, [win], self._atom)[0]

    def _client_below(self, top: Any) -> Any:
        """The client window inside ``top`` (a root child): see the module docstring."""
        if self._has_wm_state(top):
            return top
        current = top
        for _ in range(_MAX_DEPTH):
            child = current.query_pointer().child
            if not child:
                break
            if self._has_wm_state(child):
                return child
            current = child
        level = [top]
        for _ in range(_MAX_DEPTH):
            below: list[Any] = []
            for win in level:
                # query_tree lists bottom to top; the client sits on top of a frame's
                # decoration windows, so look there first.
                below.extend(reversed(win.query_tree().children))
            for win in below:
                if self._has_wm_state(win):
                    return win
            level = below
        return top

    # -- Backend ------------------------------------------------------------

    def screen_rect(self) -> Rect:
        with self._x():
            geometry = self._root.get_geometry()
        return (0, 0, int(geometry.width), int(geometry.height))

    def _monitors(self) -> tuple[list[Display], str | None]:
        _, _, width, height = self.screen_rect()
        whole = [Display(1, None, 0, 0, width, height, primary=True)]
        fallback = "treating the whole screen as one display"
        with self._x():
            if not self._dpy.has_extension("RANDR"):
                return whole, f"RandR unavailable: {fallback}"
            if not hasattr(self._root, "xrandr_get_monitors"):
                version = self._dpy.xrandr_query_version()
                return whole, (
                    f"RandR monitors unavailable (the server has RandR "
                    f"{version.major_version}.{version.minor_version}, 1.5 is needed): {fallback}"
                )
            reply = self._root.xrandr_get_monitors(is_active=True)
            displays = [
                Display(
                    index=position,
                    name=x11_stack.decode(self._dpy.get_atom_name(monitor.name), "utf-8"),
                    x=int(monitor.x),
                    y=int(monitor.y),
                    width=int(monitor.width_in_pixels),
                    height=int(monitor.height_in_pixels),
                    primary=bool(monitor.primary),
                )
                for position, monitor in enumerate(reply.monitors, start=1)
            ]
        if not displays:
            return whole, f"RandR lists no active monitor: {fallback}"
        return displays, None

    def displays(self) -> list[Display]:
        return self._monitors()[0]

    def active_window(self) -> WindowFacts | None:
        with self._x():
            if not self._wm_present():
                return None
            wid = self._window_prop(self._root, "_NET_ACTIVE_WINDOW")
            if wid is None:
                return None
            win = self._window(wid)
            try:
                viewable = win.get_attributes().map_state == X.IsViewable
            except xerror.BadWindow:
                # Closed since the WM wrote the property: no active window now.
                return None
            if not viewable:
                # Iconified or on another desktop: its rectangle shows something else.
                return None
            return self._facts(win)

    def pointer_window(self) -> WindowFacts | None:
        with self._x():
            top = self._root.query_pointer().child
            if not top:
                # Over the root window: no window at all.
                return None
            return self._facts(self._client_below(top))

    def window_rects(self) -> list[Rect]:
        return [rect for rect, _ in self.stacked_windows(facts=False)]

    def stacked_windows(self, *, facts: bool = True) -> list[tuple[Rect, WindowFacts | None]]:
        """A round trip per step, whatever the number of windows (``x11_stack``)."""
        with self._x():
            # The root's children are listed bottom to top: the stacking order.
            frames = x11_stack.stack(self._dpy, self._root)[-_MAX_WINDOWS:]
            if not facts:
                return [(rect, None) for _, rect in frames]
            tops = [win for win, _ in frames]
            clients = x11_stack.clients_below(self._dpy, tops, self._atom, _MAX_DEPTH)
            known = x11_stack.facts_of(self._dpy, self._root, clients, self._atom)
        return [(rect, facts) for (_, rect), facts in zip(frames, known, strict=True)]

    def pointer_position(self) -> tuple[int, int]:
        with self._x():
            reply = self._root.query_pointer()
        return int(reply.root_x), int(reply.root_y)

    def grab(self, rect: Rect) -> Image.Image:
        return self.grab_rows(rect).image()

    def grab_rows(self, rect: Rect, handed_over: Callable[[], None] | None = None) -> Scanlines:
        """mss's BGRX rows, read in its shared memory where it can be, packed
        into RGB scanlines (``x11_pixels``): no image decoded. ``handed_over``: as
        soon as the X server has copied them (it answers nothing else while
        it copies 16 MB: a window list asked meanwhile would wait)."""
        x, y, width, height = rect
        with self._x():
            screen = self._screen()
            rows = x11_pixels.in_place(screen, rect, handed_over)
            if rows is not None:
                self.grabs_in_place += 1
                return rows
            shot = screen.grab({"left": x, "top": y, "width": width, "height": height})
        if handed_over is not None:
            handed_over()
        return x11_pixels.rows_of(shot.raw, (shot.width, shot.height))

    def degraded_modes(self) -> list[DegradedMode]:
        modes: list[DegradedMode] = []
        with self._x():
            if not self._wm_present():
                modes.append(
                    DegradedMode(
                        Degraded.NO_WINDOW_MANAGER,
                        "no window manager: active window unknown "
                        "(the window under the pointer is captured instead, and display "
                        "captures carry no app or window facts)",
                    )
                )
            elif not self._wm_reports_active():
                modes.append(
                    DegradedMode(
                        Degraded.NO_ACTIVE_WINDOW,
                        "the window manager does not report the active window "
                        "(the window under the pointer is captured instead)",
                    )
                )
        _, monitors_note = self._monitors()
        if monitors_note:
            modes.append(DegradedMode(Degraded.ONE_DISPLAY, monitors_note))
        modes.extend(
            DegradedMode(Degraded.SLOW_GRAB, f"screen grab: {note}")
            for note in self._screen().performance_status
            # mss also records its successes here; only a fallback is a degraded mode.
            if "working correctly" not in note
        )
        if os.environ.get("WAYLAND_DISPLAY"):
            modes.append(
                DegradedMode(
                    Degraded.XWAYLAND, "running under XWayland: only X11 applications are visible"
                )
            )
        return modes

    @property
    def broken(self) -> bool:
        return self._broken

    def close(self) -> None:
        self.release()
        _let_go(self._dpy.close)
