"""What the accessibility reader hands back: typed data, and the reasons in words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from noru.geometry import Rect

__all__ = ["AxAbsent", "AxApp", "AxApps", "AxLine", "AxSession", "AxText"]


@dataclass(frozen=True)
class AxLine:
    """One line of text as the application reports it.

    ``box`` is in root (screen) coordinates, cut to the grabbed rectangle;
    ``role`` is the AT-SPI role of the node that holds it ("label", "text",
    "push button", "heading", "paragraph").
    """

    text: str
    box: Rect
    role: str


class AxAbsent(StrEnum):
    """Why a window has no accessibility text; ``AxText.reason`` says it in words."""

    NO_BUS = "no_bus"  # no accessibility bus in this session
    NO_TREE = "no_tree"  # no application of that process exposes a tree for the window
    SWITCHED_OFF = "switched_off"  # the toolkit exposes its tree only when switched on
    TIMED_OUT = "timed_out"  # nothing was read within the budget


@dataclass(frozen=True)
class AxText:
    """A window's accessibility text, or why there is none.

    ``partial`` is true when the budget or the node cap stopped the walk
    before it had read every node (the lines are those read until then, and
    ``reason`` says which stopped it). ``absent`` is set, with ``reason``,
    when there are no lines to give; ``nodes`` counts the nodes visited and
    ``elapsed_ms`` the wall time of the whole read.
    """

    lines: tuple[AxLine, ...]
    partial: bool
    absent: AxAbsent | None
    reason: str | None
    nodes: int
    elapsed_ms: float


@dataclass(frozen=True)
class AxApp:
    """A running application that exposes an accessibility tree.

    ``name`` is its accessible name (often the program's), ``toolkit`` what
    it says it is built with ("gtk", "Qt", "Gecko", "Chromium"), ``pid`` its
    process; each None when it does not say.
    """

    name: str
    toolkit: str | None
    pid: int | None


@dataclass(frozen=True)
class AxApps:
    """The applications exposing a tree, or why they cannot be listed."""

    apps: tuple[AxApp, ...]
    absent: AxAbsent | None
    reason: str | None


@dataclass(frozen=True)
class AxSession:
    """The session's accessibility switch (``org.a11y.Status``).

    ``enabled`` (``IsEnabled``) makes every application build its tree;
    ``screen_reader`` (``ScreenReaderEnabled``) says a screen reader runs.
    None with a ``reason`` when the session bus cannot say.
    """

    enabled: bool | None
    screen_reader: bool | None
    reason: str | None
