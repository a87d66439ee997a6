"""How legible served images stay with each of Pillow's scaling filters.

Agents read the served image, not the original, so the scaling filter is a
choice between speed and legibility. This bench measures legibility by what
Tesseract can still read: it scales each desktop of the OCR corpus
(tests/screens.py, 2560x1600 with known words) to the served 1568x980 with
each filter, reads it with Noru's Tesseract engine (window rectangles scaled
alike), maps the lines back to the original's coordinates, and prints word
recall per filter, running totals after each frame, and each filter's
median scaling time.

    .venv/bin/python bench/scaling_legibility.py [--frames 8]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from PIL import Image  # noqa: E402
from tests.screens import desktop  # noqa: E402

from noru.ocr.tesseract import TesseractEngine  # noqa: E402
from ocr_corpus import score  # noqa: E402

FILTERS = {
    "lanczos": Image.Resampling.LANCZOS,
    "bicubic": Image.Resampling.BICUBIC,
    "hamming": Image.Resampling.HAMMING,
    "bilinear": Image.Resampling.BILINEAR,
    "box": Image.Resampling.BOX,
}
SIZE = (1568, 980)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    engine = TesseractEngine()
    factor = SIZE[0] / 2560
    found = dict.fromkeys(FILTERS, 0)
    words = 0
    times: dict[str, list[float]] = {name: [] for name in FILTERS}
    try:
        for frame in range(args.seed, args.seed + args.frames):
            screen = desktop(frame, windows=(2, 4))
            regions = [tuple(round(v * factor) for v in box) for box in screen.regions]
            words += len(screen.words)
            for name, resample in FILTERS.items():
                start = time.perf_counter()
                small = screen.image.resize(SIZE, resample)
                times[name].append((time.perf_counter() - start) * 1000)
                result = engine.recognise(small, regions=regions)
                lines = [
                    dataclasses.replace(line, box=tuple(round(v / factor) for v in line.box))
                    for line in result.lines
                ]
                hits, _, _ = score(screen, dataclasses.replace(result, lines=lines))
                found[name] += len(hits)
            running = "  ".join(f"{n} {found[n] / words:.3f}" for n in FILTERS)
            print(f"frame {frame}: {running}", flush=True)
    finally:
        engine.close()
    print(f"\n{args.frames} frames, {words} words, served at {SIZE[0]}x{SIZE[1]}")
    print(f"{'filter':10} {'word recall':>12} {'scale ms':>9}")
    for name in FILTERS:
        print(f"{name:10} {found[name] / words:12.1%} {statistics.median(times[name]):9.1f}")


if __name__ == "__main__":
    main()
