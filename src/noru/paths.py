"""Where Noru keeps its data: ``$NORU_HOME``, else the platform's user data dir.

``data_dir`` is the one place ``NORU_HOME`` is read (``~`` expanded, made
absolute), so every command and every printed snippet name the same folder.
``noru_executable`` is where the installed `noru` command is, for what
names it to start it later (client snippets, start at login).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from noru.errors import DataDirError

__all__ = [
    "access_path",
    "check_data_dir",
    "data_dir",
    "db_path",
    "default_data_dir",
    "ensure_data_dir",
    "images_dir",
    "noru_executable",
    "socket_path",
]


def data_dir() -> Path:
    """The data dir's path; never creates it (readers must not write)."""
    home = os.environ.get("NORU_HOME")
    if home:
        return Path(home).expanduser().absolute()
    return default_data_dir()


def default_data_dir() -> Path:
    """The data dir when ``NORU_HOME`` is not set: the platform's user data dir."""
    import platformdirs  # lazy: only needed without NORU_HOME

    return Path(platformdirs.user_data_dir("noru", appauthor=False))


def noru_executable() -> Path | None:
    """The absolute path of the installed `noru` command, if there is one."""
    beside = Path(sys.executable).parent / "noru"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside.absolute()
    found = shutil.which("noru")
    return Path(found).absolute() if found else None


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
