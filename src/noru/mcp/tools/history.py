"""History tools: list_captures, search_captures, get_capture.

Every call first checks the persisted revoke (``access.history_decision``);
history is never served around it. The store is opened read-only.
"""

from __future__ import annotations

from typing import Any

from noru import access
from noru.errors import NoMatch
from noru.mcp.tools import ToolContext
from noru.paths import db_path

__all__ = ["check_history_access", "get_capture", "list_captures", "search_captures"]


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
    _require_store(context)
    raise AssertionError("unreachable")


def search_captures(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    _require_store(context)
    raise AssertionError("unreachable")


def get_capture(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    _require_store(context)
    raise AssertionError("unreachable")
