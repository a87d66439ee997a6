"""Removing captures: deletes, pruning, and what a crash may have left.

``Removing`` is the part of the writer ``Store`` that takes captures out:
rows first, in one transaction with the list of their files still to go
(``doomed``), then the files; the orphans a crash between the two left, and
the sizes no writer has measured yet, when the store is opened; what the
person keeps forever; pruning by age and disk budget.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from noru.errors import StoreError
from noru.store import files
from noru.store.connection import map_sqlite_errors
from noru.store.indexing import Indexing
from noru.store.records import Filters
from noru.store.retention import Plan

__all__ = ["TIDY_AFTER", "Removing"]

# A prune of at least this many captures is followed by merging the search
# index (``Store.tidy_search``); smaller ones leave it to SQLite's own merging.
TIDY_AFTER = 1000


class Removing(Indexing):
    """Deletes and pruning over the writer's connection (``Store`` gives the rest)."""

    if TYPE_CHECKING:

        def _seq(self, db: sqlite3.Connection, capture_id: str) -> int | None: ...
        def _filter_sql(self, filters: Filters) -> tuple[str, list[Any]]: ...

    def delete(self, capture_id: str) -> bool:
        """Remove a capture: its rows, its text, then its files."""
        try:
            files.check_id(capture_id)
        except ValueError:
            return False
        with map_sqlite_errors("read a capture"):
            seq = self._seq(self.db, capture_id)
        return seq is not None and self.delete_captures([(seq, capture_id)], unkept_only=False) == 1

    def delete_matching(self, filters: Filters, *, expected: int) -> list[str] | None:
        """Delete every capture ``filters`` match (a time range the person
        counted: the console's and `noru delete --since`'s) if they are still
        ``expected`` in number; the ids deleted, or None (nothing deleted)
        when the count changed since it was shown."""
        where, params = self._filter_sql(filters)
        with map_sqlite_errors("read captures"):
            found = [
                (r["seq"], r["id"])
                for r in self.db.execute(f"SELECT seq, id FROM captures c WHERE {where}", params)
            ]
        if len(found) != expected:
            return None
        self.delete_captures(found, unkept_only=False)
        return [capture_id for _, capture_id in found]

    def delete_captures(self, captures: Sequence[tuple[int, str]], *, unkept_only: bool) -> int:
        """Remove these captures (``(seq, id)`` pairs: a seq freed by a delete
        may be a new capture's by now) in one transaction; returns how many went.

        Rows (and so search's text) go first, with their files listed in
        ``doomed`` in the same transaction; the files are removed after it
        commits, and then the list. A crash in between leaves files listed
        for the next writer to remove (``_remove_doomed`` at open), never a
        row pointing at a missing file. ``unkept_only`` passes by captures
        the person keeps (pruning), even if kept since the plan was made.
        """
        if not captures:
            return 0
        wanted = dict(captures)
        marks = ",".join("?" * len(wanted))
        where = f"seq IN ({marks})" + (" AND kept = 0" if unkept_only else "")
        with self._transaction() as db:
            gone = [
                r["seq"]
                for r in db.execute(f"SELECT seq, id FROM captures WHERE {where}", list(wanted))
                if wanted[r["seq"]] == r["id"]
            ]
            if not gone:
                return 0
            marks = ",".join("?" * len(gone))
            db.execute(
                "INSERT OR IGNORE INTO doomed (path)"
                f" SELECT path FROM images WHERE capture_seq IN ({marks})",
                gone,
            )
            db.execute(f"DELETE FROM capture_text WHERE rowid IN ({marks})", gone)
            db.execute(f"DELETE FROM agent_text WHERE rowid IN ({marks})", gone)
            db.execute(f"DELETE FROM images WHERE capture_seq IN ({marks})", gone)
            db.execute(f"DELETE FROM captures WHERE seq IN ({marks})", gone)
        self._remove_doomed()
        return len(gone)

    def _remove_doomed(self) -> None:
        """Remove the files whose rows are gone (this writer's, or a killed one's).

        Under the write lock: a capture given the same id meanwhile (taken in
        the second a deleted one was) takes its path off the list first, so
        its new file is never removed for the old one.
        """
        with self._transaction() as db:
            self._unlist([r["path"] for r in db.execute("SELECT path FROM doomed")])

    def _unlist(self, listed: list[str]) -> int:
        """In a write transaction: remove these listed files and take those that
        went off the list; returns how many did not go. A file that cannot be
        removed (not ours to remove, a folder in its place) stays listed and
        is tried again."""
        if not listed:
            return 0
        held = self.held_root()
        if held is not None:  # a capture deleted before its redaction was done
            files.remove(held, listed)
        removed = files.remove(self.images_root, listed)
        self.db.executemany("DELETE FROM doomed WHERE path = ?", [(p,) for p in removed])
        return len(listed) - len(removed)

    def _reclaim(self, paths: list[str]) -> None:
        """In a write transaction: paths a new capture will take that a deleted
        capture of the same id still has listed; its old files go now."""
        marks = ",".join("?" * len(paths))
        stale = [
            r["path"]
            for r in self.db.execute(f"SELECT path FROM doomed WHERE path IN ({marks})", paths)
        ]
        if self._unlist(stale):
            raise StoreError("an old image file in this capture's place cannot be removed")

    def _remove_orphans(self) -> None:
        """Remove image files no row names, in the day folders changed since
        the last look (a writer killed between a file's rename and its row's
        commit leaves one; so did temp files of older versions).

        Under the write lock, a folder at a time: a writer stores its files
        inside its transaction, so while this holds the lock no file is
        half-way to its row. The folders' times say which to look in (a
        few, normally); the first look at a history lists them all (6.3 s
        for a million captures, once).
        """
        mark = self.images_root / files.TMP_DIR / ".looked"
        try:
            since = mark.stat().st_mtime - 2  # the mark's own clock granularity
        except OSError:
            since = float("-inf")
        started = time.time()
        for folder in files.day_folders(self.images_root, changed_since=since):
            # A folder at a time: another writer waits for one folder at most.
            with self._transaction() as db:
                day = "-".join(folder.parts[-3:])
                named = {
                    r["path"]
                    for r in db.execute(
                        "SELECT i.path FROM captures c JOIN images i ON i.capture_seq = c.seq"
                        " WHERE c.id GLOB ?",
                        (f"capture_{day}_*",),
                    )
                }
                base = folder.relative_to(self.images_root).as_posix()
                orphans = [
                    f"{base}/{p.name}"
                    for p in folder.iterdir()
                    if p.is_file() and f"{base}/{p.name}" not in named
                ]
                if orphans:
                    files.remove(self.images_root, orphans)
        if self.images_root.is_dir():
            mark.parent.mkdir(mode=0o700, exist_ok=True)
            mark.touch()
            os.utime(mark, (started, started))

    def _remove_held_orphans(self) -> None:
        """Held files no row names (a writer killed before its row committed,
        a capture deleted by a process that could not see them), and held
        files already moved into the images folder (a move cut short)."""
        held = self.held_root()
        if held is None:
            return
        files.clean_temp_files(held)
        with self._transaction() as db:
            listed = [
                p.relative_to(held).as_posix()
                for p in held.glob("[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/*")
                if p.is_file()
            ]
            if not listed:
                return
            marks = ",".join("?" * len(listed))
            named = {
                r["path"]
                for r in db.execute(f"SELECT path FROM images WHERE path IN ({marks})", listed)
            }
            files.remove(
                held,
                [p for p in listed if p not in named or (self.images_root / p).exists()],
            )

    def _measure_sizes(self) -> None:
        """Record the image bytes of captures stored before sizes were kept."""
        with map_sqlite_errors("measure the history"):
            rows = self.db.execute(
                "SELECT c.seq, i.path FROM captures c JOIN images i ON i.capture_seq = c.seq"
                " WHERE c.bytes IS NULL"
            ).fetchall()
        sizes: dict[int, int] = {}
        for row in rows:
            sizes[row["seq"]] = sizes.get(row["seq"], 0) + files.size(self.images_root, row["path"])
        if sizes:
            with self._transaction() as db:
                db.executemany(
                    "UPDATE captures SET bytes = ? WHERE seq = ?",
                    [(size, seq) for seq, size in sizes.items()],
                )

    def set_kept(self, capture_id: str, kept: bool) -> bool:
        """Keep a capture forever (pruning passes it by), or let it go again;
        False when there is no such capture."""
        with self._transaction() as db:
            seq = self._seq(db, capture_id)
            if seq is None:
                return False
            db.execute("UPDATE captures SET kept = ? WHERE seq = ?", (int(kept), seq))
        return True

    def prune(
        self, plan: Plan, *, batch: int = 100, progress: Callable[[int], None] | None = None
    ) -> int:
        """Delete what ``plan`` names, oldest first, ``batch`` captures per
        transaction (other writers, such as the app's next capture, wait at
        most one batch); captures kept since the plan are passed by.
        ``progress`` is told how many of the plan's captures are done with.
        Returns how many were deleted."""
        pairs = [(doomed.seq, doomed.id) for doomed in plan.doomed]
        done = 0
        for first in range(0, len(pairs), batch):
            done += self.delete_captures(pairs[first : first + batch], unkept_only=True)
            if progress is not None:
                progress(min(len(pairs), first + batch))
        if done >= TIDY_AFTER:
            while self.tidy_search():
                pass
        return done
