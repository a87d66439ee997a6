"""The app's memory: reuse it while capturing, give it back when quiet.

One capture of a 2560x1600 display passes tens of MB of pixel buffers
through the allocator (the grab, the scaled image, the rows deflated into
PNGs). Left to its defaults, glibc hands most of that to the kernel and
takes it back for the next capture, page by page, faulting every page in
again; and it keeps the top of each thread's heap, so an idle app holds
what its busiest moment took. Two measures, from the app's start:

- ``tune_malloc()``: every thread allocates from glibc's main arena, never
  through a fresh mmap, and free() never shrinks the heap by itself. Back-to-
  back captures then reuse the same pages (no page faults at all).
- ``Trimmer``: once the app has been quiet for ``QUIET`` seconds after a
  capture (or captures have gone on for ``LONGEST`` seconds), ``malloc_trim(0)``
  returns every free page to the system. Ten seconds after an agent's look,
  not two: an agent reads what it got and looks again a few seconds later,
  and that look should find its pages still mapped. After the person's
  capture, ``SOON`` (two seconds): no one looks again at once.

The OCR process reads on two threads, each with its own arena. A screen's
buffers freed inside an arena stay mapped, under whatever was allocated
after them, until a trim; and glibc lets a thread arena's free top grow to
twice the largest buffer freed (tens of MB each), which malloc_trim cannot
shrink. ``tune_reader_malloc()`` maps each buffer of ``READER_MAPPED`` or
more on its own, so that it goes back to the system as it is freed (a
band's pixels, its masks, a screen's copy, and the smaller pieces cut
from them: reading 2560x1600 terminals, the most is about 75 MB less than
with glibc's own thresholds and what a trim leaves 35 MB less, for some
15-20 % more CPU time faulting them in), and gives back an arena's free top
past 8 MB at once. Smaller buffers stay in the arena, where they cost no
system call.

Where there is no glibc (macOS, musl) they do nothing.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

__all__ = [
    "LONGEST",
    "QUIET",
    "READER_MAPPED",
    "SOON",
    "QuietSpell",
    "Trimmer",
    "malloc_trim",
    "tune_malloc",
    "tune_reader_malloc",
]

# Buffers of this many bytes or more the OCR process maps on their own.
READER_MAPPED = 256 << 10
QUIET = 10.0  # seconds without a capture before memory is handed back
SOON = 2.0  # the same after a capture no agent waits for (the person's)
LONGEST = 30.0  # seconds of captures at most between two trims


# mallopt's parameter numbers, from glibc's malloc.h.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_MMAP_MAX = -4
M_ARENA_MAX = -8


def _glibc(name: str, *argtypes: type) -> Callable[..., int] | None:
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):  # no such C library (TypeError: Windows)
        return None
    function.argtypes = list(argtypes)
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


_MALLOC_TRIM = _glibc("malloc_trim", ctypes.c_size_t)
_MALLOPT = _glibc("mallopt", ctypes.c_int, ctypes.c_int)


def _arenas() -> int | None:
    """How many arenas glibc's allocator holds now (``malloc_info``'s
    heaps: the main one, and one for each thread that allocated until the
    limit); None where it cannot tell."""
    try:
        libc = ctypes.CDLL(None)
        memstream, info = libc.open_memstream, libc.malloc_info
        fclose, free = libc.fclose, libc.free
    except (OSError, AttributeError, TypeError):
        return None
    memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    memstream.restype = ctypes.c_void_p
    info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    fclose.argtypes = [ctypes.c_void_p]
    free.argtypes = [ctypes.c_void_p]
    text, size = ctypes.c_void_p(), ctypes.c_size_t()
    stream = memstream(ctypes.byref(text), ctypes.byref(size))
    if not stream:
        return None
    said = info(0, stream)
    fclose(stream)  # sets text and size
    try:
        return ctypes.string_at(text, size.value).count(b"<heap nr=") if said == 0 else None
    finally:
        free(text)


def tune_malloc() -> bool:
    """Set glibc's allocator up for the app (see above); False where unsupported.

    Only before any thread has allocated: a thread that has keeps its arena
    (and one that ended leaves it to the next thread), out of reach of the
    one-arena setting. ``RuntimeError`` when glibc already holds an arena
    other than the main one, so that a start-up reordered around it fails
    where it is run rather than leaving the app's memory silently untuned.
    """
    if _MALLOPT is None:
        return False
    arenas = _arenas()
    if arenas is not None and arenas > 1:
        raise RuntimeError(
            f"tune_malloc() after a thread allocated ({arenas} malloc arenas): call it first"
        )
    settings = (
        (M_ARENA_MAX, 1),  # one arena, so that malloc_trim reaches every free page
        (M_MMAP_MAX, 0),  # no mmap per large buffer: the heap's pages are reused
        (M_TRIM_THRESHOLD, 1 << 30),  # free() leaves the heap alone; the Trimmer trims
    )
    return all(_MALLOPT(parameter, value) == 1 for parameter, value in settings)


def tune_reader_malloc() -> bool:
    """Set glibc's allocator up for the OCR process (see above); False where
    unsupported. Fixed values also end glibc's own raising of both."""
    if _MALLOPT is None:
        return False
    settings = (
        (M_MMAP_THRESHOLD, READER_MAPPED),  # handed back as freed, not kept in an arena
        (M_TRIM_THRESHOLD, 8 << 20),  # an arena's free top past this goes back
    )
    return all(_MALLOPT(parameter, value) == 1 for parameter, value in settings)


def malloc_trim() -> bool:
    """Return free heap pages to the system; False where the C library cannot."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


class QuietSpell:
    """When to trim, as a rule over moments (seconds on any one clock).

    The Trimmer's thread follows it; it is kept apart from the thread so that
    the rule can be checked at chosen moments instead of by sleeping.
    """

    def __init__(self, quiet: float, longest: float) -> None:
        self.quiet = quiet
        self.longest = longest
        self._first: float | None = None  # end of the oldest capture not yet trimmed
        self._last: float | None = None  # end of the newest one
        self._until: float | None = None  # when the quiet spell ends

    def busy(self, now: float, quiet: float | None = None) -> None:
        """A capture ended at ``now``; the spell is ``quiet`` seconds after it
        (``self.quiet`` unless given), or longer if an earlier one said so."""
        self._last = now
        if self._first is None:
            self._first = now
        until = now + (self.quiet if quiet is None else quiet)
        self._until = until if self._until is None else max(self._until, until)

    def due(self, now: float) -> float | None:
        """Seconds from ``now`` until the next trim (0 or less: trim now), or
        None while no capture waits for one."""
        if self._last is None or self._first is None:
            return None
        if self._last - self._first >= self.longest:
            return 0.0
        return (self._until or self._last + self.quiet) - now

    def trimmed(self) -> None:
        """The trim is done: the next one waits for the next capture."""
        self._first = self._last = self._until = None


class Trimmer:
    """Calls ``malloc_trim`` once the app has been quiet for ``quiet`` seconds.

    ``busy()`` marks the end of a capture. An agent that keeps capturing
    more often than that would hold the app at its working size for as long
    as it goes on, so after ``longest`` seconds of captures without a trim,
    the next capture's end is followed by one anyway (the capture after it
    faults its pages in again: one slower capture in that many seconds).
    The thread sleeps on a condition while nothing happens, so an idle app
    spends no CPU here. ``trim`` is what trimming calls (tests pass their own
    to see each trim as it happens).
    """

    def __init__(
        self,
        quiet: float = QUIET,
        longest: float = LONGEST,
        *,
        trim: Callable[[], bool] = malloc_trim,
    ) -> None:
        self.trims = 0  # trims that returned memory (trim() answered True)
        self._spell = QuietSpell(quiet, longest)
        self._trim = trim
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="noru-trim", daemon=True)
        self._thread.start()

    def busy(self, quiet: float | None = None) -> None:
        """A capture ended: trim after ``quiet`` seconds of quiet (``QUIET``
        unless given; ``SOON`` after one no agent waits for)."""
        with self._cond:
            self._spell.busy(time.monotonic(), quiet)
            self._cond.notify()

    def _run(self) -> None:
        while self._wait_for_trim():
            if self._trim():
                self.trims += 1

    def _wait_for_trim(self) -> bool:
        """Block until the quiet spell says a trim is due; False once closed."""
        with self._cond:
            while not self._closed:
                left = self._spell.due(time.monotonic())
                if left is None:
                    self._cond.wait()
                elif left <= 0:
                    self._spell.trimmed()
                    return True
                else:
                    self._cond.wait(left)
            return False

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=5)
