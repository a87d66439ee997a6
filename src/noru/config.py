"""The person's configuration: ``config.toml`` in the data dir, all optional.

::

    handoff_window = "10m"   # how old a capture may be for get_latest_capture
    ocr_settle = 1.5         # seconds a live request waits for OCR text
    max_edge = 1568          # long edge of served images, in pixels
    hotkey = "ctrl+alt+n"    # the global capture shortcut (X11)
    ocr_engine = "tesseract" # the OCR engine (see `noru doctor`)
    ocr_second_opinion = true  # lines Tesseract is unsure of read again by RapidOCR
    ax_budget = 0.15         # seconds the accessibility text may take at a capture; 0: none
    ax_switch = false        # ask every app of the session to build its accessibility tree
    exclude_apps = []        # apps never captured (also `noru exclude add --app`)
    exclude_titles = []      # window titles never captured: globs, or "re:" + a regex
    keep_days = 0            # delete captures older than this many days; 0: no age limit
    max_disk = "20GB"        # images plus database at most this; oldest go first; 0: no budget
    min_free = "1GB"         # never fill the disk past this: a capture that would is refused
    notify_observe = true    # a desktop notification when an agent looks (observe_screen)
    notify_handoff = false   # ... and when an agent takes the capture you just made
    result_shape = "auto"    # answers per agent client as measured; "contract" or "content" for all
    redact = ["secrets", "cards"]  # redacted in what agents get; also "emails", "phones"; []: off
    redact_at_rest = false   # true: keep only the redacted forms in your own history too

A missing file means the defaults. A file that does not parse, an unknown
key or a value of the wrong kind is a problem (``Config.problems``, each
naming the key) and that setting keeps its default, which is the safe,
documented one. Every command of the person's that loads the configuration
prints the problems on stderr; ``noru doctor`` fails its check on them; the
app and ``noru mcp`` log them.

``set_values`` is the one writer, for ``noru retention``, ``noru.edits`` and the console: it
edits the file in place, line by line, so the person's comments, order and
other keys stay as they wrote them, and it writes nothing it has not read
back as the values asked for. A file that does not parse is refused, never
replaced: it is the person's, and only they know what they meant.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from noru.atomic import replace_text
from noru.errors import DataDirError
from noru.sizes import normalise_size, parse_size
from noru.times import parse_duration

__all__ = [
    "KEYS",
    "RESULT_SHAPES",
    "SETTABLE",
    "Config",
    "SettingError",
    "load_config",
    "set_values",
]

FILE = "config.toml"

# How tool results are shaped: by the measured table of agent clients
# (``noru.mcp.clients``), or one shape for every client.
RESULT_SHAPES = ("auto", "contract", "content")


@dataclass(frozen=True)
class Config:
    handoff_window: float = 600.0
    ocr_settle: float = 1.5
    max_edge: int = 1568
    hotkey: str = "ctrl+alt+n"
    ocr_engine: str = "tesseract"
    ocr_second_opinion: bool = True
    ax_budget: float = 0.15
    ax_switch: bool = False
    exclude_apps: tuple[str, ...] = ()
    exclude_titles: tuple[str, ...] = ()
    keep_days: float = 0.0  # 0: no age limit
    max_disk: int = 20 * 10**9  # bytes; 0: no budget
    min_free: int = 10**9  # bytes
    notify_observe: bool = True
    notify_handoff: bool = False
    result_shape: str = "auto"
    redact: tuple[str, ...] = ("secrets", "cards")
    redact_at_rest: bool = False
    problems: tuple[str, ...] = field(default=(), compare=False)
    # The keys whose value came from config.toml (the others are the defaults).
    from_file: frozenset[str] = field(default=frozenset(), compare=False)


def _duration(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise ValueError("use a duration like 10m, 1h or a number of seconds")
    seconds = parse_duration(raw) if isinstance(raw, str) else float(raw)
    if not 0 < seconds <= 7 * 86400:
        raise ValueError("use a duration between 1s and 7d")
    return seconds


def _settle(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 30:
        raise ValueError("use seconds between 0 and 30")
    return float(raw)


def _edge(raw: object) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 64 <= raw <= 8192:
        raise ValueError("use whole pixels between 64 and 8192")
    return raw


def _name(example: str) -> Callable[[object], str]:
    def parse(raw: object) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError(f"use a name like {example}")
        return raw.strip().lower()

    return parse


def _budget(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 2:
        raise ValueError("use seconds between 0 (no accessibility text) and 2")
    return float(raw)


def _switch(raw: object) -> bool:
    if not isinstance(raw, bool):
        raise ValueError("use true or false")
    return raw


def _names(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, str) and v.strip() for v in raw):
        raise ValueError('use a list of names, like ["KeePassXC"]')
    return tuple(v.strip() for v in raw)


def _size(allow_zero: bool) -> Callable[[object], int]:
    def parse(raw: object) -> int:
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            raise ValueError('use a size like "20GB" or "500MB"')
        size = parse_size(raw) if isinstance(raw, str) else raw
        if size < 0 or (size == 0 and not allow_zero) or size > 10**18:
            raise ValueError('use a size like "20GB" or "500MB"' + (", or 0" if allow_zero else ""))
        return size

    return parse


def _one_of(choices: tuple[str, ...]) -> Callable[[object], str]:
    def parse(raw: object) -> str:
        if not isinstance(raw, str) or raw.strip().lower() not in choices:
            raise ValueError("use one of " + ", ".join(f'"{c}"' for c in choices))
        return raw.strip().lower()

    return parse


def _days(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 36500:
        raise ValueError("use a number of days (0: no age limit)")
    return float(raw)


def _categories(raw: object) -> tuple[str, ...]:
    from noru.redact.rules import CATEGORIES

    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise ValueError('use a list like ["secrets", "cards"], or [] for none')
    wanted = [v.strip().lower() for v in raw]
    unknown = [v for v in wanted if v not in CATEGORIES]
    if unknown:
        raise ValueError(f"unknown {', '.join(unknown)}; known: {', '.join(CATEGORIES)}")
    return tuple(dict.fromkeys(wanted))


# Each key and how its value is read (ValueError says what to write instead).
KEYS: dict[str, Callable[[object], object]] = {
    "handoff_window": _duration,
    "ocr_settle": _settle,
    "max_edge": _edge,
    "hotkey": _name("ctrl+alt+n"),
    "ocr_engine": _name("tesseract"),
    "ocr_second_opinion": _switch,
    "ax_budget": _budget,
    "ax_switch": _switch,
    "exclude_apps": _names,
    "exclude_titles": _names,
    "keep_days": _days,
    "max_disk": _size(allow_zero=True),
    "min_free": _size(allow_zero=True),
    "notify_observe": _switch,
    "notify_handoff": _switch,
    "result_shape": _one_of(RESULT_SHAPES),
    "redact": _categories,
    "redact_at_rest": _switch,
}


def load_config(home: Path) -> Config:
    """The configuration of data dir ``home``; never raises."""
    path = home / FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return Config()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Config(problems=(f"the whole file is ignored: {reason}",))
    values: dict[str, object] = {}
    problems: list[str] = []
    for key, raw in data.items():
        parse = KEYS.get(key)
        if parse is None:
            import difflib  # only for a key that is not one of ours

            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(KEYS)}"
            problems.append(f"{key}: unknown setting, ignored ({hint})")
            continue
        try:
            values[key] = parse(raw)
        except ValueError as exc:
            problems.append(f"{key} = {raw!r} ignored: {exc}")
    return Config(**values, problems=tuple(problems), from_file=frozenset(values))  # type: ignore[arg-type]


# --- writing ----------------------------------------------------------------------


class SettingError(ValueError):
    """A value ``set_values`` refuses: ``key`` names the setting, ``reason`` what to write."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


def _typed_number(raw: object) -> object:
    """``30``, ``"30"``, ``" 1.5 "`` as a TOML number; anything else is left for ``KEYS``."""
    if isinstance(raw, str):
        try:
            raw = float(raw.strip())
        except ValueError:
            return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)  # written as 30, not 30.0
    return raw


def _typed_size(raw: object) -> object:
    """``"20 gb"`` as ``"20GB"``, ``0`` as ``"0"``: a size is written as a person reads it."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
    if isinstance(raw, str):
        try:
            return normalise_size(raw)
        except ValueError:
            return raw  # KEYS says what is wrong with it
    return raw


def _typed_names(raw: object) -> object:
    """``"secrets, cards"`` or ``["secrets", "cards"]`` as a TOML array of
    strings (``""``: an empty one); anything else is left for ``KEYS``."""
    if isinstance(raw, str):
        raw = [v for v in (p.strip() for p in raw.split(",")) if v]
    if isinstance(raw, (list, tuple)):
        return [str(v) for v in raw]
    return raw


# The keys ``set_values`` may write, each with how a value as the person types
# it becomes its TOML value (then checked by ``KEYS``). Another scalar key joins
# by naming its reader here.
SETTABLE: dict[str, Callable[[object], object]] = {
    "keep_days": _typed_number,
    "max_disk": _typed_size,
    "min_free": _typed_size,
    "redact": _typed_names,
    "ocr_engine": str,  # which engines may run here is ``edits.set_ocr_engine``'s to check
}


def _toml(value: object) -> str:
    """One TOML value: a bool, a number, a basic string, or an array of them."""
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # always with a "." or an exponent, as TOML wants of a float
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m[0]):04x}", escaped) + '"'
    raise TypeError(f"not a TOML scalar: {value!r}")


def _parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


_HEADER = re.compile(r"[ \t]*\[")


def _set_line(lines: list[str], key: str, value: object, newline: str) -> None:
    """Set top-level ``key`` in the file's ``lines`` (each with its line end).

    A line starts a statement only where the lines before it parse: a ``[`` or
    a ``key =`` inside a multi-line string or array is never taken for one.
    """
    top = next(
        (i for i, line in enumerate(lines) if _HEADER.match(line) and _parses("".join(lines[:i]))),
        len(lines),
    )
    name = re.escape(key)
    spelled = rf"(?:{name}|\"{name}\"|'{name}')"
    assignment = re.compile(rf"([ \t]*){spelled}[ \t]*=")
    for i in range(top):
        found = assignment.match(lines[i])
        if found is None or not _parses("".join(lines[:i])):
            continue
        # The statement ends with the first line after which it parses alone.
        end = next((j for j in range(i + 1, top + 1) if _parses("".join(lines[i:j]))), None)
        if end is None:
            continue
        statement = "".join(lines[i:end])
        body = statement.rstrip("\r\n")
        # Its comment is kept: the first "#" before which the statement parses
        # (a "#" inside a string leaves the string open).
        at = next((n for n, c in enumerate(body) if c == "#" and _parses(body[:n])), len(body))
        before = body[:at]
        gap = (before[len(before.rstrip()) :] or " ") if at < len(body) else ""
        line = f"{found[1]}{key} = {_toml(value)}{gap}{body[at:]}{statement[len(body) :]}"
        lines[i:end] = [line]
        return
    new = f"{key} = {_toml(value)}{newline}"
    if top == len(lines):  # no table: at the end
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        lines.append(new)
        return
    # Before the first table (a line after its header would belong to it):
    # after the last top-level value, or, with none, above the table's comments.
    at = top
    while at > 0 and (not lines[at - 1].strip() or lines[at - 1].lstrip().startswith("#")):
        at -= 1
    if at == 0:
        at = top
        while at > 0 and lines[at - 1].lstrip().startswith("#"):
            at -= 1
        lines.insert(at, newline)  # a blank line between it and the table
    lines.insert(at, new)


def set_values(home: Path, changes: Mapping[str, object]) -> Config:
    """Set settings in data dir ``home``'s config.toml; the configuration now in force.

    ``changes`` maps keys of ``SETTABLE`` to values as the person types them
    (``"20GB"``, ``"0"``, ``30``, ``"30"``). A key not settable, or a value
    ``KEYS`` refuses, raises ``SettingError`` naming the key, and nothing is
    written. The file is edited in place: the key's top-level line replaced
    (its comment kept), or a line added; every other line stays. A file that
    does not parse, or an edit that would not read back as ``changes``, raises
    ``DataDirError`` and the file is left as it was. A new file is 0600; an
    existing one keeps its mode (and a symlink is written through).
    """
    values: dict[str, object] = {}
    for key, raw in changes.items():
        typed = SETTABLE.get(key)
        if typed is None:
            raise SettingError(key, f"cannot be set here (settable: {', '.join(SETTABLE)})")
        value = typed(raw)
        try:
            KEYS[key](value)
        except ValueError as exc:
            raise SettingError(key, str(exc)) from None
        values[key] = value
    if not values:
        return load_config(home)
    path = (home / FILE).resolve()
    # One edit at a time (the CLI and the console may both write): each reads
    # the file as the previous one left it.
    lock = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = path.read_bytes()  # as it is: "\r\n" stays "\r\n"
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            data, mode = b"", 0o600
        try:
            text = data.decode("utf-8")
            old = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise DataDirError(
                f"{path} does not parse ({exc}), so Noru leaves it as it is: fix it"
                " (or move it away to start from the defaults), then set the value again"
            ) from None
        lines = re.split(r"(?<=\n)", text)
        if lines and not lines[-1]:
            lines.pop()
        newline = "\r\n" if "\r\n" in text else "\n"
        for key, value in values.items():
            _set_line(lines, key, value, newline)
        edited = "".join(lines)
        try:
            back = tomllib.loads(edited)
        except tomllib.TOMLDecodeError:
            back = None
        if back != {**old, **values}:
            # A key Noru cannot rewrite line by line (a dotted or repeated one).
            raise DataDirError(
                f"{path} writes {', '.join(values)} in a way Noru cannot change safely,"
                " so it is left as it is: set it there by hand"
            )
        replace_text(path, edited, mode=mode, newline="")
        os.fsync(lock)  # the rename itself survives a crash
    finally:
        os.close(lock)
    return load_config(home)
