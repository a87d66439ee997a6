"""The token every `noru mcp --http` request must carry, and the count of the
requests refused for want of it.

``TokenRequired`` runs after the Host/Origin check and before anything else
of a request is read (not its body, not its session id): a request without
``Authorization: Bearer <this install's token>`` gets 401 with
``WWW-Authenticate: Bearer`` and a JSON-RPC error body, no session id and
nothing of the history. The token is this install's (``noru.httptoken``),
compared in constant time, read again when its file changes: after `noru
token rotate` the old token is refused at its next request, and a session
opened under the old token ends there (``GENERATION``, checked by the
endpoint).

``RefusalLog`` puts the refusals in the person's access log for `noru log`
and `noru doctor`: the first after a quiet minute at once, the rest of a
burst counted and written as one entry a minute later (or when the server
stops), so a flood of refusals cannot push the reads out of the log.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from noru import accesslog
from noru.errors import InvalidRequest
from noru.httptoken import Watch
from noru.mcp.session import to_wire
from noru.times import format_utc

__all__ = ["GENERATION", "WINDOW", "RefusalLog", "TokenRequired", "unauthorized"]

log = logging.getLogger("noru.mcp.http")

GENERATION = "noru.token_generation"  # in the ASGI scope's state: the token a request passed
WINDOW = 60.0  # seconds: at most one refusals entry in the access log per window
REASONS = ("missing", "wrong", "unavailable")
UNAUTHORIZED = (
    "Unauthorized: this server answers only requests that carry this install's Noru token"
    " (Authorization: Bearer ...); the person gets it with `noru token show`, and"
    " `noru config CLIENT --http URL` prints a client's configuration with it"
)


def unauthorized(reason: str) -> Response:
    """401 with a JSON-RPC error body and ``WWW-Authenticate: Bearer``."""
    body = json.dumps(to_wire(InvalidRequest(UNAUTHORIZED), None), separators=(",", ":"))
    challenge = 'Bearer realm="noru"'
    if reason == "wrong":
        challenge += ', error="invalid_token"'
    return Response(
        body.encode("utf-8"),
        status_code=401,
        media_type="application/json",
        headers={"WWW-Authenticate": challenge},
    )


class RefusalLog:
    """Counts refused requests and records them in the access log, one entry
    per ``window`` at most. ``note`` is called on the event loop and never
    waits on the file; a timer thread writes."""

    def __init__(self, home: Path, *, window: float = WINDOW) -> None:
        self.home = home
        self.window = window
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._first: datetime | None = None
        self._last: datetime | None = None
        self._written = -float("inf")  # monotonic time of the last entry
        self._timer: threading.Timer | None = None
        self._closed = False

    def note(self, reason: str) -> None:
        now = datetime.now(UTC)
        with self._lock:
            self._counts[reason] += 1
            self._first = self._first or now
            self._last = now
            if self._timer is None and not self._closed:
                delay = max(0.0, self._written + self.window - time.monotonic())
                self._timer = threading.Timer(delay, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Write what is counted, if anything, as one entry."""
        with self._lock:
            counts, first, last = self._counts, self._first, self._last
            self._counts, self._first, self._last = Counter(), None, None
            self._timer = None
            if first is None or last is None:
                return
            self._written = time.monotonic()
        refused = accesslog.RefusedRequests(
            first=format_utc(first), last=format_utc(last), **{r: counts[r] for r in REASONS}
        )
        try:
            accesslog.record_refused(self.home, refused)
        except accesslog.LogUnwritable as exc:
            log.warning("%d refused requests could not be recorded: %s", refused.count, exc)

    def close(self) -> None:
        """Stop the timer and write what is still counted."""
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.flush()


class TokenRequired:
    """Refuse (401) any request without this install's token, before the
    endpoint reads anything of it."""

    def __init__(self, app: ASGIApp, *, watch: Watch, refusals: RefusalLog) -> None:
        self.app = app
        self.watch = watch
        self.refusals = refusals
        self._said: str | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        verdict = self.watch.check(
            [v for k, v in scope["headers"] if k.lower() == b"authorization"]
        )
        if verdict.refused is not None:
            if verdict.refused == "unavailable" and self.watch.problem != self._said:
                # Said once per problem, on stderr: the person's, like the server.
                self._said = self.watch.problem
                log.warning(
                    "every request is refused: %s (`noru token show` makes one, "
                    "`noru token rotate` replaces it)",
                    self.watch.problem,
                )
            self.refusals.note(verdict.refused)
            await unauthorized(verdict.refused)(scope, receive, send)
            return
        scope.setdefault("state", {})[GENERATION] = verdict.generation
        await self.app(scope, receive, send)
