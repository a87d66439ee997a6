"""What the OCR process's memory buys: its PSS after each step of its life.

Nine 2560x1600 screenshots of a real xterm 200x60 of dense log lines in
DejaVu Sans Mono 9 pt (three terminals, each as printed, one line scrolled
in, one line changed) on a private Xvfb; then, in a process of its own for
each allocator setting, the OCR process's steps one at a time (Python; its
imports; the engine; warm and trimmed; the nine screens read, and the most
it held while reading them, sampled every few milliseconds; trimmed; the
engine closed), with its PSS (``/proc/self/smaps``: a process of its own,
so every shared page counts whole) and where it lies: the main heap, the
reading threads' arenas, Python's own small-object arenas, the rest. The
CPU time the reading took (the sampler's own left out) is given for each
setting.

    .venv/bin/python bench/ocr_memory.py [--runs 2]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

SETTINGS = {
    "glibc's own (as shipped before)": "untuned",
    "tune_reader_malloc (now: buffers of 256 kB or more mapped alone)": "tuned",
}


def _thread_arena_bases() -> set[int]:
    """The 64 MB-aligned starts of glibc's thread heaps in this process."""
    bases = set()
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        low = int(parts[0].split("-")[0], 16)
        if len(parts) < 6 and low % (64 << 20) == 0:
            bases.add(low)
    return bases


def pss_by_place() -> dict[str, float]:
    bases = _thread_arena_bases()
    found: Counter[str] = Counter()
    current = "other"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            low, high = (int(x, 16) for x in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            if name == "[heap]":
                current = "heap"
            elif name:
                current = "files"
            elif (low & ~((64 << 20) - 1)) in bases:
                current = "threads"
            elif high - low == 1 << 20:
                current = "python"
            else:
                current = "other"
        elif line.startswith("Pss:"):
            found[current] += int(line.split()[1])
    return {place: kb / 1024 for place, kb in found.items()}


@contextmanager
def peak_pss() -> Iterator[list[float]]:
    """The most PSS (MB) the process held while the block ran, sampled every
    few milliseconds from ``/proc/self/smaps_rollup`` on a thread of its own;
    then the CPU seconds that thread took (the kernel walks every mapping for
    each sample: more mappings, more of it), for the caller to leave out."""
    most = [0.0, 0.0]
    done = threading.Event()

    def sample() -> None:
        while True:
            for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    most[0] = max(most[0], int(line.split()[1]) / 1024)
            if done.wait(0.003):
                most[1] = time.thread_time()
                return

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield most
    finally:
        done.set()
        sampler.join()


def child(shots: Path, setting: str) -> None:
    """The OCR process's steps, one line each: label and PSS by place."""

    def step(label: str) -> None:
        places = pss_by_place()
        print(label, *(f"{k}={v:.1f}" for k, v in sorted(places.items())), sep="\t", flush=True)

    step("Python")
    from noru.app.memory import malloc_trim, tune_reader_malloc

    if setting == "tuned":
        tune_reader_malloc()
    import numpy  # noqa: F401
    import tesserocr  # noqa: F401
    from PIL import Image

    import noru.recognition
    import noru.store  # noqa: F401
    from noru.ocr import get_engine, warm

    step("imports: Pillow, numpy, tesserocr, noru's app, store and reader")
    engine = get_engine("tesseract", second_opinion=True)
    step("the engine: two Tesseract readers")
    warm(engine)
    malloc_trim()
    step("warm (fonts drawn, one small reading), trimmed")
    cpu, most = 0.0, 0.0
    for path in sorted(shots.glob("*.png")):
        with Image.open(path) as opened:
            image = opened.convert("RGB")
        before = sum(os.times()[:2])
        with peak_pss() as peak:
            engine.recognise(image)
        cpu += sum(os.times()[:2]) - before - peak[1]  # the reading's, not the sampler's
        most = max(most, peak[0])
        del image
    print("most while reading", f"total={most:.1f}", sep="\t")
    step("nine screens read")
    malloc_trim()
    step("the same, trimmed")
    engine.close()
    malloc_trim()
    step("the engine closed, trimmed")
    print("cpu", f"{cpu:.2f}", sep="\t")


def screenshots(folder: Path) -> None:
    import mss
    from PIL import Image
    from tests import real_terminals
    from tests.xserver import running_xserver

    from time_to_text import log_line

    def grab(display: str, path: Path) -> None:
        with mss.MSS(display=display) as screen:
            shot = screen.grab(screen.monitors[0])
            Image.frombytes("RGB", shot.size, shot.bgra, "raw", "BGRX").save(path)

    with running_xserver(folder.parent, width=2560, height=1600) as server:
        for run in range(3):
            rng = random.Random(100 + run)
            lines = [log_line(rng, row) for row in range(59)]
            with real_terminals.open_xterm(
                server, lines, columns=200, rows=60, x=40, y=40, font="DejaVu Sans Mono", size=9
            ) as terminal:
                time.sleep(0.5)
                grab(server.display, folder / f"r{run}-0.png")
                terminal.print_line(log_line(rng, 60))
                time.sleep(0.5)
                grab(server.display, folder / f"r{run}-1.png")
                terminal.rewrite_last_line(log_line(rng, 61))
                time.sleep(0.5)
                grab(server.display, folder / f"r{run}-2.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--child", nargs=2, metavar=("SHOTS", "SETTING"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1])
        return
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1"}  # as spawn_child
    with tempfile.TemporaryDirectory() as tmp:
        shots = Path(tmp) / "shots"
        shots.mkdir()
        screenshots(shots)
        for run in range(args.runs):
            for name, setting in SETTINGS.items():  # alternating, on a shared host
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(shots), setting],
                    env=env, capture_output=True, text=True, check=True,
                )  # fmt: skip
                print(f"\n{name}, run {run + 1}: PSS in MB (total; by place)")
                for line in done.stdout.splitlines():
                    label, *places = line.split("\t")
                    if label == "cpu":
                        print(f"  CPU time reading the nine screens: {places[0]} s")
                        continue
                    figures = {k: float(v) for k, v in (place.split("=") for place in places)}
                    detail = "  ".join(f"{k} {v:.1f}" for k, v in figures.items())
                    print(f"  {label:58} {sum(figures.values()):6.1f}   {detail}")


if __name__ == "__main__":
    main()
