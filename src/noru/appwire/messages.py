"""The app protocol's messages: every request and reply as a frozen dataclass.

Only ``noru.appwire.codec`` turns them into bytes and back; the app and its
clients build and read these values, never a dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from noru.errors import NoruError, Refusal
from noru.geometry import Rect
from noru.imaging import Served

if TYPE_CHECKING:  # the app's status carries the capture's degraded modes (see fields)
    from noru.capture.base import DegradedMode

__all__ = [
    "MAX_REPLY",
    "MAX_REQUEST",
    "PROTOCOL",
    "SESSION_VARIABLES",
    "AppSession",
    "AppStatus",
    "Capture",
    "Captured",
    "Delivered",
    "Failed",
    "GetStatus",
    "HotkeyState",
    "Latest",
    "Malformed",
    "MenuState",
    "Mismatch",
    "Observe",
    "OcrState",
    "Ping",
    "Pong",
    "Refused",
    "Reply",
    "Request",
    "ScreenAccess",
    "ScreenState",
]

#: The app protocol's version; bump it whenever a request or reply changes.
# 3: served images as raw bytes after the reply line; 4: the app's session
# and its menu in the status; 5: the OCR child's hello names its engine's
# version apart; 6: the menu's state says why notifications are not shown.
PROTOCOL = 6
MAX_REQUEST = 1024 * 1024
MAX_REPLY = 64 * 1024 * 1024  # a 3-display bundle of PNGs fits easily

CaptureMode = Literal["window", "display", "all_displays", "region"]
Target = Literal["window", "display", "all_displays"]


class Malformed(NoruError):
    """A message that is not one of this protocol's (its words say what is wrong)."""


# --- requests ------------------------------------------------------------------


@dataclass(frozen=True)
class Ping:
    """Is an app there, and which version."""


@dataclass(frozen=True)
class GetStatus:
    """Screen access, the OCR engine, the shortcut and degraded modes."""


@dataclass(frozen=True)
class Capture:
    """A capture for the person (``noru capture``): stored with origin ``user``."""

    mode: CaptureMode = "window"
    #: For ``mode="window"``: the window under the pointer, or the active one.
    which: Literal["pointer", "active"] = "pointer"
    display: int | None = None  # for mode="display"; None: the one under the pointer
    region: Rect | None = None  # for mode="region", in screen pixels
    note: str | None = None


@dataclass(frozen=True)
class Latest:
    """The live handoff: the person's newest capture, once."""

    text_only: bool = False
    client: str | None = None  # the MCP client's name, for the sign that it looked


@dataclass(frozen=True)
class Observe:
    """A fresh capture for an agent: stored with origin ``agent``."""

    target: Target = "window"
    display: int | None = None
    text_only: bool = False
    client: str | None = None  # the MCP client's name, for the sign that it looked


Request = Ping | GetStatus | Capture | Latest | Observe

# --- replies -------------------------------------------------------------------


@dataclass(frozen=True)
class Pong:
    app_version: str


class ScreenState(StrEnum):
    GRANTED = "granted"
    DENIED = "denied"  # the platform refused (X authorization, a portal, Screen Recording)
    UNAVAILABLE = "unavailable"  # no screen to capture (no X server, unsupported session)


@dataclass(frozen=True)
class ScreenAccess:
    state: ScreenState
    #: What the backend reported: the display reached, or why not.
    detail: str
    #: For a refusal, the platform's own words: which display, how to grant access.
    details: tuple[str, ...] = ()
    #: How capture works less well than it should here (empty when all is well).
    degraded: tuple[DegradedMode, ...] = ()


@dataclass(frozen=True)
class OcrState:
    available: bool
    engine: str
    version: str | None = None
    problem: str | None = None  # why it is unavailable, with the fix

    def __str__(self) -> str:
        if not self.available:
            return f"unavailable: {self.problem}"
        return f"{self.engine} {self.version}" if self.version else self.engine


@dataclass(frozen=True)
class HotkeyState:
    key: str
    grabbed: bool
    problem: str | None = None  # why it is not (or no longer) grabbed

    def __str__(self) -> str:
        return (
            f"{self.key} (grabbed)" if self.grabbed else f"{self.key} not grabbed: {self.problem}"
        )


#: The environment variables that choose the screen the app captures (X11,
#: Wayland and the compositor's socket) and the session bus it speaks
#: (accessibility text, the Noru menu).
SESSION_VARIABLES = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "XDG_CURRENT_DESKTOP",
    "SWAYSOCK",
    "HYPRLAND_INSTANCE_SIGNATURE",
    "DBUS_SESSION_BUS_ADDRESS",
)


@dataclass(frozen=True)
class AppSession:
    """The session the app runs in, as its environment names it: so that
    ``noru doctor`` in another terminal (an ssh shell, a terminal without
    ``$DISPLAY`` beside ``make run``'s private display) checks the screen and
    the bus the app uses, not its own."""

    #: ``(name, value)`` of each of ``SESSION_VARIABLES`` that is set.
    variables: tuple[tuple[str, str], ...] = ()

    @classmethod
    def current(cls, environ: Mapping[str, str]) -> AppSession:
        return cls(tuple((name, environ[name]) for name in SESSION_VARIABLES if environ.get(name)))

    def get(self, name: str) -> str | None:
        return dict(self.variables).get(name)


@dataclass(frozen=True)
class MenuState:
    """Whether a panel host shows this app's Noru menu now, and if not, why.
    ``noru mcp`` reads it to say where the person finds the access controls
    (docs/panel.md, "Where the person finds the controls"); ``noru status``
    says why the desktop notifications are not shown, when the app found
    they are not (no server, or one that does not answer)."""

    shown: bool
    problem: str | None = None  # why it is not shown
    notifications: str | None = None  # why notifications are not shown

    def __str__(self) -> str:
        return "shown in the panel" if self.shown else f"not shown: {self.problem or 'no panel'}"


@dataclass(frozen=True)
class AppStatus:
    app_version: str
    screen: ScreenAccess
    ocr: OcrState
    hotkey: HotkeyState
    menu: MenuState
    session: AppSession = AppSession()


@dataclass(frozen=True)
class Captured:
    id: str


@dataclass(frozen=True)
class Delivered:
    """A capture the app just stored for an agent, and its images as the app
    served them (none for text only), so ``noru mcp`` need not re-encode them
    when it serves the same size."""

    id: str
    served: tuple[Served, ...] = ()


@dataclass(frozen=True)
class Refused:
    """The app's reply that it refused: an ``errors.Refusal`` carried whole
    (its class by its tag, its own words), raised again on this side."""

    tag: str
    summary: str = ""
    details: tuple[str, ...] = ()
    next_action: str = ""

    @classmethod
    def of(cls, refusal: Refusal) -> Refused:
        return cls(refusal.tag, refusal.summary, tuple(refusal.details), refusal.next_action)

    def refusal(self) -> Refusal:
        """The refusal exactly as the app raised it."""
        kind = Refusal.by_tag(self.tag)
        if kind is None:
            raise Malformed(f"unknown refusal {self.tag[:60]!r}")
        return kind(self.summary, details=self.details, next_action=self.next_action or None)


@dataclass(frozen=True)
class Failed:
    message: str


@dataclass(frozen=True)
class Mismatch:
    """The app speaks another protocol version."""

    protocol: int | None
    app_version: str | None = None


Reply = Pong | AppStatus | Captured | Delivered | Refused | Failed | Mismatch
