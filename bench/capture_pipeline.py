"""How long the in-process capture pipeline takes on a 2560x1600 X display.

Starts a private Xvfb (2560x1600x24) and fills it with a full-screen Tk text
window showing Noru's own source, so the pixels compress like a real screen
of code, not like a flat colour. Then, in this process, runs N times (default
30, after 3 warm-up runs):

    grab      Capturer.grab_display(1): RandR and window facts + mss pixels -> RGB image
    scale     noru.imaging.scale(): Lanczos to a 1568 px long edge (libvips)
    PNG       noru.imaging.encode_png() of it, as the app serves it (segmented)
    base64    base64 of the PNG, as it goes on the wire
    original  noru.imaging.encode_png() of the full grab: the lossless original
              the app stores (on a second thread, beside serve; not in the total)

and prints the median and p95 of each stage and of the total, in ms, and the
sizes of both PNGs. glibc's allocator is tuned as the app tunes it
(noru.app.memory).
Xvfb and the Tk window are stopped by their pids on the way out.

    .venv/bin/python bench/capture_pipeline.py [--runs 30]
"""

from __future__ import annotations

import argparse
import base64
import os
import select
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from noru.app.memory import tune_malloc
from noru.capture import Capturer
from noru.imaging import encode_png, fit_long_edge, scale

WIDTH, HEIGHT = 2560, 1600
MAX_EDGE = 1568

_TK_SCREEN = """
import sys, tkinter as tk
root = tk.Tk()
root.geometry("{w}x{h}+{x}+0")
text = tk.Text(root, font=("DejaVu Sans Mono", 13), background="#1e1e1e",
               foreground="#d4d4d4", borderwidth=0)
text.insert("1.0", sys.stdin.read())
text.pack(fill="both", expand=True)
root.wait_visibility()
root.update()
print("ready", flush=True)
root.mainloop()
"""


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _start_xvfb(width: int = WIDTH) -> tuple[subprocess.Popen[bytes], str]:
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        [
            *("Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{width}x{HEIGHT}x24"),
            *("-nolisten", "tcp", "-noreset", "+extension", "RANDR"),
        ],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    number = b""
    try:
        while not number.endswith(b"\n"):
            ready, _, _ = select.select([read_fd], [], [], 30)
            chunk = os.read(read_fd, 32) if ready else b""
            if not chunk:
                raise SystemExit("Xvfb did not start")
            number += chunk
    except BaseException:
        _stop(process)
        raise
    finally:
        os.close(read_fd)
    return process, f":{number.decode().strip()}"


def _fill_screen(display: str, x: int = 0) -> subprocess.Popen[bytes]:
    source = "\n".join(
        p.read_text() for p in sorted((Path(__file__).parents[1] / "src" / "noru").rglob("*.py"))
    )
    process = subprocess.Popen(
        [sys.executable, "-c", _TK_SCREEN.format(w=WIDTH, h=HEIGHT, x=x)],
        env={**os.environ, "DISPLAY": display},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(source.encode())
    process.stdin.close()
    if not process.stdout.readline().startswith(b"ready"):
        _stop(process)
        raise SystemExit("the Tk window did not appear")
    return process


@contextmanager
def screen_of_code(monitors: int = 1) -> Iterator[str]:
    """A private Xvfb showing a full-screen window of Noru's source on each of
    ``monitors`` 2560x1600 RandR monitors side by side; yields its display
    name, and stops them all by pid on the way out."""
    xvfb, display = _start_xvfb(WIDTH * monitors)
    screens: list[subprocess.Popen[bytes]] = []
    try:
        if monitors > 1:
            _define_monitors(display, monitors)
        for monitor in range(monitors):
            screens.append(_fill_screen(display, x=monitor * WIDTH))
        yield display
    finally:
        for screen in screens:
            _stop(screen)
            if screen.stdout is not None:
                screen.stdout.close()
        _stop(xvfb)


def _define_monitors(display: str, monitors: int) -> None:
    """RandR monitors side by side (tests/xserver.py does the same): Xvfb's
    one output goes to the first, the others take none."""
    size = f"{WIDTH}/{WIDTH * 254 // 960}x{HEIGHT}/{HEIGHT * 254 // 960}"
    for monitor in range(monitors):
        output = "screen" if monitor == 0 else "none"
        subprocess.run(
            ["xrandr", "--setmonitor", f"M{monitor + 1}", f"{size}+{monitor * WIDTH}+0", output],
            env={**os.environ, "DISPLAY": display},
            check=True,
            stdout=subprocess.DEVNULL,
        )


def host_speed() -> float:
    """ms for one Pillow Lanczos 2560x1600 -> 1568x980 on one thread (median of 7).

    A yardstick printed beside the figures: this shared host's speed drifts
    (about 60 ms on a fast phase, 100 ms on a slow one, within minutes).
    """
    from PIL import Image

    image = Image.linear_gradient("L").resize((WIDTH, HEIGHT)).convert("RGB")
    times = []
    for _ in range(7):
        start = time.perf_counter()
        image.resize((MAX_EDGE, 980), Image.Resampling.LANCZOS)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    tune_malloc()
    speed_before = host_speed()
    with screen_of_code() as display:
        stages: dict[str, list[float]] = {
            "grab": [],
            "scale": [],
            "PNG": [],
            "base64": [],
            "total": [],
            "original": [],
        }
        png_sizes: list[int] = []
        original_sizes: list[int] = []
        with Capturer(display=display) as capturer:
            for run in range(args.runs + 3):
                t0 = time.perf_counter()
                grab = capturer.grab_display(1)[0]
                t1 = time.perf_counter()
                scaled = scale(grab.image, fit_long_edge(WIDTH, HEIGHT, MAX_EDGE))
                t2 = time.perf_counter()
                served = encode_png(scaled, segmented=True)
                t3 = time.perf_counter()
                encoded = base64.b64encode(served)
                t4 = time.perf_counter()
                original = encode_png(grab.image)
                t5 = time.perf_counter()
                if run < 3:
                    continue  # warm-up: first grabs set up shared memory
                times = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, t5 - t4)
                for name, seconds in zip(stages, times, strict=True):
                    stages[name].append(seconds * 1000)
                png_sizes.append(len(encoded))
                original_sizes.append(len(original))
        assert grab.image.size == (WIDTH, HEIGHT)
        assert scaled.size == (1568, 980)

    print(
        f"capture pipeline, {WIDTH}x{HEIGHT} -> {scaled.width}x{scaled.height} PNG, "
        f"{args.runs} runs (after 3 warm-up), ms"
    )
    print(f"{'stage':<9} {'median':>8} {'p95':>8}")
    for name, values in stages.items():
        print(f"{name:<9} {statistics.median(values):8.1f} {_p95(values):8.1f}")
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{host_speed():.0f} ms after"
    )
    print(f"base64 PNG size: median {statistics.median(png_sizes) / 1e6:.2f} MB")
    print(
        f"original PNG size: median {statistics.median(original_sizes) / 1e6:.2f} MB "
        f"(raw pixels {WIDTH * HEIGHT * 3 / 1e6:.1f} MB)"
    )


if __name__ == "__main__":
    main()
