"""The app protocol's client: one connection per request to the app of a data dir."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from noru import __version__
from noru.appwire.codec import blob_length, decode_reply, encode
from noru.appwire.messages import (
    MAX_REPLY,
    PROTOCOL,
    Failed,
    Malformed,
    Mismatch,
    Refused,
    Reply,
    Request,
)
from noru.errors import AppNotRunning, AppVersionMismatch, Busy, InternalError
from noru.paths import socket_path

__all__ = ["AppClient"]

T = TypeVar("T")


@dataclass
class AppClient:
    """Asks the app of data dir ``home``; one connection per request."""

    home: Path
    timeout: float = 30.0
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.path = socket_path(self.home)

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

    def ask(self, request: Request, *, meanwhile: Callable[[], None] | None = None) -> Reply:
        """Send ``request``; the app's reply as it came (refusals included).
        ``meanwhile`` runs once the request is sent, while the app works on it."""
        with self._connect() as sock:
            try:
                sock.sendall(encode(request))
                if meanwhile is not None:
                    meanwhile()
                with sock.makefile("rb") as reader:
                    raw = reader.readline(MAX_REPLY + 1)
                    if not raw.endswith(b"\n"):
                        raise AppNotRunning("the app closed the connection before answering")
                    size = blob_length(raw)
                    if size > MAX_REPLY - len(raw):
                        raise InternalError("the app sent a malformed answer")
                    blobs = reader.read(size) if size else b""
            except (ConnectionError, TimeoutError) as exc:
                raise AppNotRunning("the app stopped before answering") from exc
        if len(blobs) != size:
            raise AppNotRunning("the app closed the connection before answering")
        raw += blobs
        try:
            return decode_reply(raw)
        except Malformed:
            raise InternalError("the app sent a malformed answer") from None

    def call(self, request: Request, *, meanwhile: Callable[[], None] | None = None) -> Reply:
        """Send ``request``; its reply, with a refusal raised as its ``Refusal``
        and a failure or a version mismatch raised as what they mean."""
        reply = self.ask(request, meanwhile=meanwhile)
        if isinstance(reply, Refused):
            try:
                refusal = reply.refusal()
            except Malformed:
                raise InternalError("the app sent a malformed answer") from None
            raise refusal
        if isinstance(reply, Failed):
            # The app's own words (CaptureError texts, never paths or traces).
            reason = " ".join(reply.message.split())[:300]
            raise InternalError(f"The Noru app could not complete the request: {reason}")
        if isinstance(reply, Mismatch):
            theirs = (
                "an older" if reply.protocol is None or reply.protocol < PROTOCOL else "a newer"
            )
            # A release and a checkout between releases share a version
            # number: the protocol numbers tell them apart.
            raise AppVersionMismatch(
                f"the running Noru app is {theirs} version "
                f"({reply.app_version or 'unknown'}, app protocol {reply.protocol or 1}; "
                f"this is {__version__}, app protocol {PROTOCOL})"
            )
        return reply

    def expect(
        self, request: Request, kind: type[T], *, meanwhile: Callable[[], None] | None = None
    ) -> T:
        """``call``, checking the reply is the kind ``request`` is answered by."""
        reply = self.call(request, meanwhile=meanwhile)
        if not isinstance(reply, kind):
            raise InternalError("the app sent a malformed answer")
        return reply
