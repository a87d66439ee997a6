"""Where Noru keeps its data: ``$NORU_HOME``, else the platform's user data dir.

``data_dir`` is the one place ``NORU_HOME`` is read (``~`` expanded, made
absolute), so every command and every printed snippet name the same folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from noru.errors import DataDirError

__all__ = [
    "access_path",
    "check_data_dir",
    "data_dir",
    "db_path",
    "ensure_data_dir",
    "images_dir",
    "socket_path",
]


def data_dir() -> Path:
    """The data dir's path; never creates it (readers must not write)."""
    home = os.environ.get("NORU_HOME")
    if home:
        return Path(home).expanduser().absolute()
    import platformdirs  # lazy: only needed without NORU_HOME

    return Path(platformdirs.user_data_dir("noru", appauthor=False))


def _what(home: Path) -> str:
    return f"NORU_HOME={home}" if os.environ.get("NORU_HOME") else str(home)


def check_data_dir(home: Path) -> Path:
    """``home`` if it is a folder or does not exist yet; ``DataDirError`` otherwise."""
    if home.exists() and not home.is_dir():
        raise DataDirError(
            f"the data dir {_what(home)} is a file, not a folder: point NORU_HOME at a "
            "folder (Noru creates it), or move the file away"
        )
    return home


def ensure_data_dir() -> Path:
    """The data dir, created 0700 if missing. For writers only."""
    home = check_data_dir(data_dir())
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(f"cannot create the data dir {_what(home)}: {exc.strerror}") from exc
    if not os.access(home, os.W_OK | os.X_OK):
        raise DataDirError(f"the data dir {_what(home)} is not writable by this user")
    return home


def db_path(home: Path) -> Path:
    return home / "noru.sqlite3"


def images_dir(home: Path) -> Path:
    return home / "images"


def access_path(home: Path) -> Path:
    return home / "access.json"


def socket_path(home: Path) -> Path:
    return home / "app.sock"
