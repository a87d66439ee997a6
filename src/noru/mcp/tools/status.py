"""get_status: what the agent may do now, in plain text, with no capture content."""

from __future__ import annotations

from typing import Any

from noru import access
from noru.config import load_config
from noru.contract import text_result
from noru.errors import NoruError, StoreError
from noru.live import LiveClient
from noru.mcp.tools import ToolContext
from noru.store import Reader
from noru.times import format_duration

__all__ = ["get_status", "status_lines"]


def status_lines(context: ToolContext) -> list[str]:
    state = access.load(context.home)
    live = access.live_decision(state)
    history = access.history_decision(state)
    client = LiveClient(context.home, timeout=5)
    running = client.running()
    app: dict[str, object] = {}
    if running:
        try:
            app = client.call("status")
        except NoruError:
            app = {}
    config = load_config(context.home)
    authorized = state.authorized and not state.revoked
    lines = [
        "Noru status",
        f"App running: {'yes' if running else 'no (live targets need `noru app`)'}",
        f"Authorized for live requests: {'yes' if authorized else 'no'}",
        f"Paused: {'yes' if state.paused else 'no'}",
        f"History revoked: {'yes' if state.revoked else 'no'}",
        f"Live requests now: {'allowed' if live.allowed and running else 'refused'}"
        + ("" if live.allowed else f" ({live.reason})"),
        f"History now: {'readable' if history.allowed else 'blocked'}"
        + ("" if history.allowed else f" ({history.reason})"),
        "Screen access: "
        + str(app.get("screen_access", "unknown (app not running)" if not running else "unknown")),
        "OCR engine: "
        + str(app.get("ocr", "unknown (app not running)" if not running else "unknown")),
        "Hotkey: "
        + str(app.get("hotkey", "unknown (app not running)" if not running else "unknown")),
    ]
    lines += [f"Note: {note}" for note in app.get("notes", []) or []]  # type: ignore[attr-defined]
    if history.allowed:
        lines.append(f"Captures in history: {_count(context)}")
    lines.append(f"Handoff window: {format_duration(config.handoff_window)}")
    return lines


def _count(context: ToolContext) -> str:
    try:
        reader = Reader.open(context.home)
    except StoreError as exc:
        return f"unknown ({exc})"
    with reader:
        return str(reader.count())


def get_status(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return text_result("\n".join(status_lines(context)))
