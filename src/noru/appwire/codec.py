"""The wire's codec: a message as its line and the binary it carries after
it (a served image's PNG, a grab's rows), and back: the version checked, the
name looked up, the binary handed out as the line declares it, each field
checked by ``noru.appwire.fields``. From bytes received (the socket) or
straight from a stream (the OCR pipe: a grab's rows are not copied into one
buffer first)."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import IO, Any, Literal

from noru.appwire import messages as m
from noru.appwire import ocr_pipe as pipe
from noru.appwire.fields import Message, build
from noru.imaging import Scanlines, Served
from noru.ocr.base import encode_lines

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
    decoded = build(f"{name}:{kind}", data, blobs.take)
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
