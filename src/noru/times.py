"""Moments and durations as Noru writes and reads them, in one place.

- ``format_utc`` / ``parse_utc``: RFC 3339 in UTC to the second
  (``2026-08-12T18:15:02Z``), the one form Noru stores and shows.
- ``parse_duration`` / ``format_duration``: ``10m`` in, "10 minutes" out.
- ``parse_moment``: what the person or an agent may type for a time filter:
  ``30m`` (ago), or an RFC 3339 / ISO date-time or date.
- ``format_age``: "3m ago", for locator rows and headers.

Pure: no clock unless one is passed in.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = [
    "UTC_FORMAT",
    "format_age",
    "format_duration",
    "format_utc",
    "parse_duration",
    "parse_moment",
    "parse_utc",
]

UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def format_utc(moment: datetime) -> str:
    """RFC 3339 in UTC with a Z, to the second."""
    return moment.astimezone(UTC).strftime(UTC_FORMAT)


def parse_utc(text: str) -> datetime:
    """The inverse of ``format_utc``: an aware UTC datetime."""
    return datetime.strptime(text, UTC_FORMAT).replace(tzinfo=UTC)


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
    try:
        return _moment(text, now)
    except OverflowError:  # "99999999d", year 9999 moved past UTC: out of any range
        raise ValueError(f"not a time Noru can reach: {text!r} is out of range") from None


def _moment(text: str, now: datetime) -> datetime:
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


def format_age(moment: datetime, now: datetime) -> str:
    seconds = int((now - moment).total_seconds())
    if seconds < 0:
        return "in the future"
    if seconds < 5:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"
