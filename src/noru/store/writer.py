"""Writing history: the ``Store``, used by the app's writer thread and the
person's own commands (import, note, delete, reocr), never by ``noru mcp``.

It migrates on open, writes image files durably before their rows commit,
and allocates capture ids inside an immediate transaction, so two writers
(the app and a person's ``noru import``) never take the same id. SQLite
serialises writers across processes.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from noru.errors import StoreError
from noru.paths import db_path
from noru.store import files
from noru.store.codec import ax_to_json, lines_to_json, windows_to_json
from noru.store.connection import map_sqlite_errors, open_writer
from noru.store.reader import Reading, Seen
from noru.store.records import AxLine, CaptureRecord, NewImage, OcrLine, Origin
from noru.store.retention import Plan
from noru.times import format_utc

__all__ = ["TIDY_AFTER", "Store"]

# A prune of at least this many captures is followed by merging the search
# index (``Store.tidy_search``); smaller ones leave it to SQLite's own merging.
TIDY_AFTER = 1000


class Store(Reading):
    """The writer: migrations, captures, notes, OCR results, handoff, deletes, pruning."""

    # Bytes the disk keeps free: a capture that would leave less is refused.
    min_free = 0
    # Text rewritten since the search index was last rewritten whole: its old
    # terms are still in the index's segments (``rewrite``, ``scrub_search``).
    scrub_due = False

    @classmethod
    def open(cls, home: Path, *, min_free: int = 0) -> Store:
        """The history of ``home`` for writing, created (0600) when missing;
        ``min_free``: the bytes a capture must leave free on the disk (the
        person's ``min_free``), else it is refused (``NoRoom``).

        ``StoreError`` when it cannot be opened or migrated.
        """
        try:
            home.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the data dir {home}: {exc.strerror}") from exc
        try:
            db = open_writer(db_path(home))
        except OSError as exc:
            raise StoreError(f"cannot open the history: {exc.strerror}") from exc
        store = cls(home, db)
        store.min_free = min_free
        files.clean_temp_files(store.images_root)
        store._remove_doomed()
        store._remove_orphans()
        store._remove_held_orphans()
        store._measure_sizes()
        return store

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with map_sqlite_errors("write the history"):
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _seq(self, db: sqlite3.Connection, capture_id: str) -> int | None:
        row = db.execute("SELECT seq FROM captures WHERE id = ?", (capture_id,)).fetchone()
        return None if row is None else int(row["seq"])

    def _allocate_id(self, captured_at: datetime) -> str:
        base = "capture_" + captured_at.astimezone().strftime("%Y-%m-%d_%H%M%S")
        taken = {
            r["id"]
            for r in self.db.execute(
                "SELECT id FROM captures WHERE id = ? OR id LIKE ?", (base, base + "-%")
            )
        }
        if base not in taken:
            return base
        n = 2
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"

    def add_capture(
        self,
        images: Sequence[NewImage],
        *,
        origin: Origin,
        captured_at: datetime | None = None,
        note: str | None = None,
        imported: bool = False,
        held: bool = False,
    ) -> CaptureRecord:
        """Store a capture: files first (durably), then its rows in one
        transaction. ``held``: its files go to the held folder, in memory,
        until their redaction is done (``redact_at_rest``; ``rewrite``,
        ``keep_held``); to the images folder when there is no held folder."""
        if not images:
            raise ValueError("a capture has at least one image")
        if origin not in ("user", "agent"):
            raise ValueError(f"unknown origin {origin!r}")
        moment = (captured_at or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        size = sum(len(image.png) for image in images)
        files.check_room(self.images_root, size, self.min_free)
        root = (self.held_root(create=True) if held else None) or self.images_root
        written: list[Path] = []
        try:
            with self._transaction() as db:
                capture_id = self._allocate_id(moment)
                relatives = [files.relative_path(capture_id, p) for p in range(1, len(images) + 1)]
                self._reclaim(relatives)

                def put(where: Path) -> None:
                    for relative, image in zip(relatives, images, strict=True):
                        written.append(files.write_file(where, relative, image.png))

                try:
                    put(root)
                except OSError:
                    if root == self.images_root:
                        raise
                    # A held folder that is full (a small /dev/shm): the images go
                    # to disk as taken, as without one, and are replaced when filled.
                    for path in written:
                        path.unlink(missing_ok=True)
                    written.clear()
                    put(self.images_root)
                cur = db.execute(
                    "INSERT INTO captures (id, captured_at, captured_ts, origin, note,"
                    " image_count, imported, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        capture_id,
                        format_utc(moment),
                        moment.timestamp(),
                        origin,
                        note,
                        len(images),
                        int(imported),
                        size,
                    ),
                )
                seq = cur.lastrowid
                for position, image in enumerate(images, 1):
                    s = image.source
                    db.execute(
                        "INSERT INTO images (capture_seq, position, path, width, height,"
                        " display_mode, display_index, display_name, app_id, app_name,"
                        " window_title, workspace_hint, ax_text, windows, ax_lines, ax_note,"
                        " excluded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            seq,
                            position,
                            files.relative_path(capture_id, position),
                            image.width,
                            image.height,
                            image.display_mode,
                            s.display_index,
                            s.display_name,
                            s.app_id,
                            s.app_name,
                            s.window_title,
                            s.workspace_hint,
                            image.ax_text,
                            windows_to_json(image.windows),
                            ax_to_json(image.ax_lines),
                            image.ax_note,
                            image.excluded,
                        ),
                    )
                ax = "\n".join(i.ax_text for i in images if i.ax_text)
                db.execute(
                    "INSERT INTO capture_text (rowid, ocr, ax, note) VALUES (?, '', ?, ?)",
                    (seq, ax, note or ""),
                )
        except BaseException as exc:
            for path in written:
                path.unlink(missing_ok=True)
            if isinstance(exc, OSError):  # a full disk, a file too large for this system
                raise StoreError(
                    f"the capture was not kept: {exc.strerror or exc}; nothing of it was written"
                ) from exc
            raise
        record = self.get(capture_id)
        assert record is not None
        return record

    def set_note(self, capture_id: str, note: str | None) -> bool:
        """Attach (or with None remove) a note; False when there is no such capture."""
        with self._transaction() as db:
            seq = self._seq(db, capture_id)
            if seq is None:
                return False
            db.execute("UPDATE captures SET note = ? WHERE seq = ?", (note, seq))
            db.execute("UPDATE capture_text SET note = ? WHERE rowid = ?", (note or "", seq))
            _unindex(db, [seq])
        return True

    def set_ocr(
        self,
        capture_id: str,
        *,
        engine: str,
        version: str | None = None,
        lines_per_image: Sequence[Sequence[OcrLine]] | None = None,
        error: str | None = None,
    ) -> bool:
        """Record OCR text (or its failure); the old text stays until this commits.

        The capture's confidence is the mean over its lines (None without text).
        """
        with self._transaction() as db:
            seq = self._seq(db, capture_id)
            if seq is None:
                return False
            if error is not None:
                db.execute(
                    "UPDATE captures SET ocr_state = 'failed', ocr_engine = ?, ocr_version = ?,"
                    " ocr_error = ?, ocr_confidence = NULL WHERE seq = ?",
                    (engine, version, error, seq),
                )
                _unindex(db, [seq])
                return True
            assert lines_per_image is not None
            for position, lines in enumerate(lines_per_image, 1):
                db.execute(
                    "UPDATE images SET ocr_lines = ? WHERE capture_seq = ? AND position = ?",
                    (lines_to_json(lines), seq, position),
                )
            every = [line for lines in lines_per_image for line in lines]
            confidence = sum(ln.confidence for ln in every) / len(every) if every else None
            text = "\n".join(line.text for line in every)
            db.execute("UPDATE capture_text SET ocr = ? WHERE rowid = ?", (text, seq))
            db.execute(
                "UPDATE captures SET ocr_state = 'done', ocr_engine = ?, ocr_version = ?,"
                " ocr_confidence = ?, ocr_error = NULL WHERE seq = ?",
                (engine, version, confidence, seq),
            )
            _unindex(db, [seq])
        return True

    def rewrite(
        self,
        capture_id: str,
        *,
        pngs: Sequence[bytes | None],
        ax: Sequence[tuple[Sequence[AxLine], str | None]],
    ) -> bool:
        """Replace a capture's images and accessibility text by forms of
        themselves (the person's ``redact_at_rest``, before its OCR text is
        stored by ``set_ocr``): per image, a new PNG of the same size (None:
        keep the file), and its accessibility lines and text. The files are
        written first, each renamed over its old one; then the rows and the
        search index in one transaction. False when there is no such capture."""
        record = self.get(capture_id)
        if record is None:
            return False
        if not len(pngs) == len(ax) == len(record.images):
            raise ValueError("one png and one accessibility text per image")
        held = self.held_root()
        for image, png in zip(record.images, pngs, strict=True):
            if held is not None and self._unhold(held, image.path, png):
                continue  # held in memory: only its filled form reaches the disk
            if png is not None:  # the image as taken overwritten, not only unlinked
                files.replace_file(self.images_root, image.path, png)
        # The rows' old text is overwritten where SQLite frees it, not left.
        self.db.execute("PRAGMA secure_delete = ON")
        with self._transaction() as db:
            seq = self._seq(db, capture_id)
            if seq is None:
                return False
            for image, (ax_lines, ax_text) in zip(record.images, ax, strict=True):
                db.execute(
                    "UPDATE images SET ax_lines = ?, ax_text = ? WHERE capture_seq = ?"
                    " AND position = ?",
                    (ax_to_json(ax_lines), ax_text, seq, image.position),
                )
            size = sum(
                files.resolve(self.images_root, image.path).stat().st_size
                for image in record.images
            )
            db.execute("UPDATE captures SET bytes = ? WHERE seq = ?", (size, seq))
            ax_all = "\n".join(text for _, text in ax if text)
            db.execute("UPDATE capture_text SET ax = ? WHERE rowid = ?", (ax_all, seq))
            _unindex(db, [seq])
        pairs = zip(record.images, ax, strict=True)
        if any(image.ax_text and image.ax_text != (text or "") for image, (_, text) in pairs):
            self.scrub_due = True  # the old text's terms: out at the next scrub_search
        return True

    def keep_held(self, capture_id: str) -> int:
        """A capture's images held in memory (``add_capture(held=True)``)
        moved into the images folder as they are: their redaction is done
        and found nothing to fill. Returns how many were held."""
        held = self.held_root()
        record = None if held is None else self.get(capture_id)
        if held is None or record is None:
            return 0
        return sum(self._unhold(held, image.path, None) for image in record.images)

    def _unhold(self, held: Path, relative: str, png: bytes | None) -> bool:
        """If ``relative`` is held: ``png`` (None: the held image itself)
        written durably into the images folder, then the held file removed."""
        path = files.resolve(held, relative)
        if not path.is_file():
            return False
        files.write_file(self.images_root, relative, png if png is not None else path.read_bytes())
        files.remove(held, [relative])
        return True

    def pending_ocr(self) -> list[str]:
        """Ids of captures whose text was never recognised, oldest first."""
        with map_sqlite_errors("read pending OCR work"):
            return [
                r["id"]
                for r in self.db.execute(
                    "SELECT id FROM captures WHERE ocr_state = 'pending' ORDER BY seq"
                )
            ]

    def claim_latest(self, *, now: datetime, window: timedelta) -> str | None:
        """The live handoff, decided atomically: the newest user capture within
        the window, if it was never delivered; marks it delivered."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT seq, id, delivered_at FROM captures WHERE origin = 'user'"
                " AND imported = 0 AND captured_ts >= ?"
                " ORDER BY captured_ts DESC, seq DESC LIMIT 1",
                ((now - window).timestamp(),),
            ).fetchone()
            if row is None or row["delivered_at"] is not None:
                return None
            db.execute(
                "UPDATE captures SET delivered_at = ? WHERE seq = ?", (format_utc(now), row["seq"])
            )
            return str(row["id"])

    def delete(self, capture_id: str) -> bool:
        """Remove a capture: its rows, its text, then its files."""
        try:
            files.check_id(capture_id)
        except ValueError:
            return False
        with map_sqlite_errors("read a capture"):
            seq = self._seq(self.db, capture_id)
        return seq is not None and self.delete_captures([(seq, capture_id)], unkept_only=False) == 1

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

    def tidy_search(self, pages: int = 250) -> bool:
        """One step of merging the search index (``pages`` pages of it, in its
        own transaction); True while there is more to merge.

        Deleting rows leaves delete markers in the full-text index beside the
        text they cancel, and a search then reads both: after a tenth of a
        million captures went, finding one capture's text took 6 ms instead
        of 0.2. Merging drops them; ``prune`` does it after a large prune,
        and the app's pruner step by step.
        """
        more = False
        for table in ("capture_text", "agent_text"):
            with self._transaction() as db:
                before = db.total_changes
                db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('merge', ?)", (-pages,))
                more |= db.total_changes - before >= 2
        return more

    def scrub_search(self) -> None:
        """Rewrite history's search index whole, so that no term of text
        since rewritten is left in it (``redact_at_rest`` over text stored
        before it was on: ``noru reocr``). Replacing a row's text leaves the
        old terms in the index's segments, beside a marker that cancels them,
        until the segments are merged (SQLite's FTS5 before 3.42 has no
        secure delete; the app scrubs after ``rewrite`` replaced stored
        text: ``scrub_due``); merging them all into one drops them, the pages
        freed are overwritten (``secure_delete``), and the write-ahead log
        is emptied. It takes as long as the index is large."""
        self.db.execute("PRAGMA secure_delete = ON")
        with self._transaction() as db:
            db.execute("INSERT INTO capture_text (capture_text) VALUES ('optimize')")
        with map_sqlite_errors("empty the write-ahead log"):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.scrub_due = False

    def index_for_agents(
        self,
        fingerprint: str,
        seen: Seen,
        *,
        ids: Sequence[str] | None = None,
        most: int,
    ) -> int:
        """Index, for agents' searches, up to ``most`` captures (of ``ids``,
        or any) whose text as agents get it is not indexed yet: ``seen`` gives
        it (``noru.redact.index``), under the policy ``fingerprint`` names.
        Under another policy than the index's, the whole index is dropped first.
        One transaction, so no capture's text can change between being read
        and being indexed. Returns how many were indexed."""
        with self._transaction() as db:
            row = db.execute("SELECT fingerprint FROM agent_text_policy").fetchone()
            if row is None or row["fingerprint"] != fingerprint:
                db.execute("DELETE FROM agent_text_policy")
                db.execute("INSERT INTO agent_text_policy (fingerprint) VALUES (?)", (fingerprint,))
                db.execute("DELETE FROM agent_text")
                db.execute("UPDATE captures SET agent_indexed = 0 WHERE agent_indexed = 1")
            where, params = "c.agent_indexed = 0", []
            if ids is not None:
                where += f" AND c.id IN ({','.join('?' * len(ids))})"
                params = list(ids)
            records = self._records(where, params, f" ORDER BY c.seq DESC LIMIT {int(most)}")
            for record in records:
                text = seen(record)
                if text is not None:
                    db.execute(
                        "INSERT INTO agent_text (rowid, ocr, ax, note) VALUES (?, ?, ?, ?)",
                        (record.seq, *text),
                    )
                db.execute("UPDATE captures SET agent_indexed = 1 WHERE seq = ?", (record.seq,))
            return len(records)


def _unindex(db: sqlite3.Connection, seqs: Sequence[int]) -> None:
    """These captures' text changed: their text as agents get it is to be
    indexed again (``Store.index_for_agents``); until then agents' searches
    read them the slow way (``Reading.search``)."""
    marks = ",".join("?" * len(seqs))
    db.execute(f"DELETE FROM agent_text WHERE rowid IN ({marks})", list(seqs))
    db.execute(f"UPDATE captures SET agent_indexed = 0 WHERE seq IN ({marks})", list(seqs))
