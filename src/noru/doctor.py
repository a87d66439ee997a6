"""`noru doctor`: what works on this machine, and what to do where it does not.

Each check is data (``Check``): a name, whether it passed, what was found,
and the fix. The CLI prints them; tests read them.

While the app runs, the screen and the session bus are checked where the
app runs (``AppSession``: the app says which display and bus it uses), not
in the terminal doctor runs in: beside `make run`'s private display, or from
an ssh shell, that terminal has no ``$DISPLAY`` and no bus of its own, and
what matters is what the app can capture and read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noru import access, appwire
from noru.config import Config, load_config
from noru.errors import AppNotRunning, AppVersionMismatch, DataDirError, NoruError, StoreError
from noru.paths import db_path, noru_executable
from noru.sizes import format_size

if TYPE_CHECKING:
    from noru.store import Reader
    from noru.store.retention import Usage

__all__ = ["Check", "run_checks"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    fix: str | None = None


def _held(home: Path) -> Check:
    """With ``redact_at_rest``: where a capture's images wait for their
    redaction (``paths.held_dir``): in memory, or in the data dir."""
    from noru.paths import held_dir
    from noru.store import files

    held = held_dir(home)
    if held is None:
        return Check(
            "redacted at rest",
            True,
            "images wait for their text on disk (no memory file system: $XDG_RUNTIME_DIR"
            " and /dev/shm are not tmpfs); the filled ones overwrite them",
        )
    if held.exists() and files.private_folder(held, create=False) is None:
        return Check(
            "redacted at rest",
            False,
            f"{held} is not this user's private folder: images wait for their text on disk",
            f"remove {held} (someone else made it, or opened it to others)",
        )
    return Check("redacted at rest", True, f"images wait for their text in memory ({held})")


def _session_words(backend: str) -> str:
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
def _in_session(session: appwire.AppSession | None) -> Iterator[None]:
    """The session variables as the running app has them, for the checks run
    inside; this process's own again after. None (no app): left as they are."""
    if session is None:
        yield
        return
    saved = {name: os.environ.get(name) for name in appwire.SESSION_VARIABLES}
    for name in appwire.SESSION_VARIABLES:
        value = session.get(name)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _display_checks(*, apps: bool = False, terminal: str | None = None) -> list[Check]:
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
        Check("session", True, _session_words(backend)),
        Check("display", True, f"{capturer.display_name}{whose} reachable; displays {listed}"),
        Check(
            "capture backend",
            not fixable,
            backend + ("" if not modes else " (degraded)"),
            None if not modes else "; ".join(mode.reason for mode in modes),
        ),
    ]
    wm_missing = any(mode.kind is Degraded.NO_WINDOW_MANAGER for mode in modes)
    checks.append(
        Check(
            "window manager",
            not wm_missing,
            "absent: window facts unknown" if wm_missing else "present",
            "start a window manager (e.g. openbox)" if wm_missing else None,
        )
    )
    return checks


def _ocr_checks(home: Path) -> list[Check]:
    """Every engine Noru knows; only the configured one must work."""
    from noru.ocr import describe, registered_engines

    configured = load_config(home).ocr_engine
    checks = []
    for name in sorted(set(registered_engines()) | {configured}):
        status = describe(name)
        label = "ocr engine" if name == configured else f"ocr engine {name} (optional)"
        if status.available:
            data = f", data {status.data_path}" if status.data_path else ""
            found = f"{status.name} {status.version}{data}"
            if name == configured:
                found += " (configured)"
            checks.append(Check(label, True, found))
        else:
            checks.append(Check(label, name != configured, f"{name} unavailable", status.problem))
    return checks


def _disk_check(usage: Usage, config: Config) -> Check:
    """The history's disk use against its budget, and the disk's free space:
    nearing either is said while captures still work; a FAIL means they stop."""
    budget = config.max_disk
    found = f"{format_size(usage.total)} of " + (
        f"{format_size(budget)} (max_disk)" if budget else "no budget (max_disk = 0)"
    )
    if usage.free is not None:
        found += f"; {format_size(usage.free)} free on its disk"
    state = usage.disk(config.min_free)
    if state == "full":
        return Check(
            "history disk",
            False,
            found + f", below min_free ({format_size(config.min_free)}): captures are refused",
            "free space on that disk, or lower max_disk (older captures go) and `noru prune`",
        )
    notes = []
    if usage.near(budget):
        notes.append("nearly at its budget: the oldest captures are pruned as new ones come")
    if state == "nearly full":
        notes.append("the disk is nearly full")
    return Check("history disk", True, found + "".join(f"; {n}" for n in notes))


def _privacy_checks(home: Path, config: Config) -> list[Check]:
    """The exclusions in force (a damaged file refuses every capture), and
    whether agents' reads can be recorded (if not, no history is served)."""
    from noru import accesslog, exclusions

    try:
        rules = exclusions.load(home, apps=config.exclude_apps, titles=config.exclude_titles)
    except DataDirError as exc:
        checks = [Check("exclusions", False, str(exc), "fix it, or `noru exclude list` to see")]
    else:
        built_in = len(rules.active) - len(rules.rules)
        found = f"{len(rules.rules)} of yours, {built_in} built in (`noru exclude list`)"
        checks = [Check("exclusions", True, found)]
    from noru.redact import policy as redaction

    policy = redaction.load(home, config.redact)
    checks.append(
        Check(
            "redaction",
            policy.problem is None,
            policy.describe(),
            "fix or remove it (`noru redact list` says what it holds)" if policy.problem else None,
        )
    )
    if config.redact_at_rest:
        checks.append(_held(home))
    log = home / accesslog.FILE
    writable = os.access(log, os.W_OK) if log.exists() else os.access(home, os.W_OK | os.X_OK)
    checks.append(
        Check(
            "access log",
            writable,
            f"{log} " + ("writable" if writable else "cannot be written: agents get no history"),
            None if writable else f"give it back to this user (chown $USER {log})",
        )
    )
    return checks


def _http_checks(home: Path) -> list[Check]:
    """The token `noru mcp --http` asks of every request, and the requests
    it refused for want of it: any in the last day is something to look at
    (a client of the person's without the token, or someone else)."""
    from datetime import UTC, datetime, timedelta

    from noru import accesslog, httptoken
    from noru.times import format_utc

    found = httptoken.load(home)
    path = httptoken.token_path(home)
    if found.problem is not None:
        checks = [
            Check(
                "http token",
                False,
                f"{found.problem}: `noru mcp --http` refuses every request",
                "`noru token rotate` makes a new one; then give your clients the new token",
            )
        ]
    elif found.value is None:
        checks = [
            Check(
                "http token",
                True,
                "not made yet (`noru token show`, `noru config CLIENT --http` or"
                " `noru mcp --http` makes it)",
            )
        ]
    else:
        checks = [
            Check("http token", True, f"{path} (0600): `noru mcp --http` answers only with it")
        ]
    day_ago = format_utc(datetime.now(UTC) - timedelta(days=1))
    refused = accesslog.refusals(home, since=day_ago)
    if not refused.count:
        checks.append(Check("http refusals", True, "no request refused for want of the token"))
    else:
        checks.append(
            Check(
                "http refusals",
                refused.recent == 0,
                f"{refused.count} requests refused for want of the token, the last at"
                f" {refused.last} ({refused.recent} in the last 24 hours; `noru log` says when)",
                None
                if refused.recent == 0
                else "if it was a client of yours, give it the token (`noru config CLIENT --http"
                " URL`); if not, something else on this machine tried to read your history",
            )
        )
    return checks


def _data_dir_check(home: Path, config: Config) -> list[Check]:
    if not home.exists():
        return [Check("data dir", True, f"{home} (not created yet; made 0700 on first capture)")]
    if not home.is_dir():
        return [
            Check(
                "data dir",
                False,
                f"{home} is a file, not a folder",
                "point NORU_HOME at a folder (Noru creates it), or move the file away",
            )
        ]
    mode = stat.S_IMODE(home.stat().st_mode)
    checks = [
        Check(
            "data dir",
            mode & 0o077 == 0,
            f"{home} mode {mode:04o}",
            None if mode & 0o077 == 0 else f"chmod 700 {home}",
        )
    ]
    if not os.access(home, os.W_OK | os.X_OK):
        checks.append(
            Check(
                "data dir writable",
                False,
                f"{home} is not writable by this user",
                f"give it back to this user (chown $USER {home}) or point NORU_HOME elsewhere",
            )
        )
    checks += _privacy_checks(home, config)
    checks += _http_checks(home)
    state = access.load(home)
    checks.append(
        Check(
            "access state",
            state.damaged is None,
            state.damaged or "readable",
            "run `noru allow` or `noru revoke` to rewrite it" if state.damaged else None,
        )
    )
    if db_path(home).exists():
        from noru.store import Reader

        try:
            reader = Reader.open(home)
        except StoreError as exc:
            checks.append(
                Check(
                    "history",
                    False,
                    str(exc),
                    "move noru.sqlite3 aside and restart the app; images are kept",
                )
            )
        else:
            with reader:
                count = reader.count()
                found = f"{count} capture{'' if count == 1 else 's'}"
                checks.append(Check("history", True, found))
                checks.append(_disk_check(reader.usage(), config))
                checks += _agents_index_check(home, config, reader)
    return checks


def _agents_index_check(home: Path, config: Config, reader: Reader) -> list[Check]:
    """How much of history agents' search index holds (``noru.redact.index``):
    a capture it lacks is found the slow way, whose time a guess can read."""
    from noru.redact import index
    from noru.redact import policy as redaction

    policy = redaction.load(home, config.redact)
    if not policy.on or policy.problem:
        return []
    waiting = reader.agents_waiting(index.fingerprint(policy))
    if not waiting:
        return [Check("agents' search index", True, "holds every capture as agents get it")]
    return [
        Check(
            "agents' search index",
            True,
            f"{waiting} of {reader.count()} capture{'' if reader.count() == 1 else 's'}"
            " not indexed yet: the app indexes them"
            " at its start or its next capture (found all the same, more slowly)",
        )
    ]


def _app_checks(home: Path) -> tuple[list[Check], appwire.AppStatus | None]:
    """The running app's own report, and its status (None: none answers)."""
    try:
        status = appwire.LiveClient(home, timeout=5).expect(appwire.GetStatus(), appwire.AppStatus)
    except AppVersionMismatch as exc:
        fix = "restart it: stop `noru app`, start it again"
        return [Check("app", False, exc.summary, fix)], None
    except AppNotRunning:
        return [Check("app", False, "not running", "start it with `noru app`")], None
    except NoruError as exc:
        fix = "restart `noru app`"
        return [Check("app", False, f"running but not answering: {exc}", fix)], None
    hotkey, ocr, screen = status.hotkey, status.ocr, status.screen
    granted = screen.state is appwire.ScreenState.GRANTED
    return [
        Check("app", True, f"running (version {status.app_version})"),
        Check(
            "app screen access",
            granted,
            f"{screen.state}: {screen.detail}",
            None if granted else " ".join(screen.details) or "check $DISPLAY for the app",
        ),
        Check(
            "hotkey",
            hotkey.grabbed,
            str(hotkey),
            None if hotkey.grabbed else "choose another `hotkey` in config.toml, or free it",
        ),
        Check("app ocr", ocr.available, str(ocr), ocr.problem),
    ], status


def _ax_checks(budget: float, switch: bool) -> list[Check]:
    """The accessibility bus, the apps exposing a tree, and the session's switch."""
    if not budget:
        return [Check("accessibility", True, "switched off (ax_budget = 0 in config.toml)")]
    from noru import ax

    apps = ax.exposing_apps()
    if apps.absent is not None:
        return [
            Check(
                "accessibility bus",
                False,
                apps.reason or str(apps.absent),
                "run Noru inside the desktop session (its D-Bus), with Debian's at-spi2-core "
                "installed; or set ax_budget = 0 in config.toml to read no accessibility text",
            )
        ]
    named = ", ".join(
        f"{app.name}" + (f" ({app.toolkit})" if app.toolkit else "") for app in apps.apps
    )
    checks = [
        Check(
            "accessibility bus",
            True,
            f"{len(apps.apps)} running apps expose a tree" + (f": {named}" if named else ""),
        )
    ]
    session = ax.session_status()
    if session.enabled is None:
        checks.append(Check("accessibility switch", True, f"unknown: {session.reason}"))
    else:
        state = "on" if session.enabled else "off"
        note = (
            "every app builds its tree"
            if session.enabled
            else "GTK apps expose theirs anyway; Firefox and Qt apps only when it is on "
            "(ax_switch = true in config.toml; each app then spends memory and time on it)"
        )
        wanted = " (ax_switch = true: the app switches it on)" if switch else ""
        checks.append(Check("accessibility switch", True, f"{state}{wanted}: {note}"))
    return checks


def _autostart_check() -> Check:
    """How Noru starts at login; not being set up is no failure, a dead path is."""
    from noru import autostart

    found = autostart.report(exe=noru_executable())
    broken = found.broken()
    here = found.how is None or all(
        s.points_at(found.exe, found.home) for s in (found.unit, found.entry) if s is not None
    )
    return Check(
        "start at login",
        broken is None,
        found.summary(),
        None if here else "`noru autostart on` points it at this noru and this data dir",
    )


def _panel_check() -> Check:
    """Whether the Noru menu and its notifications can show; neither is a failure."""
    from noru.panel.hosts import hosts

    found = hosts()
    if isinstance(found, str):
        return Check("noru menu", True, f"not shown: {found}")
    menu = (
        "a panel host (StatusNotifierWatcher) is on the session bus: the app shows the Noru menu"
        if found["menu"]
        else "not shown: no StatusNotifierItem host on the session bus (KDE, XFCE, waybar"
        " have one; GNOME with the AppIndicator extension)"
    )
    told = "notifications: yes" if found["notifications"] else "notifications: no server"
    return Check("noru menu", True, f"{menu}; {told}")


def run_checks(home: Path) -> list[Check]:
    config = load_config(home)
    checks = [
        Check(
            "configuration",
            not config.problems,
            "; ".join(config.problems) or "ok",
            "fix config.toml in the data dir" if config.problems else None,
        )
    ]
    checks += _data_dir_check(home, config)
    app, status = _app_checks(home)
    checks += app
    session = status.session if status is not None else None
    terminal = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or None
    with _in_session(session):
        checks += _display_checks(apps=session is not None, terminal=terminal)
        checks += _ax_checks(config.ax_budget, config.ax_switch)
        checks.append(_panel_check())
    checks += _ocr_checks(home)
    checks.append(_autostart_check())
    return checks
