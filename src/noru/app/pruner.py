"""The app's retention thread: keeps the history within ``keep_days`` and ``max_disk``.

It plans on its own read-only connection and deletes through the app's one
writer, a batch per job, so a capture taken meanwhile waits for one batch at
most. It runs at start, every ``EVERY`` seconds (for age), and soon after a
capture that may have crossed the budget (the app tells it each capture's
size; it re-measures only when its running estimate crosses the budget).
Between batches it pauses a moment: it is background work, and agents'
reads and the next capture share the same cores.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from pathlib import Path

from noru.app.writer import Writer
from noru.config import Config
from noru.errors import NoruError
from noru.sizes import format_size
from noru.store import Reader, Store
from noru.store.writer import TIDY_AFTER

__all__ = ["Pruner"]

log = logging.getLogger("noru.app")

EVERY = 600.0  # seconds between age checks
BATCH = 100  # captures per delete transaction
PAUSE = 0.01  # seconds between batches: background work leaves the cores to others


class Pruner:
    def __init__(self, home: Path, config: Config, writer: Writer) -> None:
        self.home = home
        self.keep_days = config.keep_days
        self.max_disk = config.max_disk
        self._writer = writer
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._estimate: int | None = None  # bytes on disk after the last run
        self._lock = threading.Lock()
        self._since_tidy = 0  # captures deleted since the search index was merged
        self.runs = 0  # completed runs (for status and tests)
        self.deleted = 0  # captures deleted since the app started
        self._thread = threading.Thread(target=self._run, name="noru-pruner", daemon=True)

    @property
    def active(self) -> bool:
        return bool(self.keep_days or self.max_disk)

    def start(self) -> None:
        if self.active:
            self._thread.start()

    def added(self, size: int) -> None:
        """A capture of ``size`` image bytes was stored: prune soon if it may
        have taken the history over its budget."""
        with self._lock:
            if self._estimate is None:
                return
            self._estimate += size
            over = bool(self.max_disk) and self._estimate > self.max_disk
        if over:
            self._wake.set()

    def run_once(self, now: datetime | None = None) -> int:
        """Plan and prune now (or as at ``now``); returns how many captures went."""
        with Reader.open(self.home) as reader:
            plan = reader.prune_plan(keep_days=self.keep_days, max_disk=self.max_disk, now=now)
        deleted = 0
        pairs = [(doomed.seq, doomed.id) for doomed in plan.doomed]
        for first in range(0, len(pairs), BATCH):
            if first and self._stop.wait(PAUSE):
                break
            batch = pairs[first : first + BATCH]

            def job(store: Store, batch: list[tuple[int, str]] = batch) -> int:
                return store.delete_captures(batch, unkept_only=True)

            deleted += self._writer.call(job)
        # Deleting leaves delete markers in the search index: merged once
        # enough have gone, in one large prune or many small ones.
        self._since_tidy += deleted
        if self._since_tidy >= TIDY_AFTER:

            def tidy(store: Store) -> bool:
                return store.tidy_search()

            while not self._stop.wait(PAUSE) and self._writer.call(tidy):
                pass
            self._since_tidy = 0
        with self._lock:
            # Over a budget that deleting cannot meet, a capture is no reason
            # to look again before the next timed run.
            self._estimate = None if plan.unreachable else plan.after
        if deleted:
            log.info(
                "pruned %d captures (%s of images) for keep_days/max_disk; %s on disk now",
                deleted,
                format_size(plan.frees),
                format_size(plan.after),
            )
        if plan.unreachable:
            log.warning(
                "the history is over its budget (%s of %s): what is left is kept forever",
                format_size(plan.after),
                format_size(self.max_disk),
            )
        return deleted

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.deleted += self.run_once()
            except (NoruError, TimeoutError) as exc:  # a damaged store, a stuck writer: later
                log.warning("pruning failed: %s", exc)
            except Exception:  # a bug: said, and the next run tries again
                log.exception("pruning failed")
            self.runs += 1
            self._wake.wait(EVERY)
            self._wake.clear()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
