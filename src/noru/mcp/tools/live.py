"""Live targets: get_latest_capture and observe_screen.

The order of refusals is fixed: app not running, then not authorized, then
paused; the app itself answers permission denied, busy and nothing new.
Neither tool ever falls back to history.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from noru import access, imaging
from noru.config import load_config
from noru.contract import capture_result
from noru.errors import Busy, InternalError, InvalidParams
from noru.live import LiveClient
from noru.mcp.tools import ToolContext
from noru.present import Projection, capture_view
from noru.store import Reader

__all__ = ["get_latest_capture", "observe_screen"]

# The server's own short bounded retry while the app reports busy (~0.5 s).
BUSY_RETRIES = (0.1, 0.15, 0.25)


def _live_call(context: ToolContext, op: str, args: dict[str, Any]) -> dict[str, Any]:
    client = LiveClient(context.home)
    decision = access.live_decision(access.load(context.home))
    if not decision.allowed:
        client.ensure_running()  # "app not running" comes before any access answer
        decision.enforce()
    # Allowed: the call itself says "app not running" when there is no app.
    for delay in (*BUSY_RETRIES, None):
        try:
            return client.call(op, args)
        except Busy:
            if delay is None:
                raise
            time.sleep(delay)
    raise AssertionError("unreachable")


def _present(context: ToolContext, reply: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """The capture the app just handed over, read from the store and presented."""
    capture_id = reply.get("id")
    if not isinstance(capture_id, str):
        raise InternalError("the app sent a malformed answer")
    max_edge = load_config(context.home).max_edge
    with Reader.open(context.home) as reader:
        record = reader.get(capture_id)
        if record is None:
            raise InternalError("the app's capture could not be read back")
        projection = Projection(text_only=bool(args.get("text_only", False)))
        view = capture_view(
            reader, record, projection, max_edge=max_edge, ready=_served(reply, max_edge)
        )
    return capture_result(view, now=context.now(), with_sources=False)


def _served(reply: dict[str, Any], max_edge: int) -> list[imaging.Served] | None:
    """The app's ready-served images, when made for the size this server serves."""
    raw = reply.get("served")
    if not isinstance(raw, list) or reply.get("max_edge") != max_edge:
        return None
    try:
        return [
            imaging.Served(
                png=base64.b64decode(item["png"], validate=True),
                width=int(item["width"]),
                height=int(item["height"]),
                downscaled_from=(
                    (int(item["downscaled_from"][0]), int(item["downscaled_from"][1]))
                    if item["downscaled_from"]
                    else None
                ),
            )
            for item in raw
        ]
    except (KeyError, TypeError, ValueError, IndexError):
        return None  # read the originals instead


def get_latest_capture(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    op_args = {"text_only": True} if args.get("text_only") else {}
    return _present(context, _live_call(context, "latest", op_args), args)


def observe_screen(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if "display" in args and args.get("target", "window") != "display":
        raise InvalidParams('Invalid arguments: `display` goes with target "display" only')
    op_args: dict[str, Any] = {"target": args.get("target", "window")}
    if args.get("text_only"):
        op_args["text_only"] = True
    if "display" in args:
        op_args["display"] = args["display"]
    return _present(context, _live_call(context, "observe", op_args), args)
