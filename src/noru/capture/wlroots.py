"""What the wlroots compositors' backends share: ``grim`` for the pixels, the
compositor's own IPC for the outputs and windows.

A Wayland client cannot read other clients' pixels or windows; a wlroots
compositor hands both to tools that ask it: the pixels through the
``wlr-screencopy`` protocol, which Debian's ``grim`` speaks, and the windows
and outputs through an IPC socket of its own, which differs from one
compositor to the next (sway's in ``noru.capture.sway``, Hyprland's in
``noru.capture.hyprland``). A backend here says only how to read its
compositor's outputs and views; the rest is this class.

Why ``grim`` and not the protocol directly: PyPI's ``pywayland`` ships
``ext-image-copy-capture`` but not ``wlr-screencopy``, the only one sway 1.7
offers, so speaking it ourselves means generating and keeping protocol
bindings; ``grim`` is one small C program that does exactly this, and
measured about 50 ms for 2560x1600 here (docs/performance.md).

Rectangles are in the layout's (logical) coordinates, the compositor's and
``grim -g``'s. A rectangle is grabbed at the highest scale among the outputs
it lies on (``grim -s``), so a HiDPI output gives its own pixels, neither
upscaled nor downscaled; the facade maps rectangles into the image by its
size.

Wayland gives no client the pointer's position, and neither IPC does, so
"the window under the pointer" is the focused window and "the display under
the pointer" the focused output (``degraded_modes`` says so).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from PIL import Image

from noru.capture.base import Backend, Degraded, DegradedMode, Display, Rect, WindowFacts
from noru.errors import CaptureError
from noru.geometry import clip

__all__ = ["GRIM_TIMEOUT", "Output", "View", "WlrootsBackend"]

GRIM_TIMEOUT = 10.0


@dataclass(frozen=True)
class Output:
    """One active output: its name, its rectangle in layout coordinates, its
    scale (pixels per layout unit) and whether it has the focus."""

    name: str | None
    rect: Rect
    scale: float
    focused: bool


@dataclass(frozen=True)
class View:
    """One visible window: its frame (layout coordinates), its facts, whether
    it has the focus."""

    frame: Rect
    facts: WindowFacts
    focused: bool


class WlrootsBackend(Backend):
    """A wlroots compositor: its IPC says what there is, ``grim`` grabs it."""

    #: The compositor's name as the person knows it, for messages ("sway").
    compositor: ClassVar[str]

    def __init__(self) -> None:
        self._broken = False
        if shutil.which("grim") is None:
            raise CaptureError(
                f"screen capture on {self.compositor} needs grim, which is not installed"
                " (apt install grim)"
            )

    # -- what each compositor says ---------------------------------------------------

    @abstractmethod
    def outputs(self) -> list[Output]:
        """The active outputs in the compositor's order.
        Raises ``CaptureError`` when the compositor does not answer."""

    @abstractmethod
    def views(self) -> list[View]:
        """The visible windows, bottom to top.
        Raises ``CaptureError`` when the compositor does not answer."""

    def _lost(self, exc: Exception) -> CaptureError:
        """The error for an IPC that stopped answering; the facade then reopens."""
        self._broken = True
        return CaptureError(f"{self.compositor} does not answer on its IPC socket ({exc})")

    # -- facts ----------------------------------------------------------------------

    def _active_outputs(self) -> list[Output]:
        found = self.outputs()
        if not found:
            raise CaptureError(f"{self.compositor} has no active output to capture")
        return found

    def screen_rect(self) -> Rect:
        rects = [o.rect for o in self._active_outputs()]
        x0 = min(x for x, _, _, _ in rects)
        y0 = min(y for _, y, _, _ in rects)
        x1 = max(x + w for x, _, w, _ in rects)
        y1 = max(y + h for _, y, _, h in rects)
        return (x0, y0, x1 - x0, y1 - y0)

    def displays(self) -> list[Display]:
        return [
            Display(n, o.name, *o.rect, primary=o.focused)
            for n, o in enumerate(self._active_outputs(), start=1)
        ]

    def stacked_windows(self, *, facts: bool = True) -> list[tuple[Rect, WindowFacts | None]]:
        return [(view.frame, view.facts if facts else None) for view in self.views()]

    def active_window(self) -> WindowFacts | None:
        return next((view.facts for view in self.views() if view.focused), None)

    def pointer_window(self) -> WindowFacts | None:
        return self.active_window()  # Wayland does not say where the pointer is

    def pointer_position(self) -> tuple[int, int]:
        displays = self.displays()
        shown = next((d for d in displays if d.primary), displays[0])
        return (shown.x + shown.width // 2, shown.y + shown.height // 2)

    # -- pixels ---------------------------------------------------------------------

    def grab(self, rect: Rect) -> Image.Image:
        scales = [o.scale for o in self.outputs() if clip(o.rect, rect) is not None]
        scale = max(scales, default=1.0)
        x, y, w, h = rect
        try:
            done = subprocess.run(
                ["grim", "-s", repr(float(scale)), "-g", f"{x},{y} {w}x{h}", "-t", "ppm", "-"],
                capture_output=True,
                timeout=GRIM_TIMEOUT,
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
