"""Capture: the facade the app uses, owning one platform backend.

``Capturer`` picks the backend by platform (X11; on Wayland sway or
Hyprland, else the desktop portal, never XWayland; macOS raises
``CaptureError`` until its backend exists), opens it on first use (never at
import, and again after the display connection is lost), takes one grab at a time,
clips every rectangle to the screen, and turns the backend's facts into a
``Source`` per image.

Which facts a grab carries:

- a window grab: that window's title, app and workspace hint, and the display
  holding the window's centre;
- a display or region grab: the display (for a region, the one holding its
  centre) and, when the active window's centre lies inside the grabbed
  rectangle, the active window's facts: the app the person was working in on
  that display. Without a window manager the active window is unknown, so
  those facts stay ``None``.

Nothing is guessed: a fact the platform does not give stays ``None``.

Accessibility text (``noru.ax``) is read beside the grab, for the grabbed
window or, in a display or region grab, for the active window when it is in
the grab: the walk starts before the pixels are grabbed, runs on its own
thread and is given at most its budget (``ax_budget``) after the grab; a
grab is never held longer. ``Grab.ax`` holds it, its boxes in the image's
pixels; ``None`` when it was not asked for (``ax_budget=None``, or no window
to ask about).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Literal, Self, TypeVar

from noru.ax.base import AxAbsent, AxLine, AxText
from noru.capture.base import Backend, Degraded, DegradedMode, Display, Grab, WindowFacts
from noru.errors import CaptureError, WindowExcluded
from noru.geometry import Rect, centre, clip, shift
from noru.imaging import Scanlines
from noru.sources import Source, infer_workspace

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["Capturer", "Degraded", "DegradedMode", "Display", "Grab"]

T = TypeVar("T")


def _open_backend(display: str | None) -> Backend:
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


def _windows_in(windows: list[Rect], area: Rect, size: tuple[int, int]) -> tuple[Rect, ...]:
    """The windows that show in ``area``, clipped, in the pixels of its image
    (``size``: more than the area's on a scaled Wayland output), order kept."""
    ax, ay, _, _ = area
    inside = (clip(window, area) for window in windows)
    return tuple(_in_image(shift(r, -ax, -ay), area, size) for r in inside if r is not None)


def _in_image(rect: Rect, area: Rect, size: tuple[int, int]) -> Rect:
    """``rect``, in ``area``'s coordinates, in the pixels of its image of ``size``."""
    _, _, aw, ah = area
    if size == (aw, ah):
        return rect
    fx, fy = size[0] / aw, size[1] / ah
    x, y, w, h = rect
    return (round(x * fx), round(y * fy), round(w * fx), round(h * fy))


def _stacked_or_refuse(backend: Backend) -> list[tuple[Rect, WindowFacts]]:
    """The windows and their facts, or a refusal: with exclusions configured, a
    window whose facts cannot be read might be one of them (fail closed)."""
    try:
        stacked = backend.stacked_windows()
    except CaptureError as exc:
        if backend.name == "portal":  # never a list: say how the person may choose
            raise CaptureError(
                "the desktop portal shows Noru no windows, so windows the person excluded "
                "cannot be hidden (theirs, and the built-in ones: password managers, private "
                "browsing): the capture is refused. To capture the whole screen anyway, "
                "remove them: `noru exclude list`, then `noru exclude remove --builtin NAME` "
                "(or --app / --title)"
            ) from exc
        raise CaptureError(
            "the window list cannot be read, so windows the person excluded cannot be "
            "hidden: the capture is refused"
        ) from exc
    known = [(rect, facts) for rect, facts in stacked if facts is not None]
    if len(known) != len(stacked):
        raise CaptureError(
            "a window's facts cannot be read, so it might be one the person excluded: "
            "the capture is refused"
        )
    return known


def _hide_excluded(
    grab: Grab,
    stacked: list[tuple[Rect, WindowFacts]],
    excluded: Callable[[WindowFacts], bool],
    area: Rect,
) -> tuple[Grab, list[Rect]]:
    """``grab`` with the excluded windows painted black and counted, and the
    rectangles of the windows that are not excluded (bottom to top)."""
    hidden = [excluded(facts) for _, facts in stacked]
    painted = _black_out(grab, [rect for rect, _ in stacked], hidden, area)
    shown = [rect for (rect, _), off in zip(stacked, hidden, strict=True) if not off]
    if painted is None:
        return grab, shown
    count, image = painted
    # The black is in the image only: the rows of the pixels before it go.
    return replace(grab, excluded=count, given=image, rows=None), shown


def _black_out(
    grab: Grab, rects: list[Rect], hidden: list[bool], area: Rect
) -> tuple[int, Image.Image] | None:
    """Paint black, in ``grab.image``, what shows of the hidden windows (their
    rectangles less what windows above them cover): how many showed, and
    the image; None when none is hidden (the grab stays as it is)."""
    from PIL import Image, ImageDraw

    if not any(hidden):
        return None
    ax, ay, aw, ah = area
    mask = Image.new("L", (aw, ah), 0)  # in the area's coordinates; scaled to the image below
    draw = ImageDraw.Draw(mask)
    marks = []
    for (x, y, w, h), off in zip(rects, hidden, strict=True):  # bottom to top
        box = (x - ax, y - ay, x - ax + w - 1, y - ay + h - 1)
        draw.rectangle(box, fill=255 if off else 0)
        marks.append((box, off))
    # A hidden window shows when some of its pixels are still marked at the end.
    count = 0
    for (x0, y0, x1, y1), off in marks:
        box = (max(0, x0), max(0, y0), min(aw, x1 + 1), min(ah, y1 + 1))
        if off and box[0] < box[2] and box[1] < box[3]:
            count += mask.crop(box).getbbox() is not None
    image = grab.image
    if image.size != (aw, ah):
        mask = mask.resize(image.size, Image.Resampling.NEAREST)
    image.paste((0, 0, 0), (0, 0, *image.size), mask)
    return count, image


class _Beside(Generic[T]):
    """A window listing beside a grab (``Capturer._beside_grab``): run on
    ``pool`` from ``start`` on (``now``: at once, here, with no pool)."""

    def __init__(
        self, pool: ThreadPoolExecutor | None, listing: Callable[[], T], *, now: bool = False
    ) -> None:
        self._pool, self._listing = pool, listing
        self._running: Future[T] | None = None
        if now:
            done: Future[T] = Future()
            try:
                done.set_result(listing())
            except Exception as exc:  # raised where its result is asked for, as on a thread
                done.set_exception(exc)
            self._running = done

    def start(self) -> None:
        if self._running is None and self._pool is not None:
            self._running = self._pool.submit(self._listing)

    def result(self) -> T:
        self.start()  # a backend that did not say: now
        assert self._running is not None
        return self._running.result()

    def wait(self) -> None:
        if self._running is not None:
            wait([self._running])


def _mode(display: Display | None, screen: Rect) -> str:
    """The display's mode ("2560x1600"), or the whole ``screen``'s without one."""
    if display is not None:
        return display.mode
    _, _, width, height = screen
    return f"{width}x{height}"


def _display_at(displays: list[Display], point: tuple[int, int]) -> Display | None:
    return next((d for d in displays if d.contains(*point)), None)


class Capturer:
    """Takes captures of the screen, one at a time. Thread-safe; use as a context manager."""

    def __init__(self, *, display: str | None = None, ax_budget: float | None = None) -> None:
        """``display``: an X display name (":0"); default ``$DISPLAY``, and then a
        Wayland session is refused rather than captured through XWayland.
        ``ax_budget``: seconds the accessibility text may take beyond the grab;
        None reads none."""
        self._display_name = display
        self._lock = threading.Lock()
        self._backend: Backend | None = None
        self._closed = False
        self.ax_budget = ax_budget
        self._ax_pool: ThreadPoolExecutor | None = None
        self._list_pool: ThreadPoolExecutor | None = None  # window lists beside grabs
        # The person's exclusions: which windows are never captured (None: none).
        self.excluded: Callable[[WindowFacts], bool] | None = None

    # -- lifecycle -----------------------------------------------------------

    def _open(self) -> Backend:
        """The live backend; the caller holds the lock."""
        if self._closed:
            raise CaptureError("this capturer is closed")
        if self._backend is not None and self._backend.broken:
            backend, self._backend = self._backend, None
            backend.close()
        if self._backend is None:
            self._backend = _open_backend(self._display_name)
        return self._backend

    def close(self) -> None:
        with self._lock:
            self._closed = True
            backend, self._backend = self._backend, None
            if backend is not None:
                backend.close()
            pool, self._ax_pool = self._ax_pool, None
            lists, self._list_pool = self._list_pool, None
        if lists is not None:
            lists.shutdown(wait=True)
        if pool is not None:
            pool.shutdown(wait=True)
            from noru import ax

            ax.close()

    def release(self) -> None:
        """Let go of what the backend keeps only to grab faster (``Backend.release``)."""
        with self._lock:
            if self._backend is not None:
                self._backend.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- facts -------------------------------------------------------------

    @property
    def display_name(self) -> str | None:
        """The display this capturer opens: the one named, else the Wayland
        display of a Wayland session, else ``$DISPLAY``."""
        if self._display_name:
            return self._display_name
        return os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or None

    def backend_name(self) -> str:
        """The backend in use ("x11"), opening it if needed."""
        with self._lock:
            return self._open().name

    def gives_windows(self) -> bool:
        """Whether this platform's backend knows the windows (the desktop portal
        gives the screen only), opening it if needed."""
        with self._lock:
            return self._open().gives_windows

    def displays(self) -> list[Display]:
        """The displays in the platform's order; ``Display.index`` counts from 1."""
        with self._lock:
            return self._open().displays()

    def degraded_modes(self) -> list[DegradedMode]:
        """How capture works less well than it should here; empty when everything works.

        Raises ``CaptureError`` / ``PermissionDenied`` when the display cannot be
        reached at all, which is itself what ``noru doctor`` should report.
        """
        with self._lock:
            return self._open().degraded_modes()

    # -- grabs ---------------------------------------------------------------

    def grab_window(self, which: Literal["active", "pointer"] = "active") -> list[Grab]:
        """The active window, or the window under the pointer.

        When the active window is unknown (no window manager, or nothing has
        focus) the window under the pointer is taken instead; over the bare
        desktop that is no window, and ``CaptureError`` says so.
        """
        if which not in ("active", "pointer"):
            raise ValueError(f"which must be 'active' or 'pointer', not {which!r}")
        with self._lock:
            backend = self._open()
            window = backend.active_window() if which == "active" else None
            if window is None:
                window = backend.pointer_window()
            if window is None:
                if which == "active":
                    raise CaptureError(
                        "no window to capture: the active window is unknown and "
                        "the pointer is over the desktop, not a window"
                    )
                raise CaptureError("no window to capture: the pointer is over the desktop")
            if self.excluded is not None and self.excluded(window):
                raise WindowExcluded("the window is excluded from capture by the person")
            screen = backend.screen_rect()
            rect = clip(window.rect, screen)
            if rect is None:
                raise CaptureError("the window is entirely off screen")
            displays = backend.displays()
            display = _display_at(displays, centre(rect))
            mode = _mode(display, screen)
            if self.excluded is None:
                return [self._grab(backend, rect, display, window, mode)]
            # An excluded window lying over this one is hidden here too.
            with self._beside_grab(backend, lambda: _stacked_or_refuse(backend)) as stacked:
                grab = self._grab(backend, rect, display, window, mode, stacked.start)
                return [_hide_excluded(grab, stacked.result(), self.excluded, rect)[0]]

    def grab_display(self, index: int | None = None) -> list[Grab]:
        """One display: ``index`` as in ``displays()``, or None for the one under the pointer."""
        with self._lock:
            backend = self._open()
            displays = backend.displays()
            if index is None:
                display = (
                    _display_at(displays, backend.pointer_position())
                    # The pointer can sit in a gap between monitors of different sizes.
                    or next((d for d in displays if d.primary), displays[0])
                )
            elif 1 <= index <= len(displays):
                display = displays[index - 1]
            else:
                count = len(displays)
                raise CaptureError(
                    f"there is no display {index}: this screen has {count} "
                    f"display{'s' if count != 1 else ''} (1 to {count})"
                )
            return [self._grab_area(backend, display.rect, display)]

    def grab_all_displays(self) -> list[Grab]:
        """One grab per display, in display order."""
        with self._lock:
            backend = self._open()
            return [self._grab_area(backend, d.rect, d) for d in backend.displays()]

    def grab_region(self, x: int, y: int, w: int, h: int) -> list[Grab]:
        """A rectangle in root coordinates; the part outside the screen is cut off."""
        if w <= 0 or h <= 0:
            raise CaptureError(f"a region needs a positive width and height, not {w}x{h}")
        with self._lock:
            backend = self._open()
            rect = clip((x, y, w, h), backend.screen_rect())
            if rect is None:
                raise CaptureError(f"the region {x},{y},{w},{h} lies outside the screen")
            display = _display_at(backend.displays(), centre(rect))
            return [self._grab_area(backend, rect, display)]

    # -- normalisation -------------------------------------------------------

    def _grab_area(self, backend: Backend, rect: Rect, display: Display | None) -> Grab:
        """A display or region: carries the active window's facts when that window is in it."""
        screen = backend.screen_rect()
        clipped = clip(rect, screen)
        if clipped is None:
            raise CaptureError("the display lies outside the screen")
        window = backend.active_window()
        if window is not None:
            visible = clip(window.rect, screen)
            inside = visible is not None and clip((*centre(visible), 1, 1), clipped) is not None
            if not inside:
                window = None
        mode = _mode(display, screen)
        if self.excluded is None:
            with self._beside_grab(backend, backend.window_rects) as rects:
                grab = self._grab(backend, clipped, display, window, mode, rects.start)
                return replace(grab, windows=_windows_in(rects.result(), clipped, grab.size))
        with self._beside_grab(backend, lambda: _stacked_or_refuse(backend)) as stacked:
            if window is not None and self.excluded(window):
                window = None  # its title, app and text are not kept
            grab = self._grab(backend, clipped, display, window, mode, stacked.start)
            grab, shown = _hide_excluded(grab, stacked.result(), self.excluded, clipped)
        return replace(grab, windows=_windows_in(shown, clipped, grab.size))

    @contextmanager
    def _beside_grab(self, backend: Backend, listing: Callable[[], T]) -> Iterator[_Beside[T]]:
        """``listing`` (the windows, their facts) run beside the grab, on a
        thread of its own, when the backend lists on a connection other than
        the one it grabs on (``Backend.lists_beside_grab``); else run now.
        It starts when the backend says the display server has handed the
        pixels over (``_Beside.start``, given to ``grab_rows``): the X server
        answers nothing while it copies a screen, so a list asked before
        would wait behind the copy; after it, the list overlaps the packing
        of the rows. On the way out it has always ended, whatever happened
        (the next grab's questions use its connection)."""
        if not backend.lists_beside_grab:
            yield _Beside(None, listing, now=True)
            return
        if self._list_pool is None:
            self._list_pool = ThreadPoolExecutor(1, thread_name_prefix="noru-list")
        beside = _Beside(self._list_pool, listing)
        try:
            yield beside
        finally:
            beside.wait()

    def _grab(
        self,
        backend: Backend,
        rect: Rect,
        display: Display | None,
        window: WindowFacts | None,
        mode: str,
        given: Callable[[], None] | None = None,
    ) -> Grab:
        """The grab of ``rect``; ``mode``: its display's (``_mode``, known
        before: a listing may be using the backend's connection meanwhile);
        ``given``: called when the display server has handed the pixels over."""
        reading = self._ax_start(window, rect)
        pixels = backend.grab_rows(rect, given)
        text = self._ax_finish(reading, rect, pixels.size)
        if isinstance(pixels, Scanlines):
            image, rows = None, pixels
        else:
            image, rows = (pixels if pixels.mode == "RGB" else pixels.convert("RGB")), None
        title = window.title if window else None
        source = Source(
            display_index=display.index if display else None,
            display_name=display.name if display else None,
            app_id=window.app_id if window else None,
            app_name=window.app_name if window else None,
            window_title=title,
            workspace_hint=infer_workspace(title),
        )
        return Grab(
            source=source, geometry=rect, display_mode=mode, ax=text, rows=rows, given=image
        )

    # -- accessibility text ----------------------------------------------------

    def _ax_start(self, window: WindowFacts | None, rect: Rect) -> Future[AxText] | None:
        """The walk of ``window``'s accessible tree inside ``rect``, started."""
        budget = self.ax_budget
        if budget is None or window is None:
            return None
        if self._ax_pool is None:
            self._ax_pool = ThreadPoolExecutor(1, thread_name_prefix="noru-ax")
        from noru import ax

        pid, title = window.pid, window.title
        return self._ax_pool.submit(ax.read_window, pid, rect, title=title, budget_s=budget)

    def _ax_finish(
        self, reading: Future[AxText] | None, rect: Rect, size: tuple[int, int]
    ) -> AxText | None:
        """The walk's text, boxes in the image's pixels, waited for at most its budget."""
        if reading is None:
            return None
        budget = self.ax_budget or 0.0
        try:
            text = reading.result(timeout=budget)
        except FutureTimeout:
            # The reader ends at its budget itself; this is its safety net.
            reading.cancel()
            return AxText((), True, AxAbsent.TIMED_OUT, "not read within its budget", 0, budget)
        x, y, _, _ = rect
        lines = tuple(
            AxLine(ln.text, _in_image(shift(ln.box, -x, -y), rect, size), ln.role)
            for ln in text.lines
        )
        return replace(text, lines=lines)
