"""Fit the terminal reader's line confidence on the training part of the
terminal corpus (never the held-out part): ``noru.ocr.terminal_lines.MISSES``.

A terminal line's confidence is the chance that every one of its cells is
right, each cell's chance of being wrong by how it was decided (by its glyph
in the grid's font, by the engine where the font is known, by the engine
where no font is, a character outside ASCII by the engine, or lost). This
reads the training screens of a drawn corpus (``bench/ocr_terminals.py
draw``) with Noru's engine as the app calls it, notes for each grid line
how its cells were decided (by wrapping ``noru.ocr.terminal``'s ``lines_of``
and ``noru.ocr.terminal_lines.chance``), and
finds the chances that make the lines' exactness most likely (a search over
a grid of powers of ten, each way in turn). It prints them with the
expected calibration error before and after, over 10 equal-width bins, on
the same training lines: the held-out figures are ``ocr_terminals.py
score``'s.

    .venv/bin/python bench/ocr_calibrate.py            # ~15 min on 2 cores
    .venv/bin/python bench/ocr_calibrate.py --limit 20 # a try of the tool
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from PIL import Image  # noqa: E402
from tests.ocr_scoring import calibration, chrome  # noqa: E402
from tests.terminal_corpus import read_corpus  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "out" / "terminals"
# Chances tried, as powers of ten, and rounds over the ways.
EXPONENTS = [e / 20 for e in range(-140, 0)]
ROUNDS = 3

# One grid line: how many of its cells were decided each way, and whether it is exact.
Line = tuple[dict[str, int], bool]


def read_training(folder: Path, limit: int = 0) -> tuple[list[Line], list[tuple[float, bool]]]:
    """Every training screen's lines as Noru reads them (the first ``limit``
    screens, when given): the grid lines with how their cells were decided,
    and every line's (confidence, exact)."""
    from noru.ocr import get_engine, terminal, terminal_lines, warm

    records = [r for r in read_corpus(folder) if r["split"] == "train"]
    records = records[:limit] if limit else records
    engine = get_engine("tesseract")
    warm(engine)
    hows: dict[tuple[str, tuple[int, int, int, int]], dict[str, int]] = {}
    lines_of, chance = terminal.lines_of, terminal_lines.chance
    # The engine reads a screen's bands on two threads: each notes its own.
    local = threading.local()

    def noting(how: Counter[str]) -> float:
        local.noted.append(dict(how))
        return chance(how)

    def noting_lines(*args: Any) -> list[Any]:
        local.noted = []
        found = lines_of(*args)
        for line, how in zip(found, local.noted, strict=True):
            hows[line.text, line.box] = how
        return found

    terminal_lines.chance = noting
    terminal.lines_of = noting_lines
    grid: list[Line] = []
    pairs: list[tuple[float, bool]] = []
    try:
        for number, record in enumerate(records, 1):
            image = Image.open(folder / record["png"]).convert("RGB")
            regions = [tuple(region) for region in record.get("regions") or []] or None
            hows.clear()
            read = engine.recognise(image, regions=regions)
            truth = {row.rstrip() for row in record["truth"] if row.strip()}
            for line in read.lines:
                if not line.text.strip() or chrome(line.text, record["optional"]):
                    continue
                exact = line.text.rstrip() in truth
                pairs.append((line.confidence, exact))
                how = hows.get((line.text, line.box))
                if how is not None:
                    grid.append((how, exact))
            if number % 20 == 0:
                print(f"  ... {number}/{len(records)} training screens read", flush=True)
    finally:
        terminal.lines_of = lines_of
        terminal_lines.chance = chance
        engine.close()
    return grid, pairs


def likelihood(lines: Sequence[Line], misses: dict[str, float]) -> float:
    total = 0.0
    for how, exact in lines:
        p = 1.0
        for way, count in how.items():
            p *= (1.0 - misses[way]) ** count
        p = min(max(p, 1e-9), 1 - 1e-9)
        total += math.log(p if exact else 1.0 - p)
    return total


def fit(lines: Sequence[Line], start: dict[str, float]) -> dict[str, float]:
    """The chances per way that make the lines' exactness most likely."""
    misses = dict(start)
    seen = {way for how, _ in lines for way in how}
    for _ in range(ROUNDS):
        for way in sorted(seen):
            best = (likelihood(lines, misses), misses[way])
            for exponent in EXPONENTS:
                tried = {**misses, way: 10**exponent}
                found = likelihood(lines, tried)
                if found > best[0]:
                    best = (found, tried[way])
            misses[way] = best[1]
    return misses


def main(argv: Sequence[str] | None = None) -> None:
    from noru.ocr import terminal_lines

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the drawn corpus")
    parser.add_argument("--limit", type=int, default=0, help="only the first N training screens")
    args = parser.parse_args(argv)
    grid, pairs = read_training(Path(args.out), args.limit)
    print(f"training lines: {len(pairs)}, of them on a grid: {len(grid)}")
    cells: Counter[str] = Counter()
    for how, _ in grid:
        cells.update(how)
    print("grid cells by way: " + ", ".join(f"{w} {n}" for w, n in sorted(cells.items())))
    fitted = fit(grid, terminal_lines.MISSES)
    print("MISSES now:    " + ", ".join(f"{w} {v:.2g}" for w, v in terminal_lines.MISSES.items()))
    print("MISSES fitted: " + ", ".join(f"{w} {v:.2g}" for w, v in fitted.items()))
    before = calibration(pairs)

    def refit(pair_line: tuple[dict[str, int], bool]) -> tuple[float, bool]:
        how, exact = pair_line
        p = 1.0
        for way, count in how.items():
            p *= (1.0 - fitted[way]) ** count
        return p, exact

    on_grid_before = calibration([(terminal_lines.chance(Counter(h)), e) for h, e in grid])
    on_grid_after = calibration([refit(line) for line in grid])
    print(f"all training lines, now: ECE {before.ece:.3f}, {before.confident} at >= 0.99, "
          f"{100 * before.confident_exact:.1f} % of them exact")  # fmt: skip
    for name, found in (("now", on_grid_before), ("fitted", on_grid_after)):
        print(f"grid lines, {name}: ECE {found.ece:.3f}, {found.confident} at >= 0.99, "
              f"{100 * found.confident_exact:.1f} % of them exact")  # fmt: skip


if __name__ == "__main__":
    main()
