"""Searching history: ranked matches, and matches in what a searcher may see.

``Searching`` is the part of ``Reading`` that searches: history's own text
(``capture_text``) for the person, and for an agent the text as agents get
it, in agents' search index (``agent_text``, ``noru.redact.index``) where it
is up to date and made seen one capture at a time where it is not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from noru.store import queries, schema
from noru.store.connection import map_sqlite_errors
from noru.store.records import CaptureRecord, Filters, Row, SearchHit

__all__ = ["Searching", "Seen"]

# What a searcher may see of a capture: its (ocr, ax, note) text, or None.
Seen = Callable[[CaptureRecord], tuple[str, str, str] | None]
_SEEN_TABLE = "seen_text"
_SEEN_CHUNK = 50  # captures made "seen" at a time, until a page is full


class Searching:
    """Search over an open connection (``Reading`` gives the rest)."""

    db: sqlite3.Connection

    if TYPE_CHECKING:

        def count(self) -> int: ...

        def _filter_sql(self, filters: Filters) -> tuple[str, list[Any]]: ...

        def _records(
            self, where: str, params: Sequence[Any], tail: str = ""
        ) -> list[CaptureRecord]: ...

        def _rows(self, seqs: Sequence[int]) -> dict[int, Row]: ...

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
        with map_sqlite_errors("search captures"), self.snapshot():
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

    def search_count(self, query: str, filters: Filters, *, most: int = 500) -> int:
        """How many captures the person's ``search`` of ``query`` matches,
        counted up to ``most`` (``most + 1``: more than that); no snippet is cut."""
        match = queries.fts_query(query)
        if match is None:
            return 0
        where, params = self._filter_sql(filters)
        restrict = (
            "" if where == "1" else f" AND rowid IN (SELECT c.seq FROM captures c WHERE {where})"
        )
        with map_sqlite_errors("search captures"):
            row = self.db.execute(
                "SELECT count(*) FROM (SELECT rowid FROM capture_text"
                f" WHERE capture_text MATCH ?{restrict} LIMIT ?)",
                [match, *params, min(most, queries.SEARCH_BOUND) + 1],
            ).fetchone()
        return int(row[0])

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: the statements inside see the same history
        (a capture indexed for agents meanwhile is in one of its two parts;
        agents' index made again meanwhile is read under one policy)."""
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
