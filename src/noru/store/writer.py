"""Writing history: the ``Store``, used by the app's writer thread and the
person's own commands (import, note, delete, reocr), never by ``noru mcp``.

It migrates on open, writes image files durably before their rows commit,
and allocates capture ids inside an immediate transaction, so two writers
(the app and a person's ``noru import``) never take the same id. SQLite
serialises writers across processes. At open it empties SQLite's log before
it removes what a killed writer left (``_settle_log``). Taking captures out
is ``removal``'s (``Removing``), keeping the search indexes ``indexing``'s
(``Indexing``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from noru.errors import StoreError
from noru.paths import db_path
from noru.store import files
from noru.store.codec import ax_to_json, lines_to_json, rect_to_json, windows_to_json
from noru.store.connection import map_sqlite_errors, open_writer
from noru.store.indexing import unindex
from noru.store.records import AxLine, CaptureRecord, NewImage, OcrLine, Origin
from noru.store.removal import TIDY_AFTER, Removing
from noru.times import format_utc

__all__ = ["TIDY_AFTER", "Store"]


class Store(Removing):
    """The writer: migrations, captures, notes, OCR results, handoff, deletes, pruning."""

    # Bytes the disk keeps free: a capture that would leave less is refused.
    min_free = 0
    # Seconds a writer's start waits for readers to let SQLite's log be
    # emptied (``_settle_log``): as long as any write waits for the lock.
    settle_wait = 15.0

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
        if store._settle_log():
            store._remove_doomed()
            store._remove_orphans()
            store._remove_held_orphans()
        store._measure_sizes()
        return store

    def _settle_log(self) -> bool:
        """Empty the write-ahead log into the database, so that what the
        history names now is all it will ever name of what came before; False
        when a reader kept it from being emptied for as long as a writer
        waits for the lock.

        A writer killed after its commit reached the log but before the log's
        index said so leaves a commit that no one sees while any other
        connection stays open (an agent's `noru mcp`, the OCR process not yet
        gone): SQLite reads the log again only at an open no one shares. Until
        then that capture has no row, so its file looks like an orphan; were it
        removed, the capture would show up later without it. Emptying the log
        drops such a commit for good (it was never answered), and only then
        are files removed for rows that are not there. Without it (a reader
        in a read for ``settle_wait`` seconds), the removals wait for a later
        start (leftover files harm nothing)."""
        with map_sqlite_errors("open the history"):
            (waits,) = self.db.execute("PRAGMA busy_timeout").fetchone()
            self.db.execute(f"PRAGMA busy_timeout = {round(self.settle_wait * 1000)}")
            try:
                busy, _, _ = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                self.db.execute(f"PRAGMA busy_timeout = {int(waits)}")
        return not busy

    def keep_pages(self, kib: int) -> None:
        """Keep at most ``kib`` KiB of the history's pages in memory (SQLite's
        page cache, about 2 MB unless told), for a writer that stays open (the
        app's): a capture's writes touch few pages, and reading the others
        again from the system's file cache costs less than a write's fsync."""
        with map_sqlite_errors("open the history"):
            self.db.execute(f"PRAGMA cache_size = {-int(kib)}")

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
                        " excluded, screen_rect, shows)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                            rect_to_json(image.screen_rect),
                            s.shows,
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
            unindex(db, [seq])
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
            confidence = None
            if error is None:
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
            # A failure keeps the old text, and says why instead of a confidence.
            db.execute(
                "UPDATE captures SET ocr_state = ?, ocr_engine = ?, ocr_version = ?,"
                " ocr_confidence = ?, ocr_error = ? WHERE seq = ?",
                ("done" if error is None else "failed", engine, version, confidence, error, seq),
            )
            unindex(db, [seq])
        return True

    def rewrite(
        self,
        capture_id: str,
        *,
        pngs: Sequence[bytes | None],
        ax: Sequence[tuple[Sequence[AxLine], str | None]],
        record: CaptureRecord | None = None,
    ) -> bool:
        """Replace a capture's images and accessibility text by forms of
        themselves (the person's ``redact_at_rest``, before its OCR text is
        stored by ``set_ocr``): per image, a new PNG of the same size (None:
        keep the file), and its accessibility lines and text. The files are
        written first, each renamed over its old one; then the rows and the
        search index in one transaction. False when there is no such capture.
        ``record``: the capture as the caller has just read it (not read again)."""
        record = record if record is not None else self.get(capture_id)
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
            unindex(db, [seq])
        pairs = zip(record.images, ax, strict=True)
        if any(image.ax_text and image.ax_text != (text or "") for image, (_, text) in pairs):
            self.scrub_due = True  # the old text's terms: out at the next scrub_search
        return True

    def keep_held(self, capture_id: str, record: CaptureRecord | None = None) -> int:
        """A capture's images held in memory (``add_capture(held=True)``)
        moved into the images folder as they are: their redaction is done
        and found nothing to fill. Returns how many were held. ``record``:
        the capture as the caller has just read it (not read again)."""
        held = self.held_root()
        if held is not None and record is None:
            record = self.get(capture_id)
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
