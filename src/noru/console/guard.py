"""Who may use the console: the person's browser, on this machine, signed in.

The console can change what agents may do, so it must be as hard to reach as
the access file itself:

- **loopback Host only**: a page elsewhere that rebinds its name to
  127.0.0.1 sends its own host name, and is refused (421);
- **a one-time sign-in link**: ``noru console`` prints a URL with a random
  token; the first visit exchanges it for an HttpOnly, SameSite=Strict
  cookie and is redirected so the token leaves the address bar; the token
  then no longer works;
- **writes from the console's own pages only**: every POST needs the cookie
  and either ``Sec-Fetch-Site: same-origin`` (or ``none``: typed by the
  person) or an ``Origin`` equal to the console's; anything else is 403;
- **headers**: a Content-Security-Policy allowing nothing from elsewhere and
  no framing, no referrer, no content sniffing, no caching of pages, and no
  CORS headers at all (so no other origin may read an answer).
"""

from __future__ import annotations

import hmac
import secrets
import threading
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from noru.loopback import is_loopback_authority

__all__ = ["COOKIE", "HEADERS", "Guard", "Keys"]

COOKIE = "noru_console"
HEADERS = {
    "content-security-policy": (
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
        "base-uri 'none'; form-action 'self'"
    ),
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
# The sign-in link, the static files and the icon need no cookie (the link is
# how the cookie is had; the files are Noru's own CSS, script and icon, no history).
OPEN_PATHS = ("/signin", "/static/", "/favicon.ico")


@dataclass
class Keys:
    """The one-time sign-in token and the sessions it was exchanged for."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    used: bool = False
    sessions: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def exchange(self, token: str) -> str | None:
        """A new session for the unused token; None for any other (once only)."""
        with self._lock:
            if self.used or not hmac.compare_digest(token.encode(), self.token.encode()):
                return None
            self.used = True
            session = secrets.token_urlsafe(32)
            self.sessions.add(session)
            return session

    def signed_in(self, cookie: str | None) -> bool:
        if not cookie:
            return False
        with self._lock:
            return any(hmac.compare_digest(cookie.encode(), s.encode()) for s in self.sessions)


def _refuse(status: int, text: str) -> Response:
    return PlainTextResponse(text + "\n", status_code=status, headers=HEADERS)


class Guard:
    """ASGI middleware: every request passes these checks before any page runs."""

    def __init__(self, app: ASGIApp, keys: Keys) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self.check(request)
        if refusal is not None:
            await refusal(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if not k.lower().startswith(b"access-control-")
                ]
                present = {k.lower() for k, _ in headers}
                headers += [
                    (k.encode(), v.encode())
                    for k, v in HEADERS.items()
                    if k.encode() not in present
                ]
                if not request.url.path.startswith("/static/"):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)

    def check(self, request: Request) -> Response | None:
        host = request.headers.get("host", "")
        if not is_loopback_authority(host):
            return _refuse(421, "the console answers on this machine's loopback address only")
        path = request.url.path
        if path.startswith(OPEN_PATHS):
            return None if request.method in ("GET", "HEAD") else _refuse(405, "not allowed")
        if not self.keys.signed_in(request.cookies.get(COOKIE)):
            return _refuse(
                403, "not signed in: open the link `noru console` printed (it works once)"
            )
        if request.method not in ("GET", "HEAD") and not self.same_origin(request, host):
            return _refuse(403, "a change must come from the console's own pages")
        return None

    @staticmethod
    def same_origin(request: Request, host: str) -> bool:
        """Sent by the console's own pages: what the browser says of the
        request's site and origin agrees, and it said at least one. (With no
        referrer, Chromium sends a form's ``Origin`` as ``null``; its
        ``Sec-Fetch-Site`` then speaks for it.)"""
        site = request.headers.get("sec-fetch-site")
        origin = request.headers.get("origin")
        if origin == "null":
            origin = None
        if site is None and origin is None:
            return False
        if site is not None and site not in ("same-origin", "none"):
            return False
        return origin is None or origin == f"http://{host}"
