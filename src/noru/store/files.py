"""Image files: where they live, and writing them so a row never points at nothing.

Originals are lossless PNGs under ``images/YYYY/MM/DD/``. Each is written to a
temp name in ``images/.tmp/`` (one folder, so a start looks for a killed
writer's leftovers there only, however large the history), fsynced and
renamed into place before its row commits. Paths read back from the
database are resolved inside the images folder only.

With ``redact_at_rest``, the images of a capture the app takes are first
written to the held folder (``paths.held_dir``, in memory) at the same
relative path, and moved into the images folder once their redaction is
done (``Store.rewrite``, ``Store.keep_held``): the image as taken never
reaches the disk. A held file is found where its row says (``locate``).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from noru.contract import CAPTURE_ID_PATTERN
from noru.errors import NoRoom, StoreError
from noru.sizes import format_size

__all__ = [
    "TMP_DIR",
    "TMP_PREFIX",
    "check_id",
    "check_room",
    "clean_temp_files",
    "day_folders",
    "free_space",
    "locate",
    "private_folder",
    "relative_path",
    "remove",
    "resolve",
    "size",
    "write_file",
]

TMP_PREFIX = ".tmp-"
TMP_DIR = ".tmp"
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
    return _inside(images_root.resolve(), relative)


def locate(images_root: Path, held_root: Callable[[], Path | None], relative: str) -> Path:
    """``resolve``, or the held file of that path while it is held (looked
    for in the images folder again after, in case it moved meanwhile).
    ``held_root`` is asked only for a file not in the images folder: the
    held folder's place takes a read of the system's mounts."""
    path = resolve(images_root, relative)
    if path.exists() or (held_root_now := held_root()) is None:
        return path
    held = resolve(held_root_now, relative)
    return held if held.exists() else path


def private_folder(path: Path, *, create: bool) -> Path | None:
    """``path`` if it is a folder of this user's that no one else may enter
    (made 0700 when missing and ``create``); None otherwise, and for one
    someone else made or opened (a shared /dev/shm is anyone's to write in)."""
    if create:
        with contextlib.suppress(FileExistsError, FileNotFoundError):
            path.mkdir(mode=0o700)
    try:
        info = os.lstat(path)
    except OSError:
        return None
    mine = info.st_uid == os.geteuid() and not info.st_mode & 0o077
    return path if stat.S_ISDIR(info.st_mode) and mine else None


def _inside(root: Path, relative: str) -> Path:
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
    temp_dir = images_root / TMP_DIR
    temp_dir.mkdir(mode=0o700, exist_ok=True)
    tmp = temp_dir / f"{TMP_PREFIX}{final.name}.{os.getpid()}"
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
    try:
        _fsync_dir(final.parent)
    except BaseException:
        final.unlink(missing_ok=True)
        raise
    return final


def replace_file(images_root: Path, relative: str, data: bytes) -> Path:
    """``write_file`` over a file whose old bytes must not be left to the
    file system to reuse (``redact_at_rest``'s filled image over the one
    taken): once the new file is in place, the old one's bytes are
    overwritten with zeros, through a handle opened before it was replaced,
    and synced. A crash in between leaves the new file whole."""
    try:
        old = os.open(images_root / relative, os.O_RDWR)
    except FileNotFoundError:
        return write_file(images_root, relative, data)
    try:
        final = write_file(images_root, relative, data)
        length = os.fstat(old).st_size
        block = b"\0" * (1 << 20)
        done = 0
        while done < length:
            done += os.pwrite(old, block[: min(len(block), length - done)], done)
        os.fsync(old)
    finally:
        os.close(old)
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
    temp_dir = images_root / TMP_DIR
    if not temp_dir.is_dir():
        return 0
    removed = 0
    for path in temp_dir.glob(f"{TMP_PREFIX}*"):
        if path.is_file() and not _writer_alive(path):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def day_folders(images_root: Path, *, changed_since: float) -> list[Path]:
    """The ``YYYY/MM/DD`` folders whose entries changed at or after
    ``changed_since`` (a Unix time)."""
    found = []
    for year in _digits(images_root, 4):
        for month in _digits(year, 2):
            for day in _digits(month, 2):
                with contextlib.suppress(OSError):
                    if day.stat().st_mtime >= changed_since:
                        found.append(day)
    return found


def _digits(folder: Path, width: int) -> list[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [p for p in entries if len(p.name) == width and p.name.isdigit() and p.is_dir()]


def free_space(path: Path) -> int | None:
    """Bytes an unprivileged writer may still use on the disk holding ``path``
    (its nearest existing folder); None when the system will not say."""
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def check_room(images_root: Path, size: int, min_free: int) -> None:
    """Refuse (``NoRoom``) to write ``size`` bytes that would leave the disk with
    less than ``min_free`` free."""
    if min_free <= 0:
        return
    free = free_space(images_root)
    if free is not None and free - size < min_free:
        raise NoRoom(
            f"the capture was not kept: the disk holding the history has {format_size(free)}"
            f" free, and Noru keeps {format_size(min_free)} free (min_free in config.toml);"
            " free some space, or lower max_disk so older captures go"
        )


def size(images_root: Path, relative: str) -> int:
    """A stored file's size in bytes; 0 when it is missing or not ours."""
    try:
        return resolve(images_root, relative).stat().st_size
    except (OSError, StoreError):
        return 0


def remove(images_root: Path, relatives: list[str]) -> list[str]:
    """Remove stored files (missing ones are fine), then their folders when
    empty, and make the removals durable; returns the paths that are gone
    (a path outside the images folder counts as gone: it is never touched)."""
    folders: set[Path] = set()
    root = images_root.resolve()
    gone: list[str] = []
    for relative in relatives:
        try:
            path = _inside(root, relative)
        except StoreError:
            gone.append(relative)
            continue
        try:
            path.unlink(missing_ok=True)
        except OSError:
            continue  # not removable now (a folder in its place, no permission)
        gone.append(relative)
        folders.add(path.parent)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        # Day, month and year folders go when their last file has; the first
        # folder still there holds the removals, made durable by its fsync.
        while folder != root and folder.is_relative_to(root):
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
        with contextlib.suppress(OSError):
            _fsync_dir(folder)
    return gone
