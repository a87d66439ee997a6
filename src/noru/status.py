"""What agents may do now, and why: gathered once, said to the agent or the person.

``gather`` reads the access state, asks the app (if it runs) for its typed
status, and counts history; ``agent_lines`` is ``get_status``'s text (never
capture content, and no capture count while history is revoked);
``person_lines`` is ``noru status``'s, which adds the data dir, the
configuration's problems and the count (the person's own commands are not
subject to a revoke).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noru import access, appwire
from noru.config import Config
from noru.errors import AppNotRunning, NoruError, StoreError
from noru.settings import Settings, snapshot
from noru.sizes import format_size
from noru.times import format_duration

if TYPE_CHECKING:
    from noru.store.retention import Usage

__all__ = [
    "Status",
    "agent_lines",
    "describe_disk",
    "gather",
    "person_fields",
    "person_lines",
    "text_wait",
]


@dataclass(frozen=True)
class Status:
    home: Path
    state: access.AccessState
    live_access: access.Decision  # the access decision alone
    history_access: access.Decision
    app: appwire.AppStatus | None  # None: not running (``app_problem`` says why)
    app_problem: str | None
    captures: int | None  # None: unreadable (``captures_problem`` says why)
    captures_problem: str | None
    handoff_window: float
    config_problems: tuple[str, ...]
    redaction: str  # what is redacted in what agents get, in words (``Policy.describe``)
    disk: tuple[str, ...] = ()  # the history's disk use, for the person (``gather(disk=True)``)

    @property
    def live_now(self) -> tuple[bool, str]:
        """Whether a live request would be served now, and why (not)."""
        if not self.live_access.allowed:
            return False, self.live_access.reason
        if self.app is None:
            return False, f"the Noru app is not running: {self.app_problem}"
        if self.app.screen.state is not appwire.ScreenState.GRANTED:
            return False, f"no screen access: {self.app.screen.detail}"
        return True, self.live_access.reason


def gather(home: Path, *, disk: bool = False, settings: Settings | None = None) -> Status:
    """Everything status says; ``disk``: also measure the history's disk use
    (a pass over every capture: the person's ``noru status``, not an agent's);
    ``settings``: the request's, where it has them (else read now)."""
    settings = settings if settings is not None else snapshot(home)
    state = settings.access
    config = settings.config
    app: appwire.AppStatus | None = None
    problem: str | None = None
    try:
        app = appwire.AppClient(home, timeout=5).expect(appwire.GetStatus(), appwire.AppStatus)
    except AppNotRunning as exc:
        problem = exc.summary or "no Noru app is listening on this machine"
    except NoruError as exc:
        problem = f"running but not answering ({exc})"
    captures: int | None = None
    captures_problem: str | None = None
    disk_lines: list[str] = []
    from noru.store import Reader  # only now: `noru mcp` starts without the store

    try:
        with Reader.open(home) as reader:
            captures = reader.count()
            if disk:
                disk_lines = describe_disk(reader.usage(), config)
    except StoreError as exc:
        captures_problem = str(exc)
    return Status(
        home=home,
        state=state,
        live_access=access.live_decision(state),
        history_access=access.history_decision(state),
        app=app,
        app_problem=problem,
        captures=captures,
        captures_problem=captures_problem,
        handoff_window=config.handoff_window,
        config_problems=config.problems,
        redaction=settings.policy.describe(),
        disk=tuple(disk_lines),
    )


def describe_disk(usage: Usage, config: Config) -> list[str]:
    """The history's disk use and limits in the person's words, with a warning
    while it nears its budget or the disk nears full (before anything stops)."""
    budget = config.max_disk
    if budget:
        share = f"{100 * usage.total / budget:.0f} %"
        limit = f"of the {format_size(budget)} budget (max_disk), {share}"
    else:
        limit = "with no budget (max_disk = 0)"
    lines = [
        f"History on disk: {format_size(usage.total)} {limit}:"
        f" images {format_size(usage.images)}, database {format_size(usage.database)}",
        "Kept: "
        + (f"{config.keep_days:g} days (keep_days)" if config.keep_days else "no age limit")
        + f"; {usage.kept} kept forever (`noru keep`)",
    ]
    if usage.free is not None:
        lines.append(
            f"Disk free: {format_size(usage.free)}"
            f" (captures are refused below {format_size(config.min_free)}: min_free)"
        )
    if budget and usage.kept_images + usage.database > budget:
        lines.append(
            f"Warning: what is kept forever ({format_size(usage.kept_images)}) and the database"
            f" ({format_size(usage.database)}) alone exceed the budget, so pruning deletes"
            " nothing for it; raise max_disk, or `noru unkeep` some"
        )
    elif usage.near(budget):
        lines.append(
            f"Warning: the history is at {share} of its budget: the oldest captures are"
            " pruned as new ones come; raise max_disk in config.toml to keep more"
        )
    if state := usage.disk(config.min_free):
        lines.append(
            f"Warning: the disk is {state} ({format_size(usage.free or 0)} free): below"
            f" {format_size(config.min_free)} new captures are refused; free some space,"
            " or lower max_disk"
        )
    return lines


def text_wait(home: Path) -> tuple[bool, str]:
    """Whether captures waiting for their text are being read, and if not, why.

    A running app with a working OCR engine reads every pending capture (its
    own, and any left by an import, within seconds); anything else means the
    text will not come until that changes.
    """
    try:
        app = appwire.AppClient(home, timeout=5).expect(appwire.GetStatus(), appwire.AppStatus)
    except AppNotRunning:
        return False, "the Noru app is not running"
    except NoruError as exc:
        return False, f"the Noru app is not answering ({exc})"
    if not app.ocr.available:
        return False, f"the Noru app cannot recognise text ({app.ocr.problem})"
    return True, ""


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _menu(app: appwire.AppStatus | None) -> str:
    """Where the person finds the access controls: the Noru menu, when a panel
    shows it; the console has them in any case."""
    if app is None:
        return "not shown (the app is not running); the controls are in the Noru console"
    if app.menu.shown:
        return "shown in the panel"
    return f"{app.menu}; the controls are in the Noru console"


def _lines(status: Status, *, count: bool, person: bool = False) -> list[str]:
    state = status.state
    allowed, why = status.live_now
    app = status.app
    unknown = "unknown (the app is not running)"
    lines = [
        "Noru status",
        f"App running: {'yes' if app else 'no (live targets need `noru app`)'}",
        f"Authorized for live requests: {_yes(state.authorized and not state.revoked)}",
        f"Paused: {_yes(state.paused)}",
        f"History revoked: {_yes(state.revoked)}",
        "Live requests now: " + ("allowed" if allowed else f"refused ({why})"),
        f"History now: {'readable' if status.history_access.allowed else 'blocked'}"
        + ("" if status.history_access.allowed else f" ({status.history_access.reason})"),
        f"Screen access: {f'{app.screen.state} ({app.screen.detail})' if app else unknown}",
        f"OCR engine: {app.ocr if app else unknown}",
        f"Hotkey: {app.hotkey if app else unknown}",
        f"Noru menu: {_menu(app)}",
    ]
    if person and app and app.menu.notifications:  # an agent need not learn whether it is told
        lines.append(f"Notifications: not shown: {app.menu.notifications}")
    if app:
        lines += [f"  {detail}" for detail in app.screen.details]
        lines += [f"Note: {mode.reason}" for mode in app.screen.degraded]
    if count:
        if status.captures is not None:
            lines.append(f"Captures in history: {status.captures}")
        else:
            lines.append(f"Captures in history: unknown ({status.captures_problem})")
    lines.append(f"Handoff window: {format_duration(status.handoff_window)}")
    lines.append(f"Redacted in what agents get: {status.redaction}")
    return lines


def agent_lines(status: Status) -> list[str]:
    """``get_status``: no capture content, and no count while history is blocked."""
    return _lines(status, count=status.history_access.allowed)


def person_lines(status: Status) -> list[str]:
    """``noru status``: the agent's view, the count always, and what to fix."""
    lines = _lines(status, count=True, person=True)
    if status.state.damaged:
        lines.append(
            f"Warning: {status.state.damaged}; treated as revoked. "
            "Run `noru allow` or `noru revoke` to rewrite it."
        )
    lines += status.disk
    lines += [f"Warning: config.toml: {problem}" for problem in status.config_problems]
    lines.append(f"Data dir: {status.home}")
    return lines


def person_fields(status: Status) -> dict[str, Any]:
    """``noru status --json``: what ``person_lines`` says, as data (docs/cli.md).
    A fact the app alone knows is None while it is not running."""
    allowed, why = status.live_now
    app = status.app
    return {
        "app_running": app is not None,
        "app_problem": status.app_problem,
        "authorized": status.state.authorized and not status.state.revoked,
        "paused": status.state.paused,
        "revoked": status.state.revoked,
        "live_requests": "allowed" if allowed else "refused",
        "live_reason": why,
        "history": "readable" if status.history_access.allowed else "blocked",
        "history_reason": status.history_access.reason,
        "screen_access": str(app.screen.state) if app else None,
        "screen_detail": app.screen.detail if app else None,
        "ocr_engine": str(app.ocr) if app else None,
        "hotkey": str(app.hotkey) if app else None,
        "menu_shown": app.menu.shown if app else False,
        "notifications_problem": app.menu.notifications if app else None,
        "captures": status.captures,
        "captures_problem": status.captures_problem,
        "handoff_window_seconds": status.handoff_window,
        "redaction": status.redaction,
        "access_damaged": status.state.damaged or None,
        "disk": list(status.disk),
        "config_problems": list(status.config_problems),
        "data_dir": str(status.home),
    }
