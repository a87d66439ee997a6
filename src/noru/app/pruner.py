"""The app's retention thread: keeps the history within ``keep_days`` and ``max_disk``.

It reads the retention settings again at every run (``settings``: the
app's ``load_config``), so one the person changes with ``noru retention``
or the console applies at the next run without restarting the app: within
``EVERY`` seconds, or at the next capture (which looks whether config.toml
changed); ``min_free`` goes to the app's writer then too.

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
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from noru.app.chore import Chore
from noru.app.writer import Writer
from noru.config import Config
from noru.sizes import format_size
from noru.store import Reader, Store
from noru.store.writer import TIDY_AFTER

__all__ = ["Pruner"]

log = logging.getLogger("noru.app")

EVERY = 600.0  # seconds between age checks
BATCH = 100  # captures per delete transaction
PAUSE = 0.01  # seconds between batches: background work leaves the cores to others


class Pruner(Chore):
    what = "pruning"
    every = EVERY

    def __init__(self, home: Path, settings: Callable[[], Config], writer: Writer) -> None:
        super().__init__("noru-pruner")
        self.home = home
        self._settings = settings
        self._stamp = self._config_stamp()
        config = settings()
        self.keep_days = config.keep_days
        self.max_disk = config.max_disk
        self.min_free = config.min_free
        self._writer = writer
        self._estimate: int | None = None  # bytes on disk after the last run
        self._lock = threading.Lock()
        self._since_tidy = 0  # captures deleted since the search index was merged
        self.deleted = 0  # captures deleted since the app started

    @property
    def active(self) -> bool:
        return bool(self.keep_days or self.max_disk)

    def step(self) -> None:
        self.deleted += self.run_once()

    def _config_stamp(self) -> tuple[int, int] | None:
        try:
            info = (self.home / "config.toml").stat()
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size)

    def _reread(self) -> None:
        """The settings in force now (the person may have changed them)."""
        self._stamp = self._config_stamp()
        config = self._settings()
        changed = (config.keep_days, config.max_disk) != (self.keep_days, self.max_disk)
        self.keep_days, self.max_disk = config.keep_days, config.max_disk
        if changed:
            log.info(
                "retention now: keep_days %g, max_disk %s",
                self.keep_days,
                format_size(self.max_disk) if self.max_disk else "none",
            )
            with self._lock:
                self._estimate = None  # measured again by this run
        if config.min_free != self.min_free:
            self.min_free = config.min_free

            def room(store: Store, least: int = config.min_free) -> None:
                store.min_free = least

            self._writer.call(room)

    def added(self, size: int) -> None:
        """A capture of ``size`` image bytes was stored: prune soon if it may
        have taken the history over its budget, or if the settings changed."""
        if self._config_stamp() != self._stamp:
            self._wake.set()
            return
        with self._lock:
            if self._estimate is None:
                return
            self._estimate += size
            over = bool(self.max_disk) and self._estimate > self.max_disk
        if over:
            self._wake.set()

    def run_once(self, now: datetime | None = None) -> int:
        """Plan and prune now (or as at ``now``); returns how many captures went."""
        self._reread()
        if not self.active:
            return 0
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
