"""Reading a window's accessibility text over AT-SPI: time and nodes, by calls in flight.

On a private 2560x1600 Xvfb with openbox and a private session bus
(tests/session_bus.py: Debian's at-spi-bus-launcher and registry, started by
D-Bus as on a desktop), a GTK 3 form (tests/real_clients.open_gtk_form) with
a grid of labels makes a window of about 500 accessible nodes. Noru reads it
as a capture will, ``noru.ax.read_window(pid, rect, title=...)``: the first
read joins the accessibility bus (its time is printed on its own), then each
``in_flight`` setting reads the window ``--runs`` times with a budget no run
reaches, and prints the median and slowest wall time, the nodes visited and
the lines read. The last row reads with the default budget (150 ms) and
says how many of the lines it had when the budget ended it. The goal: the
whole window within 150 ms with 32 calls in flight. A setting whose reads
fail (an uncapped flood, ``--in-flight 100000``) prints the first reason.

    .venv/bin/python bench/ax_read.py
    .venv/bin/python bench/ax_read.py --cells 480 --runs 15 --in-flight 1,8,32,64
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests import real_clients, session_bus  # noqa: E402
from tests.xserver import running_xserver  # noqa: E402

import noru.ax as ax  # noqa: E402
from capture_pipeline import host_speed  # noqa: E402

WIDTH, HEIGHT = 2560, 1600
LONG = 10.0  # a budget no read here reaches: the whole tree is read


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cells", type=int, default=480, help="labels in the grid")
    parser.add_argument("--runs", type=int, default=15, help="reads per setting")
    parser.add_argument("--in-flight", default="1,8,32,64", help="comma-separated")
    args = parser.parse_args(argv)
    settings = [int(n) for n in args.in_flight.split(",")]
    problems = [p for p in (session_bus.missing(), real_clients.missing("gtk")) if p]
    if problems:
        raise SystemExit("; ".join(problems))

    command = shlex.join(
        [".venv/bin/python", "bench/ax_read.py", *(argv if argv is not None else sys.argv[1:])]
    )
    speed_before = host_speed()
    print(f"AT-SPI reading of a GTK 3 window: {WIDTH}x{HEIGHT} Xvfb + openbox, {args.runs} reads")
    print(f"command: {command}")
    print(
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    with (
        tempfile.TemporaryDirectory(prefix="noru-ax-read-") as tmp,
        running_xserver(Path(tmp), width=WIDTH, height=HEIGHT) as server,
        session_bus.running_session_bus(Path(tmp) / "session") as bus,
    ):
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        form = real_clients.open_gtk_form(
            server,
            bus.env,
            labels=["A window of labels, read over AT-SPI"],
            entry="an entry",
            secret="not-read",
            view=["a text view", "of two lines"],
            button="A button",
            cells=[f"cell {n}" for n in range(args.cells)],
            columns=20,
            width=1400,
            height=900,
        )
        try:
            pid, rect, title = form.pid, form.rect, form.title
            first = ax.read_window(pid, rect, title=title, budget_s=LONG)
            print(
                f"first read (joins the accessibility bus): {first.elapsed_ms:.0f} ms, "
                f"{first.nodes} nodes, {len(first.lines)} lines"
            )
            print()
            print(f"{'in flight':>9} {'median ms':>10} {'max ms':>8} {'nodes':>6} {'lines':>6}")
            for in_flight in settings:
                reads = [
                    ax.read_window(pid, rect, title=title, budget_s=LONG, in_flight=in_flight)
                    for _ in range(args.runs)
                ]
                failed = [r for r in reads if r.partial or r.absent is not None]
                if failed:
                    print(
                        f"{in_flight:>9} {len(failed)}/{args.runs} reads failed: {failed[0].reason}"
                    )
                    continue
                times = [r.elapsed_ms for r in reads]
                print(
                    f"{in_flight:>9} {statistics.median(times):>10.0f} {max(times):>8.0f} "
                    f"{reads[0].nodes:>6} {len(reads[0].lines):>6}"
                )
            budgeted = [ax.read_window(pid, rect, title=title) for _ in range(args.runs)]
            whole = sum(not r.partial for r in budgeted)
            share = statistics.median(len(r.lines) / len(first.lines) for r in budgeted)
            print()
            print(
                f"default budget (150 ms, 32 in flight): {whole}/{args.runs} reads whole, "
                f"median {share:.0%} of the lines, median "
                f"{statistics.median(r.elapsed_ms for r in budgeted):.0f} ms"
            )
        finally:
            ax.close()
            form.close()
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{host_speed():.0f} ms after"
    )


if __name__ == "__main__":
    main()
