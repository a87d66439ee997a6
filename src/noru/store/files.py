"""Image files: where they live, and writing them so a row never points at nothing.

Originals are lossless PNGs under ``images/YYYY/MM/DD/``. Each is written to a
temp name, fsynced and renamed into place before its row commits. Paths read
back from the database are resolved inside the images folder only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from noru.contract import CAPTURE_ID_PATTERN
from noru.errors import StoreError

__all__ = ["TMP_PREFIX", "check_id", "clean_temp_files", "relative_path", "resolve", "write_file"]

TMP_PREFIX = ".tmp-"
_ID = re.compile(CAPTURE_ID_PATTERN)


def check_id(capture_id: str) -> str:
    """The id if it is a well-formed capture id; nothing else may reach a path."""
    if not isinstance(capture_id, str) or not _ID.match(capture_id):
        raise ValueError(f"not a capture id: {capture_id!r}")
    return capture_id


def relative_path(capture_id: str, position: int) -> str:
    check_id(capture_id)
    day = capture_id[len("capture_") : len("capture_") + 10]  # YYYY-MM-DD
    year, month, dom = day.split("-")
    return f"{year}/{month}/{dom}/{capture_id}-{position}.png"


def resolve(images_root: Path, relative: str) -> Path:
    """The absolute path of a stored file; refuses anything outside the folder."""
    root = images_root.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or path == root:
        raise StoreError("a stored image path points outside the images folder")
    return path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(images_root: Path, relative: str, data: bytes) -> Path:
    """Write ``data`` durably at ``relative``: temp file, fsync, rename, fsync dir."""
    final = images_root / relative
    final.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = final.parent / f"{TMP_PREFIX}{final.name}.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(final.parent)
    return final


def _writer_alive(path: Path) -> bool:
    # Temp names end in the writing process's pid; another writer (the app, or
    # an import in another terminal) may be mid-write right now.
    suffix = path.name.rsplit(".", 1)[-1]
    if not suffix.isdigit():
        return False
    try:
        os.kill(int(suffix), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return int(suffix) != os.getpid()


def clean_temp_files(images_root: Path) -> int:
    """Remove temp files that killed writers left behind; returns how many."""
    if not images_root.is_dir():
        return 0
    removed = 0
    for path in images_root.rglob(f"{TMP_PREFIX}*"):
        if path.is_file() and not _writer_alive(path):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
