"""SQLite's own count of the memory it holds in this process (page caches,
prepared statements), for tests of what a store hands back.

Read from the library Python's ``sqlite3`` is linked to (the same one,
loaded once per process); None where it cannot be loaded by name.
"""

from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ["sqlite_memory"]


def sqlite_memory() -> int | None:
    """Bytes SQLite holds now in this process, or None when it cannot say."""
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return None
    try:
        used = ctypes.CDLL(name).sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    used.restype = ctypes.c_int64
    return int(used())
