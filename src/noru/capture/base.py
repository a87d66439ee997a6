"""What a capture backend is, and the plain facts it hands to the facade.

A backend only grabs pixels and describes displays and windows, in root (or
virtual-desktop) coordinates; it does no locking and no normalisation. The
facade in ``noru.capture`` owns exactly one backend and does the rest: it
clips rectangles to the screen, picks the display that holds a window, builds
the :class:`~noru.sources.Source`, and serialises grabs.

Backends raise only ``noru.errors`` classes (``CaptureError``, and
``PermissionDenied`` when the platform refuses screen access); third-party
exceptions are translated where they are caught (``noru.capture.x11.map_x11_errors``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from noru.ax.base import AxText
from noru.geometry import Rect, contains
from noru.sources import Source

if TYPE_CHECKING:
    from PIL import Image

    from noru.imaging import Scanlines

__all__ = ["Backend", "Degraded", "DegradedMode", "Display", "Grab", "Rect", "WindowFacts"]


class Degraded(StrEnum):
    """The ways a backend can work less well than it should, for ``noru doctor``."""

    #: No window manager: the active window is unknown; display captures carry no window facts.
    NO_WINDOW_MANAGER = "no_window_manager"
    #: A window manager that does not report the active window.
    NO_ACTIVE_WINDOW = "no_active_window"
    #: The monitors cannot be listed: the whole screen is one display.
    ONE_DISPLAY = "one_display"
    #: The fast grab path is unavailable; captures take longer.
    SLOW_GRAB = "slow_grab"
    #: An X server inside a Wayland session: only X11 applications are visible.
    XWAYLAND = "xwayland"
    #: The pointer's position is unknown (Wayland): "under the pointer" means focused.
    NO_POINTER = "no_pointer"


@dataclass(frozen=True)
class DegradedMode:
    """One degraded mode and, in the person's words, what it means here."""

    kind: Degraded
    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class Display:
    """One monitor as the platform lists it; ``index`` counts from 1 in that order."""

    index: int
    name: str | None
    x: int
    y: int
    width: int
    height: int
    primary: bool

    @property
    def rect(self) -> Rect:
        return (self.x, self.y, self.width, self.height)

    @property
    def mode(self) -> str:
        """The display mode as the ``!dm`` provenance token states it, e.g. "2560x1600"."""
        return f"{self.width}x{self.height}"

    def contains(self, x: int, y: int) -> bool:
        return contains(self.rect, (x, y))


@dataclass(frozen=True)
class WindowFacts:
    """A top-level window as the backend sees it. Holds no window id; its
    process (``pid``) stays inside the capture part, which uses it only to ask
    the accessibility bus for the window's text: no ``Source`` carries it, so
    nothing the facade passes on can leak a handle to an agent."""

    title: str | None
    app_id: str | None
    app_name: str | None
    # Where the window's client area is, unclipped: it may extend off screen.
    rect: Rect
    pid: int | None = None  # the process that drew it, as the platform says (X11: _NET_WM_PID)


@dataclass(frozen=True)
class Grab:
    """One captured image and where it came from.

    ``image`` is an RGB image at the full resolution captured; ``geometry`` is
    the rectangle it shows in root coordinates (already clipped to the screen);
    ``display_mode`` is the mode of the display that holds it, for ``!dm``;
    ``windows`` are the visible windows it shows, in image coordinates, bottom
    to top (empty for a window grab: the image is the window), so OCR can read
    each window on its own. ``ax`` is the accessibility text read beside
    the grab (``noru.capture``), None when none was asked for.

    The pixels come as the backend gives them: an image (``pil_image``), or a
    PNG's rows (``rows``: X11, packed straight from the X server's shared
    memory, the form both PNGs and the OCR process take). ``image`` is made
    from the rows when first asked for (a few ms: not on an agent's way to
    the served image, which needs none).
    """

    source: Source
    geometry: Rect
    display_mode: str
    windows: tuple[Rect, ...] = ()
    ax: AxText | None = None  # the window's accessibility text, boxes in image pixels
    excluded: int = 0  # windows the person excluded, painted black in the pixels
    rows: Scanlines | None = None
    pil_image: Image.Image | None = None

    def __post_init__(self) -> None:
        if self.rows is None and self.pil_image is None:
            raise ValueError("a grab holds its pixels: rows, an image, or both")

    @property
    def size(self) -> tuple[int, int]:
        return self.pil_image.size if self.pil_image is not None else self._rows.size

    @property
    def _rows(self) -> Scanlines:
        assert self.rows is not None
        return self.rows

    @cached_property
    def image(self) -> Image.Image:
        return self.pil_image if self.pil_image is not None else self._rows.image()


class Backend(ABC):
    """One platform's way of seeing the screen."""

    #: Short name for ``noru doctor`` ("x11").
    name: ClassVar[str]
    #: Whether it knows the windows (the desktop portal does not: the screen only).
    gives_windows: ClassVar[bool] = True
    #: Whether its window list may be read (on another thread) while it grabs:
    #: the two go through connections of their own (X11: python-xlib and mss).
    lists_beside_grab: ClassVar[bool] = False

    def window_rects(self) -> list[Rect]:
        """Visible top-level windows (with their frames) in root coordinates,
        bottom to top. Backends that cannot list windows return none."""
        return [rect for rect, _ in self.stacked_windows()]

    def stacked_windows(self, *, facts: bool = True) -> list[tuple[Rect, WindowFacts | None]]:
        """Visible top-level windows bottom to top: each frame's rectangle (root
        coordinates) and its client's facts (with ``facts``), None where they
        cannot be read.
        Raises ``CaptureError`` when the list itself cannot be read."""
        return []

    @abstractmethod
    def screen_rect(self) -> Rect:
        """The whole capturable area (the X root window), in root coordinates."""

    @abstractmethod
    def displays(self) -> list[Display]:
        """The monitors in platform order; never empty (fall back to the whole screen)."""

    @abstractmethod
    def active_window(self) -> WindowFacts | None:
        """The focused top-level window, or None when the platform cannot say."""

    @abstractmethod
    def pointer_window(self) -> WindowFacts | None:
        """The top-level window under the pointer, or None over the bare desktop."""

    @abstractmethod
    def pointer_position(self) -> tuple[int, int]:
        """The pointer in root coordinates."""

    @abstractmethod
    def grab(self, rect: Rect) -> Image.Image:
        """The pixels of ``rect`` (inside ``screen_rect()``) as an RGB image."""

    def grab_rows(
        self, rect: Rect, handed_over: Callable[[], None] | None = None
    ) -> Image.Image | Scanlines:
        """``grab``, or the pixels as a PNG's rows where the backend makes
        those for less than the image (X11). ``handed_over`` is called once the
        display server has handed the pixels over (what runs beside the
        grab may then ask it questions without waiting behind the copy)."""
        image = self.grab(rect)
        if handed_over is not None:
            handed_over()
        return image

    @abstractmethod
    def degraded_modes(self) -> list[DegradedMode]:
        """How this backend works less well than it should; empty when all is well."""

    @property
    @abstractmethod
    def broken(self) -> bool:
        """True once the connection to the display is lost; the facade then reopens."""

    @abstractmethod
    def close(self) -> None:
        """Release the display connection. Called at most once."""

    def release(self) -> None:  # noqa: B027 (most backends hold nothing worth letting go)
        """Let go of what the backend keeps between grabs only to be faster
        (the app calls it when quiet); the next grab takes it again."""
