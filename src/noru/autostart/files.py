"""The files that start Noru at login: where they are, the mark that says
``noru autostart`` wrote one, and writing one only when it changes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from noru.atomic import replace_text
from noru.errors import AutostartError

__all__ = ["MARK", "UNIT", "Targets", "Via", "check_text", "is_ours", "read_file", "write_file"]

Via = Literal["systemd", "xdg"]

UNIT = "noru.service"
MARK = "# Written by `noru autostart on`; `noru autostart off` removes it."


def _xdg(variable: str, default: str) -> Path:
    # The base directory spec: a relative value is invalid and is ignored.
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path.home() / default


@dataclass(frozen=True)
class Targets:
    """The three files, from ``$XDG_CONFIG_HOME`` and ``$XDG_DATA_HOME`` as set now."""

    unit: Path
    entry: Path
    launcher: Path

    @classmethod
    def here(cls) -> Targets:
        config = _xdg("XDG_CONFIG_HOME", ".config")
        data = _xdg("XDG_DATA_HOME", ".local/share")
        return cls(
            unit=config / "systemd" / "user" / UNIT,
            entry=config / "autostart" / "noru.desktop",
            launcher=data / "applications" / "noru.desktop",
        )

    @property
    def wants(self) -> Path:
        """Where ``systemctl enable`` links the unit (its ``WantedBy=``)."""
        return self.unit.parent / "graphical-session.target.wants" / UNIT


def check_text(what: str, text: str) -> None:
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise AutostartError(
            f"{what} holds a control character, which cannot start at login: {text!r}"
        )


def write_file(path: Path, text: str) -> bool:
    """Write ``path`` atomically unless it holds ``text`` already; whether it changed."""
    if read_file(path) == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, text, mode=0o644)
    return True


def read_file(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return ""  # there, but not readable as ours


def is_ours(text: str | None) -> bool:
    return text is not None and text.startswith(MARK + "\n")
