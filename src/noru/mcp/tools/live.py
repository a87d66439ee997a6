"""Live targets: get_latest_capture and observe_screen.

The order of refusals is fixed: app not running, then not authorized, then
paused; the app itself answers permission denied, busy and nothing new, and
its refusal reaches the agent whole (the platform's own words included).
Neither tool ever falls back to history.
"""

from __future__ import annotations

import time
from typing import Any

from noru import access, appwire
from noru.config import Config
from noru.contract import Answer, capture_answer
from noru.errors import Busy, InternalError, InvalidParams
from noru.mcp.tools.context import ToolContext
from noru.present import Projection, present_capture
from noru.redact.policy import Policy
from noru.store import Reader

__all__ = ["get_latest_capture", "observe_screen"]

# The server's own short bounded retry while the app reports busy (~0.5 s).
BUSY_RETRIES = (0.1, 0.15, 0.25)


class _ReadWhileAppWorks:
    """What presenting a live answer reads from disk (the config, the history,
    the redaction patterns: those of the request's settings), read while the
    app works on the request: this process would only wait for it. Read
    once, however often the request is sent; an error is kept and raised
    after the app's answer (``result``), so that the app's refusals keep
    their order."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.config: Config | None = None
        self.policy: Policy | None = None
        self.reader: Reader | None = None
        self.error: Exception | None = None

    def __call__(self) -> None:
        if self.config is not None or self.error is not None:
            return
        try:
            config = self.context.config
            self.policy = self.context.policy
            self.reader = Reader.open(self.context.home)
            self.config = config
        except Exception as exc:  # raised in its turn (``result``)
            self.error = exc

    def result(self) -> tuple[Config, Policy, Reader]:
        self()
        if self.error is not None:
            raise self.error
        assert self.config is not None and self.policy is not None and self.reader is not None
        return self.config, self.policy, self.reader

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()


def _ask(
    context: ToolContext, request: appwire.Latest | appwire.Observe, reading: _ReadWhileAppWorks
) -> appwire.Delivered:
    client = appwire.AppClient(context.home)
    decision = access.live_decision(context.access)
    if not decision.allowed:
        client.ensure_running()  # "app not running" comes before any access answer
        decision.enforce()
    # Allowed: the call itself says "app not running" when there is no app.
    for delay in (*BUSY_RETRIES, None):
        try:
            return client.expect(request, appwire.Delivered, meanwhile=reading)
        except Busy:
            if delay is None:
                raise
            time.sleep(delay)
    raise AssertionError("unreachable")


def _answer(
    context: ToolContext, request: appwire.Latest | appwire.Observe, *, text_only: bool
) -> Answer:
    """The capture the app hands over for ``request``, read from the store and presented."""
    reading = _ReadWhileAppWorks(context)
    try:
        delivered = _ask(context, request, reading)
        config, policy, reader = reading.result()
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
            app_served=None if config.redact_at_rest else delivered.served,
            budget=context.fit_capture,
            policy=policy,
        )
    finally:
        reading.close()
    return capture_answer(view, now=context.now(), with_sources=False)


def get_latest_capture(context: ToolContext, args: dict[str, Any]) -> Answer:
    text_only = bool(args.get("text_only", False))
    request = appwire.Latest(text_only=text_only, client=context.client)
    return _answer(context, request, text_only=text_only)


def observe_screen(context: ToolContext, args: dict[str, Any]) -> Answer:
    target = args.get("target", "window")
    if "display" in args and target != "display":
        raise InvalidParams('Invalid arguments: `display` goes with target "display" only')
    text_only = bool(args.get("text_only", False))
    request = appwire.Observe(
        target=target, display=args.get("display"), text_only=text_only, client=context.client
    )
    return _answer(context, request, text_only=text_only)
