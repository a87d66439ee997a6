"""Reading one window's accessibility text, listing the applications, the switch.

``read_window`` runs on the reader's loop thread (``noru.ax.bus``) within its
budget: it joins the accessibility bus (kept from the last read), finds the
applications the window's process owns (the registry root's children whose
D-Bus connection belongs to that pid), picks the window among their frames
(the one titled as the window, then the one whose extents best cover the
grabbed rectangle), and walks it (``noru.ax.walk``). When the budget runs
out the walk is cut and what it read is given, marked partial. Every D-Bus
failure becomes an ``AxText`` with its reason; none is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from dbus_fast import Variant

from noru.ax import atspi, bus
from noru.ax.base import AxAbsent, AxApp, AxApps, AxLine, AxSession, AxText
from noru.ax.bus import BROKEN, Calls, Link, Unreachable, said
from noru.ax.lines import reading_lines
from noru.ax.process import Family, process_facts
from noru.ax.walk import MAX_NODES, Walk, box_of
from noru.geometry import Rect, intersects, iou

__all__ = ["exposing_apps", "read_window", "session_status", "set_session_enabled"]

T = TypeVar("T")

# How long past its budget a read may take to hand back what it has (the
# loop thread's hand-over), before the caller stops waiting for it at all.
_GRACE = 0.5

# Where Chromium and Electron, and Qt, are switched on. Chromium (156)
# registers no tree at all unless accessibility is on for the session or in
# its environment, and then shows its pages' text only with the argument.
_CHROMIUM_SWITCH = (
    "only with accessibility switched on for the session (org.a11y.Status.IsEnabled) "
    "or ACCESSIBILITY_ENABLED=1 in its environment, and its pages' text only when "
    "started with --force-renderer-accessibility"
)
_PAGES_SWITCH = "its pages' text only when started with --force-renderer-accessibility"
_SWITCHES = {
    Family.CHROMIUM: _CHROMIUM_SWITCH,
    Family.ELECTRON: _CHROMIUM_SWITCH,
    Family.QT: (
        "only when started with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 in its environment, "
        "or with accessibility switched on for the session (org.a11y.Status.IsEnabled)"
    ),
}


class _Absent(Exception):
    def __init__(self, absent: AxAbsent, reason: str) -> None:
        super().__init__(reason)
        self.absent = absent
        self.reason = reason


@dataclass
class _App:
    name: str  # its unique name on the accessibility bus
    path: str
    pid: int | None


@dataclass
class _Frame:
    app: _App
    path: str
    box: Rect | None
    title: str


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.0f} ms" if ms >= 10 or ms == int(ms) else f"{ms:.1f} ms"


async def _applications(calls: Calls, link: Link) -> list[_App]:
    """The registry's applications, each with its process (asked once per bus name)."""
    found = await calls.call(atspi.REGISTRY, atspi.ROOT_PATH, atspi.ACCESSIBLE, "GetChildren")
    apps = [(str(name), str(path)) for name, path in found or ()]
    unknown = [name for name, _ in apps if name not in link.pids]
    pids = await asyncio.gather(
        *(
            calls.call(
                atspi.DBUS_NAME,
                atspi.DBUS_PATH,
                atspi.DBUS,
                "GetConnectionUnixProcessID",
                "s",
                (name,),
            )
            for name in unknown
        )
    )
    for name, pid in zip(unknown, pids, strict=True):
        link.pids[name] = pid if isinstance(pid, int) else None
    return [_App(name, path, link.pids[name]) for name, path in apps]


async def _property(calls: Calls, app: _App, interface: str, name: str) -> Any:
    return await calls.call(app.name, app.path, atspi.PROPERTIES, "Get", "ss", (interface, name))


async def _frames(calls: Calls, app: _App) -> list[_Frame]:
    """The application's windows that are showing."""
    children = await calls.call(app.name, app.path, atspi.ACCESSIBLE, "GetChildren") or ()

    async def frame(name: str, path: str) -> _Frame | None:
        role, state, extents, title = await asyncio.gather(
            calls.call(name, path, atspi.ACCESSIBLE, "GetRole"),
            calls.call(name, path, atspi.ACCESSIBLE, "GetState"),
            calls.call(name, path, atspi.COMPONENT, "GetExtents", "u", (atspi.COORD_SCREEN,)),
            calls.call(name, path, atspi.PROPERTIES, "Get", "ss", (atspi.ACCESSIBLE, "Name")),
        )
        # Whatever their role, an application's children are its windows: a
        # frame, a dialog, or for Qt a plain widget shown on its own (a filler).
        if not isinstance(role, int) or not isinstance(state, list):
            return None
        if not atspi.states(state) >> atspi.STATE_SHOWING & 1:
            return None
        return _Frame(app, path, box_of(extents), title if isinstance(title, str) else "")

    found = await asyncio.gather(*(frame(str(n), str(p)) for n, p in children))
    return [f for f in found if f is not None]


def _pick(frames: list[_Frame], rect: Rect, title: str | None) -> _Frame | None:
    """The window titled as the captured one, else the one covering it best."""
    placed = [f for f in frames if f.box is None or intersects(f.box, rect)]
    if not placed:
        return None

    def score(frame: _Frame) -> tuple[bool, float]:
        return (
            title is not None and frame.title == title,
            iou(frame.box, rect) if frame.box else 0,
        )

    return max(placed, key=score)


def _who(program: str | None, family: Family) -> str:
    return f"{program} ({family})" if program and program != str(family) else str(family)


def _switch_reason(program: str | None, family: Family) -> str:
    return f"{_who(program, family)} exposes its accessibility tree {_SWITCHES[family]}"


async def _window(
    calls: Calls, link: Link, pid: int | None, rect: Rect, title: str | None
) -> _Frame:
    apps = await _applications(calls, link)
    mine = [app for app in apps if pid is None or app.pid == pid]
    if not mine and pid is None:
        raise _Absent(
            AxAbsent.NO_TREE, "no application exposes a tree on this session's accessibility bus"
        )
    if not mine:
        assert pid is not None  # for the type checker: None was handled above
        facts = process_facts(pid)
        if facts.family is not None and facts.switched_on:
            raise _Absent(
                AxAbsent.NO_TREE,
                f"{_who(facts.program, facts.family)} was started with its accessibility "
                "switched on, but exposes no tree on this session's accessibility bus (yet: "
                "an application registers its tree a moment after it starts)",
            )
        if facts.family is not None:
            raise _Absent(AxAbsent.SWITCHED_OFF, _switch_reason(facts.program, facts.family))
        program = f" ({facts.program})" if facts.program else " (the process has ended)"
        raise _Absent(
            AxAbsent.NO_TREE,
            f"no application with process id {pid}{program} exposes an accessibility tree "
            "on this session's accessibility bus",
        )
    frames = [
        f for group in await asyncio.gather(*(_frames(calls, a) for a in mine)) for f in group
    ]
    if pid is None:
        # No process to go by: only a window of the same title is this one.
        frames = [f for f in frames if title is not None and f.title == title]
    chosen = _pick(frames, rect, title)
    if chosen is None:
        if pid is None:
            raise _Absent(
                AxAbsent.NO_TREE,
                "the window names no process (_NET_WM_PID), and no application's window "
                f"titled {title!r} shows there on the accessibility bus",
            )
        raise _Absent(
            AxAbsent.NO_TREE,
            f"the application of process {pid} exposes a tree, but none of its windows "
            f"shows at {rect[0]},{rect[1]} {rect[2]}x{rect[3]}",
        )
    return chosen


@dataclass
class _Progress:
    stage: str = "joining the accessibility bus"
    walk: Walk | None = None


async def _read(
    pid: int | None, rect: Rect, title: str | None, budget_s: float, in_flight: int, started: float
) -> AxText:
    deadline = started + budget_s
    progress = _Progress()

    def done(
        lines: tuple[AxLine, ...] = (),
        *,
        partial: bool = False,
        absent: AxAbsent | None = None,
        reason: str | None = None,
    ) -> AxText:
        nodes = progress.walk.visited if progress.walk else 0
        elapsed = (time.monotonic() - started) * 1000
        return AxText(lines, partial, absent, reason, nodes, elapsed)

    link: Link | None = None

    async def steps() -> None:
        nonlocal link
        link = await bus.link()
        calls = Calls(link, in_flight)
        try:
            progress.stage = "finding the window's application"
            frame = await _window(calls, link, pid, rect, title)
            progress.stage = "walking the window's tree"
            progress.walk = Walk(calls, rect)
            await progress.walk.children(frame.app.name, frame.path, -1, frame.box or rect)
        finally:
            calls.close()

    task = asyncio.ensure_future(steps())
    finished, _ = await asyncio.wait({task}, timeout=max(0.0, deadline - time.monotonic()))
    if task not in finished:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, *BROKEN, Unreachable, _Absent):
            await task
        budget = _ms(budget_s)
        walk = progress.walk
        lines = reading_lines(walk.nodes, rect) if walk else ()
        if walk and lines:
            return done(
                lines,
                partial=True,
                reason=f"the budget of {budget} ran out after {walk.visited} nodes: "
                "the lines are those read until then",
            )
        return done(
            partial=True,
            absent=AxAbsent.TIMED_OUT,
            reason=f"the budget of {budget} ran out while {progress.stage}",
        )
    try:
        task.result()
    except Unreachable as exc:
        return done(absent=AxAbsent.NO_BUS, reason=exc.reason)
    except _Absent as exc:
        return done(absent=exc.absent, reason=exc.reason)
    except BROKEN as exc:
        if link is not None:
            bus.forget(link)
        return done(
            absent=AxAbsent.NO_BUS,
            reason=f"the accessibility bus failed while {progress.stage}: {said(exc)}",
        )
    walk = progress.walk
    assert walk is not None
    lines = reading_lines(walk.nodes, rect)
    if not lines and pid is not None:
        # Chromium with its tree on but not its pages' shows a bare window.
        facts = process_facts(pid)
        if facts.family in (Family.CHROMIUM, Family.ELECTRON) and not facts.pages_on:
            assert facts.family is not None
            who = _who(facts.program, facts.family)
            return done(absent=AxAbsent.SWITCHED_OFF, reason=f"{who} exposes {_PAGES_SWITCH}")
    if walk.capped:
        return done(
            lines,
            partial=True,
            reason=f"the window has more than {MAX_NODES} accessible nodes: the first were read",
        )
    if walk.unready:
        return done(
            lines,
            partial=True,
            reason="a document in the window gave placeholders or no text: its application "
            "may still be building the document's tree (Firefox builds a page's on the first "
            "request), so a read a moment later may have its text",
        )
    return done(lines)


def read_window(
    pid: int | None,
    rect: Rect,
    *,
    title: str | None,
    budget_s: float = 0.15,
    in_flight: int = 32,
) -> AxText:
    """The accessibility text of the window of process ``pid`` (its
    ``_NET_WM_PID``; None when it has none) grabbed at ``rect`` (root
    coordinates), titled ``title``; within ``budget_s`` seconds, with at most
    ``in_flight`` calls waiting for answers at once."""
    started = time.monotonic()
    try:
        return bus.run(
            lambda: _read(pid, rect, title, budget_s, in_flight, started), budget_s + _GRACE
        )
    except TimeoutError:
        return AxText(
            (),
            True,
            AxAbsent.TIMED_OUT,
            f"the reader did not hand back its lines within {_ms(budget_s + _GRACE)}",
            0,
            (time.monotonic() - started) * 1000,
        )


def _soft(work: Callable[[], Awaitable[T]], timeout: float, fallback: Callable[[str], T]) -> T:
    try:
        return bus.run(work, timeout)
    except TimeoutError:
        return fallback(f"the accessibility bus did not answer within {_ms(timeout)}")


def exposing_apps(*, timeout_s: float = 2.0, in_flight: int = 32) -> AxApps:
    """The running applications that expose an accessibility tree (for ``noru doctor``)."""

    async def work() -> AxApps:
        try:
            link = await bus.link()
            calls = Calls(link, in_flight)
            apps = await _applications(calls, link)
            names, toolkits = await asyncio.gather(
                asyncio.gather(*(_property(calls, a, atspi.ACCESSIBLE, "Name") for a in apps)),
                asyncio.gather(
                    *(_property(calls, a, atspi.APPLICATION, "ToolkitName") for a in apps)
                ),
            )
        except Unreachable as exc:
            return AxApps((), AxAbsent.NO_BUS, exc.reason)
        except BROKEN as exc:
            return AxApps((), AxAbsent.NO_BUS, f"the accessibility bus failed: {said(exc)}")
        listed = tuple(
            AxApp(
                name if isinstance(name, str) else "",
                toolkit if isinstance(toolkit, str) and toolkit else None,
                app.pid,
            )
            for app, name, toolkit in zip(apps, names, toolkits, strict=True)
        )
        return AxApps(listed, None, None)

    return _soft(work, timeout_s, lambda reason: AxApps((), AxAbsent.TIMED_OUT, reason))


async def _status(session: str) -> AxSession:
    values = await bus.session_call(
        session, "GetAll", interface=atspi.PROPERTIES, signature="s", body=(atspi.STATUS,)
    )

    def flag(key: str) -> bool | None:
        value = values.get(key) if isinstance(values, dict) else None
        value = value.value if isinstance(value, Variant) else value
        return value if isinstance(value, bool) else None

    return AxSession(flag("IsEnabled"), flag("ScreenReaderEnabled"), None)


def _session_work(change: bool | None) -> Callable[[], Awaitable[AxSession]]:
    async def work() -> AxSession:
        session = bus.session_address()
        try:
            if session is None:
                raise bus.no_session()
            if change is not None:
                await bus.session_call(
                    session,
                    "Set",
                    interface=atspi.PROPERTIES,
                    signature="ssv",
                    body=(atspi.STATUS, "IsEnabled", Variant("b", change)),
                )
            return await _status(session)
        except Unreachable as exc:
            return AxSession(None, None, exc.reason)

    return work


def session_status(*, timeout_s: float = 2.0) -> AxSession:
    """Whether accessibility is switched on for the session (``org.a11y.Status``)."""
    return _soft(_session_work(None), timeout_s, lambda r: AxSession(None, None, r))


def set_session_enabled(enabled: bool, *, timeout_s: float = 2.0) -> AxSession:
    """Switch accessibility on or off for the whole session. On, it tells every
    application that reads it to build its accessibility tree (Qt's do; GTK 3
    builds its tree whenever the bus is there), which costs each of them memory,
    and time on every change to its windows. The person's choice: Noru never
    sets it by itself."""
    return _soft(_session_work(enabled), timeout_s, lambda r: AxSession(None, None, r))
