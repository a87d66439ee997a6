"""How fast `noru mcp` answers initialize after being spawned.

Spawns the installed `noru mcp` N times (default 20), writes an initialize
request at once, and times until the answer line arrives. Prints the median,
p95, min and max in milliseconds. Goal (issue 2): median <= 250 ms.

    .venv/bin/python bench/mcp_spawn.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}\n'
)


def noru_exe() -> str:
    exe = Path(sys.executable).parent / "noru"
    if not exe.exists():
        raise SystemExit("install noru first (make test or make run creates .venv)")
    return str(exe)


def spawn_once(exe: str, home: str) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [exe, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NORU_HOME": home},
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INIT)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=10)
    proc.stdout.close()
    if b'"protocolVersion":"2025-06-18"' not in line:
        raise SystemExit(f"unexpected answer: {line[:200]!r}")
    return elapsed * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    exe = noru_exe()
    with tempfile.TemporaryDirectory() as home:
        spawn_once(exe, home)  # warm the page cache once; not counted
        times = sorted(spawn_once(exe, home) for _ in range(args.runs))
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"noru mcp spawn -> initialize answer, {args.runs} runs on {os.cpu_count()} cores")
    print(
        f"  median {statistics.median(times):.1f} ms  p95 {p95:.1f} ms  "
        f"min {times[0]:.1f} ms  max {times[-1]:.1f} ms  (goal: median <= 250 ms)"
    )


if __name__ == "__main__":
    main()
