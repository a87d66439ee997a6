"""Retention: how much disk the history uses, and which captures pruning takes.

- ``usage``: the image files' bytes (each capture's, measured when it was
  written), the database's files (with its write-ahead log), the captures
  kept forever, and the disk's free space.
- ``plan``: what pruning would delete, oldest first by when each capture was
  taken: those older than ``keep_days``; then, while images plus database
  still exceed ``max_disk``, the oldest of the rest. Captures the person keeps
  are passed by, and the newest capture is never taken for the budget (it may
  be the one just taken, not yet handed to an agent). A budget that deleting
  cannot meet (kept captures, or the database, alone exceed it) takes nothing.
- ``Store.prune(plan)`` (the writer) deletes them, a small batch per transaction.

The database file does not shrink when rows go (SQLite reuses the pages for
later captures), so a plan frees image bytes only; the budget counts the
database as the pages it holds, not its write-ahead log (scratch space that
SQLite reuses, and the writer truncates).
"""

from __future__ import annotations

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
    kept_images: int  # bytes of their image files
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

    def disk(self, min_free: int) -> Literal["full", "nearly full"] | None:
        """The disk's state for ``min_free``: "full" below it (captures are
        refused), "nearly full" below twice it (or 1 GB), None otherwise or
        when the free space is not known."""
        if self.free is None:
            return None
        if self.free < min_free:
            return "full"
        return "nearly full" if self.free < max(2 * min_free, 10**9) else None


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
    # Over the budget, and deleting every capture it may take would not bring
    # the history within it: the budget takes nothing.
    unreachable: bool = False

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


def _database_bytes(db: sqlite3.Connection, home: Path) -> int:
    # The database's pages as this connection sees them (committed pages still
    # in the write-ahead log included), not the log file itself: the log is
    # scratch space SQLite reuses and truncates, and history must not be
    # deleted to pay for it.
    if not db_path(home).exists():
        return 0  # an empty history, read from memory
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    return int(pages) * int(size)


def usage(db: sqlite3.Connection, home: Path, images_root: Path) -> Usage:
    """The history's disk use now (one pass over the captures' table)."""
    with map_sqlite_errors("measure the history"):
        return _usage(db, home, images_root)


def _usage(db: sqlite3.Connection, home: Path, images_root: Path) -> Usage:
    # A history no writer has upgraded yet has neither column: nothing kept,
    # nothing measured.
    kept, size = ("kept", "bytes") if "0006_retention" in schema.applied(db) else ("0", "NULL")
    row = db.execute(
        f"SELECT count(*) AS n, coalesce(sum({kept}), 0) AS kept,"
        f" coalesce(sum({size}), 0) AS bytes,"
        f" coalesce(sum(CASE WHEN {kept} THEN {size} END), 0) AS kept_bytes,"
        f" min(captured_at) AS oldest, count(*) - count({size}) AS unmeasured FROM captures"
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
        kept_images=int(row["kept_bytes"]),
        images=images,
        database=_database_bytes(db, home),
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
    """What pruning would delete now, by age and then by budget (see the module).

    Read in one transaction, so the usage, the newest capture and the rows
    are one moment's. When deleting every capture the budget may take would
    still leave the history over it (what is kept forever, or the database,
    is larger), the budget takes nothing: deleting would not keep the
    promise, only lose history (``Plan.unreachable`` says so).
    """
    now = now or datetime.now(UTC)
    with map_sqlite_errors("plan pruning"):
        began = not db.in_transaction
        if began:
            db.execute("BEGIN")
        try:
            return _plan(db, home, images_root, keep_days, max_disk, now)
        finally:
            if began:
                db.execute("COMMIT")


def _plan(
    db: sqlite3.Connection,
    home: Path,
    images_root: Path,
    keep_days: float,
    max_disk: int,
    now: datetime,
) -> Plan:
    now_usage = _usage(db, home, images_root)
    doomed: list[Doomed] = []
    cutoff = (now - timedelta(days=keep_days)).timestamp() if keep_days else None
    columns = "seq, id, coalesce(bytes, 0) AS bytes, captured_ts"
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
    newest = db.execute(
        "SELECT seq, coalesce(bytes, 0) AS bytes, kept, captured_ts FROM captures"
        " ORDER BY captured_ts DESC, seq DESC LIMIT 1"
    ).fetchone()
    unreachable = False
    if max_disk and excess > 0 and newest is not None:
        # What the budget may take: unkept, not taken by age, not the newest.
        young = " AND captured_ts >= ?" if cutoff is not None else ""
        params = [newest["seq"], *([cutoff] if cutoff is not None else [])]
        takeable = db.execute(
            "SELECT coalesce(sum(coalesce(bytes, 0)), 0) FROM captures"
            f" WHERE kept = 0 AND seq != ?{young}",
            params,
        ).fetchone()[0]
        if takeable < excess:
            unreachable = True
        else:
            rows = db.execute(
                f"SELECT {columns} FROM captures WHERE kept = 0 AND seq != ?{young}"
                " ORDER BY captured_ts, seq",
                params,
            )
            while excess > 0 and (batch := rows.fetchmany(500)):
                for r in batch:
                    doomed.append(_doomed(r, "budget"))
                    excess -= r["bytes"]
                    if excess <= 0:
                        break
            rows.close()
    return Plan(now_usage, tuple(doomed), keep_days, max_disk, unreachable)


def _doomed(row: sqlite3.Row, reason: Literal["age", "budget"]) -> Doomed:
    moment = datetime.fromtimestamp(row["captured_ts"], UTC)
    return Doomed(row["seq"], row["id"], row["bytes"], moment, reason)
