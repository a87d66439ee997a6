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

With ``--recall``, what the search across the seam finds instead of how
long it takes: every planted secret (tests/redaction_cases.py) and the
held-out ones of three seeds (tests/redaction_formats.py) in a 120-column
terminal the seam cuts at a quarter, a half and three quarters of the
value (a card at every cell of its number), the cut cell read on the
right display as each of ``MISREADS``: how many leak (8 characters of
the value in the text served). And the
ordinary lines (tests/redaction_cases.py, and code and prose that look
like labels) cut every third column with the same misreads: how many are
redacted at all, each a false positive.

    .venv/bin/python bench/redact_seams.py [--runs 200]
    .venv/bin/python bench/redact_seams.py --recall
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests import redaction_formats  # noqa: E402
from tests.redaction_cases import ORDINARY, leaked, luhn_card, planted  # noqa: E402
from tests.seam_records import cut_terminal  # noqa: E402

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


# What the engine reads the half glyph of the cell the seam cuts as.
MISREADS = ("\\", "_", ":", "|", "l")
FRACTIONS = (0.25, 0.5, 0.75)
PLACEHOLDER = re.compile(r"\[redacted: [^\]]*\]")
# Ordinary lines like code and prose a part of which looks like a label's value.
LOOK_ALIKE = [
    "password_hash = bcrypt.hashpw(secret_input, salt)",
    "tokenizer = AutoTokenizer.from_pretrained(model_name)",
    "the quick brown fox jumps over the lazy dog again and again",
    "PASSWORD=****************  # set in the vault",
    "export API_KEY=$(cat ~/.config/service/key)",
]


def _cut_record(rows: list[str], cut: int, misread: str, columns: int = 120) -> CaptureRecord:
    """A terminal ``columns`` wide across the seam, which cuts its column
    ``cut`` 2 pixels in, read as ``misread`` on the right display."""
    return cut_terminal(
        rows, cut, columns, misread=misread,
        left_display=(0, 0, 2560, 1600), right_display=(SEAM, 0, 2560, 1600),
    )  # fmt: skip


def recall(in_force: policy.Policy) -> None:
    """Leaks of secrets the seam cuts and ordinary lines redacted, per misread."""
    cases = [(line, value, kind) for line, value, kind in planted()]
    for seed in redaction_formats.HELD_OUT_SEEDS[:3]:
        cases += redaction_formats.lines(seed, redaction_formats.HELD_OUT)
    filler = ["2026-12-02 10:00:54.394 INFO token_41 config_988 buffer_414", "$ ls -la"]
    cuts = []
    for line, value, kind in cases:
        if len(line) > 110:
            continue
        start = line.index(value)
        for fraction in FRACTIONS:
            cut = start + max(1, min(len(value) - 2, int(len(value) * fraction)))
            if 8 <= cut <= 100:
                cuts.append((line, value, kind, cut))
    # Cards cut at every cell of their number, grouped and not.
    rng = random.Random(3)
    for prefix in ("4", "51", "37"):
        card = luhn_card(rng, prefix)
        for value in (card, card.replace(" ", "")):
            line = f"Card: {value}  exp 12/29"
            start = line.index(value)
            cuts += [(line, value, "card", cut) for cut in range(start + 1, start + len(value) - 1)]
    ordinary = [
        (line, cut)
        for line in ORDINARY + LOOK_ALIKE
        for cut in range(6, min(len(line) - 3, 100), 3)
    ]
    print(
        f"{len(cuts)} secrets cut, {len(ordinary)} ordinary lines cut; per misread of the cut cell"
    )
    total = leaks = 0
    for misread in MISREADS:
        missed: dict[str, int] = {}
        for line, value, kind, cut in cuts:
            seen = for_agent(_cut_record([filler[0], line, filler[1]], cut, misread), in_force)
            # Not the kind's name in a placeholder (``rubygems_``'s prefix).
            served = PLACEHOLDER.sub("", seen.record.ocr_text)
            if leaked(served, value) is not None:
                missed[kind] = missed.get(kind, 0) + 1
        redacted = sum(
            for_agent(_cut_record([line], cut, misread), in_force).count > 0
            for line, cut in ordinary
        )
        count = sum(missed.values())
        total, leaks = total + len(cuts), leaks + count
        worst = ", ".join(f"{k} {n}" for k, n in sorted(missed.items(), key=lambda kv: -kv[1])[:6])
        print(
            f"  {misread!r:5} leaked {count:4} ({100 * count / len(cuts):4.1f} %)"
            f"  ordinary redacted {redacted:3}  {worst}"
        )
    print(f"  all   leaked {leaks:4} of {total} ({100 * leaks / total:4.1f} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--recall", action="store_true", help="leaks and false positives")
    args = parser.parse_args()
    in_force = policy.Policy.of(["secrets", "cards"])
    if args.recall:
        recall(in_force)
        return
    placed = _record([log_line(random.Random(0), row) for row in range(59)])
    unplaced = replace(
        placed, images=tuple(replace(image, screen_rect=None) for image in placed.images)
    )
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
