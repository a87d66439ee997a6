"""The live socket: how ``noru mcp`` and the CLI reach the running app.

One Unix socket in the data dir (mode 0600), one JSON object per line each
way: ``{"op": NAME, "args": {...}}`` is answered by ``{"ok": true, "result":
{...}}`` or ``{"ok": false, "refusal": TAG, "message": TEXT}``. A missing,
refusing or stale socket means the app is not running; that is the answer,
never a fallback to history.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

from noru.errors import (
    AppNotRunning,
    Busy,
    InternalError,
    NotAuthorized,
    NothingNew,
    Paused,
    PermissionDenied,
    Steering,
)
from noru.paths import socket_path

__all__ = ["MAX_MESSAGE", "REFUSALS", "LiveClient"]

MAX_MESSAGE = 64 * 1024 * 1024  # a 3-display bundle of PNGs, base64, fits easily

# Refusals the app may answer with, by tag.
REFUSALS: dict[str, type[Steering]] = {
    cls.tag: cls for cls in (Busy, PermissionDenied, NothingNew, NotAuthorized, Paused)
}


class LiveClient:
    def __init__(self, home: Path, *, timeout: float = 30.0) -> None:
        self.path = socket_path(home)
        self.timeout = timeout

    def _connect(self) -> socket.socket:
        # A full listen queue (EAGAIN) means a busy app, not a missing one.
        for delay in (0.05, 0.1, 0.2, 0.4, None):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(str(self.path))
            except BlockingIOError as exc:
                sock.close()
                if delay is None:
                    raise Busy("the app has too many requests waiting") from exc
                time.sleep(delay)
                continue
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                sock.close()
                raise AppNotRunning("no Noru app is listening on this machine") from exc
            except OSError as exc:
                sock.close()
                raise AppNotRunning(f"the app's socket cannot be reached ({exc.strerror})") from exc
            return sock
        raise AssertionError("unreachable")

    def ensure_running(self) -> None:
        """Raise ``AppNotRunning`` (with why) unless the app accepts a connection."""
        self._connect().close()

    def running(self) -> bool:
        try:
            self.ensure_running()
        except AppNotRunning:
            return False
        return True

    def call(self, op: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request to the app and return its result, or raise its refusal."""
        with self._connect() as sock:
            line = json.dumps({"op": op, "args": args or {}}).encode() + b"\n"
            try:
                sock.sendall(line)
                with sock.makefile("rb") as reader:
                    raw = reader.readline(MAX_MESSAGE + 1)
            except (ConnectionError, TimeoutError) as exc:
                raise AppNotRunning("the app stopped before answering") from exc
        if not raw.endswith(b"\n"):
            raise AppNotRunning("the app closed the connection before answering")
        try:
            reply = json.loads(raw)
        except ValueError:
            raise InternalError("the app sent a malformed answer") from None
        if not isinstance(reply, dict):
            raise InternalError("the app sent a malformed answer")
        if reply.get("ok"):
            result = reply.get("result")
            if not isinstance(result, dict):
                raise InternalError("the app sent a malformed answer")
            return result
        refusal = REFUSALS.get(str(reply.get("refusal")))
        if refusal is None:
            # The app's own words (CaptureError texts, never paths or traces).
            reason = " ".join(str(reply.get("message") or "").split())[:300]
            raise InternalError(f"The Noru app could not complete the request: {reason}")
        raise refusal(str(reply.get("message") or ""))
