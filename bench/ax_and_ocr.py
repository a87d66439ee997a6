"""Accessibility text beside OCR: could OCR skip a window whose ax text covers it?

On a private 2560x1600 Xvfb with openbox and a private session bus
(tests/session_bus.py), real programs show text we know, with their
accessibility tree on that bus: a GTK 3 form (labels, an entry, a masked
password, a TextView, a button and a grid of labels) and a Firefox ESR page.
Each window is captured as the app captures it (``noru.capture.Capturer``
with an accessibility budget, the window under the pointer), its ax text
read beside the grab, and its pixels read by the default OCR engine as
``noru.recognition`` reads them. Word tokens are scored as bench/ocr_real.py
scores them, against what the window shows (``Client.lines``): the recall
of OCR alone, of the ax text alone, and of both together, and the OCR time
a skip would save. OCR may skip a window only where the ax text alone
recalls as much as both together.

    .venv/bin/python bench/ax_and_ocr.py
    .venv/bin/python bench/ax_and_ocr.py --frames 3
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests import real_clients, session_bus  # noqa: E402
from tests.real_clients import Client  # noqa: E402
from tests.xserver import XServer, running_xserver  # noqa: E402

import noru.ax as ax  # noqa: E402
from capture_pipeline import host_speed  # noqa: E402
from noru.capture import Capturer  # noqa: E402
from noru.ocr import get_engine  # noqa: E402
from ocr_real import prose_lines, tokens  # noqa: E402

WIDTH, HEIGHT = 2560, 1600


def _gtk(server: XServer, bus: dict[str, str], rng: random.Random) -> Client:
    words = prose_lines(rng, 12, width=44)
    return real_clients.open_gtk_form(
        server,
        bus,
        labels=words[:3],
        entry=" ".join(words[3].split()[:4]),
        secret="hunter2-Noru-secret",
        view=words[4:8],
        button=" ".join(words[8].split()[:3]),
        cells=[f"{w} {n}" for n, w in enumerate(" ".join(words[9:]).split()[:30])],
        columns=5,
        x=60,
        y=60,
        width=900,
        height=700,
    )


def _firefox(server: XServer, bus: dict[str, str], rng: random.Random) -> Client:
    lines = prose_lines(rng, 14, width=90)
    return real_clients.open_firefox(server, lines[0], lines[1:], x=60, y=60, bus=bus)


CLASSES = {"gtk-form": (_gtk, "gtk"), "firefox": (_firefox, "firefox")}


def recall(truth: Counter[str], read: Counter[str]) -> float:
    return sum((truth & read).values()) / max(1, sum(truth.values()))


@contextmanager
def on_bus(address: str) -> Iterator[None]:
    before = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
    try:
        yield
    finally:
        ax.close()
        if before is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = before


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=3, help="captures per class, new text each")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    problems = [session_bus.missing(), *(real_clients.missing(k) for _, k in CLASSES.values())]
    if any(problems):
        raise SystemExit("; ".join(p for p in problems if p))
    command = shlex.join(
        [".venv/bin/python", "bench/ax_and_ocr.py", *(argv if argv is not None else sys.argv[1:])]
    )
    speed_before = host_speed()
    engine = get_engine("tesseract")
    print(f"ax beside OCR: {WIDTH}x{HEIGHT} Xvfb + openbox, {args.frames} captures per class, "
          f"tesseract {engine.version}")  # fmt: skip
    print(f"command: {command}")
    print(f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    rows = []
    with (
        tempfile.TemporaryDirectory(prefix="noru-ax-ocr-") as tmp,
        running_xserver(Path(tmp), width=WIDTH, height=HEIGHT) as server,
        session_bus.running_session_bus(Path(tmp)) as bus,
        on_bus(bus.address),
        Capturer(display=server.display, ax_budget=2.0) as capturer,
    ):
        for name, (opener, _) in CLASSES.items():
            truth: Counter[str] = Counter()
            by_ocr: Counter[str] = Counter()
            by_ax: Counter[str] = Counter()
            both: Counter[str] = Counter()
            ocr_ms, ax_ms, lost_by_ax = [], [], Counter[str]()
            for frame in range(args.frames):
                rng = random.Random(f"{args.seed}-{name}-{frame}")
                with opener(server, bus.env, rng) as client:
                    client.bring_under_pointer()
                    (grab,) = capturer.grab_window("pointer")
                    shown = Counter(t for line in client.lines for t in tokens(line))
                assert grab.ax is not None
                start = time.perf_counter()
                result = engine.recognise(grab.image)
                ocr_ms.append((time.perf_counter() - start) * 1000)
                ax_ms.append(grab.ax.elapsed_ms)
                ocr = Counter(t for line in result.lines for t in tokens(line.text))
                axt = Counter(t for line in grab.ax.lines for t in tokens(line.text))
                truth += shown
                by_ocr += shown & ocr
                by_ax += shown & axt
                both += shown & (ocr | axt)
                lost_by_ax += (shown & ocr) - axt
            rows.append((name, truth, by_ocr, by_ax, both, ocr_ms, ax_ms, lost_by_ax))
            print(f"  ... {name} done", file=sys.stderr, flush=True)
    engine.close()
    print(f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
          f"{host_speed():.0f} ms after")  # fmt: skip
    print()
    print(f"{'class':10} {'tokens':>6} {'ocr':>7} {'ax':>7} {'both':>7} {'ocr ms':>7} {'ax ms':>6}"
          "  skip OCR?")  # fmt: skip
    for name, truth, by_ocr, by_ax, both, ocr_ms, ax_ms, lost in rows:
        total = sum(truth.values())
        r_ocr, r_ax, r_both = (recall(truth, c) for c in (by_ocr, by_ax, both))
        verdict = "yes" if r_ax >= r_both else f"no: ax alone loses {100 * (r_both - r_ax):.1f} pt"
        print(
            f"{name:10} {total // args.frames:6} {100 * r_ocr:6.1f}% {100 * r_ax:6.1f}% "
            f"{100 * r_both:6.1f}% {statistics.median(ocr_ms):7.0f} "
            f"{statistics.median(ax_ms):6.0f}  {verdict}"
        )
        if lost:
            print(
                "    read by OCR, not in ax: "
                + ", ".join(f"{t!r} x{n}" for t, n in lost.most_common(8))
            )
    print("(tokens: per capture; recall of what the window shows; ms: median per capture)")


if __name__ == "__main__":
    main()
