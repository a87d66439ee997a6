"""observe_screen through the app on headless sway, against the in-process pipeline.

The Wayland counterpart of bench/observe_vs_pipeline.py's first pair, with
its functions: on a private headless sway (tests/sway.py's fixture, one
2560x1600 output) showing a real foot terminal tiled over the whole output
(Noru's own source, light text on a dark background, as the X11 bench's
screen), in one process run, for the window target (the focused foot, as
an agent's ``observe_screen`` grabs it) and then the display target:

1. in-process pipeline: Noru's ``Capturer`` in this process on the sway
   backend (sway's IPC + ``grim`` + PPM decode), scale to 1568 px + PNG,
   base64, with malloc tuned and the scaling shared with a second thread as
   in the app;
2. ``observe_screen`` over MCP stdio: a real ``noru mcp`` -> the app's
   socket (``noru app`` in the sway session, ``ocr_settle = 0``, no OCR:
   the capture path alone) -> grab, store the lossless original, serve ->
   back to the agent;
3. after each pair, ``grim`` alone on the same rectangle, run as the
   backend runs it (its PPM read whole through a pipe), then that PPM
   decoded as the backend decodes it: what the grab stage is made of.

1, 2 and 3 alternate, one of each in turn, after 3 warm-ups, so all see the
same host state. Prints medians, p95s and the ratio, the host-speed yardstick
and /proc/loadavg before and after. Sway, foot, the app and each ``noru
mcp`` are stopped by their pids (the fixture checks that nothing started in
the session outlives it).

    .venv/bin/python bench/observe_vs_pipeline_sway.py [--runs 30]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.sway import Sway, running_sway

from capture_pipeline import host_speed
from noru.app.memory import tune_malloc
from observe_vs_pipeline import Target, alternate, app_running, p95

WIDTH, HEIGHT = 2560, 1600
# What Capturer() needs to find the compositor; never the fixture's token,
# which marks the processes it stops when it stops.
SESSION = ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SWAYSOCK")


def source_lines(columns: int = 230, rows: int = 120) -> list[str]:
    """The first ``rows`` non-empty lines of Noru's source, one terminal row each."""
    lines = []
    for path in sorted((Path(__file__).parents[1] / "src" / "noru").rglob("*.py")):
        for line in path.read_text().expandtabs(4).splitlines():
            line = "".join(c for c in line if c.isprintable())[:columns]
            if line.strip():
                lines.append(line)
                if len(lines) == rows:
                    return lines
    return lines


@contextmanager
def in_session(sway: Sway) -> Iterator[None]:
    """This process in ``sway``'s session, as the app is, for ``Capturer()``."""
    saved = {name: os.environ.get(name) for name in (*SESSION, "DISPLAY")}
    os.environ.pop("DISPLAY", None)
    os.environ.update({name: sway.env[name] for name in SESSION})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def grim_alone(sway: Sway, rect: tuple[int, int, int, int]) -> Callable[[], dict[str, float]]:
    """ms of ``grim`` of ``rect`` as the backend runs it, and of decoding its PPM."""
    x, y, w, h = rect
    args = ["grim", "-s", "1", "-g", f"{x},{y} {w}x{h}", "-t", "ppm", "-"]

    def once() -> dict[str, float]:
        t0 = time.perf_counter()
        done = subprocess.run(args, env=sway.env, capture_output=True, check=True)
        t1 = time.perf_counter()
        with Image.open(io.BytesIO(done.stdout)) as image:
            image.convert("RGB")
        t2 = time.perf_counter()
        return {
            "grim (process + PPM through a pipe)": (t1 - t0) * 1000,
            "PPM decode": (t2 - t1) * 1000,
        }

    return once


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    tune_malloc()
    load_before, speed_before = loadavg(), host_speed()
    results: list[
        tuple[Target, tuple[int, int], list[float], list[float], dict[str, list[float]]]
    ] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_sway(Path(tmp), width=WIDTH, height=HEIGHT) as sway,
    ):
        foot = sway.open_foot(
            source_lines(),
            title="noru source - foot",
            app_id="noru.bench",
            font="DejaVu Sans Mono:size=11",
            background="1e1e1e",
            foreground="d4d4d4",
        )
        with (
            foot,
            in_session(sway),
            app_running(Path(tmp) / "pair", sway.env, settle=0, ocr=False) as (_, env),
        ):
            foot.focus()
            areas: dict[Target, tuple[int, int, int, int]] = {
                "window": foot.rect,
                "display": (0, 0, WIDTH, HEIGHT),
            }
            for target, rect in areas.items():
                stages: dict[str, list[float]] = {}
                inproc, observed = alternate(
                    env,
                    None,
                    args.runs,
                    target=target,
                    stages=stages,
                    between=grim_alone(sway, rect),
                )
                results.append((target, (rect[2], rect[3]), inproc, observed, stages))
    speed_after, load_after = host_speed(), loadavg()

    print(
        f"headless sway, one {WIDTH}x{HEIGHT} output, a tiled foot; "
        f"{args.runs} runs each (after 3 warm-ups), ms"
    )
    print(f"{'target / path':52} {'median':>8} {'p95':>8}")
    for target, size, inproc, observed, stages in results:
        print(f"{target} ({size[0]}x{size[1]} -> 1568 px long edge)")
        rows = [
            ("in-process grab+scale+PNG+base64", inproc),
            *((f"  {name}", times) for name, times in stages.items()),
            ("observe_screen over MCP stdio (ocr_settle 0)", observed),
        ]
        for label, times in rows:
            print(f"  {label:50} {statistics.median(times):8.1f} {p95(times):8.1f}")
        ratio = statistics.median(observed) / statistics.median(inproc)
        print(f"  ratio observe/in-process (medians): {ratio:.2f}  (goal <= 1.3)")
    print("(in-process, observe_screen and grim alone alternate; the app runs without OCR)")
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{speed_after:.0f} ms after"
    )
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")


if __name__ == "__main__":
    main()
