"""The windows in a grab: which show in it, in its image's pixels; the ones
the person excluded painted black; and a refusal when a window's facts
cannot be read (it might be one of them: fail closed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from noru.capture.base import Backend, Grab, WindowFacts
from noru.errors import CaptureError
from noru.geometry import Rect, clip, shift

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["black_out", "hide_excluded", "in_image", "stacked_or_refuse", "windows_in"]


def windows_in(windows: list[Rect], area: Rect, size: tuple[int, int]) -> tuple[Rect, ...]:
    """The windows that show in ``area``, clipped, in the pixels of its image
    (``size``: more than the area's on a scaled Wayland output), order kept."""
    ax, ay, _, _ = area
    inside = (clip(window, area) for window in windows)
    return tuple(in_image(shift(r, -ax, -ay), area, size) for r in inside if r is not None)


def in_image(rect: Rect, area: Rect, size: tuple[int, int]) -> Rect:
    """``rect``, in ``area``'s coordinates, in the pixels of its image of ``size``."""
    _, _, aw, ah = area
    if size == (aw, ah):
        return rect
    fx, fy = size[0] / aw, size[1] / ah
    x, y, w, h = rect
    return (round(x * fx), round(y * fy), round(w * fx), round(h * fy))


def stacked_or_refuse(backend: Backend) -> list[tuple[Rect, WindowFacts]]:
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


def hide_excluded(
    grab: Grab,
    stacked: list[tuple[Rect, WindowFacts]],
    excluded: Callable[[WindowFacts], bool],
    area: Rect,
) -> tuple[Grab, list[Rect]]:
    """``grab`` with the excluded windows painted black and counted, and the
    rectangles of the windows that are not excluded (bottom to top)."""
    hidden = [excluded(facts) for _, facts in stacked]
    painted = black_out(grab, [rect for rect, _ in stacked], hidden, area)
    shown = [rect for (rect, _), off in zip(stacked, hidden, strict=True) if not off]
    if painted is None:
        return grab, shown
    count, image = painted
    # The black is in the image only: the rows of the pixels before it go.
    return replace(grab, excluded=count, pil_image=image, rows=None), shown


def black_out(
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
