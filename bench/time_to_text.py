"""Time to text: how long an agent's look at a terminal takes to come back
with the terminal's words, through the real app.

On a private 2560x1600 Xvfb with openbox, a real xterm 200x60 full of dense
log lines (new ones each run), in DejaVu Sans Mono 9 pt (Xft) or in its
default bitmap font. Each run starts a new `noru app` (a data dir of its
own), then, over a real `noru mcp` stdio pipe, `observe_screen` of the
display with the default settle (it waits up to 1.5 s for the text):

1. FIRST LOOK, as soon as the app answers on its socket (its OCR engine
   still starting), and again in another run 5 s after the start (the
   engine warm, as when the person started the app earlier);
2. after ONE LINE SCROLLED in (the terminal printed one more line);
3. after ONE LINE CHANGED in place (its last line written over);
4. the UNCHANGED screen looked at again.

Each is timed from the call to the answer; an answer that came back without
its text (pending) is counted, and its time until the text was stored is
given too. A pause of 2 s between looks (the person reading). Then, with
``--idle``, the last app and its OCR process left alone that many seconds:
their CPU and their memory (the app stops an OCR process that had no job
for ``ocr_worker.LOOK_LINGER`` after a look); and then one more look, after
one line scrolled in, which starts a fresh OCR process if the rest ended
the last. Every process is stopped by its pid.

    .venv/bin/python bench/time_to_text.py [--runs 5] [--idle 60]
        [--font 'DejaVu Sans Mono:9' | --font fixed]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tests import real_terminals  # noqa: E402
from tests.xserver import running_xserver  # noqa: E402

from capture_pipeline import host_speed  # noqa: E402
from observe_vs_pipeline import (  # noqa: E402
    Agent,
    app_running,
    cpu_seconds,
    pss_mb,
    rss_mb,
    x11_session,
)

WORDS = ("request", "handler", "response", "status", "config", "parse", "token", "buffer")


def log_line(rng: random.Random, row: int) -> str:
    line = f"2026-12-02 10:{row % 60:02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d} INFO"
    while len(line) < 190:
        line += f" {rng.choice(WORDS)}_{rng.randint(0, 999)}"
    return line[:199]


def look(agent: Agent) -> tuple[float, bool, float]:
    """ms to the answer, whether it was pending, ms until its text was stored."""
    start = time.perf_counter()
    elapsed, pending, capture_id = agent.look_at("display")
    agent.wait_for_text(capture_id)
    return elapsed, pending, (time.perf_counter() - start) * 1000


def _or_nothing(figure: Callable[[int], float]) -> Callable[[int], float]:
    """``figure`` of a process, or 0 for one that ended meanwhile."""

    def safe(pid: int) -> float:
        try:
            return figure(pid)
        except OSError:
            return 0.0

    return safe


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(child) for child in found.stdout.split()]


def at_rest(
    app: subprocess.Popen[bytes], seconds: float
) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """The app and its OCR process left alone ``seconds``: their CPU %, and
    the app's and the OCR process's RSS, then PSS, in MB at the end. The
    app's own CPU time counts its children's once they are reaped: an OCR
    process the app stopped meanwhile (``ocr_worker.LOOK_LINGER``) is in it."""

    def cpu() -> float:
        own = Path(f"/proc/{app.pid}/stat").read_text().rsplit(")", 1)[1].split()
        reaped = (int(own[13]) + int(own[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime
        return cpu_seconds(app.pid) + reaped + sum(map(_or_nothing(cpu_seconds), children(app.pid)))

    time.sleep(5)
    before, start = cpu(), time.monotonic()
    time.sleep(seconds)
    used = (cpu() - before) / (time.monotonic() - start) * 100
    kids = children(app.pid)
    return (
        used,
        (rss_mb(app.pid), sum(map(_or_nothing(rss_mb), kids))),
        (pss_mb(app.pid), sum(map(_or_nothing(pss_mb), kids))),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--font", default="DejaVu Sans Mono:9", help="FAMILY:POINTS, or fixed")
    parser.add_argument("--idle", type=float, default=0.0, help="seconds the last app is left")
    args = parser.parse_args()
    idle: tuple[float, tuple[float, float], tuple[float, float]] | None = None
    xft = {}
    if args.font != "fixed":
        family, _, points = args.font.rpartition(":")
        xft = {"font": family, "size": int(points)}
    looks: dict[str, list[tuple[float, bool, float]]] = {}
    speed = host_speed()
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
    ):
        session = x11_session(server.display)
        for run in range(args.runs * 2):
            rng = random.Random(run)
            warm = run % 2 == 1
            lines = [log_line(rng, row) for row in range(59)]
            with (
                real_terminals.open_xterm(
                    server, lines, columns=200, rows=60, x=40, y=40, **xft
                ) as terminal,
                app_running(Path(tmp) / f"home-{run}", session, settle=None) as (
                    app,
                    env,
                ),
            ):
                if warm:
                    time.sleep(5)
                agent = Agent(env)
                try:
                    first = "first look, 5 s after the start" if warm else "first look"
                    looks.setdefault(first, []).append(look(agent))
                    if warm:
                        continue
                    time.sleep(2)
                    terminal.print_line(log_line(rng, 60))
                    looks.setdefault("one line scrolled in", []).append(look(agent))
                    time.sleep(2)
                    terminal.rewrite_last_line(log_line(rng, 61))
                    looks.setdefault("one line changed", []).append(look(agent))
                    time.sleep(2)
                    looks.setdefault("unchanged screen", []).append(look(agent))
                    if args.idle and run == args.runs * 2 - 2:
                        idle = at_rest(app, args.idle)
                        terminal.print_line(log_line(rng, 62))
                        after = f"one line scrolled in, {args.idle + 5:.0f} s later"
                        looks.setdefault(after, []).append(look(agent))
                finally:
                    agent.close()
            print(f"  ... run {run + 1} of {args.runs * 2} done", file=sys.stderr, flush=True)
    font = args.font if xft else "xterm's bitmap font"
    print(f"time to text: 2560x1600 display, xterm 200x60, {font}, default settle (1.5 s)")
    print(f"host speed (bench/capture_pipeline.host_speed): {speed:.0f} ms before, "
          f"{host_speed():.0f} ms after")  # fmt: skip
    print(f"{'look':34} {'answer ms p50':>14} {'max':>8} {'with text':>10} {'text stored p50':>16}")
    for name, found in looks.items():
        answers = [a for a, _, _ in found]
        stored = [s for _, _, s in found]
        with_text = sum(not pending for _, pending, _ in found)
        print(
            f"{name:34} {statistics.median(answers):14,.0f} {max(answers):8,.0f} "
            f"{with_text:>4} of {len(found):<3} {statistics.median(stored):16,.0f}"
        )
    if idle is not None:
        cpu, (app_rss, ocr_rss), (app_pss, ocr_pss) = idle
        print(
            f"at rest {args.idle:.0f} s after its looks: CPU {cpu:.2f} % (app and OCR process), "
            f"PSS app {app_pss:.0f} MB + OCR process {ocr_pss:.0f} MB = {app_pss + ocr_pss:.0f} "
            f"(RSS {app_rss:.0f} + {ocr_rss:.0f}: shared pages counted twice)  "
            "(goals: <= 0.5 %, <= 120 MB)"
        )


if __name__ == "__main__":
    main()
