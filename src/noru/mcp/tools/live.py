"""Live targets: get_latest_capture and observe_screen.

The order of refusals is fixed: app not running, then not authorized, then
paused; the app itself answers permission denied, busy and nothing new.
Neither tool ever falls back to history.
"""

from __future__ import annotations

import time
from typing import Any

from noru import access
from noru.errors import Busy, InvalidParams
from noru.live import LiveClient
from noru.mcp.tools import ToolContext

__all__ = ["get_latest_capture", "observe_screen"]

# The server's own short bounded retry while the app reports busy (~0.5 s).
BUSY_RETRIES = (0.1, 0.15, 0.25)


def _live_call(context: ToolContext, op: str, args: dict[str, Any]) -> dict[str, Any]:
    client = LiveClient(context.home)
    if not client.running():
        # Raises the steering with the reason.
        client.call("ping")
    decision = access.live_decision(access.load(context.home))
    if not decision.allowed:
        assert decision.refusal is not None
        raise decision.refusal(decision.reason)
    for delay in (*BUSY_RETRIES, None):
        try:
            return client.call(op, args)
        except Busy:
            if delay is None:
                raise
            time.sleep(delay)
    raise AssertionError("unreachable")


def get_latest_capture(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return _live_call(context, "latest", args)


def observe_screen(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if "display" in args and args.get("target", "window") != "display":
        raise InvalidParams('Invalid arguments: `display` goes with target "display" only')
    return _live_call(context, "observe", args)
