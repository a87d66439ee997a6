"""Opening the history's SQLite database, and SQLite's exceptions at the seam.

Three ways in: ``open_writer`` (WAL, migrated, for the app's writer thread and
the person's own commands), ``open_reader`` (``mode=ro``: SQLite itself
refuses every write, which is how ``noru mcp`` never writes), and
``open_empty`` (a migrated database in memory, for a data dir with no history
yet, so that an empty history is a reader that answers empty).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from noru.errors import StoreError
from noru.store import schema

__all__ = ["map_sqlite_errors", "open_empty", "open_reader", "open_writer"]


@contextmanager
def map_sqlite_errors(action: str) -> Iterator[None]:
    """Translate SQLite's exceptions at the seam, keeping the cause."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot {action}: {exc}") from exc


def _connect(target: str | Path, *, uri: bool = False, timeout: float = 5.0) -> sqlite3.Connection:
    db = sqlite3.connect(
        target, uri=uri, isolation_level=None, timeout=timeout, check_same_thread=False
    )
    db.row_factory = sqlite3.Row  # rows are read by column name
    return db


def open_reader(path: Path) -> sqlite3.Connection:
    """``path`` read-only, after checking this Noru can read its schema."""
    uri = path.absolute().as_uri() + "?mode=ro"
    db = None
    try:
        db = _connect(uri, uri=True)
        db.execute("PRAGMA query_only = ON")
        schema.check_readable(db)
    except sqlite3.OperationalError:
        # A WAL database in a folder this process cannot write has no -shm to
        # share; it cannot be changing under us then, so read it as immutable.
        if db is not None:
            db.close()
        db = _connect(uri + "&immutable=1", uri=True)
        try:
            with map_sqlite_errors("open the history"):
                schema.check_readable(db)
        except BaseException:
            db.close()
            raise
    except sqlite3.DatabaseError as exc:
        if db is not None:
            db.close()
        raise StoreError(f"cannot open the history: {exc}") from exc
    except BaseException:
        if db is not None:
            db.close()
        raise
    return db


def open_empty() -> sqlite3.Connection:
    """A history with no captures: the current schema, in memory, read-only."""
    db = _connect(":memory:")
    schema.migrate(db)
    db.execute("PRAGMA query_only = ON")
    return db


def open_writer(path: Path) -> sqlite3.Connection:
    """``path`` for writing (created 0600 if new), WAL, migrated to this Noru's schema."""
    new = not path.exists()
    try:
        db = _connect(path, timeout=15)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open the history: {exc}") from exc
    try:
        if new:
            path.chmod(0o600)
        with map_sqlite_errors("open the history"):
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            # The write-ahead log is cut back to this after a checkpoint, so a
            # large transaction (a prune, a merge) does not keep its disk space.
            db.execute("PRAGMA journal_size_limit = 67108864")
            db.execute("PRAGMA foreign_keys = ON")
            schema.migrate(db)
    except BaseException:
        db.close()
        raise
    return db
