"""A window listing run beside a grab, on a thread of its own, started when
the backend says the pixels are on their way (``Capturer._beside_grab``)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Generic, TypeVar

__all__ = ["BesideGrab"]

T = TypeVar("T")


class BesideGrab(Generic[T]):
    """A window listing beside a grab (``Capturer._beside_grab``): run on
    ``pool`` from ``start`` on (``now``: at once, here, with no pool)."""

    def __init__(
        self, pool: ThreadPoolExecutor | None, listing: Callable[[], T], *, now: bool = False
    ) -> None:
        self._pool, self._listing = pool, listing
        self._running: Future[T] | None = None
        if now:
            done: Future[T] = Future()
            try:
                done.set_result(listing())
            except Exception as exc:  # raised where its result is asked for, as on a thread
                done.set_exception(exc)
            self._running = done

    def start(self) -> None:
        if self._running is None and self._pool is not None:
            self._running = self._pool.submit(self._listing)

    def result(self) -> T:
        self.start()  # a backend that did not say: now
        assert self._running is not None
        return self._running.result()

    def wait(self) -> None:
        if self._running is not None:
            wait([self._running])
