"""Byte sizes as a person writes and reads them: ``"20GB"`` in, ``1.2 GB`` out.

Decimal units (kB, MB, GB, TB) as disks are sold; binary ones (KiB, MiB,
GiB, TiB) when written so.
"""

from __future__ import annotations

import re

__all__ = ["format_size", "normalise_size", "parse_size"]

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}  # fmt: skip
# How each unit is written back (``normalise_size``).
_SPELLED = {
    "": "", "b": "B",
    "kb": "kB", "mb": "MB", "gb": "GB", "tb": "TB",
    "k": "kB", "m": "MB", "g": "GB", "t": "TB",
    "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB",
}  # fmt: skip
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*")


def parse_size(text: str) -> int:
    """``"20GB"`` (decimal units), ``"1.5 GiB"`` (binary), ``"500MB"`` or plain bytes."""
    match = _SIZE.fullmatch(text.lower())
    if match is None or match.group(2) not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 20GB, 500MB, 1.5GiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def normalise_size(text: str) -> str:
    """A size the person typed, as it is written into config.toml: ``" 20 gb"``
    -> ``"20GB"``, ``"500m"`` -> ``"500MB"``, ``"0"`` -> ``"0"`` (same bytes)."""
    match = _SIZE.fullmatch(text.lower())
    if match is None or match.group(2) not in _SPELLED:
        raise ValueError(f"not a size: {text!r} (use e.g. 20GB, 500MB, 1.5GiB)")
    return match.group(1) + _SPELLED[match.group(2)]


def format_size(size: int) -> str:
    """Bytes for a person: ``1.2 GB``, ``840 MB``, ``12 kB``, ``512 bytes`` (decimal)."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if abs(size) >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{size} bytes"
