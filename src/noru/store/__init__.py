"""The capture store: SQLite (WAL, FTS5) plus lossless image files.

One writer, many read-only readers (like datasette's database.py):

- ``Store`` is the writer: the app's writer thread and the person's own CLI
  commands. It migrates, writes image files before their rows commit, and
  allocates capture ids inside an immediate transaction so two writers never
  take the same id.
- ``Reader`` opens SQLite with ``mode=ro``, so SQLite itself enforces that
  ``noru mcp`` never writes. It refuses a schema newer than it knows.
"""

from __future__ import annotations

import base64
import json
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Self

from noru.errors import StoreError
from noru.ocr.base import decode_lines, encode_lines
from noru.paths import db_path, ensure_data_dir, images_dir
from noru.sources import Source
from noru.store import files, schema
from noru.store.records import (
    CaptureRecord,
    Filters,
    ImageRecord,
    NewImage,
    OcrLine,
    Row,
    SearchHit,
)
from noru.times import format_utc, parse_utc

__all__ = [
    "SEARCH_BOUND",
    "CaptureRecord",
    "Filters",
    "ImageRecord",
    "NewImage",
    "OcrLine",
    "Reader",
    "Row",
    "SearchHit",
    "Store",
    "decode_cursor",
    "encode_cursor",
    "map_sqlite_errors",
]

# Search ranks at most this many of the most recently stored matches: a term
# found in nearly every capture stays fast, and the newest matches are the
# ones a person means. Narrow with since/before to reach older ones.
SEARCH_BOUND = 2000
# Recency weighs relevance down by half every this many days.
RECENCY_HALF_LIFE_DAYS = 30.0

_WORD = re.compile(r"\w+", re.UNICODE)
_HIT_START, _HIT_END = "\x02", "\x03"


@contextmanager
def map_sqlite_errors(action: str) -> Iterator[None]:
    """Translate SQLite's exceptions at the seam, keeping the cause."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot {action}: {exc}") from exc


def _lines_json(lines: Sequence[OcrLine]) -> str:
    return encode_lines(lines)


def _lines(raw: str | None) -> tuple[OcrLine, ...] | None:
    return None if raw is None else decode_lines(raw)


def fts_query(text: str) -> str | None:
    """The person's words as a literal FTS5 query: every word, as typed, any order."""
    words = _WORD.findall(text)
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


def encode_cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, kind: str) -> dict[str, Any]:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, UnicodeEncodeError):
        raise ValueError("not a cursor from this server") from None
    if not isinstance(data, dict) or data.get("k") != kind:
        raise ValueError("not a cursor for this listing")
    return data


class _Base:
    def __init__(self, home: Path, db: sqlite3.Connection) -> None:
        self.home = home
        self.db = db
        self.images_root = images_dir(home)
        # Readers never migrate: a database no writer has upgraded yet lacks
        # later columns, and reads them as empty.
        columns = {row[1] for row in db.execute("PRAGMA table_info(images)")}
        self._windows_column = "windows" if "windows" in columns else "NULL"
        columns = {row[1] for row in db.execute("PRAGMA table_info(captures)")}
        version = "ocr_version" if "ocr_version" in columns else "NULL"
        self._capture_columns = (
            "seq, id, captured_at, origin, note, ocr_state, ocr_engine, ocr_confidence,"
            f" ocr_error, imported, delivered_at, {version}"
        )

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading (both the writer and readers read) ----------------------

    def count(self) -> int:
        with map_sqlite_errors("count captures"):
            return int(self.db.execute("SELECT count(*) FROM captures").fetchone()[0])

    def _images(self, seqs: Iterable[int]) -> dict[int, list[ImageRecord]]:
        seqs = list(seqs)
        out: dict[int, list[ImageRecord]] = {seq: [] for seq in seqs}
        if not seqs:
            return out
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(
            "SELECT capture_seq, position, path, width, height, display_mode, display_index,"
            " display_name, app_id, app_name, window_title, workspace_hint, ax_text, ocr_lines,"
            f" {self._windows_column} FROM images WHERE capture_seq IN ({marks})"
            " ORDER BY capture_seq, position",
            seqs,
        )
        for r in rows:
            out[r[0]].append(
                ImageRecord(
                    position=r[1],
                    path=r[2],
                    width=r[3],
                    height=r[4],
                    display_mode=r[5],
                    source=Source(r[6], r[7], r[8], r[9], r[10], r[11]),
                    ax_text=r[12],
                    ocr_lines=_lines(r[13]),
                    windows=tuple(
                        (int(x), int(y), int(w), int(h)) for x, y, w, h in json.loads(r[14] or "[]")
                    ),
                )
            )
        return out

    def _records(self, where: str, params: Sequence[Any]) -> list[CaptureRecord]:
        rows = self.db.execute(
            f"SELECT {self._capture_columns} FROM captures c WHERE {where}", params
        ).fetchall()
        images = self._images(r[0] for r in rows)
        return [
            CaptureRecord(
                seq=r[0],
                id=r[1],
                captured_at=parse_utc(r[2]),
                origin=r[3],
                note=r[4],
                ocr_state=r[5],
                ocr_engine=r[6],
                ocr_version=r[11],
                ocr_confidence=r[7],
                ocr_error=r[8],
                imported=bool(r[9]),
                delivered=r[10] is not None,
                images=tuple(images[r[0]]),
            )
            for r in rows
        ]

    def get(self, capture_id: str) -> CaptureRecord | None:
        """A capture by id; a malformed id never reaches SQL or the filesystem."""
        try:
            files.check_id(capture_id)
        except ValueError:
            return None
        with map_sqlite_errors("read a capture"):
            found = self._records("id = ?", (capture_id,))
        return found[0] if found else None

    def image_file(self, image: ImageRecord) -> Path:
        return files.resolve(self.images_root, image.path)

    # --- filters ---------------------------------------------------------

    @staticmethod
    def _filter_sql(filters: Filters) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        image_clauses: list[str] = []
        if filters.app is not None:
            image_clauses.append(
                "(instr(lower(i.app_name), ?) > 0 OR instr(lower(i.app_id), ?) > 0)"
            )
            params += [filters.app.lower()] * 2
        if filters.workspace is not None:
            image_clauses.append("instr(lower(i.workspace_hint), ?) > 0")
            params.append(filters.workspace.lower())
        if filters.display is not None:
            display = filters.display
            if isinstance(display, str) and display.strip().isdigit():
                display = int(display.strip())
            if isinstance(display, int):
                image_clauses.append("i.display_index = ?")
                params.append(display)
            else:
                image_clauses.append("instr(lower(i.display_name), ?) > 0")
                params.append(display.lower())
        if image_clauses:
            clauses.append(
                "EXISTS (SELECT 1 FROM images i WHERE i.capture_seq = c.seq AND "
                + " AND ".join(image_clauses)
                + ")"
            )
        if filters.origin is not None:
            clauses.append("c.origin = ?")
            params.append(filters.origin)
        if filters.since is not None:
            clauses.append("c.captured_ts >= ?")
            params.append(filters.since.timestamp())
        if filters.before is not None:
            clauses.append("c.captured_ts < ?")
            params.append(filters.before.timestamp())
        return (" AND ".join(clauses) or "1"), params

    def _rows(self, seqs: Sequence[int]) -> dict[int, Row]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(
            "SELECT c.seq, c.id, c.captured_at, c.origin, c.image_count, c.note,"
            " (c.ocr_state = 'done' AND EXISTS (SELECT 1 FROM images t WHERE"
            "   t.capture_seq = c.seq AND t.ocr_lines IS NOT NULL AND t.ocr_lines != '[]'))"
            "  OR EXISTS (SELECT 1 FROM images t WHERE t.capture_seq = c.seq"
            "   AND t.ax_text IS NOT NULL AND t.ax_text != ''),"
            " i.display_index, i.display_name, i.app_id, i.app_name, i.window_title,"
            " i.workspace_hint"
            " FROM captures c JOIN images i ON i.capture_seq = c.seq AND i.position = 1"
            f" WHERE c.seq IN ({marks})",
            list(seqs),
        )
        return {
            r[0]: Row(
                id=r[1],
                captured_at=parse_utc(r[2]),
                origin=r[3],
                image_count=r[4],
                note=r[5],
                has_text=bool(r[6]),
                source=Source(r[7], r[8], r[9], r[10], r[11], r[12]),
            )
            for r in rows
        }

    def list_rows(
        self,
        filters: Filters,
        *,
        order: str = "newest_first",
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[Row], str | None]:
        """One page of locator rows and the cursor of the next page (or None)."""
        where, params = self._filter_sql(filters)
        descending = order != "oldest_first"
        if cursor is not None:
            data = decode_cursor(cursor, "list")
            if data.get("o") != order:
                raise ValueError("the cursor belongs to the other order")
            ts, seq = data.get("ts"), data.get("seq")
            if not isinstance(ts, (int, float)) or not isinstance(seq, int):
                raise ValueError("not a cursor from this server")
            op = "<" if descending else ">"
            where += f" AND (c.captured_ts, c.seq) {op} (?, ?)"
            params += [ts, seq]
        direction = "DESC" if descending else "ASC"
        with map_sqlite_errors("list captures"):
            found = self.db.execute(
                f"SELECT c.seq, c.captured_ts FROM captures c WHERE {where}"
                f" ORDER BY c.captured_ts {direction}, c.seq {direction} LIMIT ?",
                [*params, limit + 1],
            ).fetchall()
            page = found[:limit]
            rows = self._rows([seq for seq, _ in page])
        next_cursor = None
        if len(found) > limit:
            last_seq, last_ts = page[-1]
            next_cursor = encode_cursor({"k": "list", "o": order, "ts": last_ts, "seq": last_seq})
        return [rows[seq] for seq, _ in page], next_cursor

    def nth(self, index: int, filters: Filters) -> CaptureRecord | None:
        """The index-th most recent capture (1 = newest) among those matching."""
        where, params = self._filter_sql(filters)
        with map_sqlite_errors("read a capture"):
            found = self.db.execute(
                f"SELECT c.seq FROM captures c WHERE {where}"
                " ORDER BY c.captured_ts DESC, c.seq DESC LIMIT 1 OFFSET ?",
                [*params, index - 1],
            ).fetchone()
            if found is None:
                return None
            return self._records("seq = ?", (found[0],))[0]

    def search(
        self,
        query: str,
        filters: Filters,
        *,
        now: datetime,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[SearchHit], str | None]:
        """Ranked matches for the person's words (taken literally), newest-biased."""
        match = fts_query(query)
        if match is None:
            return [], None
        offset = 0
        if cursor is not None:
            data = decode_cursor(cursor, "search")
            offset = data.get("off", 0)
            if not isinstance(offset, int) or offset < 0 or data.get("q") != query:
                raise ValueError("the cursor belongs to another search")
        where, params = self._filter_sql(filters)
        restrict = (
            "" if where == "1" else f" AND rowid IN (SELECT c.seq FROM captures c WHERE {where})"
        )
        with map_sqlite_errors("search captures"):
            candidates = self.db.execute(
                "SELECT h.rowid, h.score, c.captured_ts FROM ("
                "  SELECT rowid, bm25(capture_text) AS score FROM capture_text"
                f"  WHERE capture_text MATCH ?{restrict} ORDER BY rowid DESC LIMIT ?"
                ") h JOIN captures c ON c.seq = h.rowid",
                [match, *params, SEARCH_BOUND],
            ).fetchall()
            reference = now.timestamp()
            ranked = sorted(
                (
                    (
                        -score * 0.5 ** (max(0.0, reference - ts) / 86400 / RECENCY_HALF_LIFE_DAYS),
                        seq,
                    )
                    for seq, score, ts in candidates
                ),
                reverse=True,
            )
            page = ranked[offset : offset + limit]
            rows = self._rows([seq for _, seq in page])
            hits = []
            for score, seq in page:
                layer, snippet = self._snippet(match, seq)
                hits.append(SearchHit(rows[seq], layer, snippet, score))
        next_cursor = None
        if len(ranked) > offset + limit:
            next_cursor = encode_cursor({"k": "search", "q": query, "off": offset + limit})
        return hits, next_cursor

    def _snippet(self, match: str, seq: int) -> tuple[str, str]:
        row = self.db.execute(
            "SELECT "
            + ", ".join(
                f"snippet(capture_text, {col}, '{_HIT_START}', '{_HIT_END}', '…', 12)"
                for col in range(3)
            )
            + " FROM capture_text WHERE capture_text MATCH ? AND rowid = ?",
            (match, seq),
        ).fetchone()
        for layer, text in zip(("ocr", "ax", "note"), row or (), strict=False):
            if text and _HIT_START in text:
                clean = " ".join(text.split())
                return layer, clean.replace(_HIT_START, "«").replace(_HIT_END, "»")
        return "ocr", ""

    def present_values(self, *, most: int = 10) -> dict[str, list[str]]:
        """The apps, workspaces and displays history holds, for no-match steering."""
        out: dict[str, list[str]] = {}
        with map_sqlite_errors("read source values"):
            for key, sql in (
                (
                    "apps",
                    "SELECT DISTINCT coalesce(app_name, app_id) FROM images"
                    " WHERE coalesce(app_name, app_id) IS NOT NULL",
                ),
                (
                    "workspaces",
                    "SELECT DISTINCT workspace_hint FROM images WHERE workspace_hint IS NOT NULL",
                ),
                (
                    "displays",
                    "SELECT DISTINCT CAST(display_index AS TEXT)"
                    " || coalesce(' (' || display_name || ')', '') FROM images"
                    " WHERE display_index IS NOT NULL",
                ),
            ):
                out[key] = sorted(r[0] for r in self.db.execute(sql + f" LIMIT {most}"))
        return out

    def all_ids(self) -> list[str]:
        """Every capture id, oldest first."""
        with map_sqlite_errors("list captures"):
            return [r[0] for r in self.db.execute("SELECT id FROM captures ORDER BY seq")]

    def ids_page(self, *, after: int | None, limit: int) -> list[tuple[int, CaptureRecord]]:
        """Captures newest first, for resources/list (keyset on seq)."""
        where = "1" if after is None else "seq < ?"
        params = () if after is None else (after,)
        with map_sqlite_errors("list captures"):
            records = self._records(f"{where} ORDER BY seq DESC LIMIT {int(limit)}", params)
        return [(r.seq, r) for r in records]


class Reader(_Base):
    """Read-only access to the store: SQLite refuses any write on this connection."""

    @classmethod
    def open(cls, home: Path) -> Reader | None:
        """The reader, or None when there is no history yet."""
        path = db_path(home)
        if not path.exists():
            return None
        uri = path.absolute().as_uri() + "?mode=ro"
        db = None
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            schema.check_readable(db)
        except sqlite3.OperationalError:
            # A WAL database in a folder this process cannot write has no -shm
            # to share; it cannot be changing under us then, so read it as
            # immutable.
            if db is not None:
                db.close()
            db = sqlite3.connect(
                uri + "&immutable=1", uri=True, isolation_level=None, check_same_thread=False
            )
            with map_sqlite_errors("open the history"):
                schema.check_readable(db)
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            raise StoreError(f"cannot open the history: {exc}") from exc
        except BaseException:
            if db is not None:
                db.close()
            raise
        return cls(home, db)


class Store(_Base):
    """The writer: migrations, captures, notes, OCR results, handoff, deletes."""

    @classmethod
    def open(cls, home: Path | None = None) -> Store:
        home = home or ensure_data_dir()
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = db_path(home)
        new = not path.exists()
        try:
            db = sqlite3.connect(path, isolation_level=None, timeout=15, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the history: {exc}") from exc
        try:
            if new:
                path.chmod(0o600)
            with map_sqlite_errors("open the history"):
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")
                db.execute("PRAGMA foreign_keys = ON")
                schema.migrate(db)
        except BaseException:
            db.close()
            raise
        store = cls(home, db)
        files.clean_temp_files(store.images_root)
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

    def _allocate_id(self, captured_at: datetime) -> str:
        base = "capture_" + captured_at.astimezone().strftime("%Y-%m-%d_%H%M%S")
        taken = {
            r[0]
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
        origin: str,
        captured_at: datetime | None = None,
        note: str | None = None,
        imported: bool = False,
    ) -> CaptureRecord:
        """Store a capture: files first (durably), then its rows in one transaction."""
        if not images:
            raise ValueError("a capture has at least one image")
        if origin not in ("user", "agent"):
            raise ValueError(f"unknown origin {origin!r}")
        moment = (captured_at or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        written: list[Path] = []
        try:
            with self._transaction() as db:
                capture_id = self._allocate_id(moment)
                for position, image in enumerate(images, 1):
                    relative = files.relative_path(capture_id, position)
                    written.append(files.write_file(self.images_root, relative, image.png))
                cur = db.execute(
                    "INSERT INTO captures (id, captured_at, captured_ts, origin, note,"
                    " image_count, imported) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        capture_id,
                        format_utc(moment),
                        moment.timestamp(),
                        origin,
                        note,
                        len(images),
                        int(imported),
                    ),
                )
                seq = cur.lastrowid
                for position, image in enumerate(images, 1):
                    s = image.source
                    db.execute(
                        "INSERT INTO images (capture_seq, position, path, width, height,"
                        " display_mode, display_index, display_name, app_id, app_name,"
                        " window_title, workspace_hint, ax_text, windows)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                            json.dumps([list(w) for w in image.windows]) if image.windows else None,
                        ),
                    )
                ax = "\n".join(i.ax_text for i in images if i.ax_text)
                db.execute(
                    "INSERT INTO capture_text (rowid, ocr, ax, note) VALUES (?, '', ?, ?)",
                    (seq, ax, note or ""),
                )
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        record = self.get(capture_id)
        assert record is not None
        return record

    def set_note(self, capture_id: str, note: str | None) -> bool:
        with self._transaction() as db:
            row = db.execute("SELECT seq FROM captures WHERE id = ?", (capture_id,)).fetchone()
            if row is None:
                return False
            db.execute("UPDATE captures SET note = ? WHERE seq = ?", (note, row[0]))
            db.execute("UPDATE capture_text SET note = ? WHERE rowid = ?", (note or "", row[0]))
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
            row = db.execute("SELECT seq FROM captures WHERE id = ?", (capture_id,)).fetchone()
            if row is None:
                return False
            seq = row[0]
            if error is not None:
                db.execute(
                    "UPDATE captures SET ocr_state = 'failed', ocr_engine = ?, ocr_version = ?,"
                    " ocr_error = ?, ocr_confidence = NULL WHERE seq = ?",
                    (engine, version, error, seq),
                )
                return True
            assert lines_per_image is not None
            for position, lines in enumerate(lines_per_image, 1):
                db.execute(
                    "UPDATE images SET ocr_lines = ? WHERE capture_seq = ? AND position = ?",
                    (_lines_json(lines), seq, position),
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
        return True

    def pending_ocr(self) -> list[str]:
        with map_sqlite_errors("read pending OCR work"):
            return [
                r[0]
                for r in self.db.execute(
                    "SELECT id FROM captures WHERE ocr_state = 'pending' ORDER BY seq"
                )
            ]

    def claim_latest(self, *, now: datetime, window: timedelta) -> str | None:
        """The live handoff, decided atomically: the newest user capture within
        the window, if it was never delivered; marks it delivered."""
        stamp = format_utc(now)
        with self._transaction() as db:
            row = db.execute(
                "SELECT seq, id, delivered_at FROM captures WHERE origin = 'user'"
                " AND imported = 0 AND captured_ts >= ?"
                " ORDER BY captured_ts DESC, seq DESC LIMIT 1",
                ((now - window).timestamp(),),
            ).fetchone()
            if row is None or row[2] is not None:
                return None
            db.execute("UPDATE captures SET delivered_at = ? WHERE seq = ?", (stamp, row[0]))
            return str(row[1])

    def delete(self, capture_id: str) -> bool:
        """Remove a capture's rows, then its files (rows never point at nothing)."""
        record = self.get(capture_id)
        if record is None:
            return False
        with self._transaction() as db:
            db.execute("DELETE FROM capture_text WHERE rowid = ?", (record.seq,))
            db.execute("DELETE FROM images WHERE capture_seq = ?", (record.seq,))
            db.execute("DELETE FROM captures WHERE seq = ?", (record.seq,))
        for image in record.images:
            with suppress(StoreError):
                self.image_file(image).unlink(missing_ok=True)
        return True
