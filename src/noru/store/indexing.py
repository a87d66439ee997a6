"""Keeping history's search indexes: merging, scrubbing, agents' index.

``Indexing`` is the part of the writer ``Store`` that keeps the full-text
indexes: merging them after deletes (``tidy_search``), rewriting history's
whole (``scrub_search``), and making agents' index (``index_for_agents``,
``noru.redact.index``); ``unindex`` takes a capture whose text changed out
of agents' index, in the writer's transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from noru.sources import Source
from noru.store.connection import map_sqlite_errors
from noru.store.reader import Reading, Seen
from noru.store.schema import AGENT_FACTS

__all__ = ["Indexing", "unindex"]

_AGENT_SET = ", ".join(f"agent_{fact} = ?" for fact in AGENT_FACTS)


class Indexing(Reading):
    """Index upkeep over the writer's connection (``Store`` gives the rest)."""

    # Text rewritten since the search index was last rewritten whole: its old
    # terms are still in the index's segments (``rewrite``, ``scrub_search``).
    scrub_due = False

    if TYPE_CHECKING:

        def _transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

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
        sources: Callable[[Source], Source],
        ids: Sequence[str] | None = None,
        most: int,
    ) -> int:
        """Index, for agents' searches, up to ``most`` captures (of ``ids``,
        or any) whose text as agents get it is not indexed yet: ``seen`` gives
        it (``noru.redact.index``), under the policy ``fingerprint`` names;
        ``sources``, each image's source facts as agents get them, kept beside
        (``agent_*``: what agents' filters match).
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
                for image in record.images:
                    source = sources(image.source)
                    db.execute(
                        f"UPDATE images SET {_AGENT_SET} WHERE capture_seq = ? AND position = ?",
                        (*(getattr(source, f) for f in AGENT_FACTS), record.seq, image.position),
                    )
                db.execute("UPDATE captures SET agent_indexed = 1 WHERE seq = ?", (record.seq,))
            return len(records)


def unindex(db: sqlite3.Connection, seqs: Sequence[int]) -> None:
    """These captures' text changed: their text as agents get it is to be
    indexed again (``Store.index_for_agents``); until then agents' searches
    read them the slow way (``Reading.search``)."""
    marks = ",".join("?" * len(seqs))
    db.execute(f"DELETE FROM agent_text WHERE rowid IN ({marks})", list(seqs))
    db.execute(f"UPDATE captures SET agent_indexed = 0 WHERE seq IN ({marks})", list(seqs))
