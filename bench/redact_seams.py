"""What searching across the seams of displays adds to redacting a capture.

The dense 200x60 terminal of bench/time_to_text.py (59 log lines of 199
characters, cells 8x15) straddling the seam of two displays side by side,
cut at its 100th column, 2 pixels into that cell: each display's image
holds its half of every row, as the terminal reader gives them (the cut
cell read as ``\\``, the grid's width on each side recorded), in phase
across the seam, so the rows are joined as one terminal's. The
capture is redacted (``for_agent``) ``--runs`` times with its images placed
on the screen (searched across the seam) and without (image by image, as
before); median and p95 in ms.

    .venv/bin/python bench/redact_seams.py [--runs 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from noru.redact import policy  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from noru.sources import Source  # noqa: E402
from noru.store import CaptureRecord, ImageRecord, OcrLine  # noqa: E402
from time_to_text import log_line  # noqa: E402

CELL_W, CELL_H, CUT, COLUMNS = 8, 15, 100, 200
SEAM = 2560
X0 = SEAM - CUT * CELL_W - 2  # the seam 2 pixels into the cut cell


def _record(rows: list[str]) -> CaptureRecord:
    left, right = [], []
    for r, text in enumerate(rows):
        y = 40 + r * CELL_H
        head, tail = text[:CUT].rstrip(), "\\" + text[CUT + 1 :]
        left.append(OcrLine(head, (X0, y, len(head) * CELL_W, CELL_H), 0.99, CUT))
        right.append(OcrLine(tail, (-2, y, len(tail) * CELL_W, CELL_H), 0.99, COLUMNS - CUT))
    height = 40 + len(rows) * CELL_H + 10
    images = (
        ImageRecord(1, "1.png", 2560, 1600, Source(), None, None, tuple(left),
                    windows=((X0 - 2, 30, SEAM - X0 + 2, height),), screen_rect=(0, 0, 2560, 1600)),
        ImageRecord(2, "2.png", 2560, 1600, Source(), None, None, tuple(right),
                    windows=((0, 30, 900, height),), screen_rect=(SEAM, 0, 2560, 1600)),
    )  # fmt: skip
    return CaptureRecord(
        1, "c", datetime(2026, 12, 5, tzinfo=UTC), "agent", None, "done", "t", "1", None, None,
        False, False, images,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    placed = _record([log_line(random.Random(0), row) for row in range(59)])
    unplaced = replace(
        placed, images=tuple(replace(image, screen_rect=None) for image in placed.images)
    )
    in_force = policy.Policy.of(["secrets", "cards"])
    print(f"for_agent on a dense terminal across a seam, {args.runs} runs each")
    for name, record in (("across the seam", placed), ("image by image", unplaced)):
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            for_agent(record, in_force)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"  {name:16} median {statistics.median(times):6.2f} ms  p95 {p95:6.2f} ms")


if __name__ == "__main__":
    main()
