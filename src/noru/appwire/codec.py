"""The app protocol's codec: a message as its line (and the served images'
bytes after it), and back, every field checked."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import IO, Any, Literal

from noru.appwire import messages as m
from noru.appwire import ocr_pipe as pipe
from noru.capture.base import Degraded, DegradedMode
from noru.geometry import Rect
from noru.imaging import Scanlines, Served
from noru.ocr.base import OcrLine, decode_lines, encode_lines

__all__ = [
    "Cut",
    "blob_length",
    "decode_reply",
    "decode_request",
    "encode",
    "encode_parts",
    "read_answer",
    "read_job",
]

_REQUESTS: dict[str, type[Any]] = {
    "ping": m.Ping,
    "status": m.GetStatus,
    "capture": m.Capture,
    "latest": m.Latest,
    "observe": m.Observe,
    "recognise": pipe.Recognise,  # the OCR pipe's
}
_REPLIES: dict[str, type[Any]] = {
    "pong": m.Pong,
    "status": m.AppStatus,
    "captured": m.Captured,
    "delivered": m.Delivered,
    "refused": m.Refused,
    "failed": m.Failed,
    "mismatch": m.Mismatch,
    "ready": pipe.Ready,  # the OCR pipe's, from here on
    "recognised": pipe.Recognised,
    "unreadable": pipe.Unreadable,
    "fatal": pipe.Fatal,
}
_NAMES = {cls: name for name, cls in _REQUESTS.items()} | {
    cls: name for name, cls in _REPLIES.items()
}
_SOCKET_REQUESTS = (m.Ping, m.GetStatus, m.Capture, m.Latest, m.Observe)
_SOCKET_REPLIES = (m.Pong, m.AppStatus, m.Captured, m.Delivered, m.Refused, m.Failed, m.Mismatch)
_PIPE_REPLIES = (pipe.Ready, pipe.Recognised, pipe.Unreadable, pipe.Fatal, m.Mismatch)

Message = m.Request | m.Reply | pipe.Recognise | pipe.PipeReply

# --- encoding ------------------------------------------------------------------


def _plain(value: Any, blobs: list[bytes | memoryview]) -> Any:
    """A value of this module as JSON data; the binary it carries (a served
    image's PNG, a grab's rows) goes to ``blobs``, to follow the line, and
    the line says how many bytes each takes."""
    if isinstance(value, Served):
        blobs.append(value.png)
        return {
            "png_bytes": len(value.png),  # the bytes follow the line
            "width": value.width,
            "height": value.height,
            "downscaled_from": list(value.downscaled_from) if value.downscaled_from else None,
        }
    if isinstance(value, Scanlines):
        blobs.append(value.data)
        return {"rows_bytes": len(value.data), "size": list(value.size), "mode": value.mode}
    if isinstance(value, pipe.Recognised):
        lines = [encode_lines(lines) for lines in value.lines]
        return {"engine": value.engine, "version": value.version, "lines": lines}
    if isinstance(value, StrEnum):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name), blobs) for name in value.__dataclass_fields__}
    if isinstance(value, (tuple, list)):
        return [_plain(item, blobs) for item in value]
    return value


def encode_parts(message: Message) -> list[bytes | memoryview]:
    """One message as its line and then the bytes of the binary it carries,
    in order, as pieces: a grab's rows are written to the OCR pipe as they
    are, not copied into one buffer first."""
    kind = "reply" if type(message) in _REPLIES.values() else "request"
    blobs: list[bytes | memoryview] = []
    body = {"noru": m.PROTOCOL, kind: _NAMES[type(message)], **_plain(message, blobs)}
    return [json.dumps(body, separators=(",", ":")).encode() + b"\n", *blobs]


def encode(message: Message) -> bytes:
    """One message as its bytes: its line, then the binary it carries."""
    return b"".join(encode_parts(message))


# --- decoding ------------------------------------------------------------------


def _get(data: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if name not in data:
        if default is ...:
            raise m.Malformed(f"`{name}` is missing")
        return default
    value = data[name]
    wants_int = kind is int or (isinstance(kind, tuple) and int in kind)
    if isinstance(value, bool) and wants_int:
        raise m.Malformed(f"`{name}` must be a number")
    if not isinstance(value, kind):
        raise m.Malformed(f"`{name}` has the wrong type")
    return value


def _choice(data: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> Any:
    value = _get(data, name, str, default)
    if value not in allowed:
        raise m.Malformed(f"`{name}` must be one of {', '.join(allowed)}")
    return value


def _text(data: dict[str, Any], name: str, most: int = 100_000) -> str | None:
    value = _get(data, name, (str, type(None)), None)
    if value is not None and len(value) > most:
        raise m.Malformed(f"`{name}` is too long")
    return value  # type: ignore[no-any-return]


def _text_of(data: dict[str, Any], name: str, most: int = 200) -> str:
    value: str = _get(data, name, str)
    if len(value) > most:
        raise m.Malformed(f"`{name}` is too long")
    return value


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
        raise m.Malformed("`region` must be [x, y, width, height]")
    return (value[0], value[1], value[2], value[3])


def _served(value: Any, blobs: _Blobs) -> Served:
    if not isinstance(value, dict):
        raise m.Malformed("a served image must be an object")
    png = blobs.take(_get(value, "png_bytes", int), "png_bytes")
    source = _get(value, "downscaled_from", (list, type(None)), None)
    if source is not None and (
        len(source) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in source)
    ):
        raise m.Malformed("`downscaled_from` must be [width, height]")
    return Served(
        png=png,
        width=_get(value, "width", int),
        height=_get(value, "height", int),
        downscaled_from=(source[0], source[1]) if source else None,
    )


def _session(data: dict[str, Any]) -> m.AppSession:
    pairs = _get(data, "variables", list)
    if not all(
        isinstance(pair, list)
        and len(pair) == 2
        and pair[0] in m.SESSION_VARIABLES
        and isinstance(pair[1], str)
        and 0 < len(pair[1]) <= 4096
        for pair in pairs
    ):
        raise m.Malformed("`session` must hold [name, value] pairs of the session's variables")
    return m.AppSession(tuple((name, value) for name, value in pairs))


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise m.Malformed(f"`{name}` must be a list of strings")
    return tuple(value)


class _Blobs:
    """The bytes after a line, handed out in order to what it says they are
    (a served image's PNG, a grab's rows): from the bytes received
    (``data``), from a stream as they are asked for (``stream``), or, with
    neither, only counted (``blob_length``)."""

    def __init__(self, data: bytes | None = None, stream: IO[bytes] | None = None) -> None:
        self.data = memoryview(data) if data is not None else None
        self.stream = stream
        self.at = 0

    def take(self, size: int, field: str) -> bytes:
        if isinstance(size, bool) or size < 0:
            raise m.Malformed(f"`{field}` must be a size")
        self.at += size
        if self.stream is not None:
            taken = self.stream.read(size)
            if len(taken) != size:
                raise Cut(f"the bytes of `{field}` ended short")
            return taken
        if self.data is None:
            return b""
        if self.at > len(self.data):
            raise m.Malformed(f"`{field}` does not match the bytes sent")
        return bytes(self.data[self.at - size : self.at])

    def finish(self) -> None:
        if self.data is not None and self.at != len(self.data):
            raise m.Malformed("bytes after the line that nothing in it claims")


class Cut(m.Malformed):
    """A stream that ended within a message: the sender stopped as it sent it."""


def blob_length(line: bytes) -> int:
    """How many bytes follow ``line`` (the binary its message carries); 0 for
    a message that carries none or a line that is no message (decoding it
    says what is wrong)."""
    for kind in ("reply", "request"):
        counted = _Blobs()
        try:
            _decode(line, b"", kind, _ANY, counted)
        except m.Malformed:
            continue
        return counted.at
    return 0


def _rows(value: Any, blobs: _Blobs) -> Scanlines:
    """A grab's pixels sent after the line: 8-bit RGB, each row and one pad byte."""
    if not isinstance(value, dict):
        raise m.Malformed("an image's pixels must be an object")
    size = _get(value, "size", list)
    if (
        len(size) != 2
        or not all(type(v) is int and 0 < v <= pipe.MAX_SIDE for v in size)
        or _get(value, "mode", str) != "RGB"
    ):
        raise m.Malformed(f"an image that is not one: {size!r}")
    rows = Scanlines(b"", (size[0], size[1]), "RGB")
    if _get(value, "rows_bytes", int) != rows.stride * size[1]:
        raise m.Malformed("`rows_bytes` is not the image's rows")
    return Scanlines(blobs.take(rows.stride * size[1], "rows_bytes"), rows.size, "RGB")


def _lines(value: Any) -> tuple[tuple[OcrLine, ...], ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise m.Malformed("`lines` must be a list of each image's lines")
    try:
        return tuple(decode_lines(item) for item in value)
    except ValueError as exc:
        raise m.Malformed(str(exc)) from None


def _build(name: str, data: dict[str, Any], blobs: _Blobs) -> Message:
    """The typed value named ``name`` from its fields, every field checked."""
    if name == "ping:request":
        return m.Ping()
    if name == "status:request":
        return m.GetStatus()
    if name == "capture:request":
        return m.Capture(
            mode=_choice(data, "mode", ("window", "display", "all_displays", "region"), "window"),
            which=_choice(data, "which", ("pointer", "active"), "pointer"),
            display=_int_or_none(data, "display"),
            region=_rect(data.get("region")),
            note=_text(data, "note"),
        )
    if name == "latest:request":
        return m.Latest(
            text_only=_get(data, "text_only", bool, False), client=_text(data, "client", 100)
        )
    if name == "observe:request":
        return m.Observe(
            target=_choice(data, "target", ("window", "display", "all_displays"), "window"),
            display=_int_or_none(data, "display"),
            text_only=_get(data, "text_only", bool, False),
            client=_text(data, "client", 100),
        )
    if name == "pong:reply":
        return m.Pong(app_version=_get(data, "app_version", str))
    if name == "status:reply":
        screen = _get(data, "screen", dict)
        ocr = _get(data, "ocr", dict)
        hotkey = _get(data, "hotkey", dict)
        menu = _get(data, "menu", dict)
        modes = []
        try:
            state = m.ScreenState(_get(screen, "state", str))
            for item in _get(screen, "degraded", list, []):
                if not isinstance(item, dict):
                    raise m.Malformed("a degraded mode must be an object")
                kind = Degraded(_get(item, "kind", str))
                modes.append(DegradedMode(kind, _get(item, "reason", str)))
        except ValueError:  # an enum value this version does not know
            raise m.Malformed("unknown screen access state or degraded mode") from None
        return m.AppStatus(
            app_version=_get(data, "app_version", str),
            screen=m.ScreenAccess(
                state,
                _get(screen, "detail", str),
                _strings(_get(screen, "details", list, []), "details"),
                tuple(modes),
            ),
            ocr=m.OcrState(
                available=_get(ocr, "available", bool),
                engine=_get(ocr, "engine", str),
                version=_text(ocr, "version", 200),
                problem=_text(ocr, "problem", 2000),
            ),
            hotkey=m.HotkeyState(
                key=_get(hotkey, "key", str),
                grabbed=_get(hotkey, "grabbed", bool),
                problem=_text(hotkey, "problem", 2000),
            ),
            session=_session(_get(data, "session", dict)),
            menu=m.MenuState(shown=_get(menu, "shown", bool), problem=_text(menu, "problem", 2000)),
        )
    if name == "captured:reply":
        return m.Captured(id=_get(data, "id", str))
    if name == "delivered:reply":
        return m.Delivered(
            id=_get(data, "id", str),
            served=tuple(_served(item, blobs) for item in _get(data, "served", list, [])),
        )
    if name == "refused:reply":
        return m.Refused(
            tag=_get(data, "tag", str),
            summary=_get(data, "summary", str, ""),
            details=_strings(_get(data, "details", list, []), "details"),
            next_action=_get(data, "next_action", str, ""),
        )
    if name == "failed:reply":
        return m.Failed(message=_get(data, "message", str))
    if name == "mismatch:reply":
        return m.Mismatch(
            protocol=_int_or_none(data, "protocol"), app_version=_text(data, "app_version", 200)
        )
    if name == "recognise:request":
        return pipe.Recognise(
            capture=_get(data, "capture", str),
            pixels=tuple(_rows(item, blobs) for item in _get(data, "pixels", list, [])),
        )
    if name == "ready:reply":
        return pipe.Ready(
            engine=_text_of(data, "engine"), app_version=_text_of(data, "app_version")
        )
    if name == "recognised:reply":
        return pipe.Recognised(
            engine=_text_of(data, "engine"),
            version=_text_of(data, "version"),
            lines=_lines(_get(data, "lines", list)),
        )
    if name == "unreadable:reply":
        return pipe.Unreadable(reason=_text_of(data, "reason", pipe.REASON_LIMIT))
    if name == "fatal:reply":
        return pipe.Fatal(reason=_text_of(data, "reason", pipe.REASON_LIMIT))
    raise m.Malformed(f"unknown {name.replace(':', ' ')}")


_ANY = tuple(_REQUESTS.values()) + tuple(_REPLIES.values())


def _decode(
    line: bytes,
    rest: bytes,
    kind: Literal["request", "reply"],
    allowed: tuple[type, ...],
    blobs: _Blobs | None = None,
) -> Message:
    """The message on ``line``, its binary from ``rest`` (or ``blobs``): the
    one validator. Its name must be one of ``allowed`` before anything after
    the line is read."""
    try:
        data = json.loads(line)
    except ValueError:
        raise m.Malformed("not JSON") from None
    if not isinstance(data, dict):
        raise m.Malformed("not a JSON object")
    if data.get("noru") != m.PROTOCOL:
        version = data.get("noru")
        protocol = version if isinstance(version, int) and not isinstance(version, bool) else None
        if kind == "reply" and data.get("reply") == "mismatch":
            # The one reply whose shape never changes between versions: the
            # other side's own protocol and version, to say which it is.
            theirs = data.get("app_version")
            return m.Mismatch(protocol, theirs if isinstance(theirs, str) else None)
        raise _VersionError(protocol)
    name = data.get(kind)
    if not isinstance(name, str):
        raise m.Malformed(f"no `{kind}` name")
    table = _REQUESTS if kind == "request" else _REPLIES
    if name not in table:
        raise m.Malformed(f"unknown {name[:60]} {kind}")
    if table[name] not in allowed:
        raise m.Malformed(f"not a {kind} here: {name}")
    blobs = blobs or _Blobs(rest)
    decoded = _build(f"{name}:{kind}", data, blobs)
    blobs.finish()
    return decoded


class _VersionError(m.Malformed):
    def __init__(self, protocol: int | None) -> None:
        super().__init__(f"app protocol {protocol} is not {m.PROTOCOL}")
        self.protocol = protocol


def decode_request(line: bytes) -> m.Request | m.Mismatch:
    """The app socket's request on ``line``; ``Mismatch`` for a client of
    another version.

    ``Malformed`` when it is not a request of this protocol.
    """
    try:
        return _decode(line, b"", "request", _SOCKET_REQUESTS)  # type: ignore[return-value]
    except _VersionError as exc:
        return m.Mismatch(protocol=exc.protocol)


def decode_reply(data: bytes) -> m.Reply:
    """The app's reply in ``data`` (its line, then the bytes of its served
    images); ``Mismatch`` for an app of another version."""
    end = data.find(b"\n") + 1 or len(data)
    try:
        return _decode(data[:end], data[end:], "reply", _SOCKET_REPLIES)  # type: ignore[return-value]
    except _VersionError as exc:
        return m.Mismatch(protocol=exc.protocol)


def _read(
    stream: IO[bytes], kind: Literal["request", "reply"], allowed: tuple[type, ...]
) -> Message | None:
    line = stream.readline(pipe.MAX_JOB_LINE + 1)
    if not line:
        return None
    if len(line) > pipe.MAX_JOB_LINE:
        raise m.Malformed("a line too long")
    if not line.endswith(b"\n"):
        raise Cut("a line cut short")
    try:
        return _decode(line, b"", kind, allowed, _Blobs(stream=stream))
    except _VersionError as exc:
        return m.Mismatch(protocol=exc.protocol)


def read_job(stream: IO[bytes]) -> pipe.Recognise | m.Mismatch | None:
    """The OCR child's next job from ``stream`` (its line, then the rows of
    the pixels it carries, read as they are needed); ``Mismatch`` for an app
    of another protocol, None at the end of input. ``Malformed`` for
    anything else (``Cut`` when the input ended within it)."""
    return _read(stream, "request", (pipe.Recognise,))  # type: ignore[return-value]


def read_answer(stream: IO[bytes]) -> pipe.PipeReply | m.Mismatch | None:
    """The OCR child's next answer (its hello, or a job's) from ``stream``;
    ``Mismatch`` for a child of another protocol, None at the end of its
    output. ``Malformed`` for anything else."""
    return _read(stream, "reply", _PIPE_REPLIES)  # type: ignore[return-value]
