"""Fit the terminal reader's line confidence on the training part of the
terminal corpus (never the held-out part): ``noru.ocr.terminal_confidence.MISSES``
and ``noru.ocr.second.MISSES``.

A terminal line's confidence is the chance that every one of its cells is
right, each cell's chance of being wrong by how it was decided (by its glyph
in the grid's font, by the engine where the font is known, by the engine
where no font is, a character outside ASCII by the engine, or lost). A line
the second opinion read again (``noru.ocr.second``) has, for each cell read
again, the chance of a cell so read: in a run of a grid row the font did not
explain, or in a line read again whole. This reads the training screens of
a drawn corpus (``bench/ocr_terminals.py draw``) with Noru's engine as the
app calls it, notes for each grid line how its cells were decided (by
wrapping ``noru.ocr.terminal``'s ``lines_of`` and
``noru.ocr.terminal_confidence.chance``) and for each line read again its
confidence without the cells read again and how many there were (by
wrapping the second opinion's ``revise``, ``_read_runs`` and ``fitting``),
then finds the chances that make the lines' exactness most likely (a search
over a grid of powers of ten, each way in turn). It prints them with the
expected calibration error before and after, over 10 equal-width bins, on
the same training lines: the held-out figures are ``ocr_terminals.py
score``'s.

    .venv/bin/python bench/ocr_calibrate.py            # ~20 min on 2 cores
    .venv/bin/python bench/ocr_calibrate.py --limit 20 # a try of the tool
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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

# One line as a model sees it: its confidence without the cells counted
# (1.0 for a grid line), how many of its cells were decided each way, and
# whether it is exact.
Line = tuple[float, dict[str, int], bool]


@dataclass
class Lines:
    """The training lines, as each model is fitted on them."""

    grid: list[Line] = field(default_factory=list)  # grid lines not read again
    again: list[Line] = field(default_factory=list)  # lines read again: "run" / "line" cells
    pairs: list[tuple[float, bool]] = field(default_factory=list)  # every line as served


def read_training(folder: Path, limit: int = 0) -> Lines:
    """Every training screen's lines as Noru reads them (the first ``limit``
    screens, when given)."""
    from noru.ocr import get_engine, second, terminal, terminal_confidence, terminal_lines, warm

    records = [r for r in read_corpus(folder) if r["split"] == "train"]
    records = records[:limit] if limit else records
    engine = get_engine("tesseract")
    warm(engine)
    hows: dict[str, dict[str, int]] = {}  # a grid line's text: how its cells were decided
    again: dict[str, tuple[float, str, int]] = {}  # a line read again: base, way, cells
    lines_of, chance = terminal.lines_of, terminal_confidence.chance
    revise, read_runs, fitting = (
        second.SecondOpinion.revise,
        second.SecondOpinion._read_runs,
        second.fitting,
    )
    misses = dict(second.MISSES)
    # The engine reads a screen's bands on two threads: each notes its own.
    local = threading.local()

    def noting(how: Counter[str]) -> float:
        if getattr(local, "noted", None) is not None and sys._getframe(1).f_code.co_name == (
            "lines_of"
        ):
            local.noted.append(dict(how))  # a line's, not one of its runs'
        return chance(how)

    def noting_lines(*args: Any) -> list[Any]:
        local.noted = []
        found = lines_of(*args)
        for line, how in zip(found, local.noted, strict=True):
            hows[line.text] = how
        local.noted = None
        return found

    fitted_cells: list[int] = []

    def noting_fitting(text: str, run: int) -> str | None:
        found = fitting(text, run)
        if found is not None and second.WIDE.search(found):
            fitted_cells.append(run)
        return found

    def noting_runs(self: Any, image: Any, line: Any) -> tuple[str, float] | None:
        fitted_cells.clear()
        found = read_runs(self, image, line)
        if found is not None:
            # Read with no chance of a miss: the factor is the runs' own chance undone.
            again[found[0]] = (line.confidence * found[1], "run", sum(fitted_cells))
        return found

    def noting_revise(self: Any, image: Any, lines: Any) -> list[Any]:
        found: list[Any] = revise(self, image, lines)
        for was, now in zip(lines, found, strict=True):
            if was.text != now.text and now.text not in again:
                again[now.text] = (1.0, "line", second.cells(now.text))
        return found

    patches: list[tuple[Any, str, Callable[..., Any]]] = [
        (terminal_lines, "chance", noting),  # as terminal_lines calls it
        (terminal, "lines_of", noting_lines),
        (second, "fitting", noting_fitting),
        (second.SecondOpinion, "_read_runs", noting_runs),
        (second.SecondOpinion, "revise", noting_revise),
    ]
    kept = [(where, name, getattr(where, name)) for where, name, _ in patches]
    for where, name, patch in patches:
        setattr(where, name, patch)
    second.MISSES = {way: 0.0 for way in misses}
    out = Lines()
    try:
        for number, record in enumerate(records, 1):
            image = Image.open(folder / record["png"]).convert("RGB")
            regions = [tuple(region) for region in record.get("regions") or []] or None
            hows.clear()
            again.clear()
            read = engine.recognise(image, regions=regions)
            truth = {row.rstrip() for row in record["truth"] if row.strip()}
            for line in read.lines:
                if not line.text.strip() or chrome(line.text, record["optional"]):
                    continue
                exact = line.text.rstrip() in truth
                if line.text in again:
                    base, way, cells = again[line.text]
                    out.again.append((base, {way: cells}, exact))
                    confidence = base * (1.0 - misses[way]) ** cells
                else:
                    confidence = line.confidence
                    how = hows.get(line.text)
                    if how is not None:
                        out.grid.append((1.0, how, exact))
                out.pairs.append((confidence, exact))
            if number % 20 == 0:
                print(f"  ... {number}/{len(records)} training screens read", flush=True)
    finally:
        for where, name, original in kept:
            setattr(where, name, original)
        second.MISSES = misses
        engine.close()
    return out


def chance_of(line: Line, misses: dict[str, float]) -> float:
    base, how, _ = line
    p = base
    for way, count in how.items():
        p *= (1.0 - misses[way]) ** count
    return p


def likelihood(lines: Sequence[Line], misses: dict[str, float]) -> float:
    total = 0.0
    for line in lines:
        p = min(max(chance_of(line, misses), 1e-9), 1 - 1e-9)
        total += math.log(p if line[2] else 1.0 - p)
    return total


def fit(lines: Sequence[Line], start: dict[str, float]) -> dict[str, float]:
    """The chances per way that make the lines' exactness most likely."""
    misses = dict(start)
    seen = {way for _, how, _ in lines for way in how}
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
    from noru.ocr import second, terminal_confidence

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the drawn corpus")
    parser.add_argument("--limit", type=int, default=0, help="only the first N training screens")
    args = parser.parse_args(argv)
    lines = read_training(Path(args.out), args.limit)
    print(
        f"training lines: {len(lines.pairs)}, on a grid: {len(lines.grid)}, "
        f"read again: {len(lines.again)}"
    )
    cells: Counter[str] = Counter()
    for _, how, _ in lines.grid + lines.again:
        cells.update(how)
    print("cells by way: " + ", ".join(f"{w} {n}" for w, n in sorted(cells.items())))
    tables = (
        ("terminal_confidence.MISSES", lines.grid, terminal_confidence.MISSES),
        ("second.MISSES", lines.again, second.MISSES),
    )
    for name, fitted_on, now in tables:
        fitted = fit(fitted_on, now)
        print(f"{name} now:    " + ", ".join(f"{w} {v:.2g}" for w, v in now.items()))
        print(f"{name} fitted: " + ", ".join(f"{w} {v:.2g}" for w, v in fitted.items()))
        for label, misses in (("now", now), ("fitted", fitted)):
            found = calibration([(chance_of(line, misses), line[2]) for line in fitted_on])
            print(f"  its lines, {label}: ECE {found.ece:.3f}, {found.confident} at >= 0.99, "
                  f"{100 * found.confident_exact:.1f} % of them exact")  # fmt: skip
    found = calibration(lines.pairs)
    print(f"all training lines, now: ECE {found.ece:.3f}, {found.confident} at >= 0.99, "
          f"{100 * found.confident_exact:.1f} % of them exact")  # fmt: skip


if __name__ == "__main__":
    main()
