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

The facade's helpers: ``choice`` (which backend), ``windows`` (the windows
in a grab, the excluded ones painted black), ``beside`` (the window listing
beside a grab).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import replace
from types import TracebackType
from typing import Literal, Self, TypeVar

from noru.ax.base import AxAbsent, AxLine, AxText
from noru.capture.base import Backend, Degraded, DegradedMode, Display, Grab, WindowFacts
from noru.capture.beside import BesideGrab
from noru.capture.choice import open_backend
from noru.capture.windows import hide_excluded, in_image, stacked_or_refuse, windows_in
from noru.errors import CaptureError, WindowExcluded
from noru.geometry import Rect, centre, clip, shift
from noru.imaging import Scanlines
from noru.sources import Shows, Source, infer_workspace

__all__ = ["Capturer", "Degraded", "DegradedMode", "Display", "Grab"]

T = TypeVar("T")


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
            self._backend = open_backend(self._display_name)
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
                return [self._grab(backend, rect, display, window, mode, shows="window")]
            # An excluded window lying over this one is hidden here too.
            with self._beside_grab(backend, lambda: stacked_or_refuse(backend)) as stacked:
                grab = self._grab(
                    backend, rect, display, window, mode, stacked.start, shows="window"
                )
                return [hide_excluded(grab, stacked.result(), self.excluded, rect)[0]]

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
            return [self._grab_area(backend, display.rect, display, "display")]

    def grab_all_displays(self) -> list[Grab]:
        """One grab per display, in display order."""
        with self._lock:
            backend = self._open()
            return [self._grab_area(backend, d.rect, d, "display") for d in backend.displays()]

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
            return [self._grab_area(backend, rect, display, "region")]

    # -- normalisation -------------------------------------------------------

    def _grab_area(
        self, backend: Backend, rect: Rect, display: Display | None, shows: Shows
    ) -> Grab:
        """A display or region (``shows``): carries the active window's facts
        when that window is in it."""
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
                grab = self._grab(backend, clipped, display, window, mode, rects.start, shows=shows)
                return replace(grab, windows=windows_in(rects.result(), clipped, grab.size))
        with self._beside_grab(backend, lambda: stacked_or_refuse(backend)) as stacked:
            if window is not None and self.excluded(window):
                window = None  # its title, app and text are not kept
            grab = self._grab(backend, clipped, display, window, mode, stacked.start, shows=shows)
            grab, shown = hide_excluded(grab, stacked.result(), self.excluded, clipped)
        return replace(grab, windows=windows_in(shown, clipped, grab.size))

    @contextmanager
    def _beside_grab(self, backend: Backend, listing: Callable[[], T]) -> Iterator[BesideGrab[T]]:
        """``listing`` (the windows, their facts) run beside the grab, on a
        thread of its own, when the backend lists on a connection other than
        the one it grabs on (``Backend.lists_beside_grab``); else run now.
        It starts when the backend says the display server has handed the
        pixels over (``BesideGrab.start``, given to ``grab_rows``): the X server
        answers nothing while it copies a screen, so a list asked before
        would wait behind the copy; after it, the list overlaps the packing
        of the rows. On the way out it has always ended, whatever happened
        (the next grab's questions use its connection)."""
        if not backend.lists_beside_grab:
            yield BesideGrab(None, listing, now=True)
            return
        if self._list_pool is None:
            self._list_pool = ThreadPoolExecutor(1, thread_name_prefix="noru-list")
        beside = BesideGrab(self._list_pool, listing)
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
        handed_over: Callable[[], None] | None = None,
        *,
        shows: Shows,
    ) -> Grab:
        """The grab of ``rect``, which is what ``shows`` says; ``mode``: its
        display's (``_mode``, known before: a listing may be using the
        backend's connection meanwhile); ``handed_over``: called when the display
        server has handed the pixels over."""
        reading = self._ax_start(window, rect)
        pixels = backend.grab_rows(rect, handed_over)
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
            shows=shows,
        )
        return Grab(
            source=source, geometry=rect, display_mode=mode, ax=text, rows=rows, pil_image=image
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
            AxLine(ln.text, in_image(shift(ln.box, -x, -y), rect, size), ln.role)
            for ln in text.lines
        )
        return replace(text, lines=lines)
