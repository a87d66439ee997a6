"""OCR on the terminal corpus: real terminals drawing the text people ask agents about.

The corpus (tests/terminal_corpus.py) is screens of eight real terminals in
sixteen font families, four size bands, four themes, short and dense, with
thirty-one kinds of text (tests/terminal_texts); a third of the families and
a third of the kinds are held out, never tuned on. ``draw`` captures each
screen as Noru's app does and writes the PNGs and screens.jsonl;
``score`` reads a drawn corpus with each reader and never draws again:

- ``noru``: Noru's engine as the app calls it (``get_engine("tesseract")``,
  ``engine.recognise(image, regions=regions)``), lines with confidences;
- ``tesseract-psm6``: Tesseract alone (tesserocr, LSTM, eng, the system's
  tessdata) reading the window PNG as one block of text (PSM 6);
- ``rapidocr``: RapidOCR alone, as installed, on the same PNG (the models
  its wheel ships), its boxes joined into lines left to right.

Figures (tests/ocr_scoring.py, case-sensitive): token recall, exact lines,
character error rate (CER), windows passing (99 % of tokens and 95 % of
lines), per class along each axis for the training and the held-out parts;
the never-worse check (screens where Noru makes more character errors than
the better of the two engines alone); Noru's line confidences against
exact lines. What the two engines alone read is kept in the corpus folder
(``readings/``, by the PNG's hash and the engine's version): a rerun reads
only with Noru. The figures go to ``figures.json`` beside the corpus.

    .venv/bin/python bench/ocr_terminals.py draw                     # the whole corpus
    .venv/bin/python bench/ocr_terminals.py draw --split train --limit 20
    .venv/bin/python bench/ocr_terminals.py score                    # all three readers
    .venv/bin/python bench/ocr_terminals.py score --readers noru --misses 5
    .venv/bin/python bench/ocr_terminals.py score --split held-out   # the headline only
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from PIL import Image  # noqa: E402
from tests import terminal_corpus  # noqa: E402
from tests.ocr_readers import READERS, Reader, Reading, make_reader  # noqa: E402
from tests.ocr_scoring import Score, calibration, chrome, score  # noqa: E402
from tests.terminal_corpus import AXES, png_hash, read_corpus  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "out" / "terminals"


# --- readings kept -----------------------------------------------------------------------


def cached_reading(
    reader: Reader,
    folder: Path,
    png: Path,
    image: Image.Image,
    regions: list[tuple[int, int, int, int]],
) -> Reading:
    """What ``reader`` reads in ``image`` (the PNG ``png``), or what it read
    before in the same PNG at the same version, kept in ``folder/readings``."""
    if not reader.cached:
        return reader.read(image, regions)
    key = f"{reader.name}-{png_hash(png)[:24]}-{_slug(reader.version)}"
    path = folder / "readings" / f"{key}.json"
    if path.exists():
        saved = json.loads(path.read_text())
        return Reading(tuple(saved["lines"]))
    reading = reader.read(image, regions)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"version": reader.version, "lines": list(reading.lines)}))
    return reading


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in text)


# --- scoring ------------------------------------------------------------------------------


@dataclass
class Result:
    """One reader's reading of one screen, scored."""

    screen: dict[str, Any]
    reader: str
    reading: Reading
    score: Score
    seconds: float


@dataclass
class Totals:
    """Scores summed over screens: micro averages of tokens, lines and characters."""

    screens: int = 0
    passed: int = 0
    truth_tokens: int = 0
    found_tokens: int = 0
    truth_lines: int = 0
    exact_lines: int = 0
    truth_chars: int = 0
    errors: int = 0
    seconds: list[float] = field(default_factory=list)

    def add(self, result: Result) -> None:
        s = result.score
        self.screens += 1
        self.passed += s.passed
        self.truth_tokens += s.truth_tokens
        self.found_tokens += s.found_tokens
        self.truth_lines += s.truth_lines
        self.exact_lines += s.exact_lines
        self.truth_chars += s.truth_chars
        self.errors += s.errors
        self.seconds.append(result.seconds)

    def row(self) -> str:
        tokens = 100 * self.found_tokens / max(1, self.truth_tokens)
        lines = 100 * self.exact_lines / max(1, self.truth_lines)
        cer = 100 * self.errors / max(1, self.truth_chars)
        return f"{tokens:6.1f} % | {lines:6.1f} % | {cer:6.2f} % | {self.passed}/{self.screens}"


def score_corpus(
    folder: Path,
    readers: Sequence[Reader],
    records: Sequence[dict[str, Any]],
    failures: list[tuple[str, str, str]],
) -> list[Result]:
    """Every record read by every reader and scored; a reader's failure on a
    screen goes to ``failures`` (reader, screen, error)."""
    results = []
    for n, record in enumerate(records, 1):
        png = folder / record["png"]
        image = Image.open(png).convert("RGB")
        regions = [(x, y, w, h) for x, y, w, h in record["regions"]]
        for reader in readers:
            started = time.perf_counter()
            try:
                reading = cached_reading(reader, folder, png, image, regions)
            except Exception as exc:
                # A reader that fails on a screen read nothing there: said,
                # counted as such, and the run goes on.
                print(f"  {reader.name} failed on {record['id']}: {exc!r}", file=sys.stderr)
                failures.append((reader.name, record["id"], repr(exc)))
                reading = Reading(())
            seconds = time.perf_counter() - started
            scored = score(record["truth"], record["optional"], reading.lines)
            results.append(Result(record, reader.name, reading, scored, seconds))
        if n % 10 == 0 or n == len(records):
            print(f"  ... {n}/{len(records)} screens read", file=sys.stderr, flush=True)
    return results


def tables(results: Sequence[Result], readers: Sequence[str]) -> Iterable[str]:
    """Markdown tables: per part, the whole part, then per class along each axis."""
    for split in ("train", "held-out"):
        chosen = [r for r in results if r.screen["split"] == split]
        if not chosen:
            continue
        yield f"\n### {split}\n"
        yield "| class | reader | tokens | exact lines | CER | windows passing |"
        yield "|---|---|---:|---:|---:|---:|"
        for reader in readers:
            totals = Totals()
            for result in chosen:
                if result.reader == reader:
                    totals.add(result)
            yield f"| all | {reader} | {totals.row()} |"
        for axis in AXES:
            yield f"\n#### {split}, by {axis.replace('_', ' ')}\n"
            yield (
                f"| {axis} | screens | "
                + " | ".join(f"{reader} tokens / lines / CER / pass" for reader in readers)
                + " |"
            )
            yield "|---|---:|" + "---|" * len(readers)
            groups: dict[str, dict[str, Totals]] = defaultdict(lambda: defaultdict(Totals))
            for result in chosen:
                groups[terminal_corpus.axis_value(result.screen, axis)][result.reader].add(result)
            for value in sorted(groups):
                cells = [groups[value][reader] for reader in readers]
                yield (
                    f"| {value} | {cells[0].screens} | "
                    + " | ".join(c.row().replace(" | ", " / ") for c in cells)
                    + " |"
                )


def never_worse(results: Sequence[Result]) -> list[tuple[dict[str, Any], int, int, int]]:
    """Screens where Noru's character errors exceed the lower of the two
    engines': (screen, noru's, tesseract-psm6's, rapidocr's)."""
    by_screen: dict[str, dict[str, Result]] = defaultdict(dict)
    for result in results:
        by_screen[result.screen["id"]][result.reader] = result
    worse = []
    for readings in by_screen.values():
        if not {"noru", "tesseract-psm6", "rapidocr"} <= readings.keys():
            continue
        noru = readings["noru"].score.errors
        psm6 = readings["tesseract-psm6"].score.errors
        rapid = readings["rapidocr"].score.errors
        if noru > min(psm6, rapid):
            worse.append((readings["noru"].screen, noru, psm6, rapid))
    return worse


def calibrations(results: Sequence[Result]) -> dict[str, Any]:
    """Noru's line confidences against exact lines, per part."""
    out: dict[str, Any] = {}
    for split in ("train", "held-out", "all"):
        pairs = []
        for result in results:
            if result.reader != "noru" or split not in ("all", result.screen["split"]):
                continue
            truth = {row.rstrip() for row in result.screen["truth"] if row.strip()}
            optional = result.screen["optional"]
            assert result.reading.confidences is not None
            for text, confidence in zip(
                result.reading.lines, result.reading.confidences, strict=True
            ):
                if not text.strip() or chrome(text, optional):
                    continue
                pairs.append((confidence, text.rstrip() in truth))
        found = calibration(pairs)
        out[split] = {
            "lines": found.lines,
            "ece": round(found.ece, 4),
            "lines_at_0.99": found.confident,
            "exact_share_at_0.99": round(found.confident_exact, 4),
        }
    return out


def misses(results: Sequence[Result], reader: str, count: int) -> Iterable[str]:
    """The ``count`` worst screens for ``reader`` by CER, truth beside reading."""
    import difflib

    mine = sorted((r for r in results if r.reader == reader), key=lambda r: -r.score.cer)
    for result in mine[:count]:
        s = result.score
        yield (
            f"\n--- {result.screen['id']} ({result.screen['split']}, {result.screen['family']} "
            f"{result.screen['size_pt'] or ''}, {result.screen['theme']}): CER "
            f"{100 * s.cer:.1f} %, tokens {100 * s.token_recall:.1f} %, lines "
            f"{s.exact_lines}/{s.truth_lines}"
        )
        truth = [row.rstrip() for row in result.screen["truth"] if row.strip()]
        read = [row.rstrip() for row in result.reading.lines if row.strip()]
        read = [row for row in read if not chrome(row, result.screen["optional"])]
        matcher = difflib.SequenceMatcher(None, truth, read, autojunk=False)
        for tag, a1, a2, b1, b2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            left, right = truth[a1:a2], read[b1:b2]
            for i in range(max(len(left), len(right))):
                a = left[i] if i < len(left) else ""
                b = right[i] if i < len(right) else ""
                yield f"  truth: {a[:110]!r}\n   read: {b[:110]!r}"


# --- commands -----------------------------------------------------------------------------


def draw_command(args: argparse.Namespace) -> None:
    screens = terminal_corpus.plan(args.seed)
    if args.split != "all":
        screens = [s for s in screens if s.split == args.split]
    if args.limit:
        screens = screens[: args.limit]
    out = Path(args.out)
    print(f"drawing {len(screens)} screens into {out} (seed {args.seed})")
    for line in terminal_corpus.summary(screens):
        print(f"  {line}")
    started = time.monotonic()
    records = terminal_corpus.draw(screens, out)
    print(f"drew {len(records)} of {len(screens)} screens in {time.monotonic() - started:.0f} s")


def score_command(args: argparse.Namespace, argv: Sequence[str]) -> None:
    folder = Path(args.out)
    records = read_corpus(folder)
    if args.split != "all":
        records = [r for r in records if r["split"] == args.split]
    names = args.readers.split(",")
    unknown = [n for n in names if n not in READERS]
    if unknown:
        raise SystemExit(f"unknown readers: {', '.join(unknown)} (of {', '.join(READERS)})")
    readers = [make_reader(name) for name in names]
    print(f"OCR on the terminal corpus in {folder}: {len(records)} screens")
    print("command: " + shlex.join([".venv/bin/python", "bench/ocr_terminals.py", *argv]))
    print(
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print("readers: " + ", ".join(f"{r.name} ({r.version})" for r in readers))
    started = time.monotonic()
    failures: list[tuple[str, str, str]] = []
    results = score_corpus(folder, readers, records, failures)
    for reader in readers:
        reader.close()
    elapsed = time.monotonic() - started
    for text in tables(results, names):
        print(text)
    worse = never_worse(results)
    figures: dict[str, Any] = {
        "screens": len(records),
        "seconds": round(elapsed),
        "readers": {r.name: r.version for r in readers},
        "reader_failures": [{"reader": r, "id": i, "error": e} for r, i, e in failures],
        "per_screen": [
            {
                "id": r.screen["id"],
                "split": r.screen["split"],
                "reader": r.reader,
                "tokens": round(r.score.token_recall, 4),
                "lines": round(r.score.line_share, 4),
                "cer": round(r.score.cer, 4),
                "errors": r.score.errors,
                "passed": r.score.passed,
                "seconds": round(r.seconds, 2),
            }
            for r in results
        ],
    }
    if {"noru", "tesseract-psm6", "rapidocr"} <= set(names):
        print(
            f"\n### never worse: {len(worse)} screens where noru errs more than the better "
            "engine alone\n"
        )
        print("| screen | split | noru | tesseract-psm6 | rapidocr |")
        print("|---|---|---:|---:|---:|")
        for screen, noru, psm6, rapid in sorted(worse, key=lambda w: -(w[1] - min(w[2], w[3]))):
            print(f"| {screen['id']} | {screen['split']} | {noru} | {psm6} | {rapid} |")
        figures["never_worse_failures"] = [
            {"id": s["id"], "noru": n, "tesseract-psm6": p, "rapidocr": q} for s, n, p, q in worse
        ]
    if "noru" in names:
        found = calibrations(results)
        figures["calibration"] = found
        print("\n### noru's line confidence\n")
        print("| part | lines | ECE (10 bins) | lines at >= 0.99 | exact among them |")
        print("|---|---:|---:|---:|---:|")
        for part, c in found.items():
            print(
                f"| {part} | {c['lines']} | {c['ece']:.3f} | {c['lines_at_0.99']} | "
                f"{100 * c['exact_share_at_0.99']:.1f} % |"
            )
    if failures:
        print(f"\n{len(failures)} readings failed (counted as reading nothing):")
        for name, screen_id, error in failures:
            print(f"  {name} on {screen_id}: {error[:200]}")
    print(f"\nread in {elapsed:.0f} s")
    (folder / "figures.json").write_text(json.dumps(figures, indent=1))
    if args.misses:
        for text in misses(results, names[0], args.misses):
            print(text)


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("draw", help="draw the corpus (Xvfb, real terminals)")
    draw.add_argument("--split", choices=("train", "held-out", "all"), default="all")
    draw.add_argument("--limit", type=int, default=0, help="only the first N screens of the plan")
    draw.add_argument("--seed", type=int, default=1)
    draw.add_argument("--out", default=str(DEFAULT_OUT))
    scoring = commands.add_parser("score", help="read a drawn corpus and print its figures")
    scoring.add_argument("--readers", default=",".join(READERS))
    scoring.add_argument("--misses", type=int, default=0, help="the N worst screens, shown")
    scoring.add_argument(
        "--split", choices=("train", "held-out", "all"), default="all", help="only this part"
    )
    scoring.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    if args.command == "draw":
        draw_command(args)
    else:
        score_command(args, argv)


if __name__ == "__main__":
    main()
