"""The desktop-portal backend (GNOME, KDE, any Wayland desktop): pixels only.

On a Wayland desktop that is not sway, no client may read the screen or
the windows itself; the desktop offers screenshots through the desktop
portal instead: ``org.freedesktop.portal.Screenshot`` on the session bus
(``xdg-desktop-portal``, with the desktop's own backend behind it:
``xdg-desktop-portal-gnome``, ``-kde``, ``-wlr``...). Noru asks it
non-interactively (``interactive: false``) and the portal decides: it may
ask the person once, and it keeps the answer.

Which desktops give which facts (docs/wayland.md has the table):

- sway (``noru.capture.sway``): everything: each output's pixels at its own
  scale, the outputs, the windows, their apps and titles, the focus.
- the portal (this module): pixels only. One image of the whole screen, every
  monitor composited together, so the screen is one display the size of
  that image, with no name; no windows, no app, no title, no pointer. A
  window capture is refused with that reason (``pointer_window`` raises it:
  the facade asks that last, and only for a window capture); a display
  capture carries no app or window facts, and none of the windows' boxes
  that OCR would read one by one. The windows the person excluded cannot be
  found to be hidden, so with exclusions set every capture is refused (the
  window list "cannot be read": the facade fails closed).

One request, as the portal's documentation prescribes: the reply to
``Screenshot`` is a request object whose ``Response`` signal carries the
answer, so the signal is subscribed before the call, on the path the portal
will use (``/org/freedesktop/portal/desktop/request/SENDER/TOKEN``: our
unique name without its colon, dots made underscores, and a token of our
own in ``handle_token``). The answers:

- 0: success, ``uri`` names a PNG file the portal wrote;
- 1: cancelled (a dialog dismissed), and 2: anything else: both are a
  ``PermissionDenied`` with the words for granting it. The portal answers
  2 both when screen access is denied and when its backend failed (it does
  not say which), so the message says both.
- no answer within ``RESPONSE_TIMEOUT``: a ``CaptureError``, and the request
  is closed, so a dialog the portal showed goes away.

The file the portal wrote is read, then removed when it is ours: a regular
file (not a link), owned by this user, written during this request, and
still the file that was read. Wherever it is: ``xdg-desktop-portal-wlr``
writes every screenshot to the fixed path ``/tmp/out.png``, GNOME's
portal into the person's Pictures folder; either way it is a copy of a
capture that Noru's own history would keep, delete and expire, and must
not outlive it. A file older than the request (a portal that answered
with a stale path) or someone else's is left alone. Two requests at once
to ``xdg-desktop-portal-wlr`` write the same file: what is read is the
last one written, which is why captures are taken one at a time.

The session bus is found as the accessibility reader finds it
(``noru.sessionbus.session_address``). The connection lives on an event loop
in a thread of its own (``noru-portal``), made when the backend opens.
"""

from __future__ import annotations

import io
import os
import stat
import time
from typing import Any
from urllib.parse import unquote, urlsplit

from dbus_fast import Variant
from PIL import Image

from noru.capture.base import Backend, Degraded, DegradedMode, Display, Rect, WindowFacts
from noru.desktop_portal import (
    CALL_TIMEOUT,
    CONNECT_TIMEOUT,
    PORTAL,
    PortalLoop,
    Unoffered,
    join_bus,
    request,
    version,
)
from noru.errors import CaptureError, PermissionDenied
from noru.sessionbus import leave, session_address

__all__ = ["GRANT_HOW", "GRANT_NEXT_ACTION", "PortalBackend"]


SCREENSHOT = "org.freedesktop.portal.Screenshot"

# The portal may ask the person the first time (a dialog): give them time,
# but not for ever (a capture is taken one at a time; the next one waits).
RESPONSE_TIMEOUT = 30.0
# File systems stamp times coarsely (the kernel's clock tick; FAT: 2 s).
_CLOCK_SLACK_NS = 2_000_000_000

GRANT_HOW = (
    "To grant it: the desktop portal asks once whether applications may take "
    "screenshots, and keeps the answer in its permission store (table `screenshot`, "
    "under the empty application id for a program outside Flatpak). To allow Noru "
    "after a refusal, run `flatpak permission-set screenshot screenshot '' yes`, or "
    "without flatpak: `gdbus call --session --dest "
    "org.freedesktop.impl.portal.PermissionStore --object-path "
    "/org/freedesktop/impl/portal/PermissionStore --method "
    "org.freedesktop.impl.portal.PermissionStore.SetPermission screenshot true "
    "screenshot '' \"['yes']\"`. If access was granted, the desktop's screenshot "
    "backend failed: the portal's log says why (`journalctl --user -u xdg-desktop-portal`)."
)

GRANT_NEXT_ACTION = (
    "Ask the person to allow screenshots for Noru in the desktop portal (its permission "
    "store: `flatpak permission-set screenshot screenshot '' yes`), then retry."
)

_ANSWERS = {
    1: "the portal answered 1 (cancelled): its dialog was dismissed",
    2: (
        "the portal answered 2 (other): it answers so both when screen access is "
        "denied and when its screenshot backend failed, and does not say which"
    ),
}


def _take_file(uri: str, since_ns: int) -> Image.Image:
    """The PNG the portal wrote at ``uri``, read; the file removed when it is ours."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        raise CaptureError(f"the desktop portal gave the screenshot as {uri!r}, not a local file")
    path = unquote(parts.path)
    try:
        # Not through a link: a link at a fixed path in /tmp is anyone's.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise CaptureError(
            f"the screenshot the desktop portal wrote ({path}) cannot be read: "
            f"{exc.strerror or exc}"
        ) from exc
    with os.fdopen(fd, "rb") as file:
        read = os.fstat(file.fileno())
        if not stat.S_ISREG(read.st_mode):
            raise CaptureError(f"the desktop portal's screenshot ({path}) is not a file")
        data = file.read()
    try:
        with Image.open(io.BytesIO(data)) as image:
            pixels = image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise CaptureError(
            f"the desktop portal's screenshot ({path}) is not an image Noru can read: {exc}"
        ) from exc
    _remove_if_ours(path, read, since_ns)
    return pixels


def _remove_if_ours(path: str, read: os.stat_result, since_ns: int) -> bool:
    """Remove ``path`` when it is the file read, this user's, written since
    ``since_ns``: the copy the portal made for this request. Else leave it."""
    try:
        now = os.lstat(path)
    except OSError:
        return False
    same = (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) == (
        read.st_dev,
        read.st_ino,
        read.st_size,
        read.st_mtime_ns,
    )
    ours = stat.S_ISREG(now.st_mode) and now.st_uid == os.getuid()
    if not (same and ours and now.st_mtime_ns >= since_ns - _CLOCK_SLACK_NS):
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


class PortalBackend(Backend):
    """Screenshots through the desktop portal; no windows, one display."""

    name = "portal"
    gives_windows = False

    def __init__(self) -> None:
        address = session_address()
        if address is None:
            raise CaptureError(
                "the desktop portal cannot be reached: there is no D-Bus session bus "
                "(DBUS_SESSION_BUS_ADDRESS is not set)"
            )
        self.address = address
        self._size: tuple[int, int] | None = None
        self._loop = PortalLoop()
        try:
            self._bus = self._loop.run(lambda: join_bus(address), 2 * CONNECT_TIMEOUT)
        except BaseException:
            self._loop.close()
            raise
        try:
            self.version = self._loop.run(self._version, 2 * CALL_TIMEOUT)
        except BaseException:
            self.close()
            raise

    async def _version(self) -> int:
        """The Screenshot portal's version: there, or a ``CaptureError`` saying why not."""
        try:
            return await version(self._bus, SCREENSHOT)
        except Unoffered as exc:
            if exc.missing:
                raise CaptureError(
                    "the desktop portal here has no Screenshot portal: xdg-desktop-portal "
                    "offers it only when this desktop has a portal backend that takes "
                    "screenshots (GNOME: xdg-desktop-portal-gnome, KDE: xdg-desktop-portal-kde, "
                    "wlroots: xdg-desktop-portal-wlr) and one that asks for access (e.g. "
                    f"xdg-desktop-portal-gtk) ({exc.words})"
                ) from None
            raise CaptureError(
                f"the desktop portal ({PORTAL}) cannot be used: {exc.words}"
            ) from None

    # -- the request ----------------------------------------------------------------

    def _shot(self) -> Image.Image:
        since_ns = time.time_ns()
        results = self._loop.run(self._request, CALL_TIMEOUT + RESPONSE_TIMEOUT + 10)
        uri = results.get("uri")
        uri = uri.value if isinstance(uri, Variant) else uri
        if not isinstance(uri, str) or not uri:
            raise CaptureError("the desktop portal answered success but named no image")
        return _take_file(uri, since_ns)

    async def _request(self) -> dict[str, Any]:
        """One Screenshot request: its results on success, else the refusal."""
        response, results = await request(
            self._bus,
            SCREENSHOT,
            "Screenshot",
            "sa{sv}",
            lambda token: [
                "",
                {"handle_token": Variant("s", token), "interactive": Variant("b", False)},
            ],
            RESPONSE_TIMEOUT,
            "the screenshot request",
        )
        if response == 0:
            return results
        if response in _ANSWERS:
            raise PermissionDenied(
                "the desktop portal refused the screenshot",
                details=(f"The portal: {_ANSWERS[response]}.", GRANT_HOW),
                next_action=GRANT_NEXT_ACTION,
            )
        raise CaptureError(f"the desktop portal gave an answer Noru does not know ({response})")

    # -- facts ----------------------------------------------------------------------

    def _screen_size(self) -> tuple[int, int]:
        # The portal says nothing of the screen but its pixels: one look.
        if self._size is None:
            self._size = self._shot().size
        return self._size

    def screen_rect(self) -> Rect:
        width, height = self._screen_size()
        return (0, 0, width, height)

    def displays(self) -> list[Display]:
        width, height = self._screen_size()
        return [Display(1, None, 0, 0, width, height, primary=True)]

    def window_rects(self) -> list[Rect]:
        return []  # no windows' boxes: OCR reads the screen whole

    def stacked_windows(self, *, facts: bool = True) -> list[tuple[Rect, WindowFacts | None]]:
        # Not "no windows": windows there are, unseen. With exclusions set, the
        # facade refuses the capture rather than show a window the person hid.
        raise CaptureError("the desktop portal gives no list of windows")

    def active_window(self) -> WindowFacts | None:
        return None  # the portal gives no windows: a display capture carries none

    def pointer_window(self) -> WindowFacts | None:
        # Asked only for a window capture, after active_window: refuse it with the reason.
        raise CaptureError(
            "no window to capture: the desktop portal gives only the whole screen, no "
            "windows (capture the display instead; sway gives windows)"
        )

    def pointer_position(self) -> tuple[int, int]:
        width, height = self._screen_size()
        return (width // 2, height // 2)

    # -- pixels ---------------------------------------------------------------------

    def grab(self, rect: Rect) -> Image.Image:
        image = self._shot()
        if image.size != self._size:
            self._size = image.size
            width, height = image.size
            raise CaptureError(
                f"the screen changed size during the capture (now {width}x{height}): capture again"
            )
        x, y, w, h = rect
        if (x, y, w, h) == (0, 0, *image.size):
            return image
        return image.crop((x, y, x + w, y + h))

    def degraded_modes(self) -> list[DegradedMode]:
        return [
            DegradedMode(
                Degraded.NO_ACTIVE_WINDOW,
                "the desktop portal gives pixels only: no windows, so window captures are"
                " refused, no capture names its app or window, and with exclusions set"
                " every capture is refused (excluded windows cannot be found to hide)",
            ),
            DegradedMode(
                Degraded.ONE_DISPLAY,
                "the desktop portal gives the whole screen as one image (every monitor"
                " together): one display, unnamed",
            ),
            DegradedMode(
                Degraded.NO_POINTER,
                "Wayland does not tell where the pointer is: a display capture takes the"
                " whole screen",
            ),
        ]

    @property
    def broken(self) -> bool:
        return not self._bus.connected

    def close(self) -> None:
        self._loop.close(lambda: leave(self._bus))
