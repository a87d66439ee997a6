"""A background thread of the app that runs one job again and again: the
pruner (retention) and the indexer (agents' search index) are two.

It runs at its start, then each time it is woken (``wake``; after
``settle`` seconds, so that wakes that come meanwhile are one run) or
``every`` seconds, until it is closed. A run that fails is said in the log
(a damaged store, a stuck writer: a warning; a bug: its trace) and the
next run tries again; it sleeps on an event in between, so an idle app
spends nothing here.
"""

from __future__ import annotations

import logging
import threading

from noru.errors import NoruError

__all__ = ["Chore"]

log = logging.getLogger("noru.app")


class Chore:
    """``step`` is the job; ``what`` names it in the log ("pruning")."""

    what = "a background job"
    every: float | None = None  # seconds between runs when not woken; None: only woken
    settle = 0.0  # seconds a run waits after it is woken

    def __init__(self, thread_name: str) -> None:
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.runs = 0  # completed runs (for status and tests)
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)

    def step(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        first = True  # the run at the start: nothing to wait for first
        while True:
            if not first:
                self._wake.wait(self.every)
            if self._stop.wait(0 if first else self.settle):
                return
            first = False
            self._wake.clear()
            try:
                self.step()
            except (NoruError, TimeoutError) as exc:  # a damaged store, a stuck writer: later
                log.warning("%s failed: %s", self.what, exc)
            except Exception:  # a bug: said, and the next run tries again
                log.exception("%s failed", self.what)
            self.runs += 1

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
