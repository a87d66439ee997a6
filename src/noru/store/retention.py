"""Retention: how much disk the history uses, and which captures pruning takes.

- ``usage``: the image files' bytes (each capture's, measured when it was
  written), the database's files (with its write-ahead log), the captures
  kept forever, and the disk's free space.
- ``plan``: what pruning would delete, oldest first by when each capture was
  taken: those older than ``keep_days``; then, while images plus database
  still exceed ``max_disk``, the oldest of the rest. Captures the person keeps
  are passed by, and the newest capture is never taken for the budget (it may
  be the one just taken, not yet handed to an agent).
- ``Store.prune(plan)`` (the writer) deletes them, a small batch per transaction.

The database file does not shrink when rows go (SQLite reuses the pages for
later captures), so a plan frees image bytes only; the budget counts the
database as the disk space it takes.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import Literal

from noru.paths import db_path
from noru.store import files, schema
from noru.store.connection import map_sqlite_errors
from noru.times import parse_utc

__all__ = ["Doomed", "Plan", "Usage", "plan", "usage"]

# Usage at or above this share of the budget is called "nearly full".
NEAR = 0.9


@dataclass(frozen=True)
class Usage:
    captures: int
    kept: int  # captures kept forever
    images: int  # bytes of image files
    database: int  # bytes of the database and its write-ahead log
    free: int | None  # bytes free on the data dir's disk; None: not known
    oldest: datetime | None

    @property
    def total(self) -> int:
        return self.images + self.database

    def near(self, max_disk: int) -> bool:
        """At or above 90 % of a budget (0: no budget)."""
        return bool(max_disk) and self.total >= NEAR * max_disk


@dataclass(frozen=True)
class Doomed:
    seq: int
    id: str
    bytes: int
    captured_at: datetime
    reason: Literal["age", "budget"]


@dataclass(frozen=True)
class Plan:
    usage: Usage
    doomed: tuple[Doomed, ...]
    keep_days: float
    max_disk: int

    @cached_property
    def frees(self) -> int:
        return sum(d.bytes for d in self.doomed)

    @property
    def after(self) -> int:
        return self.usage.total - self.frees

    @property
    def over_budget(self) -> bool:
        """Still over the budget after pruning: what is left is kept, or newest."""
        return bool(self.max_disk) and self.after > self.max_disk


def _database_bytes(home: Path) -> int:
    path = db_path(home)
    total = 0
    for part in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(OSError):  # no write-ahead log right now
            total += part.stat().st_size
    return total


def usage(db: sqlite3.Connection, home: Path, images_root: Path) -> Usage:
    """The history's disk use now (one pass over the captures' table)."""
    with map_sqlite_errors("measure the history"):
        # A history no writer has upgraded yet has neither column: nothing kept,
        # nothing measured.
        kept, size = ("kept", "bytes") if "0006_retention" in schema.applied(db) else ("0", "NULL")
        row = db.execute(
            f"SELECT count(*) AS n, coalesce(sum({kept}), 0) AS kept,"
            f" coalesce(sum({size}), 0) AS bytes, min(captured_at) AS oldest,"
            f" count(*) - count({size}) AS unmeasured FROM captures"
        ).fetchone()
        images = int(row["bytes"])
        if row["unmeasured"]:
            # Stored before sizes were kept, and no writer has opened it since.
            unmeasured = (
                "SELECT i.path FROM captures c JOIN images i ON i.capture_seq = c.seq"
                " WHERE c.bytes IS NULL"
                if size == "bytes"
                else "SELECT path FROM images"
            )
            for r in db.execute(unmeasured):
                images += files.size(images_root, r["path"])
    return Usage(
        captures=int(row["n"]),
        kept=int(row["kept"]),
        images=images,
        database=_database_bytes(home),
        free=files.free_space(home),
        oldest=parse_utc(row["oldest"]) if row["oldest"] else None,
    )


def plan(
    db: sqlite3.Connection,
    home: Path,
    images_root: Path,
    *,
    keep_days: float,
    max_disk: int,
    now: datetime | None = None,
) -> Plan:
    """What pruning would delete now, by age and then by budget (see the module)."""
    now = now or datetime.now(UTC)
    now_usage = usage(db, home, images_root)
    doomed: list[Doomed] = []
    cutoff = (now - timedelta(days=keep_days)).timestamp() if keep_days else None
    columns = "seq, id, coalesce(bytes, 0) AS bytes, captured_ts"
    with map_sqlite_errors("plan pruning"):
        if cutoff is not None:
            doomed.extend(
                _doomed(r, "age")
                for r in db.execute(
                    f"SELECT {columns} FROM captures WHERE kept = 0 AND captured_ts < ?"
                    " ORDER BY captured_ts, seq",
                    (cutoff,),
                )
            )
        excess = now_usage.total - sum(d.bytes for d in doomed) - max_disk
        if max_disk and excess > 0:
            newest = db.execute(
                "SELECT seq FROM captures ORDER BY captured_ts DESC, seq DESC LIMIT 1"
            ).fetchone()
            rows = db.execute(
                f"SELECT {columns} FROM captures WHERE kept = 0 AND captured_ts >= ?"
                " AND seq != ? ORDER BY captured_ts, seq",
                (cutoff if cutoff is not None else float("-inf"), newest["seq"]),
            )
            while excess > 0 and (batch := rows.fetchmany(500)):
                for r in batch:
                    doomed.append(_doomed(r, "budget"))
                    excess -= r["bytes"]
                    if excess <= 0:
                        break
            rows.close()
    return Plan(now_usage, tuple(doomed), keep_days, max_disk)


def _doomed(row: sqlite3.Row, reason: Literal["age", "budget"]) -> Doomed:
    moment = datetime.fromtimestamp(row["captured_ts"], UTC)
    return Doomed(row["seq"], row["id"], row["bytes"], moment, reason)
