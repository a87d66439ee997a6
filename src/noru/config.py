"""The person's configuration: ``config.toml`` in the data dir, all optional.

::

    handoff_window = "10m"   # how old a capture may be for get_latest_capture
    ocr_settle = 1.5         # seconds a live request waits for OCR text
    max_edge = 1568          # long edge of served images, in pixels
    hotkey = "ctrl+alt+n"    # the global capture shortcut (X11)
    ocr_engine = "tesseract" # the OCR engine (see `noru doctor`)
    ax_budget = 0.15         # seconds the accessibility text may take at a capture; 0: none
    ax_switch = false        # ask every app of the session to build its accessibility tree
    exclude_apps = []        # apps never captured (also `noru exclude add --app`)
    exclude_titles = []      # window titles never captured: globs, or "re:" + a regex
    keep_days = 0            # delete captures older than this many days; 0: no age limit
    max_disk = "20GB"        # images plus database at most this; oldest go first; 0: no budget
    min_free = "1GB"         # never fill the disk past this: a capture that would is refused

A missing file means the defaults. A file that does not parse, an unknown
key or a value of the wrong kind is a problem (``Config.problems``, each
naming the key) and that setting keeps its default, which is the safe,
documented one. Every command of the person's that loads the configuration
prints the problems on stderr; ``noru doctor`` fails its check on them; the
app and ``noru mcp`` log them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from noru.sizes import parse_size
from noru.times import parse_duration

__all__ = ["KEYS", "Config", "load_config"]


@dataclass(frozen=True)
class Config:
    handoff_window: float = 600.0
    ocr_settle: float = 1.5
    max_edge: int = 1568
    hotkey: str = "ctrl+alt+n"
    ocr_engine: str = "tesseract"
    ax_budget: float = 0.15
    ax_switch: bool = False
    exclude_apps: tuple[str, ...] = ()
    exclude_titles: tuple[str, ...] = ()
    keep_days: float = 0.0  # 0: no age limit
    max_disk: int = 20 * 10**9  # bytes; 0: no budget
    min_free: int = 10**9  # bytes
    problems: tuple[str, ...] = field(default=(), compare=False)


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


def _days(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 36500:
        raise ValueError("use a number of days (0: no age limit)")
    return float(raw)


# Each key and how its value is read (ValueError says what to write instead).
KEYS: dict[str, Callable[[object], object]] = {
    "handoff_window": _duration,
    "ocr_settle": _settle,
    "max_edge": _edge,
    "hotkey": _name("ctrl+alt+n"),
    "ocr_engine": _name("tesseract"),
    "ax_budget": _budget,
    "ax_switch": _switch,
    "exclude_apps": _names,
    "exclude_titles": _names,
    "keep_days": _days,
    "max_disk": _size(allow_zero=True),
    "min_free": _size(allow_zero=True),
}


def load_config(home: Path) -> Config:
    """The configuration of data dir ``home``; never raises."""
    path = home / "config.toml"
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
    return Config(**values, problems=tuple(problems))  # type: ignore[arg-type]
