"""Where Noru keeps its data: ``$NORU_HOME``, else the platform's user data dir."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["access_path", "data_dir", "db_path", "ensure_data_dir", "images_dir", "socket_path"]


def data_dir() -> Path:
    """The data dir's path; never creates it (readers must not write)."""
    home = os.environ.get("NORU_HOME")
    if home:
        return Path(home).expanduser().absolute()
    import platformdirs  # lazy: only needed without NORU_HOME

    return Path(platformdirs.user_data_dir("noru", appauthor=False))


def ensure_data_dir() -> Path:
    """The data dir, created 0700 if missing. For writers only."""
    home = data_dir()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


def db_path(home: Path) -> Path:
    return home / "noru.sqlite3"


def images_dir(home: Path) -> Path:
    return home / "images"


def access_path(home: Path) -> Path:
    return home / "access.json"


def socket_path(home: Path) -> Path:
    return home / "app.sock"
