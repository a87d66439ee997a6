"""MCP over Streamable HTTP, on loopback only: one endpoint, ``/mcp``.

The same session engine as stdio: every ``Mcp-Session-Id`` owns one
``Session``. Its calls run in a worker thread (a tool may wait on the app), one
at a time per session (a session's JSON-RPC state is not thread-safe), so the
event loop keeps answering other sessions. Answers are ``application/json``;
Noru sends no server-initiated messages, so there is no SSE stream.

Every request is checked in this order; a refusal carries a JSON-RPC error
body with ``id: null``::

    403  Host is not loopback, or Origin is present and not loopback (DNS rebinding)
    401  no Authorization: Bearer with this install's token (``auth``; nothing
         else of the request is read, and the refusal is counted)
    405  a method other than POST and DELETE (GET: we offer no server stream)
    406  Accept is present and excludes application/json
    415  a POST whose Content-Type is not application/json
    413  a body over MAX_BODY, announced or counted (the rest is never read)
    400  -32700: the body is not UTF-8 JSON
    400  no Mcp-Session-Id on anything but an initialize request
    404  an unknown or ended session, or one opened under a token since rotated
    400  MCP-Protocol-Version present and not a supported revision
    503  MAX_SESSIONS sessions are all in the middle of a request

Then the engine answers: 200 with its JSON, 202 with no body when there is
nothing to answer (notifications, client responses), 400 when its answer is
one error about the message as a whole (``id: null``: not JSON-RPC, or a batch
on a session that is not 2025-03-26). At MAX_SESSIONS live sessions a new one
ends the least recently used idle session, which then answers 404.
"""

from __future__ import annotations

import json
import logging
import secrets
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from noru import httptoken
from noru.errors import DataDirError, InvalidRequest, ParseError, ProtocolError
from noru.loopback import (
    is_loopback_authority,
    is_loopback_name,
    is_loopback_origin,
    listen,
    serve,
    split_authority,
)
from noru.mcp.session import SUPPORTED, Session, parse_message, to_wire
from noru.mcp.transports.auth import GENERATION, RefusalLog, TokenRequired

__all__ = [
    "DEFAULT_HOST",
    "MAX_BODY",
    "MAX_SESSIONS",
    "SessionTable",
    "create_app",
    "is_loopback_authority",
    "parse_listen",
    "run_http",
]

log = logging.getLogger("noru.mcp.http")

DEFAULT_HOST = "127.0.0.1"
ENDPOINT = "/mcp"
MAX_BODY = 4 * 1024 * 1024  # one message; the largest legitimate request is tiny
MAX_SESSIONS = 256
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
ALLOW = "POST, DELETE"
LOOPBACK_RULE = "only loopback addresses (127.0.0.0/8, ::1, localhost) are allowed"


# --- addresses ---------------------------------------------------------------


def parse_listen(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[::1]:PORT`` as (host, port); HOST defaults to
    127.0.0.1 and must be loopback. Raises ValueError with a message for people."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        host, port = DEFAULT_HOST, text
    else:
        parts = split_authority(text)
        if parts is None or parts[2] is None:
            raise ValueError(
                f"expected [HOST:]PORT (e.g. 8765, 127.0.0.1:8765, [::1]:8765), got {text!r}"
            )
        host, bracketed, port = parts[0] or DEFAULT_HOST, parts[1], parts[2]
        if not is_loopback_name(host, bracketed=bracketed):
            raise ValueError(
                f"refusing to listen on {host!r}: {LOOPBACK_RULE}, "
                "so that nothing off this machine can reach your screen history"
            )
    number = int(port)
    if number > 65535:
        raise ValueError(f"port {number} is out of range (0-65535; 0 picks a free one)")
    return host, number


# --- sessions ----------------------------------------------------------------


@dataclass(eq=False)
class _Entry:
    session: Session
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    busy: int = 0  # requests holding or waiting for the lock
    generation: int | None = None  # the token it was opened under (auth.GENERATION)


class SessionTable:
    """Live sessions by id, least recently used first. Used from the event loop only."""

    def __init__(self, *, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._entries: OrderedDict[str, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, session_id: str) -> _Entry | None:
        entry = self._entries.get(session_id)
        if entry is not None:
            self._entries.move_to_end(session_id)
        return entry

    def has_room(self) -> bool:
        return len(self._entries) < self.limit or any(e.busy == 0 for e in self._entries.values())

    def add(self, entry: _Entry) -> str | None:
        """Register ``entry`` under a new id, ending the least recently used idle
        session when full; None when every session is busy."""
        while len(self._entries) >= self.limit:
            victim = next((sid for sid, e in self._entries.items() if e.busy == 0), None)
            if victim is None:
                return None
            del self._entries[victim]
            log.warning("%d sessions live: ended the least recently used one", self.limit)
        session_id = secrets.token_urlsafe(32)  # 43 visible ASCII characters
        self._entries[session_id] = entry
        return session_id

    def end(self, session_id: str) -> bool:
        return self._entries.pop(session_id, None) is not None


# --- HTTP --------------------------------------------------------------------


def _error(status: int, exc: ProtocolError, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(to_wire(exc, None), separators=(",", ":")).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def _refusal(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return _error(status, InvalidRequest(message), headers)


class LoopbackOnly:
    """Refuse (403) any request whose Host, or Origin if sent, is not loopback: a web
    page that rebinds its own name to 127.0.0.1 still sends its own name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.lower(): v for k, v in scope["headers"]}
            host = headers.get(b"host", b"").decode("latin-1")
            origin = headers.get(b"origin")
            if not is_loopback_authority(host):
                response = _refusal(403, "Forbidden: the Host header must name a loopback address")
                return await response(scope, receive, send)
            if origin is not None and not is_loopback_origin(origin.decode("latin-1")):
                response = _refusal(403, "Forbidden: the Origin header must be a loopback origin")
                return await response(scope, receive, send)
        await self.app(scope, receive, send)


def _accepts_json(accept: str) -> bool:
    for item in accept.split(","):
        media, *params = (part.strip().lower() for part in item.split(";"))
        if media not in ("application/json", "application/*", "*/*"):
            continue
        q = next((p[2:] for p in params if p.startswith("q=")), "1")
        try:
            if float(q) > 0:
                return True
        except ValueError:
            continue
    return False


async def _read_body(request: Request) -> bytes | None:
    """The body, or None as soon as it is known to be over MAX_BODY."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _generation(request: Request) -> int | None:
    """Which token the request passed (``auth.TokenRequired``)."""
    state = request.scope.get("state") or {}
    generation = state.get(GENERATION)
    return generation if isinstance(generation, int) else None


def _is_initialize(message: Any) -> bool:
    return isinstance(message, dict) and message.get("method") == "initialize" and "id" in message


def _answer(answer: bytes | None, headers: dict[str, str] | None = None) -> Response:
    if answer is None:
        return Response(status_code=202, headers=headers)
    # An error about the message as a whole is small; a large answer (images) is
    # never one, so it is not decoded again just to find out.
    whole = False
    if len(answer) < 64 * 1024:
        decoded = json.loads(answer)
        whole = isinstance(decoded, dict) and "error" in decoded and decoded.get("id") is None
    return Response(
        answer, status_code=400 if whole else 200, media_type="application/json", headers=headers
    )


class Endpoint:
    """``/mcp``: POST carries messages, DELETE ends a session."""

    def __init__(self, home: Path, *, max_sessions: int = MAX_SESSIONS) -> None:
        self.home = home
        self.sessions = SessionTable(limit=max_sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # An ASGI app rather than a request function, so that every method
        # reaches ``dispatch`` (and gets our 405 with its Allow header).
        response = await self.dispatch(Request(scope, receive))
        await response(scope, receive, send)

    async def dispatch(self, request: Request) -> Response:
        if request.method not in ("POST", "DELETE"):
            return _refusal(
                405,
                f"Method not allowed: {request.method[:20]}; this server offers no event stream",
                {"Allow": ALLOW},
            )
        accept = request.headers.get("accept")
        if accept is not None and not _accepts_json(accept):
            return _refusal(406, "Not acceptable: answers are application/json")
        if request.method == "DELETE":
            return self._delete(request)
        return await self._post(request)

    def _session(self, request: Request) -> _Entry | Response:
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            return _refusal(
                400, "Bad request: Mcp-Session-Id header is required; send initialize first"
            )
        entry = self.sessions.get(session_id)
        if entry is not None and entry.generation != _generation(request):
            # Opened under a token the person has since replaced: it ends here.
            self.sessions.end(session_id)
            entry = None
        if entry is None:
            return _refusal(404, "Session not found: it ended; send initialize for a new one")
        version = request.headers.get(VERSION_HEADER)
        if version is not None and version not in SUPPORTED:
            return _refusal(
                400,
                f"Bad request: unsupported MCP-Protocol-Version {version[:40]!r}; "
                f"supported: {', '.join(SUPPORTED)}",
            )
        return entry

    def _delete(self, request: Request) -> Response:
        entry = self._session(request)
        if isinstance(entry, Response):
            return entry
        self.sessions.end(request.headers[SESSION_HEADER])
        return Response(status_code=204)

    async def _post(self, request: Request) -> Response:
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/json":
            return _refusal(415, "Unsupported media type: send application/json")
        try:
            body = await _read_body(request)
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is left to read it
        if body is None:
            return _refusal(413, f"Payload too large: a message may hold {MAX_BODY} bytes")
        try:
            message = parse_message(body)
        except ParseError as exc:
            return _error(400, exc)
        if _is_initialize(message) and SESSION_HEADER not in request.headers:
            return await self._initialize(body, _generation(request))
        entry = self._session(request)
        if isinstance(entry, Response):
            return entry
        return _answer(await self._handle(entry, body))

    async def _initialize(self, body: bytes, generation: int | None) -> Response:
        if not self.sessions.has_room():
            return _refusal(503, "Too many sessions: every one is busy; try again later")
        entry = _Entry(Session(home=self.home, transport="http"), generation=generation)
        answer = await self._handle(entry, body)
        if entry.session.version is None:  # initialize was refused: no session
            return _answer(answer)
        session_id = self.sessions.add(entry)
        if session_id is None:
            return _refusal(503, "Too many sessions: every one is busy; try again later")
        return _answer(answer, {"Mcp-Session-Id": session_id})

    async def _handle(self, entry: _Entry, body: bytes) -> bytes | None:
        entry.busy += 1
        try:
            async with entry.lock:
                return await run_in_threadpool(entry.session.handle, body)
        finally:
            entry.busy -= 1


def create_app(
    home: Path, *, refusals: RefusalLog | None = None, max_sessions: int = MAX_SESSIONS
) -> Starlette:
    """The server: Host/Origin checked first, then the token, then ``/mcp``."""
    endpoint = Endpoint(home, max_sessions=max_sessions)
    watch = httptoken.Watch(home)
    app = Starlette(
        routes=[Route(ENDPOINT, endpoint)],
        middleware=[
            Middleware(LoopbackOnly),
            Middleware(TokenRequired, watch=watch, refusals=refusals or RefusalLog(home)),
        ],
    )
    app.router.redirect_slashes = False
    app.state.endpoint = endpoint
    return app


# --- the server --------------------------------------------------------------


def run_http(home: Path, *, host: str, port: int) -> int:
    """Serve until SIGTERM or SIGINT; the exit status."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="noru mcp: %(levelname)s %(message)s"
    )
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not is_loopback_name(bare, bracketed=":" in bare):
        print(f"noru mcp: refusing to listen on {host!r}: {LOOPBACK_RULE}", file=sys.stderr)
        return 2
    try:
        # The person starts this server: it makes the token if there is none
        # yet, before it listens, so no request ever finds it missing.
        httptoken.ensure(home)
    except DataDirError as exc:
        print(f"noru mcp: no token, so no request could be answered: {exc}", file=sys.stderr)
        return 1
    try:
        sock = listen(bare, port)
    except OSError as exc:
        print(f"noru mcp: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1

    def started() -> None:
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        print(
            f"noru mcp: Streamable HTTP on http://{shown}:{bound_port}{ENDPOINT}\n"
            "noru mcp: every request must carry this install's token"
            " (`noru token show`; `noru config CLIENT --http URL` configures a client)",
            file=sys.stderr,
            flush=True,
        )

    refusals = RefusalLog(home)
    try:
        serve(create_app(home, refusals=refusals), sock, started=started)
    finally:
        refusals.close()
    return 0
