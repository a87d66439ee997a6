"""Reading history: captures by id or position, locator rows, search.

``Reading`` holds every read, shared by the read-only ``Reader`` (what
``noru mcp`` and the person's read commands use) and the writer ``Store``.
``Reader.open`` always gives a reader: a data dir with no history yet is read
as an empty history (a migrated database in memory), so callers never branch
on "no database".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from noru.errors import DataDirError, StoreError
from noru.paths import check_data_dir, db_path, held_dir, images_dir
from noru.sources import Source
from noru.store import files, queries, retention, schema
from noru.store.codec import ax_from_json, lines_from_json, windows_from_json
from noru.store.connection import map_sqlite_errors, open_empty, open_reader
from noru.store.records import CaptureRecord, Filters, ImageRecord, Row, SearchHit, SourceView
from noru.times import parse_utc

__all__ = ["Reader", "Reading", "Seen"]


_SOURCE_FIELDS = tuple(f.name for f in fields(Source))

# What a searcher may see of a capture: its (ocr, ax, note) text, or None.
Seen = Callable[[CaptureRecord], tuple[str, str, str] | None]
_SEEN_TABLE = "seen_text"
_SEEN_CHUNK = 50  # captures made "seen" at a time, until a page is full


def _source(row: sqlite3.Row) -> Source:
    # The images table names its source columns as Source names its fields.
    return Source(**{name: row[name] for name in _SOURCE_FIELDS})


class Reading:
    """Every read of the store, over an open connection."""

    def __init__(self, home: Path, db: sqlite3.Connection) -> None:
        self.home = home
        self.db = db
        self.images_root = images_dir(home)
        # Which columns this database has, by the migrations applied to it.
        done = schema.applied(self.db)
        self._captures = schema.select_list(done, "captures", "c")
        self._images_columns = schema.select_list(done, "images", "i")
        self._view: SourceView | None = None

    def show_sources_as(self, view: SourceView | None) -> None:
        """Show every source fact as ``view`` gives it (an agent's reader:
        redacted, ``noru.redact.facts``): in locator rows, in the values
        present, and in what filters match, so that no filter matches a
        value the reader does not show. ``get`` and ``nth`` still give the
        capture as stored: serving it redacts it whole."""
        self._view = view
        if view is not None:
            self.db.create_function(queries.SEEN_TEXT, 1, view.text, deterministic=True)
            self.db.create_function(queries.SEEN_HINT, 2, view.hint, deterministic=True)

    def _filter_sql(self, filters: Filters) -> tuple[str, list[Any]]:
        return queries.filter_sql(filters, seen=self._view is not None)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- captures ----------------------------------------------------------

    def usage(self) -> retention.Usage:
        """The history's disk use: images, database, kept captures, free space."""
        return retention.usage(self.db, self.home, self.images_root)

    def prune_plan(
        self, *, keep_days: float, max_disk: int, now: datetime | None = None
    ) -> retention.Plan:
        """What pruning would delete now (``noru prune --dry-run`` prints it)."""
        return retention.plan(
            self.db, self.home, self.images_root, keep_days=keep_days, max_disk=max_disk, now=now
        )

    def count(self) -> int:
        with map_sqlite_errors("count captures"):
            return int(self.db.execute("SELECT count(*) FROM captures").fetchone()[0])

    def mark(self) -> tuple[int, int]:
        """(the newest capture's seq, how many captures): changes whenever a
        capture is added or deleted, so a caller may keep what it derived
        from history until then."""
        with map_sqlite_errors("count captures"):
            newest, count = self.db.execute(
                "SELECT coalesce(max(seq), 0), count(*) FROM captures"
            ).fetchone()
        return int(newest), int(count)

    def _images(self, seqs: Iterable[int]) -> dict[int, list[ImageRecord]]:
        seqs = list(seqs)
        out: dict[int, list[ImageRecord]] = {seq: [] for seq in seqs}
        if not seqs:
            return out
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(
            f"SELECT {self._images_columns} FROM images i WHERE i.capture_seq IN ({marks})"
            " ORDER BY i.capture_seq, i.position",
            seqs,
        )
        for r in rows:
            out[r["capture_seq"]].append(
                ImageRecord(
                    position=r["position"],
                    path=r["path"],
                    width=r["width"],
                    height=r["height"],
                    display_mode=r["display_mode"],
                    source=_source(r),
                    ax_text=r["ax_text"],
                    ocr_lines=lines_from_json(r["ocr_lines"]),
                    windows=windows_from_json(r["windows"]),
                    ax_lines=ax_from_json(r["ax_lines"]),
                    ax_note=r["ax_note"],
                    excluded=r["excluded"] or 0,
                )
            )
        return out

    def _records(self, where: str, params: Sequence[Any], tail: str = "") -> list[CaptureRecord]:
        rows = self.db.execute(
            f"SELECT {self._captures} FROM captures c WHERE {where}{tail}", params
        ).fetchall()
        images = self._images(r["seq"] for r in rows)
        return [
            CaptureRecord(
                seq=r["seq"],
                id=r["id"],
                captured_at=parse_utc(r["captured_at"]),
                origin=r["origin"],
                note=r["note"],
                ocr_state=r["ocr_state"],
                ocr_engine=r["ocr_engine"],
                ocr_version=r["ocr_version"],
                ocr_confidence=r["ocr_confidence"],
                ocr_error=r["ocr_error"],
                imported=bool(r["imported"]),
                delivered=r["delivered_at"] is not None,
                images=tuple(images[r["seq"]]),
                kept=bool(r["kept"]),
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
            found = self._records("c.id = ?", (capture_id,))
        return found[0] if found else None

    def image_file(self, image: ImageRecord) -> Path:
        """Where an image's file is: in the images folder, or held in memory
        until its redaction is done (``redact_at_rest``; ``files.locate``)."""
        return files.locate(self.images_root, self.held_root, image.path)

    def held_root(self, *, create: bool = False) -> Path | None:
        """The held folder (``paths.held_dir``) when there is one of ours
        (made, with ``create``, where there is a memory file system for it)."""
        held = held_dir(self.home)
        return None if held is None else files.private_folder(held, create=create)

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
            return self._records("c.seq = ?", (found["seq"],))[0]

    def pending_count(self) -> int:
        """How many captures wait for their text to be read."""
        with map_sqlite_errors("count captures"):
            row = self.db.execute("SELECT count(*) FROM captures WHERE ocr_state = 'pending'")
            return int(row.fetchone()[0])

    def kept_ids(self) -> list[str]:
        """The captures kept forever, oldest first."""
        with map_sqlite_errors("list kept captures"):
            return [
                r["id"]
                for r in self.db.execute(
                    "SELECT id FROM captures WHERE kept = 1 ORDER BY captured_ts, seq"
                )
            ]

    def all_ids(self) -> list[str]:
        """Every capture id, oldest first."""
        with map_sqlite_errors("list captures"):
            return [r["id"] for r in self.db.execute("SELECT id FROM captures ORDER BY seq")]

    def ids_page(self, *, after: int | None, limit: int) -> list[CaptureRecord]:
        """Captures newest first, for resources/list (keyset on seq)."""
        where = "1" if after is None else "c.seq < ?"
        params = () if after is None else (after,)
        with map_sqlite_errors("list captures"):
            return self._records(where, params, f" ORDER BY c.seq DESC LIMIT {int(limit)}")

    # --- locator rows ------------------------------------------------------

    def _rows(self, seqs: Sequence[int]) -> dict[int, Row]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(
            "SELECT c.seq, c.id, c.captured_at, c.origin, c.image_count, c.note,"
            " (c.ocr_state = 'done' AND EXISTS (SELECT 1 FROM images t WHERE"
            "   t.capture_seq = c.seq AND t.ocr_lines IS NOT NULL AND t.ocr_lines != '[]'))"
            "  OR EXISTS (SELECT 1 FROM images t WHERE t.capture_seq = c.seq"
            "   AND t.ax_text IS NOT NULL AND t.ax_text != '') AS has_text,"
            " i.display_index, i.display_name, i.app_id, i.app_name, i.window_title,"
            " i.workspace_hint"
            " FROM captures c JOIN images i ON i.capture_seq = c.seq AND i.position = 1"
            f" WHERE c.seq IN ({marks})",
            list(seqs),
        )
        return {
            r["seq"]: Row(
                id=r["id"],
                captured_at=parse_utc(r["captured_at"]),
                origin=r["origin"],
                image_count=r["image_count"],
                note=r["note"],
                has_text=bool(r["has_text"]),
                source=_source(r) if self._view is None else self._view.source(_source(r)),
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
        """One page of locator rows and the cursor of the next page (or None).

        ValueError when ``cursor`` is not one of this listing's.
        """
        where, params = self._filter_sql(filters)
        descending = order != "oldest_first"
        if cursor is not None:
            data = queries.decode_cursor(cursor, "list")
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
            rows = self._rows([r["seq"] for r in page])
        next_cursor = None
        if len(found) > limit:
            last = page[-1]
            next_cursor = queries.encode_cursor(
                {"k": "list", "o": order, "ts": last["captured_ts"], "seq": last["seq"]}
            )
        return [rows[r["seq"]] for r in page], next_cursor

    def count_matching(self, filters: Filters) -> int:
        """How many captures the filters match."""
        where, params = self._filter_sql(filters)
        with map_sqlite_errors("count captures"):
            return int(
                self.db.execute(
                    f"SELECT count(*) FROM captures c WHERE {where}", params
                ).fetchone()[0]
            )

    def agents_fingerprint(self) -> str | None:
        """The redaction policy agents' search index was made under (its
        fingerprint, ``noru.redact.index``), or None when there is none."""
        if "0007_agent_text" not in schema.applied(self.db):
            return None
        with map_sqlite_errors("read the agents' search index"):
            row = self.db.execute("SELECT fingerprint FROM agent_text_policy").fetchone()
        return None if row is None else str(row[0])

    def agents_waiting(self, fingerprint: str) -> int:
        """How many captures agents' search index lacks under the policy
        ``fingerprint`` names (all of them, made under another)."""
        if self.agents_fingerprint() != fingerprint:
            return self.count()
        with map_sqlite_errors("read the agents' search index"):
            return int(
                self.db.execute("SELECT count(*) FROM captures WHERE agent_indexed = 0").fetchone()[
                    0
                ]
            )

    def search(
        self,
        query: str,
        filters: Filters,
        *,
        now: datetime,
        limit: int = 20,
        cursor: str | None = None,
        seen: Seen | None = None,
        indexed: str | None = None,
    ) -> tuple[list[SearchHit], str | None]:
        """Ranked matches for the person's words (taken literally), newest-biased.

        ``seen``: what of each capture the searcher may see (an agent: its
        text redacted, ``noru.redact``), as its (ocr, ax, note) text, or None
        for none of it; a capture matches only where that text matches, and
        its snippet is cut from it. The order is then newest first (one by
        relevance would weigh the hidden text in), and the pages are those of
        the captures that match so, so a page is full whatever was passed over.
        ``indexed``: the fingerprint of ``seen``'s policy; while the agents'
        index was made under it, the captures it holds are matched there (a
        search's time then does not depend on what ``seen`` hides) and only
        those not indexed yet are made ``seen`` one by one.

        ValueError when ``cursor`` is not one of this search's.
        """
        match = queries.fts_query(query)
        if match is None:
            return [], None
        offset = 0
        if cursor is not None:
            data = queries.decode_cursor(cursor, "search")
            offset = data.get("off", 0)
            if not isinstance(offset, int) or offset < 0 or data.get("q") != query:
                raise ValueError("the cursor belongs to another search")
        where, params = self._filter_sql(filters)
        restrict = (
            "" if where == "1" else f" AND rowid IN (SELECT c.seq FROM captures c WHERE {where})"
        )
        want = offset + limit + 1
        with map_sqlite_errors("search captures"), self._snapshot():
            if seen is None:
                ranked = self._ranked(match, restrict, params, now)
                snippets = {seq: (self.db, "capture_text") for _, seq in ranked}
            elif indexed is not None and self.agents_fingerprint() == indexed:
                ranked, snippets = self._as_indexed(match, restrict, params, seen, want)
            else:
                # Newest first: an order by relevance is one the hidden text
                # weighs in (a term inside a secret counts), so it would tell.
                found = sorted(self._ranked(match, restrict, params, now), key=lambda i: -i[1])
                ranked, memory = self._as_seen(found, match, seen, want)
                snippets = {seq: (memory, _SEEN_TABLE) for _, seq in ranked}
            page = ranked[offset : offset + limit]
            rows = self._rows([seq for _, seq in page])
            hits = []
            for score, seq in page:
                texts, table = snippets[seq]
                found_snippet = texts.execute(queries.snippet_sql(table), (match, seq)).fetchone()
                layer, snippet = queries.pick_snippet(
                    tuple(found_snippet) if found_snippet else None
                )
                hits.append(SearchHit(rows[seq], layer, snippet, score))
        next_cursor = None
        if len(ranked) > offset + limit:
            next_cursor = queries.encode_cursor({"k": "search", "q": query, "off": offset + limit})
        return hits, next_cursor

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: a search's statements see the same history
        (a capture indexed for agents meanwhile is in one of its two parts)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def _ranked(
        self, match: str, restrict: str, params: Sequence[Any], now: datetime
    ) -> list[tuple[float, int]]:
        """History's matches as ``(score, seq)``, best first (relevance, recency)."""
        newest = self.db.execute(
            f"SELECT rowid FROM capture_text WHERE capture_text MATCH ?{restrict}"
            " ORDER BY rowid DESC LIMIT ?",
            [match, *params, queries.SEARCH_BOUND],
        ).fetchall()
        # bm25 counts every match of each term first (its rarity): a term in
        # nearly every capture costs a pass over all of them and weighs ~0.
        weigh = "-1.0" if queries.dense([r[0] for r in newest]) else "bm25(capture_text)"
        candidates = self.db.execute(
            "SELECT h.rowid, h.score, c.captured_ts FROM ("
            f"  SELECT rowid, {weigh} AS score FROM capture_text"
            f"  WHERE capture_text MATCH ?{restrict} ORDER BY rowid DESC LIMIT ?"
            ") h JOIN captures c ON c.seq = h.rowid",
            [match, *params, queries.SEARCH_BOUND],
        ).fetchall()
        return queries.recency_ranked(
            ((r["rowid"], r["score"], r["captured_ts"]) for r in candidates),
            reference=now.timestamp(),
        )

    def _as_indexed(
        self, match: str, restrict: str, params: Sequence[Any], seen: Seen, want: int
    ) -> tuple[list[tuple[float, int]], dict[int, tuple[sqlite3.Connection, str]]]:
        """The first ``want`` matches, newest first, of the agents' index and
        of the captures not in it yet (made ``seen`` one by one), with where
        each one's snippet is cut from."""
        indexed = [
            (0.0, int(r[0]))
            for r in self.db.execute(
                f"SELECT rowid FROM agent_text WHERE agent_text MATCH ?{restrict}"
                " ORDER BY rowid DESC LIMIT ?",
                [match, *params, want],
            )
        ]
        # History's own text is looked at only while some capture waits to
        # be indexed: when none does, not even its index is asked.
        pending = self.db.execute("SELECT 1 FROM captures WHERE agent_indexed = 0 LIMIT 1")
        waiting = (
            [
                (0.0, int(r[0]))
                for r in self.db.execute(
                    "SELECT rowid FROM capture_text WHERE capture_text MATCH ?"
                    f" AND rowid IN (SELECT seq FROM captures WHERE agent_indexed = 0){restrict}"
                    " ORDER BY rowid DESC LIMIT ?",
                    [match, *params, queries.SEARCH_BOUND],
                )
            ]
            if pending.fetchone() is not None
            else []
        )
        where = {seq: (self.db, "agent_text") for _, seq in indexed}
        late: list[tuple[float, int]] = []
        if waiting:
            late, memory = self._as_seen(waiting, match, seen, want)
            where.update({seq: (memory, _SEEN_TABLE) for _, seq in late})
        ranked = sorted([*indexed, *late], key=lambda item: -item[1])[:want]
        return ranked, where

    def _as_seen(
        self, ranked: list[tuple[float, int]], match: str, seen: Seen, want: int
    ) -> tuple[list[tuple[float, int]], sqlite3.Connection]:
        """Of ``ranked``, in order, the first ``want`` whose text as ``seen``
        gives it still matches ``match``; and a database in memory holding
        that text, indexed as history's is, for their snippets."""
        memory = sqlite3.connect(":memory:")
        memory.execute(
            f"CREATE VIRTUAL TABLE {_SEEN_TABLE} USING fts5(ocr, ax, note, tokenize = "
            f"'{schema.FTS_TOKENIZE}')"
        )
        kept: list[tuple[float, int]] = []
        for start in range(0, len(ranked), _SEEN_CHUNK):
            chunk = ranked[start : start + _SEEN_CHUNK]
            marks = ",".join("?" * len(chunk))
            for record in self._records(f"c.seq IN ({marks})", [seq for _, seq in chunk]):
                text = seen(record)
                if text is not None:
                    memory.execute(
                        f"INSERT INTO {_SEEN_TABLE} (rowid, ocr, ax, note) VALUES (?, ?, ?, ?)",
                        (record.seq, *text),
                    )
            matched = {
                row[0]
                for row in memory.execute(
                    f"SELECT rowid FROM {_SEEN_TABLE} WHERE {_SEEN_TABLE} MATCH ?"
                    f" AND rowid IN ({marks})",
                    [match, *(seq for _, seq in chunk)],
                )
            }
            kept += [item for item in chunk if item[1] in matched]
            if len(kept) >= want:
                break
        return kept[:want], memory

    def present_values(self, *, most: int = 10) -> dict[str, list[str]]:
        """The apps, workspaces and displays history holds, for no-match
        steering; as the reader shows them (``show_sources_as``)."""
        view = self._view
        out: dict[str, list[str]] = {}
        with map_sqlite_errors("read source values"):
            for key, sql in (
                (
                    "apps",
                    "SELECT DISTINCT app_name, app_id FROM images"
                    " WHERE coalesce(app_name, app_id) IS NOT NULL",
                ),
                (
                    "workspaces",
                    "SELECT DISTINCT window_title, workspace_hint FROM images"
                    " WHERE workspace_hint IS NOT NULL",
                ),
                (
                    "displays",
                    "SELECT DISTINCT display_index, display_name FROM images"
                    " WHERE display_index IS NOT NULL",
                ),
            ):
                found: set[str] = set()
                for a, b in self.db.execute(sql):
                    value = _present(key, a, b, view)
                    if value is not None:
                        found.add(value)
                        if len(found) >= most:
                            break
                out[key] = sorted(found)
        return out


def _present(key: str, a: Any, b: Any, view: SourceView | None) -> str | None:
    """One value present, as ``view`` shows it: an app's name (else its id),
    a workspace hint (``a``: its window title), a display's index and name."""
    if key == "apps":
        name, app_id = (a, b) if view is None else (view.text(a), view.text(b))
        return name or app_id
    if key == "workspaces":
        return b if view is None else view.hint(a, b)
    name = b if view is None else view.text(b)
    return f"{a}" + (f" ({name})" if name else "")


class Reader(Reading):
    """Read-only access to the store: SQLite refuses any write on this connection."""

    @classmethod
    def open(cls, home: Path) -> Reader:
        """The history of ``home``; an empty one when there is none yet.

        ``StoreError`` when the database cannot be read (damaged, or newer).
        """
        try:
            check_data_dir(home)
        except DataDirError as exc:
            raise StoreError(str(exc)) from exc
        path = db_path(home)
        if not path.exists():
            return cls(home, open_empty())
        return cls(home, open_reader(path))
