"""The app's one writer thread: every store write the app makes goes through it.

Other threads submit a function of the ``Store`` and may wait for its result.
SQLite also serialises against the person's own CLI commands, which write
from their own processes.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from noru.store import Store

__all__ = ["PAGE_CACHE", "Writer"]

log = logging.getLogger("noru.app")
T = TypeVar("T")

# KiB of the history's pages the app's writer keeps in memory, for as long as
# the app runs (SQLite's default is 2,000: filled within minutes of captures,
# and never handed back while the connection is open).
PAGE_CACHE = 512


class Writer:
    def __init__(self, home: Path, *, min_free: int = 0) -> None:
        self._jobs: queue.Queue[tuple[Callable[[Store], Any], Future[Any]] | None] = queue.Queue()
        # Opened here so that a bad store fails the start.
        self._store = Store.open(home, min_free=min_free)
        self._store.keep_pages(PAGE_CACHE)
        self._thread = threading.Thread(target=self._run, name="noru-writer", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[Store], T]) -> Future[T]:
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future

    def call(self, job: Callable[[Store], T], *, timeout: float = 60.0) -> T:
        return self.submit(job).result(timeout=timeout)

    def _run(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job(self._store))
            except BaseException as exc:  # the submitter decides; the thread goes on
                future.set_exception(exc)
        self._store.close()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=30)
