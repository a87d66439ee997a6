"""History tools: list_captures, search_captures, get_capture.

Every call first checks the persisted revoke (``access.history_decision``);
history is never served around it. The store is opened read-only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from noru import access
from noru.config import parse_moment
from noru.errors import InvalidParams, NoMatch
from noru.mcp.tools import ToolContext
from noru.paths import db_path

__all__ = [
    "addressing",
    "check_history_access",
    "get_capture",
    "list_captures",
    "moments",
    "search_captures",
]

SOURCE_FILTERS = ("app", "workspace", "display", "since", "before", "origin")


def moments(args: dict[str, Any], now: datetime) -> dict[str, datetime]:
    """``since`` / ``before`` as UTC moments; -32602 naming the argument."""
    out: dict[str, datetime] = {}
    for name in ("since", "before"):
        if name in args:
            try:
                out[name] = parse_moment(args[name], now)
            except ValueError as exc:
                raise InvalidParams(f"Invalid arguments: `{name}` {exc}") from None
    if "since" in out and "before" in out and out["since"] >= out["before"]:
        raise InvalidParams("Invalid arguments: `since` must be earlier than `before`")
    return out


def addressing(args: dict[str, Any]) -> str:
    """Which one of get_capture's addressing modes the call uses: id, index or filter."""
    modes: list[str] = [name for name in ("id", "index") if name in args]
    if any(name in args for name in SOURCE_FILTERS) and "index" not in args:
        modes.append("filter")
    if len(modes) != 1:
        raise InvalidParams(
            "Invalid arguments: address exactly one capture with one of `id`, `index`, "
            "or source filters (app, workspace, display, since, before, origin); "
            + ("none was given" if not modes else f"got {' and '.join(modes)}")
        )
    return modes[0]


def check_history_access(context: ToolContext) -> None:
    decision = access.history_decision(access.load(context.home))
    if not decision.allowed:
        assert decision.refusal is not None
        raise decision.refusal(decision.reason)


def _empty_history() -> NoMatch:
    return NoMatch(
        "history is empty",
        details=("No captures have been taken or imported yet.",),
        next_action=(
            "Ask the person to take a capture (their shortcut, or `noru capture`), "
            "then call get_latest_capture."
        ),
    )


def _require_store(context: ToolContext) -> None:
    check_history_access(context)
    if not db_path(context.home).exists():
        raise _empty_history()
    # The capture store arrives with the store issue; until then an existing
    # database file is not read.
    raise _empty_history()


def list_captures(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    moments(args, context.now())
    _require_store(context)
    raise AssertionError("unreachable")


def search_captures(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    moments(args, context.now())
    _require_store(context)
    raise AssertionError("unreachable")


def get_capture(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    addressing(args)
    moments(args, context.now())
    _require_store(context)
    raise AssertionError("unreachable")
