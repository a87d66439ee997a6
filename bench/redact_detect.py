"""How long finding the secrets in a screen's text takes (noru.redact).

The text of two screens: the dense 200x60 terminal of bench/time_to_text.py
(59 log lines of 199 characters), and every kind of planted secret
(tests/redaction_cases.py) with ordinary lines beside them, four times.
Each is searched ``--runs`` times; median and p95 in ms.

    .venv/bin/python bench/redact_detect.py [--runs 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests.redaction_cases import ORDINARY, planted  # noqa: E402

from noru.redact import find_lines  # noqa: E402
from time_to_text import log_line  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(0)
    screens = {
        "dense terminal 200x60": [log_line(rng, row) for row in range(59)],
        "planted secrets and ordinary lines, x4": [line for line, _, _ in planted()] * 4
        + ORDINARY * 4,
    }
    print(f"noru.redact.find_lines, {args.runs} runs each")
    for name, lines in screens.items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            find_lines(lines)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p95 = times[max(0, round(0.95 * len(times)) - 1)]
        chars = sum(map(len, lines))
        print(f"  {name}: {chars:,} characters, median {statistics.median(times):.2f} ms, "
              f"p95 {p95:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
