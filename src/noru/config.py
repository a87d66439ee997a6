"""The person's configuration: ``config.toml`` in the data dir, all optional.

::

    handoff_window = "10m"   # how old a capture may be for get_latest_capture
    ocr_settle = 1.5         # seconds a live request waits for OCR text
    max_edge = 1568          # long edge of served images, in pixels
    hotkey = "ctrl+alt+n"    # the global capture shortcut (X11)
    ocr_engine = "tesseract" # the OCR engine (see `noru doctor`)

A missing file means the defaults. A file that does not parse, or a value of
the wrong kind, is an error the person sees in ``noru status`` / ``noru
doctor``; agents get the defaults, which are the safe, documented ones.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = ["Config", "format_duration", "load_config", "parse_duration", "parse_moment"]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in ``30s``, ``10m``, ``2h``, ``1d``, ``1w``; ValueError otherwise."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"not a duration: {text!r} (use e.g. 30m, 2h, 1d)")
    return float(m.group(1)) * _UNITS[m.group(2)]


def format_duration(seconds: float) -> str:
    """``600`` -> "10 minutes", ``1`` -> "1 second", ``5400`` -> "1.5 hours"."""
    units = (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
    name, size = next(((n, s) for n, s in units if seconds >= s), ("second", 1))
    text = f"{round(seconds / size, 1):g}"
    return f"{text} {name}" + ("" if text == "1" else "s")


def parse_moment(text: str, now: datetime) -> datetime:
    """A moment from ``30m`` / ``2d`` (ago) or an RFC 3339 / ISO date(-time).

    A date-time without a zone is local time; a bare date is local midnight.
    Returns an aware UTC datetime; ValueError with a readable reason otherwise.
    """
    if _DURATION.match(text):
        return now - timedelta(seconds=parse_duration(text))
    candidate = text.strip()
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        raise ValueError(
            f"not a time: {text!r} (use 30m, 1h, 2d or a date-time like 2026-08-12T14:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time, as the person reads their clock
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Config:
    handoff_window: float = 600.0
    ocr_settle: float = 1.5
    max_edge: int = 1568
    hotkey: str = "ctrl+alt+n"
    ocr_engine: str = "tesseract"
    problems: tuple[str, ...] = field(default=(), compare=False)


def load_config(home: Path) -> Config:
    path = home / "config.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Config(problems=(f"{path.name} ignored: {exc}",))
    values: dict[str, object] = {}
    problems: list[str] = []
    raw = data.get("handoff_window")
    if raw is not None:
        try:
            values["handoff_window"] = parse_duration(raw) if isinstance(raw, str) else float(raw)
        except (TypeError, ValueError) as exc:
            problems.append(f"handoff_window ignored: {exc}")
    raw = data.get("ocr_settle")
    if raw is not None:
        if isinstance(raw, (int, float)) and not isinstance(raw, bool) and 0 <= raw <= 30:
            values["ocr_settle"] = float(raw)
        else:
            problems.append("ocr_settle ignored: use seconds between 0 and 30")
    raw = data.get("max_edge")
    if raw is not None:
        if isinstance(raw, int) and not isinstance(raw, bool) and 64 <= raw <= 8192:
            values["max_edge"] = raw
        else:
            problems.append("max_edge ignored: use whole pixels between 64 and 8192")
    raw = data.get("ocr_engine")
    if raw is not None:
        if isinstance(raw, str) and raw.strip():
            values["ocr_engine"] = raw.strip().lower()
        else:
            problems.append("ocr_engine ignored: use an engine name like tesseract")
    raw = data.get("hotkey")
    if raw is not None:
        if isinstance(raw, str) and raw.strip():
            values["hotkey"] = raw.strip().lower()
        else:
            problems.append("hotkey ignored: use a key name like ctrl+alt+n")
    return Config(**values, problems=tuple(problems))  # type: ignore[arg-type]
