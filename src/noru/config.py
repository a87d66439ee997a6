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

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from noru.times import parse_duration

__all__ = ["Config", "load_config"]


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
