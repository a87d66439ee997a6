"""Live targets: get_latest_capture and observe_screen.

The order of refusals is fixed: app not running, then not authorized, then
paused; the app itself answers permission denied, busy and nothing new, and
its refusal reaches the agent whole (the platform's own words included).
Neither tool ever falls back to history.
"""

from __future__ import annotations

import time
from typing import Any

from noru import access, live
from noru.config import load_config
from noru.contract import capture_result
from noru.errors import Busy, InternalError, InvalidParams
from noru.mcp.tools import ToolContext
from noru.present import Projection, present_capture
from noru.store import Reader

__all__ = ["get_latest_capture", "observe_screen"]

# The server's own short bounded retry while the app reports busy (~0.5 s).
BUSY_RETRIES = (0.1, 0.15, 0.25)


def _ask(context: ToolContext, request: live.Latest | live.Observe) -> live.Delivered:
    client = live.LiveClient(context.home)
    decision = access.live_decision(access.load(context.home))
    if not decision.allowed:
        client.ensure_running()  # "app not running" comes before any access answer
        decision.enforce()
    # Allowed: the call itself says "app not running" when there is no app.
    for delay in (*BUSY_RETRIES, None):
        try:
            return client.expect(request, live.Delivered)
        except Busy:
            if delay is None:
                raise
            time.sleep(delay)
    raise AssertionError("unreachable")


def _present(context: ToolContext, delivered: live.Delivered, *, text_only: bool) -> dict[str, Any]:
    """The capture the app just handed over, read from the store and presented."""
    config = load_config(context.home)
    with Reader.open(context.home) as reader:
        record = reader.get(delivered.id)
        if record is None:
            raise InternalError("the app's capture could not be read back")
        # The app's served images are used when they are the size this server serves.
        view = present_capture(
            reader,
            record,
            Projection(text_only=text_only),
            max_edge=config.max_edge,
            # Kept redacted at rest, the stored original is filled and the
            # app's served image (made at the grab) is not: read the original.
            ready=None if config.redact_at_rest else delivered.served,
            budget=context.fit_capture,
            policy=context.policy(config),
        )
    return capture_result(view, now=context.now(), with_sources=False)


def get_latest_capture(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    text_only = bool(args.get("text_only", False))
    return _present(
        context,
        _ask(context, live.Latest(text_only=text_only, client=context.client)),
        text_only=text_only,
    )


def observe_screen(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    target = args.get("target", "window")
    if "display" in args and target != "display":
        raise InvalidParams('Invalid arguments: `display` goes with target "display" only')
    text_only = bool(args.get("text_only", False))
    request = live.Observe(
        target=target, display=args.get("display"), text_only=text_only, client=context.client
    )
    return _present(context, _ask(context, request), text_only=text_only)
