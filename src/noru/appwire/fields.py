"""Each message of the wire as its typed value, from the fields of its line,
every field checked: the wire's one validator (``noru.appwire.codec`` frames
the lines and the binary after them, and asks this module for the values).

Binary a message carries is asked for through ``take(size, field)`` as its
fields declare it (``png_bytes``, ``rows_bytes``), in order, after each one
is checked: a size that is not one is refused before anything is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from noru.appwire import messages as m
from noru.appwire import ocr_pipe as pipe
from noru.geometry import Rect
from noru.imaging import Scanlines, Served
from noru.ocr.base import OcrLine, decode_lines

__all__ = ["Message", "Take", "build"]

Message = m.Request | m.Reply | pipe.Recognise | pipe.PipeReply
#: ``take(size, field)``: the next ``size`` bytes after the line, for ``field``.
Take = Callable[[int, str], bytes]


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


def _served(value: Any, take: Take) -> Served:
    if not isinstance(value, dict):
        raise m.Malformed("a served image must be an object")
    png = take(_get(value, "png_bytes", int), "png_bytes")
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


def _rows(value: Any, take: Take) -> Scanlines:
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
    return Scanlines(take(rows.stride * size[1], "rows_bytes"), rows.size, "RGB")


def _lines(value: Any) -> tuple[tuple[OcrLine, ...], ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise m.Malformed("`lines` must be a list of each image's lines")
    try:
        return tuple(decode_lines(item) for item in value)
    except ValueError as exc:
        raise m.Malformed(str(exc)) from None


def build(name: str, data: dict[str, Any], take: Take) -> Message:
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
        # Read only by the socket's clients: the OCR child, which reads its
        # jobs with this module, does not load the capture package for them.
        from noru.capture.base import Degraded, DegradedMode

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
            menu=m.MenuState(
                shown=_get(menu, "shown", bool),
                problem=_text(menu, "problem", 2000),
                notifications=_text(menu, "notifications", 2000),
            ),
        )
    if name == "captured:reply":
        return m.Captured(id=_get(data, "id", str))
    if name == "delivered:reply":
        return m.Delivered(
            id=_get(data, "id", str),
            served=tuple(_served(item, take) for item in _get(data, "served", list, [])),
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
            pixels=tuple(_rows(item, take) for item in _get(data, "pixels", list, [])),
        )
    if name == "ready:reply":
        return pipe.Ready(
            engine=_text_of(data, "engine"),
            version=_text_of(data, "version"),
            app_version=_text_of(data, "app_version"),
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
