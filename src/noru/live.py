"""The app protocol: how ``noru mcp`` and the person's CLI talk to the running app.

One Unix socket in the data dir (mode 0600); one request and one reply per
connection, each one JSON object on one line. A reply that carries served
images (``Delivered``) is followed by their PNG files, raw, in order, each
as long as its ``png_bytes`` says: a served screen is about a megabyte, and
base64 inside JSON cost the app and ``noru mcp`` about 5 ms per answer to
write, escape-check, parse and decode (docs/performance.md). Every request and reply is a
typed value defined here, and this module alone turns them into bytes and
back; the app (``noru.app.server``) and its clients (``LiveClient``) never
build or read a dict themselves.

::

    request   {"noru": PROTOCOL, "request": NAME, ...fields}
    reply     {"noru": PROTOCOL, "reply": NAME, ...fields}  [PNG bytes of each served image]

=============  ===================================  ==========================
request        asked by                             answered by
=============  ===================================  ==========================
``Ping``       tests, a client checking versions    ``Pong``
``GetStatus``  ``get_status``, ``noru status``,     ``AppStatus``
               ``noru doctor``
``Capture``    ``noru capture``                     ``Captured``
``Latest``     ``get_latest_capture``               ``Delivered``
``Observe``    ``observe_screen``                   ``Delivered``
=============  ===================================  ==========================

Any request may instead be answered by ``Refused`` (a contract-4 refusal,
carried whole: tag, summary, details and next action, so that the
platform's own words for granting screen access reach the agent), by
``Failed`` (the app could not do it; its words, never a path or a trace), or
by ``Mismatch`` (the app speaks another protocol version: the person must
restart it). The version is checked on every request, so an app and a
``noru mcp`` of different versions say so instead of misreading each other.

A missing, refusing or stale socket means the app is not running; that is the
answer, never a fallback to history.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, TypeVar

from noru import __version__
from noru.capture.base import Degraded, DegradedMode
from noru.errors import (
    AppNotRunning,
    AppVersionMismatch,
    Busy,
    InternalError,
    NoruError,
    Steering,
)
from noru.geometry import Rect
from noru.imaging import Served
from noru.paths import socket_path

__all__ = [
    "MAX_REPLY",
    "MAX_REQUEST",
    "PROTOCOL",
    "AppStatus",
    "Capture",
    "Captured",
    "Delivered",
    "Failed",
    "GetStatus",
    "HotkeyState",
    "Latest",
    "LiveClient",
    "Malformed",
    "Mismatch",
    "Observe",
    "OcrState",
    "Ping",
    "Pong",
    "Refused",
    "Reply",
    "Request",
    "ScreenAccess",
    "ScreenState",
    "blob_length",
    "decode_reply",
    "decode_request",
    "encode",
]

#: The app protocol's version; bump it whenever a request or reply changes.
PROTOCOL = 3  # 3: served images as raw bytes after the reply line
MAX_REQUEST = 1024 * 1024
MAX_REPLY = 64 * 1024 * 1024  # a 3-display bundle of PNGs fits easily

T = TypeVar("T")
CaptureMode = Literal["window", "display", "all_displays", "region"]
Target = Literal["window", "display", "all_displays"]


class Malformed(NoruError):
    """A message that is not one of this protocol's (its words say what is wrong)."""


# --- requests ------------------------------------------------------------------


@dataclass(frozen=True)
class Ping:
    """Is an app there, and which version."""


@dataclass(frozen=True)
class GetStatus:
    """Screen access, the OCR engine, the shortcut and degraded modes."""


@dataclass(frozen=True)
class Capture:
    """A capture for the person (``noru capture``): stored with origin ``user``."""

    mode: CaptureMode = "window"
    #: For ``mode="window"``: the window under the pointer, or the active one.
    which: Literal["pointer", "active"] = "pointer"
    display: int | None = None  # for mode="display"; None: the one under the pointer
    region: Rect | None = None  # for mode="region", in screen pixels
    note: str | None = None


@dataclass(frozen=True)
class Latest:
    """The live handoff: the person's newest capture, once."""

    text_only: bool = False
    client: str | None = None  # the MCP client's name, for the sign that it looked


@dataclass(frozen=True)
class Observe:
    """A fresh capture for an agent: stored with origin ``agent``."""

    target: Target = "window"
    display: int | None = None
    text_only: bool = False
    client: str | None = None  # the MCP client's name, for the sign that it looked


Request = Ping | GetStatus | Capture | Latest | Observe

# --- replies -------------------------------------------------------------------


@dataclass(frozen=True)
class Pong:
    app_version: str


class ScreenState(StrEnum):
    GRANTED = "granted"
    DENIED = "denied"  # the platform refused (X authorization, a portal, Screen Recording)
    UNAVAILABLE = "unavailable"  # no screen to capture (no X server, unsupported session)


@dataclass(frozen=True)
class ScreenAccess:
    state: ScreenState
    #: What the backend reported: the display reached, or why not.
    detail: str
    #: For a refusal, the platform's own words: which display, how to grant access.
    details: tuple[str, ...] = ()
    #: How capture works less well than it should here (empty when all is well).
    degraded: tuple[DegradedMode, ...] = ()


@dataclass(frozen=True)
class OcrState:
    available: bool
    engine: str
    version: str | None = None
    problem: str | None = None  # why it is unavailable, with the fix

    def __str__(self) -> str:
        if not self.available:
            return f"unavailable: {self.problem}"
        return f"{self.engine} {self.version}" if self.version else self.engine


@dataclass(frozen=True)
class HotkeyState:
    key: str
    grabbed: bool
    problem: str | None = None  # why it is not (or no longer) grabbed

    def __str__(self) -> str:
        return (
            f"{self.key} (grabbed)" if self.grabbed else f"{self.key} not grabbed: {self.problem}"
        )


@dataclass(frozen=True)
class AppStatus:
    app_version: str
    screen: ScreenAccess
    ocr: OcrState
    hotkey: HotkeyState


@dataclass(frozen=True)
class Captured:
    id: str


@dataclass(frozen=True)
class Delivered:
    """A capture the app just stored for an agent, and its images as the app
    served them (none for text only), so ``noru mcp`` need not re-encode them
    when it serves the same size."""

    id: str
    served: tuple[Served, ...] = ()


@dataclass(frozen=True)
class Refused:
    tag: str
    summary: str = ""
    details: tuple[str, ...] = ()
    next_action: str = ""

    @classmethod
    def of(cls, refusal: Steering) -> Refused:
        return cls(refusal.tag, refusal.summary, tuple(refusal.details), refusal.next_action)

    def steering(self) -> Steering:
        """The refusal as the contract's steering, exactly as the app raised it."""
        kind = Steering.by_tag(self.tag)
        if kind is None:
            raise Malformed(f"unknown refusal {self.tag[:60]!r}")
        return kind(self.summary, details=self.details, next_action=self.next_action or None)


@dataclass(frozen=True)
class Failed:
    message: str


@dataclass(frozen=True)
class Mismatch:
    """The app speaks another protocol version."""

    protocol: int | None
    app_version: str | None = None


Reply = Pong | AppStatus | Captured | Delivered | Refused | Failed | Mismatch

_REQUESTS: dict[str, type[Any]] = {
    "ping": Ping,
    "status": GetStatus,
    "capture": Capture,
    "latest": Latest,
    "observe": Observe,
}
_REPLIES: dict[str, type[Any]] = {
    "pong": Pong,
    "status": AppStatus,
    "captured": Captured,
    "delivered": Delivered,
    "refused": Refused,
    "failed": Failed,
    "mismatch": Mismatch,
}
_NAMES = {cls: name for name, cls in _REQUESTS.items()} | {
    cls: name for name, cls in _REPLIES.items()
}

# --- encoding ------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A value of this module as JSON data."""
    if isinstance(value, Served):
        return {
            "png_bytes": len(value.png),  # the bytes follow the reply's line
            "width": value.width,
            "height": value.height,
            "downscaled_from": list(value.downscaled_from) if value.downscaled_from else None,
        }
    if isinstance(value, StrEnum):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


def encode(message: Request | Reply) -> bytes:
    """One request or reply as its line on the socket."""
    kind = "reply" if type(message) in _REPLIES.values() else "request"
    body = {"noru": PROTOCOL, kind: _NAMES[type(message)], **_plain(message)}
    line = json.dumps(body, separators=(",", ":")).encode() + b"\n"
    if isinstance(message, Delivered) and message.served:
        return b"".join([line, *(item.png for item in message.served)])
    return line


# --- decoding ------------------------------------------------------------------


def _get(data: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if name not in data:
        if default is ...:
            raise Malformed(f"`{name}` is missing")
        return default
    value = data[name]
    wants_int = kind is int or (isinstance(kind, tuple) and int in kind)
    if isinstance(value, bool) and wants_int:
        raise Malformed(f"`{name}` must be a number")
    if not isinstance(value, kind):
        raise Malformed(f"`{name}` has the wrong type")
    return value


def _choice(data: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> Any:
    value = _get(data, name, str, default)
    if value not in allowed:
        raise Malformed(f"`{name}` must be one of {', '.join(allowed)}")
    return value


def _text(data: dict[str, Any], name: str, most: int = 100_000) -> str | None:
    value = _get(data, name, (str, type(None)), None)
    if value is not None and len(value) > most:
        raise Malformed(f"`{name}` is too long")
    return value  # type: ignore[no-any-return]


def _int_or_none(data: dict[str, Any], name: str) -> int | None:
    return _get(data, name, (int, type(None)), None)  # type: ignore[no-any-return]


def _rect(value: Any) -> Rect | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 4
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise Malformed("`region` must be [x, y, width, height]")
    return (value[0], value[1], value[2], value[3])


def _served(value: Any, blobs: _Blobs) -> Served:
    if not isinstance(value, dict):
        raise Malformed("a served image must be an object")
    png = blobs.take(_get(value, "png_bytes", int))
    source = _get(value, "downscaled_from", (list, type(None)), None)
    if source is not None and (
        len(source) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in source)
    ):
        raise Malformed("`downscaled_from` must be [width, height]")
    return Served(
        png=png,
        width=_get(value, "width", int),
        height=_get(value, "height", int),
        downscaled_from=(source[0], source[1]) if source else None,
    )


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Malformed(f"`{name}` must be a list of strings")
    return tuple(value)


class _Blobs:
    """The bytes after a reply's line, handed out in order to its served images."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.at = 0

    def take(self, size: int) -> bytes:
        if isinstance(size, bool) or size < 0 or self.at + size > len(self.data):
            raise Malformed("a served image's `png_bytes` does not match the bytes sent")
        self.at += size
        return bytes(self.data[self.at - size : self.at])

    def finish(self) -> None:
        if self.at != len(self.data):
            raise Malformed("bytes after the reply that no served image claims")


def blob_length(line: bytes) -> int:
    """How many bytes follow the reply ``line`` (its served images' PNGs);
    0 for a reply that carries none or a line that is not such a reply
    (``decode_reply`` says what is wrong with it)."""
    try:
        data = json.loads(line)
        served = data.get("served", []) if isinstance(data, dict) else []
        sizes = [item["png_bytes"] for item in served] if isinstance(served, list) else []
    except (ValueError, TypeError, KeyError):
        return 0
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in sizes):
        return 0
    return sum(sizes)


def _build(name: str, data: dict[str, Any], blobs: _Blobs | None = None) -> Request | Reply:
    """The typed value named ``name`` from its fields, every field checked."""
    if name == "ping:request":
        return Ping()
    if name == "status:request":
        return GetStatus()
    if name == "capture:request":
        return Capture(
            mode=_choice(data, "mode", ("window", "display", "all_displays", "region"), "window"),
            which=_choice(data, "which", ("pointer", "active"), "pointer"),
            display=_int_or_none(data, "display"),
            region=_rect(data.get("region")),
            note=_text(data, "note"),
        )
    if name == "latest:request":
        return Latest(
            text_only=_get(data, "text_only", bool, False), client=_text(data, "client", 100)
        )
    if name == "observe:request":
        return Observe(
            target=_choice(data, "target", ("window", "display", "all_displays"), "window"),
            display=_int_or_none(data, "display"),
            text_only=_get(data, "text_only", bool, False),
            client=_text(data, "client", 100),
        )
    if name == "pong:reply":
        return Pong(app_version=_get(data, "app_version", str))
    if name == "status:reply":
        screen = _get(data, "screen", dict)
        ocr = _get(data, "ocr", dict)
        hotkey = _get(data, "hotkey", dict)
        modes = []
        try:
            state = ScreenState(_get(screen, "state", str))
            for item in _get(screen, "degraded", list, []):
                if not isinstance(item, dict):
                    raise Malformed("a degraded mode must be an object")
                kind = Degraded(_get(item, "kind", str))
                modes.append(DegradedMode(kind, _get(item, "reason", str)))
        except ValueError:  # an enum value this version does not know
            raise Malformed("unknown screen access state or degraded mode") from None
        return AppStatus(
            app_version=_get(data, "app_version", str),
            screen=ScreenAccess(
                state,
                _get(screen, "detail", str),
                _strings(_get(screen, "details", list, []), "details"),
                tuple(modes),
            ),
            ocr=OcrState(
                available=_get(ocr, "available", bool),
                engine=_get(ocr, "engine", str),
                version=_text(ocr, "version", 200),
                problem=_text(ocr, "problem", 2000),
            ),
            hotkey=HotkeyState(
                key=_get(hotkey, "key", str),
                grabbed=_get(hotkey, "grabbed", bool),
                problem=_text(hotkey, "problem", 2000),
            ),
        )
    if name == "captured:reply":
        return Captured(id=_get(data, "id", str))
    if name == "delivered:reply":
        blobs = blobs or _Blobs(b"")
        return Delivered(
            id=_get(data, "id", str),
            served=tuple(_served(item, blobs) for item in _get(data, "served", list, [])),
        )
    if name == "refused:reply":
        return Refused(
            tag=_get(data, "tag", str),
            summary=_get(data, "summary", str, ""),
            details=_strings(_get(data, "details", list, []), "details"),
            next_action=_get(data, "next_action", str, ""),
        )
    if name == "failed:reply":
        return Failed(message=_get(data, "message", str))
    if name == "mismatch:reply":
        return Mismatch(
            protocol=_int_or_none(data, "protocol"), app_version=_text(data, "app_version", 200)
        )
    raise Malformed(f"unknown {name.replace(':', ' ')}")


def _decode(message: bytes, kind: Literal["request", "reply"]) -> Request | Reply:
    end = message.find(b"\n") + 1 if kind == "reply" else len(message)
    line, rest = (message[:end], message[end:]) if end > 0 else (message, b"")
    try:
        data = json.loads(line)
    except ValueError:
        raise Malformed("not JSON") from None
    if not isinstance(data, dict):
        raise Malformed("not a JSON object")
    if data.get("noru") != PROTOCOL:
        version = data.get("noru")
        protocol = version if isinstance(version, int) and not isinstance(version, bool) else None
        if kind == "reply" and data.get("reply") == "mismatch":
            # The one reply whose shape never changes between versions: the
            # other side's own protocol and version, to say which it is.
            theirs = data.get("app_version")
            return Mismatch(protocol, theirs if isinstance(theirs, str) else None)
        raise _VersionError(protocol)
    name = data.get(kind)
    if not isinstance(name, str):
        raise Malformed(f"no `{kind}` name")
    blobs = _Blobs(rest)
    message_ = _build(f"{name}:{kind}", data, blobs)
    blobs.finish()
    return message_


class _VersionError(Malformed):
    def __init__(self, protocol: int | None) -> None:
        super().__init__(f"app protocol {protocol} is not {PROTOCOL}")
        self.protocol = protocol


def decode_request(line: bytes) -> Request | Mismatch:
    """The request on ``line``; ``Mismatch`` for a client of another version.

    ``Malformed`` when it is not a request of this protocol.
    """
    try:
        message = _decode(line, "request")
    except _VersionError as exc:
        return Mismatch(protocol=exc.protocol)
    if not isinstance(message, (Ping, GetStatus, Capture, Latest, Observe)):
        raise Malformed("not a request")
    return message


def decode_reply(data: bytes) -> Reply:
    """The reply in ``data`` (its line, then the bytes of its served images);
    ``Mismatch`` for an app of another version."""
    try:
        message = _decode(data, "reply")
    except _VersionError as exc:
        return Mismatch(protocol=exc.protocol)
    if isinstance(message, (Ping, GetStatus, Capture, Latest, Observe)):
        raise Malformed("not a reply")
    return message


# --- the client ----------------------------------------------------------------


@dataclass
class LiveClient:
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
        """Send ``request``; its reply, with a refusal raised as its steering
        and a failure or a version mismatch raised as what they mean."""
        reply = self.ask(request, meanwhile=meanwhile)
        if isinstance(reply, Refused):
            try:
                refusal = reply.steering()
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
            raise AppVersionMismatch(
                f"the running Noru app is {theirs} version "
                f"({reply.app_version or 'unknown'}; this is {__version__})"
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
