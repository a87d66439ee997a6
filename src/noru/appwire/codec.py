"""The app protocol's codec: a message as its line (and the served images'
bytes after it), and back, every field checked."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal

from noru.appwire.messages import (
    PROTOCOL,
    SESSION_VARIABLES,
    AppSession,
    AppStatus,
    Capture,
    Captured,
    Delivered,
    Failed,
    GetStatus,
    HotkeyState,
    Latest,
    Malformed,
    MenuState,
    Mismatch,
    Observe,
    OcrState,
    Ping,
    Pong,
    Refused,
    Reply,
    Request,
    ScreenAccess,
    ScreenState,
)
from noru.capture.base import Degraded, DegradedMode
from noru.geometry import Rect
from noru.imaging import Served

__all__ = ["blob_length", "decode_reply", "decode_request", "encode"]

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


def _session(data: dict[str, Any]) -> AppSession:
    pairs = _get(data, "variables", list)
    if not all(
        isinstance(pair, list)
        and len(pair) == 2
        and pair[0] in SESSION_VARIABLES
        and isinstance(pair[1], str)
        and 0 < len(pair[1]) <= 4096
        for pair in pairs
    ):
        raise Malformed("`session` must hold [name, value] pairs of the session's variables")
    return AppSession(tuple((name, value) for name, value in pairs))


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
        menu = _get(data, "menu", dict)
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
            session=_session(_get(data, "session", dict)),
            menu=MenuState(shown=_get(menu, "shown", bool), problem=_text(menu, "problem", 2000)),
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
    decoded = _build(f"{name}:{kind}", data, blobs)
    blobs.finish()
    return decoded


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
