"""The app hands the memory of finished captures back once it is quiet."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from noru.app.memory import QuietSpell, Trimmer, malloc_trim
from noru.app.writer import PAGE_CACHE, Writer
from tests.history_data import bulk
from tests.parts import require
from tests.sqlite_memory import sqlite_memory

# What the scripts below run in a process of their own start with: its RSS in MB.
_RSS = textwrap.dedent(
    """
    from pathlib import Path

    def rss():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    """
)

# Threads allocate and free capture-sized buffers, as the app's connection
# and encode threads do; then the process trims and reports its RSS in MB.
_SCRIPT = _RSS + textwrap.dedent(
    """
    import threading
    from noru.app.memory import malloc_trim, tune_malloc

    assert tune_malloc()
    before = rss()

    def work():
        for size in (16, 12, 10, 6, 16, 12):
            buffer = bytearray(size << 20)
            del buffer
            rows = [bytearray(1 << 20) for _ in range(8)]
            del rows

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert malloc_trim()
    print(before, rss())
    """
)


def glibc() -> None:
    require(malloc_trim(), "glibc's malloc_trim (these tests are about glibc's allocator)")


def test_with_malloc_tuned_a_trim_gives_back_what_threads_freed() -> None:
    glibc()
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    before, after = map(int, done.stdout.split())
    # Some 200 MB passed through three threads; what stays is a few MB at most.
    assert after - before <= 8, done.stdout


_REUSE = textwrap.dedent(
    """
    import resource
    import threading
    from noru.app.memory import tune_malloc

    assert tune_malloc()

    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    def capture():  # buffers the size of one 2560x1600 capture's, written
        for size in (16_384_000, 12_288_000, 10_035_200, 6_146_560):
            buffer = bytearray(size)
            del buffer

    def in_a_thread():  # as the app's socket server runs each request
        thread = threading.Thread(target=capture)
        thread.start()
        thread.join()

    in_a_thread()
    before = faults()
    for _ in range(5):
        in_a_thread()
    print(faults() - before)
    """
)


def test_with_malloc_tuned_the_next_capture_reuses_the_pages_of_the_last() -> None:
    glibc()
    done = subprocess.run(
        [sys.executable, "-c", _REUSE], capture_output=True, text=True, timeout=60, check=True
    )
    # Untuned, glibc gives some of these pages back on free and faults them in
    # again on the next capture (about 200 faults a capture here; 7,700 in the
    # app with its mix of threads and sizes). Tuned, the heap's pages are reused.
    assert int(done.stdout) < 100, done.stdout


# A thread allocates and ends before the allocator is tuned: its arena stays
# (the next thread takes it), out of reach of the one-arena setting.
_LATE = textwrap.dedent(
    """
    import threading
    from noru.app.memory import tune_malloc

    def work():
        rows = [bytearray(4096) for _ in range(64)]
        del rows

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    try:
        tune_malloc()
    except RuntimeError as exc:
        print(exc)
    """
)


def test_tuning_malloc_after_a_thread_allocated_is_refused_saying_so() -> None:
    glibc()
    done = subprocess.run(
        [sys.executable, "-c", _LATE], capture_output=True, text=True, timeout=60, check=True
    )
    assert "tune_malloc() after a thread allocated" in done.stdout, done.stdout


def test_the_apps_writer_keeps_few_of_the_historys_pages_in_memory(home: Path) -> None:
    # The writer stays open for as long as the app runs: SQLite's own page
    # cache (about 2 MB) would fill with the history's pages and stay.
    require(sqlite_memory() is not None, "SQLite's count of its memory (libsqlite3 by name)")
    bulk(home, [f"capture {n}: " + "words on the screen " * 100 for n in range(2000)])
    writer = Writer(home)
    try:
        before = sqlite_memory()
        read = writer.call(
            lambda store: store.db.execute("SELECT sum(length(ocr)) FROM capture_text").fetchone()
        )
        grown = (sqlite_memory() or 0) - (before or 0)
    finally:
        writer.close()
    assert read[0] > 4_000_000  # every page of the text read, twice SQLite's own cache
    assert grown < (PAGE_CACHE + 128) * 1024, grown


# --- when the trimmer trims: the rule at chosen moments, then the thread ---


def test_nothing_is_due_before_the_first_capture() -> None:
    spell = QuietSpell(quiet=2, longest=30)
    assert spell.due(0) is None
    assert spell.due(1_000_000) is None  # however long the app has been idle


def test_a_trim_is_due_one_quiet_spell_after_the_last_capture() -> None:
    spell = QuietSpell(quiet=2, longest=30)
    spell.busy(10)
    assert spell.due(10) == 2
    assert spell.due(11.5) == 0.5
    assert spell.due(12) == 0


def test_each_capture_starts_the_quiet_spell_again() -> None:
    spell = QuietSpell(quiet=2, longest=30)
    for moment in (0, 1, 1.5):
        spell.busy(moment)
    assert spell.due(3) == 0.5  # two seconds after the first would be too soon
    assert spell.due(3.5) == 0


def test_a_capture_no_agent_waits_for_is_trimmed_after_a_shorter_spell() -> None:
    """The person's capture: no one looks again at once, so its buffers go
    sooner; an agent's spell already running is not cut short by it."""
    spell = QuietSpell(quiet=10, longest=30)
    spell.busy(0, quiet=2)
    assert spell.due(0) == 2
    spell.trimmed()
    spell.busy(10)  # an agent's look: ten seconds
    spell.busy(11, quiet=2)  # the person's capture just after
    assert spell.due(11) == 9


def test_after_a_trim_nothing_is_due_until_the_next_capture() -> None:
    spell = QuietSpell(quiet=2, longest=30)
    spell.busy(0)
    assert spell.due(5) == -3  # overdue: the thread trims at once
    spell.trimmed()
    assert spell.due(5) is None and spell.due(500) is None  # one trim per quiet spell
    spell.busy(500)
    assert spell.due(500) == 2


def test_captures_that_never_pause_are_trimmed_every_longest_seconds() -> None:
    spell = QuietSpell(quiet=60, longest=30)
    for moment in range(30):  # a capture every second, never 60 s quiet
        spell.busy(moment)
        assert spell.due(moment) == 60, moment
    spell.busy(30)
    assert spell.due(30) == 0  # 30 s of captures: trim now, quiet or not
    spell.trimmed()
    spell.busy(31)
    assert spell.due(31) == 60  # the next run of captures counts from its own start


class Trims:
    """A stand-in for malloc_trim that records each call and can be waited on."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.calls = 0
        self.called = threading.Event()

    def __call__(self) -> bool:
        self.calls += 1
        self.called.set()
        return self.answer


def test_the_trimmers_thread_trims_once_when_the_captures_are_quiet() -> None:
    trims = Trims()
    trimmer = Trimmer(quiet=0, trim=trims)
    try:
        trimmer.busy()
        assert trims.called.wait(timeout=30), "no trim after a capture"
    finally:
        trimmer.close()
    assert trims.calls == 1 and trimmer.trims == 1


def test_a_trimmer_that_saw_no_capture_never_trims() -> None:
    trims = Trims()
    trimmer = Trimmer(quiet=0, trim=trims)
    trimmer.close()
    assert not trimmer._thread.is_alive()
    assert trims.calls == 0


def test_closing_the_trimmer_stops_its_thread_with_a_trim_still_pending() -> None:
    trims = Trims()
    trimmer = Trimmer(quiet=60, trim=trims)
    trimmer.busy()
    trimmer.close()
    assert not trimmer._thread.is_alive()
    assert trims.calls == 0


def test_a_trim_the_c_library_cannot_do_is_not_counted() -> None:
    trims = Trims(answer=False)  # as where there is no glibc
    trimmer = Trimmer(quiet=0, trim=trims)
    try:
        trimmer.busy()
        assert trims.called.wait(timeout=30), "no trim after a capture"
    finally:
        trimmer.close()
    assert trimmer.trims == 0


# Two threads that stay alive (as the OCR process's reading threads do) pass
# screen-sized buffers through their own arenas; the main thread trims while
# they wait. Argument "tuned": the OCR process's settings first.
_READERS = _RSS + textwrap.dedent(
    """
    import sys
    import threading
    from noru.app.memory import malloc_trim, tune_reader_malloc

    if sys.argv[1] == "tuned":
        assert tune_reader_malloc()
    # Freeing one large mapped buffer raises glibc's own thresholds, as the
    # engine's first screen does.
    big = bytearray(12 << 20)
    del big
    before = rss()
    read, trimmed = threading.Barrier(3), threading.Event()

    def reader():
        for size in (12, 4, 9, 3, 12, 6):
            buffer = bytearray(size << 20)
            rows = [bytearray(200_000) for _ in range(20)]
            del buffer, rows
        read.wait()
        trimmed.wait()

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    read.wait()
    assert malloc_trim()
    print(before, rss())
    trimmed.set()
    for thread in threads:
        thread.join()
    """
)


def _kept_by_readers(how: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _READERS, how],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    before, after = map(int, done.stdout.split())
    return after - before


def test_with_the_readers_malloc_tuned_a_trim_reaches_their_threads_arenas() -> None:
    """Untuned, glibc keeps the free top of each living thread's arena, which
    malloc_trim does not shrink (some 30 MB here); tuned, it goes back."""
    glibc()
    assert _kept_by_readers("plain") >= 16
    assert _kept_by_readers("tuned") <= 4


# A reading thread allocates COUNT buffers of SIZE bytes, each followed by
# something small that lives on (as the engine's memories do), then frees the
# buffers; no trim. Prints the RSS growth in MB while they live and once they
# are freed.
_LET_GO = _RSS + textwrap.dedent(
    """
    import sys
    import threading
    from noru.app.memory import tune_reader_malloc

    assert tune_reader_malloc()
    count, size = map(int, sys.argv[1:])
    kept = []

    def reader():
        before = rss()
        buffers = []
        for _ in range(count):
            buffers.append(bytearray(size))
            kept.append(bytearray(4096))
        held = rss() - before
        del buffers
        print(held, rss() - before)

    thread = threading.Thread(target=reader)
    thread.start()
    thread.join()
    """
)


def _let_go(count: int, size: int) -> tuple[int, int]:
    """The RSS growth (MB) of a tuned reading thread while its buffers live,
    and once it has freed them."""
    glibc()
    done = subprocess.run(
        [sys.executable, "-c", _LET_GO, str(count), str(size)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    held, left = map(int, done.stdout.split())
    return held, left


def test_a_screen_a_reading_thread_lets_go_goes_back_without_a_trim() -> None:
    """The OCR process's reading threads free a screen's buffers as they go:
    each goes back to the system as it is freed, not left mapped in the
    thread's arena under what was allocated after it until a trim."""
    held, left = _let_go(1, 12 << 20)
    assert held >= 10
    assert left <= 2


def test_the_pieces_a_reading_thread_cuts_from_a_band_go_back_as_they_are_freed() -> None:
    """Not only a screen-sized buffer: pieces of a few hundred kB (a band's
    rows) are not left as holes in the thread's arena under what it keeps."""
    held, left = _let_go(40, 400_000)
    assert held >= 14
    assert left <= 2
