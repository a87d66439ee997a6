"""The screen as the capture backend finds it, checked in the running app's
session: its display, the backend and its degraded modes, the window
manager, and how the shortcut works in that session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from noru import appwire
from noru.doctor.check import Check
from noru.errors import NoruError

__all__ = ["display_checks", "in_session"]


def session_words(backend: str) -> str:
    """The session type, the compositor, and how the shortcut works there."""
    if os.environ.get("WAYLAND_DISPLAY"):
        compositors = {"sway": "sway", "hyprland": "Hyprland"}
        if backend in compositors:
            return (
                f"Wayland ({compositors[backend]}); never captured through XWayland. The"
                f" shortcut is the compositor's: `noru config {backend}` prints the binding"
                " that runs `noru capture`"
            )
        desktop = os.environ.get("XDG_CURRENT_DESKTOP") or "a Wayland desktop"
        return (
            f"Wayland ({desktop}), through the desktop portal: the screen's pixels only (no"
            " windows); never captured through XWayland. The shortcut: the app has the"
            " desktop bind it where its portal offers global shortcuts (KDE Plasma; the"
            " hotkey check says whether it did), else bind `noru capture` in your"
            " desktop's keyboard settings (custom shortcuts)"
        )
    return "X11; the app grabs the shortcut itself"


@contextmanager
def in_session(session: appwire.AppSession | None) -> Iterator[None]:
    """The session variables as the running app has them, for the checks run
    inside; this process's own again after. None (no app): left as they are."""
    if session is None:
        yield
        return
    saved = {name: os.environ.get(name) for name in appwire.SESSION_VARIABLES}
    _put({name: session.get(name) for name in appwire.SESSION_VARIABLES})
    try:
        yield
    finally:
        _put(saved)


def _put(values: dict[str, str | None]) -> None:
    """Each variable set to its value in this process's environment, or
    unset where its value is None."""
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def display_checks(*, apps: bool = False, terminal: str | None = None) -> list[Check]:
    """The screen as the capture backend finds it. ``apps``: checked in the
    running app's session; ``terminal``: this terminal's own screen then."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        if apps:
            return [
                Check(
                    "display",
                    False,
                    "the running app has no $DISPLAY nor $WAYLAND_DISPLAY: no screen to capture",
                    "stop it, and start `noru app` inside your desktop session, or `make run`",
                )
            ]
        return [
            Check(
                "display",
                False,
                "no $DISPLAY: no screen to capture",
                "run inside your desktop session, or `make run` for a virtual display",
            )
        ]
    from noru.capture import Capturer, Degraded

    try:
        with Capturer() as capturer:
            displays = capturer.displays()
            modes = capturer.degraded_modes()
            backend = capturer.backend_name()
    except NoruError as exc:
        return [
            Check(
                "display",
                False,
                str(exc),
                "check $DISPLAY and that this user may connect (xauth / xhost)",
            )
        ]
    listed = ", ".join(f"{d.index}: {d.name or 'unnamed'} {d.width}x{d.height}" for d in displays)
    # What the platform itself withholds (Wayland's pointer; the portal's
    # windows and monitors) is said, not failed: the person cannot fix it.
    withheld = {Degraded.NO_POINTER}
    if backend == "portal":
        withheld |= {Degraded.NO_ACTIVE_WINDOW, Degraded.ONE_DISPLAY}
    fixable = [mode for mode in modes if mode.kind not in withheld]
    whose = ""
    if apps:
        whose = " (the running app's"
        if terminal != capturer.display_name:
            whose += f"; this terminal's is {terminal}" if terminal else "; this terminal has none"
        whose += ")"
    checks = [
        Check("session", True, session_words(backend)),
        Check("display", True, f"{capturer.display_name}{whose} reachable; displays {listed}"),
        # A degraded backend still captures: a warning, with what it lacks.
        Check(
            "capture backend",
            True,
            backend + ("" if not modes else " (degraded)"),
            None if not modes else "; ".join(mode.reason for mode in modes),
            warn=bool(fixable),
        ),
    ]
    wm_missing = any(mode.kind is Degraded.NO_WINDOW_MANAGER for mode in modes)
    checks.append(
        Check(
            "window manager",
            True,
            "absent: window facts unknown" if wm_missing else "present",
            "start a window manager (e.g. openbox)" if wm_missing else None,
            warn=wm_missing,
        )
    )
    return checks
