"""Recall of noru.redact's formats and places, per kind, on planted values.

Values are generated from each format's published facts by
tests/redaction_formats.py. Two parts:

- tuned: ``TUNED_SEED``'s values in the ``TUNED`` lines (the tests assert
  on them; the rules were written looking at them);
- held out, first round: ``HELD_OUT_SEEDS``' values (10 per format) in the
  ``HELD_OUT`` lines; looked at once its first run had missed some, so
  tuned on since;
- held out, second round (the headline): ``FRESH_SEEDS``' values in the
  ``FRESH`` lines, never looked at line by line (its misses are counted,
  not printed).

Each value is tried as shown, and as the engine misreads it (a stray space
inside it, a case flip or a confused character in its first characters).
A value is caught when, its spans replaced as agents get them, no 8
consecutive characters of it are left (``leaked``); the places (values
with no format: options, .netrc, connection strings, ...) the same way.
Printed: recall per kind and per misread, each part; then what was missed
on the first round.

    .venv/bin/python bench/redact_formats.py
"""

from __future__ import annotations

import random
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.redaction_cases import leaked  # noqa: E402
from tests.redaction_formats import (  # noqa: E402
    FRESH,
    FRESH_SEEDS,
    HELD_OUT,
    HELD_OUT_SEEDS,
    TUNED,
    TUNED_SEED,
    lines,
    misread,
    placed,
)

from noru.redact import find  # noqa: E402
from noru.redact.apply import replaced  # noqa: E402


def caught(line: str, value: str) -> bool:
    """No 8 characters of ``value`` in a row left in ``line`` as agents get
    it (a kind's name in ``[redacted: KIND]`` aside: ``rubygems-key``
    holds the prefix ``rubygems``)."""
    shown = re.sub(r"\[redacted: [a-z0-9-]+\]", "#", replaced(line, find(line)))
    return leaked(shown, value) is None


def measure(seeds: tuple[int, ...], templates: list[str]) -> tuple[dict, dict, list]:
    """Per kind and per way shown: [caught, tried]; and what was missed."""
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    ways: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for seed in seeds:
        for line, value, kind in lines(seed, templates):
            tries = [("as shown", line, value), *misread(random.Random(line), line, value)]
            for way, shown_line, shown in tries:
                ok = caught(shown_line, shown)
                for table, key in ((kinds, kind), (ways, way)):
                    table[key][0] += ok
                    table[key][1] += 1
                if not ok:
                    missed.append((kind, way, shown_line))
        for line, value, kind in placed(seed):
            ok = caught(line, value)
            for table, key in ((kinds, f"(placed) {kind}"), (ways, "placed")):
                table[key][0] += ok
                table[key][1] += 1
            if not ok:
                missed.append((f"(placed) {kind}", "as shown", line))
    return kinds, ways, missed


def share(counts: list[int]) -> str:
    return f"{counts[0]:5}/{counts[1]:<5} {counts[0] / max(1, counts[1]):7.1%}"


def main() -> None:
    parts = {
        "tuned": measure((TUNED_SEED,), TUNED),
        "held out, first round": measure(HELD_OUT_SEEDS, HELD_OUT),
        "held out, second round": measure(FRESH_SEEDS, FRESH),
    }
    for name, (kinds, ways, _) in parts.items():
        total = [sum(c[0] for c in kinds.values()), sum(c[1] for c in kinds.values())]
        print(f"{name}: {share(total)} of planted values caught ({len(kinds)} kinds)")
        for way, counts in sorted(ways.items()):
            print(f"  {way:24} {share(counts)}")
    tuned, first, fresh = (parts[name][0] for name in parts)
    print(f"\n{'per kind':30} {'tuned':>20} {'held out 1':>20} {'held out 2':>20}")
    for kind in sorted(fresh):
        flag = "" if fresh[kind][0] >= 0.95 * fresh[kind][1] else "   < 95 %"
        row = "".join(f" {share(table.get(kind, [0, 0])):>20}" for table in (tuned, first, fresh))
        print(f"  {kind:28}{row}{flag}")
    missed = parts["held out, first round"][2]
    print(f"\nmissed on the first round of the held-out part ({len(missed)}):")
    for kind, way, line in missed:
        print(f"  {kind} ({way}): {line[:150]}")


if __name__ == "__main__":
    main()
