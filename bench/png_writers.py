"""PNG writers on a real screen: Pillow's against Noru's, and zlib against ISA-L.

Grabs the capture_pipeline bench's screen (a private 2560x1600 Xvfb with a
full-screen window of source code), makes the served 1568x980 image from it,
and for both sizes times, N runs each (default 15), median ms and bytes:

    pillow level 1   Image.save(format="PNG", compress_level=1): adaptive filters
    noru             noru.imaging.encode_png: no filter, ISA-L level 1
    deflate zlib 1   zlib.compress of the same unfiltered scanlines, level 1
    deflate isal 1   isal_zlib.compress of them, level 1

    .venv/bin/python bench/png_writers.py [--runs 15]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

from isal import isal_zlib
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from capture_pipeline import MAX_EDGE, host_speed, screen_of_code
from noru.capture import Capturer
from noru.imaging import encode_png, fit_long_edge


def pillow_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def scanlines(image: Image.Image) -> bytes:
    stride = image.width * 3
    return b"\0" + image.tobytes("raw", "RGB", stride + 1)[:-1]


def timed(make: Callable[[], bytes], runs: int) -> tuple[float, int]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = make()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), len(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with screen_of_code() as display, Capturer(display=display) as capturer:
        original = capturer.grab_display(1)[0].image
    size = fit_long_edge(original.width, original.height, MAX_EDGE)
    served = original.resize(size, Image.Resampling.LANCZOS)
    print(f"{'image':20} {'writer':16} {'median ms':>10} {'bytes':>10}")
    for label, image in (
        (f"served {served.width}x{served.height}", served),
        ("original", original),
    ):
        raw = scanlines(image)
        rows: list[tuple[str, Callable[[], bytes]]] = [
            ("pillow level 1", partial(pillow_png, image)),
            ("noru", partial(encode_png, image)),
            ("deflate zlib 1", partial(zlib.compress, raw, 1)),
            ("deflate isal 1", partial(isal_zlib.compress, raw, 1)),
        ]
        for writer, make in rows:
            ms, length = timed(make, args.runs)
            print(f"{label:20} {writer:16} {ms:10.1f} {length:10,}")
    print(f"host speed (bench/capture_pipeline.host_speed): {host_speed():.0f} ms")


if __name__ == "__main__":
    main()
