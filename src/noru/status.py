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

from noru import access, live
from noru.config import load_config
from noru.errors import AppNotRunning, NoruError, StoreError
from noru.times import format_duration

__all__ = ["Status", "agent_lines", "gather", "person_lines", "text_wait"]


@dataclass(frozen=True)
class Status:
    home: Path
    state: access.AccessState
    live_access: access.Decision  # the access decision alone
    history_access: access.Decision
    app: live.AppStatus | None  # None: not running (``app_problem`` says why)
    app_problem: str | None
    captures: int | None  # None: unreadable (``captures_problem`` says why)
    captures_problem: str | None
    handoff_window: float
    config_problems: tuple[str, ...]

    @property
    def live_now(self) -> tuple[bool, str]:
        """Whether a live request would be served now, and why (not)."""
        if not self.live_access.allowed:
            return False, self.live_access.reason
        if self.app is None:
            return False, f"the Noru app is not running: {self.app_problem}"
        if self.app.screen.state is not live.ScreenState.GRANTED:
            return False, f"no screen access: {self.app.screen.detail}"
        return True, self.live_access.reason


def gather(home: Path) -> Status:
    state = access.load(home)
    config = load_config(home)
    app: live.AppStatus | None = None
    problem: str | None = None
    try:
        app = live.LiveClient(home, timeout=5).expect(live.GetStatus(), live.AppStatus)
    except AppNotRunning as exc:
        problem = exc.summary or "no Noru app is listening on this machine"
    except NoruError as exc:
        problem = f"running but not answering ({exc})"
    captures: int | None = None
    captures_problem: str | None = None
    from noru.store import Reader  # only now: `noru mcp` starts without the store

    try:
        with Reader.open(home) as reader:
            captures = reader.count()
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
    )


def text_wait(home: Path) -> tuple[bool, str]:
    """Whether captures waiting for their text are being read, and if not, why.

    A running app with a working OCR engine reads every pending capture (its
    own, and any left by an import, within seconds); anything else means the
    text will not come until that changes.
    """
    try:
        app = live.LiveClient(home, timeout=5).expect(live.GetStatus(), live.AppStatus)
    except AppNotRunning:
        return False, "the Noru app is not running"
    except NoruError as exc:
        return False, f"the Noru app is not answering ({exc})"
    if not app.ocr.available:
        return False, f"the Noru app cannot recognise text ({app.ocr.problem})"
    return True, ""


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _lines(status: Status, *, count: bool) -> list[str]:
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
    ]
    if app:
        lines += [f"  {detail}" for detail in app.screen.details]
        lines += [f"Note: {mode.reason}" for mode in app.screen.degraded]
    if count:
        if status.captures is not None:
            lines.append(f"Captures in history: {status.captures}")
        else:
            lines.append(f"Captures in history: unknown ({status.captures_problem})")
    lines.append(f"Handoff window: {format_duration(status.handoff_window)}")
    return lines


def agent_lines(status: Status) -> list[str]:
    """``get_status``: no capture content, and no count while history is blocked."""
    return _lines(status, count=status.history_access.allowed)


def person_lines(status: Status) -> list[str]:
    """``noru status``: the agent's view, the count always, and what to fix."""
    lines = _lines(status, count=True)
    if status.state.damaged:
        lines.append(
            f"Warning: {status.state.damaged}; treated as revoked. "
            "Run `noru allow` or `noru revoke` to rewrite it."
        )
    lines += [f"Warning: config.toml: {problem}" for problem in status.config_problems]
    lines.append(f"Data dir: {status.home}")
    return lines
