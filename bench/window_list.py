"""The window list a capture reads on X11, with more and more windows.

On a private 2560x1600 Xvfb with openbox (the capture_pipeline bench's
screen of code, one full-screen window), xterms are opened until there are
1, 10 and 30 windows; for each count, the median of 30 of:

- list: the backend's ``stacked_windows()`` (every viewable window, its
  client and its facts: what a capture reads when the person has
  exclusions, which every default setup has: the built-in ones);
- display grab: ``Capturer.grab_display(1)`` with the built-in exclusions,
  as the app takes it for an agent's observe_screen (the list read beside
  the grab).

    .venv/bin/python bench/window_list.py [--runs 30]

To compare with another version of the code, run it with ``PYTHONPATH``
pointing at that version's ``src``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from capture_pipeline import host_speed, screen_of_code
from noru import exclusions
from noru.app.memory import tune_malloc
from noru.capture import Capturer

COUNTS = (1, 10, 30)


def _xterm(display: str, n: int) -> subprocess.Popen[bytes]:
    column, row = n % 6, n // 6
    return subprocess.Popen(
        ["xterm", "-geometry", f"60x12+{40 + column * 410}+{40 + row * 300}", "-T", f"term {n}"],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _median_ms(job: object, runs: int) -> float:
    times = []
    for _ in range(runs + 3):
        start = time.perf_counter()
        job()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[3:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    if shutil.which("xterm") is None:
        raise SystemExit("xterm is needed (apt-get install xterm)")
    tune_malloc()
    rules = exclusions.load(Path(tempfile.mkdtemp()))
    print(f"host speed (bench/capture_pipeline.host_speed): {host_speed():.0f} ms")
    print(f"{'windows':>7} {'list ms':>8} {'display grab ms':>16}")
    terms: list[subprocess.Popen[bytes]] = []
    with screen_of_code() as display, Capturer(display=display) as capturer:
        capturer.excluded = lambda w: rules.excludes(w.app_id, w.app_name, w.title)
        backend = capturer._open()  # the backend's own list, as the capturer reads it
        try:
            for count in COUNTS:
                while len(terms) + 1 < count:
                    terms.append(_xterm(display, len(terms)))
                deadline = time.monotonic() + 30
                while len(backend.stacked_windows()) < count:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"only {len(backend.stacked_windows())} windows appeared")
                    time.sleep(0.1)
                time.sleep(2)  # the last ones drawn, the server quiet again
                listed = _median_ms(backend.stacked_windows, args.runs)
                grabbed = _median_ms(lambda: capturer.grab_display(1), args.runs)
                print(f"{count:>7} {listed:>8.1f} {grabbed:>16.1f}")
        finally:
            for term in terms:
                term.terminate()
            for term in terms:
                try:
                    term.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    term.kill()
                    term.wait()


if __name__ == "__main__":
    main()
