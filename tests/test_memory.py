"""The app hands the memory of finished captures back once it is quiet."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from noru.app.memory import Trimmer, malloc_trim
from tests.app_process import wait_until
from tests.parts import require

# Threads allocate and free capture-sized buffers, as the app's connection
# and encode threads do; then the process trims and reports its RSS in MB.
_SCRIPT = textwrap.dedent(
    """
    import threading
    from pathlib import Path
    from noru.app.memory import malloc_trim, tune_malloc

    def rss():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024

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


def test_the_trimmer_trims_once_after_a_quiet_spell_and_not_while_idle() -> None:
    glibc()
    trimmer = Trimmer(quiet=0.05)
    try:
        time.sleep(0.2)
        assert trimmer.trims == 0  # no capture yet: nothing to give back
        trimmer.busy()
        wait_until(lambda: trimmer.trims == 1, "a trim after the quiet spell", 10)
        time.sleep(0.2)
        assert trimmer.trims == 1  # one trim per quiet spell, not one per tick
        for _ in range(3):
            trimmer.busy()
        wait_until(lambda: trimmer.trims == 2, "a second trim", 10)
    finally:
        trimmer.close()


def test_the_trimmer_never_trims_sooner_than_the_quiet_spell_after_a_capture() -> None:
    glibc()
    trimmer = Trimmer(quiet=0.3)
    try:
        for _ in range(5):
            before_last = time.monotonic()
            trimmer.busy()
            time.sleep(0.05)
        wait_until(lambda: trimmer.trims == 1, "a trim once the captures stop", 10)
        assert trimmer.first_trim_at is not None
        assert trimmer.first_trim_at >= before_last + 0.3
    finally:
        trimmer.close()


def test_captures_that_never_pause_still_get_a_trim_every_longest_seconds() -> None:
    glibc()
    trimmer = Trimmer(quiet=60, longest=0.2)
    try:
        start = time.monotonic()
        while time.monotonic() - start < 0.5:  # never 60 s quiet
            trimmer.busy()
            time.sleep(0.02)
        wait_until(lambda: trimmer.trims >= 1, "a trim within a run of captures", 10)
        assert trimmer.first_trim_at is not None
        assert trimmer.first_trim_at - start >= 0.2
    finally:
        trimmer.close()


def test_closing_the_trimmer_stops_its_thread() -> None:
    trimmer = Trimmer(quiet=60)
    trimmer.busy()
    trimmer.close()
    assert not trimmer._thread.is_alive()
