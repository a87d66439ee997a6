"""The capture store: SQLite (WAL, FTS5) plus lossless image files.

One writer, many read-only readers (like datasette's database.py). The parts:

- ``schema``: named migrations, and the only place that knows which column
  came with which migration;
- ``connection``: opening SQLite for writing, read-only, or as an empty
  history; SQLite's exceptions become ``StoreError`` here;
- ``queries``: filter SQL, the literal FTS query, ranking, snippets, cursors;
- ``reader``: every read (``Reading``) and the read-only ``Reader``;
- ``search``: ranked search, and search in what a searcher may see (``Searching``);
- ``writer``: the ``Store``, which migrates and writes; ``indexing``: its
  upkeep of the search indexes (``Indexing``), agents' index among them;
  ``removal``: deletes and pruning (``Removing``);
- ``files``: the image files; ``records``: the typed records; ``codec``: JSON columns.

This module only re-exports, and ``Store`` only when it is asked for: a
process that only reads history (the app's OCR process) loads neither
``writer`` nor its upkeep (``indexing``, ``removal``).
"""

from typing import TYPE_CHECKING, Any

from noru.store import records
from noru.store.connection import map_sqlite_errors
from noru.store.queries import (
    SEARCH_BOUND,
    decode_cursor,
    encode_cursor,
    folded_words,
    fts_query,
)
from noru.store.reader import Reader
from noru.store.records import *  # noqa: F403  (the typed records: records.__all__)

if TYPE_CHECKING:
    from noru.store.writer import Store

__all__ = [
    "SEARCH_BOUND",
    "Reader",
    "Store",
    "decode_cursor",
    "encode_cursor",
    "folded_words",
    "fts_query",
    "map_sqlite_errors",
]
__all__ += records.__all__


def __getattr__(name: str) -> Any:
    """``Store``, imported when it is first asked for (PEP 562)."""
    if name == "Store":
        from noru.store.writer import Store

        return Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
