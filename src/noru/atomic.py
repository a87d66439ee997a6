"""Replacing a small file atomically: the one way the person's files are written.

``replace_text`` writes a temp file beside the target with the mode asked,
fsyncs it and renames it over the target, so a reader sees the old file or
the new one, never half of one; on any failure the temp file is removed and
the target is untouched. ``replace_durably`` also fsyncs the folder, so
that the rename itself survives a crash (the access state, the HTTP token).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["replace_durably", "replace_text"]


def replace_text(path: Path, text: str, *, mode: int, newline: str | None = None) -> None:
    """Replace ``path`` by ``text`` (UTF-8; ``newline=""`` writes line ends as given)."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
            os.fchmod(f.fileno(), mode)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def replace_durably(path: Path, text: str, *, mode: int) -> None:
    """``replace_text``, then an fsync of ``path``'s folder: the new file is
    there after a crash, not only whole."""
    replace_text(path, text, mode=mode)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
