"""Handing the memory of finished captures back to the system when the app is quiet.

One capture of a 2560x1600 display passes some 60 MB of pixel buffers
through the allocator (the grab, the RGB image, the scaled image, the rows
deflated into PNGs). glibc keeps what was freed for the next allocation,
which makes back-to-back captures fast, but it would also keep an idle app
at 120-170 MB for as long as it runs. Two measures, both from the app's
start (docs/performance.md has the figures):

- ``one_arena()``: every thread allocates from glibc's main arena. With an
  arena per thread, each thread that touched a capture keeps the top of its
  own heap (20-30 MB), which not even ``malloc_trim`` gives back.
- ``Trimmer``: once the app has been quiet for ``QUIET`` seconds after a
  capture, ``malloc_trim(0)`` returns the free pages to the system.

Where there is no glibc (macOS, musl) both do nothing.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["QUIET", "Trimmer", "malloc_trim", "one_arena"]

log = logging.getLogger("noru.app")

QUIET = 2.0  # seconds without a capture before memory is handed back


M_ARENA_MAX = -8  # mallopt's parameter number, from glibc's malloc.h


def _glibc(name: str, *argtypes: type) -> Callable[..., int] | None:
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


_MALLOC_TRIM = _glibc("malloc_trim", ctypes.c_size_t)
_MALLOPT = _glibc("mallopt", ctypes.c_int, ctypes.c_int)


def one_arena() -> bool:
    """Make threads started from now on share the main arena; False if unsupported."""
    return _MALLOPT is not None and _MALLOPT(M_ARENA_MAX, 1) == 1


def malloc_trim() -> bool:
    """Return free heap pages to the system; False where the C library cannot."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


class Trimmer:
    """Calls ``malloc_trim`` once the app has been quiet for ``quiet`` seconds.

    ``busy()`` marks the end of a capture. The thread sleeps on a condition
    while nothing happens, so an idle app spends no CPU here.
    """

    def __init__(self, quiet: float = QUIET) -> None:
        self.quiet = quiet
        self.trims = 0
        self._last: float | None = None  # end of the newest capture not yet trimmed
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="noru-trim", daemon=True)
        self._thread.start()

    def busy(self) -> None:
        with self._cond:
            self._last = time.monotonic()
            self._cond.notify()

    def _run(self) -> None:
        while self._wait_for_quiet():
            if malloc_trim():
                self.trims += 1

    def _wait_for_quiet(self) -> bool:
        """Block until a capture has been followed by ``quiet`` seconds of none."""
        with self._cond:
            while not self._closed:
                if self._last is None:
                    self._cond.wait()
                    continue
                left = self._last + self.quiet - time.monotonic()
                if left <= 0:
                    self._last = None
                    return True
                self._cond.wait(left)
            return False

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=5)
