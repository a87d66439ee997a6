"""Reading history: captures by id or position, locator rows, values present.

``Reading`` holds every read (its searches are ``search.Searching``'s),
shared by the read-only ``Reader`` (what ``noru mcp`` and the person's read
commands use) and the writer ``Store``.
``Reader.open`` always gives a reader: a data dir with no history yet is read
as an empty history (a migrated database in memory), so callers never branch
on "no database".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from noru.errors import DataDirError, StoreError
from noru.paths import check_data_dir, db_path, held_dir, images_dir
from noru.sources import SHOWS, Source
from noru.store import files, queries, retention, schema
from noru.store.codec import ax_from_json, lines_from_json, rect_from_json, windows_from_json
from noru.store.connection import map_sqlite_errors, open_empty, open_reader
from noru.store.records import CaptureRecord, Filters, ImageRecord, Row, SourceView
from noru.store.schema import AGENT_FACTS
from noru.store.search import Searching, Seen
from noru.times import parse_utc

__all__ = ["Reader", "Reading", "Seen"]


_SOURCE_FIELDS = tuple(f.name for f in fields(Source))


def _source(row: sqlite3.Row) -> Source:
    # The images table names its source columns as Source names its fields.
    facts = {name: row[name] for name in _SOURCE_FIELDS}
    if facts["shows"] not in SHOWS:  # a word this version does not know: not recorded
        facts["shows"] = None
    return Source(**facts)


class Reading(Searching):
    """Every read of the store, over an open connection."""

    def __init__(self, home: Path, db: sqlite3.Connection) -> None:
        self.home = home
        self.db = db
        self.images_root = images_dir(home)
        # Which columns this database has, by the migrations applied to it.
        done = schema.applied(self.db)
        self._captures = schema.select_list(done, "captures", "c")
        self._images_columns = schema.select_list(done, "images", "i")
        self._shows_column = schema.select_list(done, "images", "i", ("shows",))
        self._view: SourceView | None = None
        self._seen: str | None = None  # how filters read source facts (queries.fact_sql)

    def show_sources_as(self, view: SourceView | None, *, indexed: str | None = None) -> None:
        """Show every source fact as ``view`` gives it (an agent's reader:
        redacted, ``noru.redact.facts``): in locator rows, in the values
        present, and in what filters match, so that no filter matches a
        value the reader does not show. ``indexed``: the fingerprint of the
        policy ``view`` is made by; while agents' index was made under it,
        the facts it holds (``agent_*``) are read from it, and only those of
        the captures not in it yet are made by ``view`` one by one. ``get``
        and ``nth`` still give the capture as stored: serving it redacts it
        whole."""
        self._view = view
        self._seen = None
        if view is None:
            return
        self.db.create_function(queries.SEEN_TEXT, 1, view.text, deterministic=True)
        self.db.create_function(queries.SEEN_HINT, 2, view.hint, deterministic=True)
        stored = "0008_agent_sources" in schema.applied(self.db)
        held = stored and indexed is not None and self.agents_fingerprint() == indexed
        self._seen = "indexed" if held else "computed"

    def _filter_sql(self, filters: Filters) -> tuple[str, list[Any]]:
        return queries.filter_sql(filters, seen=self._seen)

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
                    screen_rect=rect_from_json(r["screen_rect"]),
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

    def ocr_state(self, capture_id: str) -> str | None:
        """A capture's OCR state (``pending``, ``done``, ``failed``) alone,
        without reading its record; None when there is no such capture."""
        with map_sqlite_errors("read a capture"):
            row = self.db.execute(
                "SELECT ocr_state FROM captures WHERE id = ?", (capture_id,)
            ).fetchone()
        return None if row is None else str(row["ocr_state"])

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
            f" i.workspace_hint, {self._shows_column}"
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

    def present_values(self, *, most: int = 10) -> dict[str, list[str]]:
        """The apps, workspaces and displays history holds, for no-match
        steering; as the reader shows them (``show_sources_as``)."""
        # Each distinct stored combination is shown once (a view's functions
        # are Python calls): the inner DISTINCT runs in SQLite alone.
        fact = queries.fact_sql(self._seen, indexed="agent_indexed")
        indexed = "c.agent_indexed" if self._seen == "indexed" else "0"
        out: dict[str, list[str]] = {}
        with map_sqlite_errors("read source values"):
            for key, value, columns in (
                ("apps", f"coalesce({fact['app_name']}, {fact['app_id']})", ("app_name", "app_id")),
                ("workspaces", fact["workspace_hint"], ("window_title", "workspace_hint")),
                (
                    "displays",
                    "CASE WHEN i.display_index IS NOT NULL THEN CAST(i.display_index AS TEXT)"
                    f" || coalesce(' (' || {fact['display_name']} || ')', '') END",
                    ("display_index", "display_name"),
                ),
            ):
                stored = [f"i.{column}" for column in columns]
                if self._seen == "indexed":
                    stored += [f"i.agent_{column}" for column in columns if column in AGENT_FACTS]
                rows = self.db.execute(
                    f"SELECT DISTINCT v FROM (SELECT {value} AS v FROM ("
                    f"  SELECT DISTINCT {', '.join(stored)}, {indexed} AS agent_indexed"
                    "   FROM images i JOIN captures c ON c.seq = i.capture_seq) i"
                    ") WHERE v IS NOT NULL LIMIT ?",
                    (most,),
                )
                out[key] = sorted(r["v"] for r in rows)
        return out


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
