"""The SQL of reading history, built from typed filters: pure, no connection.

- ``filter_sql``: a WHERE clause (on ``captures c``) for source, origin and time filters;
  ``fact_sql``: the source facts it matches, as stored or as a reader shows them.
- ``fts_query``: the person's words as a literal FTS5 query.
- ``folded_words``: the words of a text as the index compares them (for marking hits).
- ``recency_ranked``: FTS matches ranked by relevance, weighed down by age.
- ``snippet_sql`` / ``pick_snippet``: which layer matched, and the words around it.
- ``encode_cursor`` / ``decode_cursor``: opaque page cursors.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from noru.store.records import Filters
from noru.store.schema import AGENT_FACTS

__all__ = [
    "RECENCY_HALF_LIFE_DAYS",
    "SEARCH_BOUND",
    "SEEN_HINT",
    "SEEN_TEXT",
    "SNIPPET_LAYERS",
    "decode_cursor",
    "dense",
    "encode_cursor",
    "fact_sql",
    "filter_sql",
    "folded_words",
    "fts_query",
    "pick_snippet",
    "recency_ranked",
    "snippet_sql",
]

# Search ranks at most this many of the most recently stored matches: a term
# found in nearly every capture stays fast, and the newest matches are the
# ones a person means. Narrow with since/before to reach older ones.
SEARCH_BOUND = 2000
# Recency weighs relevance down by half every this many days.
RECENCY_HALF_LIFE_DAYS = 30.0
# Display indices count from 1; no machine has more than this many.
MAX_DISPLAY = 64
# The columns of the capture_text FTS table, in order.
SNIPPET_LAYERS = ("ocr", "ax", "note")

# SQL functions a reader that shows source facts otherwise than stored
# defines: a name as shown, and a workspace hint given its window title.
SEEN_TEXT = "noru_seen_text"
SEEN_HINT = "noru_seen_hint"

_WORD = re.compile(r"\w+", re.UNICODE)
_HIT_START, _HIT_END = "\x02", "\x03"


def fts_query(text: str) -> str | None:
    """The person's words as a literal FTS5 query: every word, as typed, any order."""
    words = _WORD.findall(text)
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


def folded_words(text: str) -> set[str]:
    """The words of ``text`` as the index's tokenizer (unicode61,
    remove_diacritics 2) compares them: case and accents folded. A line
    matches a search when it holds one of the query's folded words."""
    bare = unicodedata.normalize("NFKD", text.casefold())
    return {
        "".join(ch for ch in word if not unicodedata.combining(ch)) for word in _WORD.findall(bare)
    }


def fact_sql(seen: str | None = None, *, indexed: str = "c.agent_indexed") -> dict[str, str]:
    """The SQL of each source fact a filter matches (``schema.AGENT_FACTS``),
    over ``images i`` (and ``captures c``): as stored (``seen`` None); as a
    reader shows them (``"computed"``: the SQL functions ``SEEN_TEXT`` and
    ``SEEN_HINT``, ``Reading.show_sources_as``); or as agents' index holds
    them where it holds the capture (``indexed``: whether it does), else
    computed (``"indexed"``)."""
    if seen is None:
        return {fact: f"i.{fact}" for fact in AGENT_FACTS}
    computed = {fact: f"{SEEN_TEXT}(i.{fact})" for fact in AGENT_FACTS if fact != "workspace_hint"}
    computed["workspace_hint"] = f"{SEEN_HINT}(i.window_title, i.workspace_hint)"
    if seen == "computed":
        return computed
    return {
        fact: f"(CASE WHEN {indexed} = 1 THEN i.agent_{fact} ELSE {sql} END)"
        for fact, sql in computed.items()
    }


def filter_sql(filters: Filters, *, seen: str | None = None) -> tuple[str, list[Any]]:
    """A WHERE clause over ``captures c`` (``"1"`` when nothing filters) and its parameters.

    String filters match case-insensitively as substrings of any image's
    source values; a display given as digits is an index. ``seen``: of the
    values as the reader shows them, never of those stored (``fact_sql``).
    """
    clauses: list[str] = []
    params: list[Any] = []
    image_clauses: list[str] = []
    fact = fact_sql(seen)
    if filters.app is not None:
        image_clauses.append(
            f"(instr(lower({fact['app_name']}), ?) > 0 OR instr(lower({fact['app_id']}), ?) > 0)"
        )
        params += [filters.app.lower()] * 2
    if filters.workspace is not None:
        image_clauses.append(f"instr(lower({fact['workspace_hint']}), ?) > 0")
        params.append(filters.workspace.lower())
    if filters.display is not None:
        display = filters.display
        if isinstance(display, str) and display.strip().isdigit():
            display = int(display.strip())
        if isinstance(display, int) and not 0 <= display <= MAX_DISPLAY:
            image_clauses.append("0")  # no display has that index
        elif isinstance(display, int):
            image_clauses.append("i.display_index = ?")
            params.append(display)
        else:
            image_clauses.append(f"instr(lower({fact['display_name']}), ?) > 0")
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


def dense(newest: Sequence[int]) -> bool:
    """Whether a search's newest ``SEARCH_BOUND`` matches (their seqs, newest
    first) lie in at most twice as many captures: its words are in at least
    half of recent history. Such a search is ranked by recency alone: bm25
    would first count every match in history (to weigh the words' rarity),
    and what it adds beyond that weight, how often each capture has the
    words and how long its text is, matters little for words this common."""
    return len(newest) == SEARCH_BOUND and newest[0] - newest[-1] < 2 * SEARCH_BOUND


def recency_ranked(
    candidates: Iterable[tuple[int, float, float]], *, reference: float
) -> list[tuple[float, int]]:
    """``(seq, bm25 score, captured_ts)`` as ``(score, seq)``, best first.

    bm25 is negative (lower is better); the score is its relevance halved for
    every ``RECENCY_HALF_LIFE_DAYS`` of age before ``reference``.
    """
    return sorted(
        (
            (-score * 0.5 ** (max(0.0, reference - ts) / 86400 / RECENCY_HALF_LIFE_DAYS), seq)
            for seq, score, ts in candidates
        ),
        reverse=True,
    )


def snippet_sql(table: str = "capture_text") -> str:
    """One row per layer column of ``table`` (history's text, or a searcher's
    view of it): its snippet with the hits marked, or NULL."""
    return (
        "SELECT "
        + ", ".join(
            f"snippet({table}, {col}, '{_HIT_START}', '{_HIT_END}', '…', 12)"
            for col in range(len(SNIPPET_LAYERS))
        )
        + f" FROM {table} WHERE {table} MATCH ? AND rowid = ?"
    )


def pick_snippet(row: Sequence[str | None] | None) -> tuple[str, str]:
    """The first layer whose snippet holds a hit, and the snippet with «hits» marked."""
    for layer, text in zip(SNIPPET_LAYERS, row or (), strict=False):
        if text and _HIT_START in text:
            clean = " ".join(text.split())
            return layer, clean.replace(_HIT_START, "«").replace(_HIT_END, "»")
    return "ocr", ""


def encode_cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, kind: str) -> dict[str, Any]:
    """The cursor's data if it is one of ours for listing ``kind``; ValueError otherwise."""
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, UnicodeEncodeError):
        raise ValueError("not a cursor from this server") from None
    if not isinstance(data, dict) or data.get("k") != kind:
        raise ValueError("not a cursor for this listing")
    return data
