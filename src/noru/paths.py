"""Where Noru keeps its data: ``$NORU_HOME``, else the platform's user data dir.

``data_dir`` is the one place ``NORU_HOME`` is read (``~`` expanded, made
absolute), so every command and every printed snippet name the same folder.
``noru_executable`` is where the installed `noru` command is, for what
names it to start it later (client snippets, start at login). ``held_dir``
is the one folder outside it: where, with ``redact_at_rest``, a capture's
images wait in memory for their redaction.
"""

from __future__ import annotations

import hashlib
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
    "held_dir",
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


# File systems whose files live in memory (and swap), never on a disk.
MEMORY_FILE_SYSTEMS = frozenset({"tmpfs", "ramfs"})


def held_dir(home: Path) -> Path | None:
    """Where the app holds a capture's images until their redaction is done
    (``redact_at_rest``): a folder named for the data dir in
    ``$XDG_RUNTIME_DIR``, else in ``/dev/shm``, whichever is on a memory file
    system; None when neither is (the images then wait in the data dir).
    Never created here."""
    digest = hashlib.sha256(str(home.resolve()).encode()).hexdigest()[:16]
    for base in (os.environ.get("XDG_RUNTIME_DIR"), "/dev/shm"):
        if base and os.path.isabs(base) and file_system(Path(base)) in MEMORY_FILE_SYSTEMS:
            return Path(base) / f"noru-held-{digest}"
    return None


def file_system(path: Path) -> str | None:
    """The type of the file system ``path`` is on (``tmpfs``, ``ext4``), from
    ``/proc/self/mounts``; None when it is not a folder or the system will
    not say (no /proc: not Linux)."""
    try:
        where = path.resolve(strict=True)
        mounts = Path("/proc/self/mounts").read_text()
    except OSError:
        return None
    if not where.is_dir():
        return None
    best: tuple[int, str] | None = None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        # Spaces and the like in a mount point are octal escapes (\040).
        point = Path(fields[1].encode().decode("unicode_escape"))
        if where.is_relative_to(point) and (best is None or len(point.parts) >= best[0]):
            best = (len(point.parts), fields[2])  # the last mount over a point wins
    return best[1] if best else None
