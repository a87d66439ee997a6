"""The app's thread that keeps agents' search index up to date (``noru.redact.index``).

It runs when the app starts, and again whenever a capture is stored or its
text has settled (``wake``), a second later (``SETTLE``: the agent's answer
first). Each run indexes, newest first, every capture whose text as agents
get it is not indexed yet, a batch per writer job, so a capture taken
meanwhile waits for one batch at most; then, if ``redact_at_rest`` replaced
text stored before it was on, the search index is rewritten whole, so none
of that text's terms is left in it. A run under another redaction policy
than the index's (the person changed ``redact`` or their patterns) drops
the index and makes it again. It is a ``Chore``: it sleeps on an event in
between.
"""

from __future__ import annotations

from collections.abc import Callable

from noru.app.chore import Chore
from noru.app.writer import Writer
from noru.config import Config
from noru.redact import index
from noru.store import Store

__all__ = ["Indexer"]

PAUSE = 0.01  # seconds between batches: background work leaves the cores to others
# Seconds a run waits after it is woken: the agent who asked for the capture
# is being answered then, on the same cores (and wakes that come meanwhile
# are one run).
SETTLE = 1.0


class Indexer(Chore):
    """Woken when a capture's text changed (or settled): indexes what is not indexed."""

    what = "indexing for agents' searches"
    settle = SETTLE

    def __init__(self, settings: Callable[[], Config], writer: Writer) -> None:
        super().__init__("noru-index")
        self._settings = settings
        self._writer = writer
        self.indexed = 0  # captures indexed since the app started

    def step(self) -> None:
        self.indexed += self.run_once()

    def run_once(self) -> int:
        """Index everything not indexed yet; returns how many captures were."""
        categories = tuple(self._settings().redact)
        done = 0
        while not self._stop.is_set():

            def batch(store: Store) -> int:
                return index.refresh(store, categories, most=index.BATCH)

            indexed = self._writer.call(batch)
            done += indexed
            if indexed < index.BATCH or self._stop.wait(PAUSE):
                break
        self._writer.call(_scrub)
        return done


def _scrub(store: Store) -> None:
    """With ``redact_at_rest``, text stored before it was on and rewritten
    since (a capture taken earlier, read now) leaves its old terms in the
    search index's segments: the index is rewritten whole (``Store.scrub_search``)."""
    if store.scrub_due:
        store.scrub_search()
