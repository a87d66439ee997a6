"""Where one observe_screen's time goes, stage by stage.

On a private 2560x1600 Xvfb filled with a full-screen window of source code
(the capture_pipeline bench's screen), two things alternate, one run of each
in turn (after 3 warm-ups), so that both see the same machine:

1. the whole answer: observe_screen(target="display") from a real `noru mcp`
   over stdio, through a running app (OCR off, ocr_settle 0, no redaction:
   the served image's path alone, as in observe_vs_pipeline's pair), timed
   by the client from the request line written to the answer line parsed;
2. the same work in this process, stage by stage, with the functions the app
   and `noru mcp` call, in the app's order (noru.app.core.App._take):

   grab        Capturer.grab_display(1): RandR and window facts, mss, the
               pixels as a PNG's rows (X11: packed from mss's shared memory)
   scanlines   the grab's rows as the app takes them (no image is decoded;
               imaging.scanlines only for a backend that gives an image)
   serve       imaging.serve_rows: libvips' Lanczos to 1568 px, the served PNG
   pool        beside serve, on a pool thread: the lossless original's PNG,
               then Store.add_capture (real SQLite, each write fsynced)
   wait        what serve then still waits for the pool
   reply       appwire.encode of the app's answer and appwire.decode_reply of it
   present     `noru mcp`: the capture read back, present_capture with the
               app's served image, capture_result, the JSON-RPC line

The sum of the stages on the answer's path (all but pool) is set against the
whole answer; the rest is what no stage holds: the two hops (app socket,
stdio pipe), three processes waking, the client reading its line. Medians and
p95s in ms; the host's speed before and after.

    .venv/bin/python bench/observe_stages.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from capture_pipeline import MAX_EDGE, host_speed, screen_of_code
from noru import appwire, imaging
from noru.app.memory import tune_malloc
from noru.capture import Capturer, Grab
from noru.contract import capture_result
from noru.present import Projection, present_capture
from noru.store import NewImage, Reader, Store
from observe_vs_pipeline import Agent, app_running, p95, x11_session

STAGES = ("grab", "scanlines", "serve", "pool", "wait", "reply", "present")
ON_PATH = ("grab", "scanlines", "serve", "wait", "reply", "present")


def _stored(store: Store, grab: Grab, png: bytes) -> str:
    image = NewImage(
        png=png,
        width=grab.size[0],
        height=grab.size[1],
        source=grab.source,
        display_mode=grab.display_mode,
        windows=grab.windows,
    )
    return store.add_capture([image], origin="agent").id


def staged(
    capturer: Capturer, pool: ThreadPoolExecutor, store: Store, home: Path
) -> dict[str, float]:
    """One observe_screen's work in this process: each stage's ms."""
    ms: dict[str, float] = {}
    t = time.perf_counter()
    grab = capturer.grab_display(1)[0]
    ms["grab"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    lines = grab.rows or imaging.scanlines(grab.image)
    assert lines is not None
    ms["scanlines"] = (time.perf_counter() - t) * 1000

    def original_and_store() -> tuple[str, float]:
        start = time.perf_counter()
        capture_id = _stored(store, grab, imaging.png_of_rows(lines))
        return capture_id, (time.perf_counter() - start) * 1000

    t = time.perf_counter()
    storing = pool.submit(original_and_store)
    served = imaging.serve_rows(lines, MAX_EDGE)
    ms["serve"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    capture_id, ms["pool"] = storing.result()
    ms["wait"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    delivered = appwire.decode_reply(
        appwire.encode(appwire.Delivered(capture_id, served=(served,)))
    )
    assert isinstance(delivered, appwire.Delivered)
    ms["reply"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    with Reader.open(home) as reader:
        record = reader.get(delivered.id)
        assert record is not None
        view = present_capture(
            reader, record, Projection(), max_edge=MAX_EDGE, app_served=delivered.served
        )
    result = capture_result(view, now=datetime.now(UTC), with_sources=False)
    line = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "result": result}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    assert b'"type":"image"' in line
    ms["present"] = (time.perf_counter() - t) * 1000
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    tune_malloc()
    speed_before = host_speed()
    stages: dict[str, list[float]] = {name: [] for name in STAGES}
    whole: list[float] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        screen_of_code() as display,
        app_running(Path(tmp) / "app", x11_session(display), settle=0, ocr=False) as (_, env),
        Capturer(display=display) as capturer,
        ThreadPoolExecutor(2) as pool,
    ):
        home = Path(tmp) / "stages"
        home.mkdir(mode=0o700)
        agent = Agent(env)
        store = Store.open(home)
        try:
            for run in range(args.runs + 3):
                ms, answer = staged(capturer, pool, store, home), agent.observe()
                if run >= 3:
                    whole.append(answer)
                    for name, value in ms.items():
                        stages[name].append(value)
        finally:
            store.close()
            agent.close()
    print(f"one observe_screen, 2560x1600 -> 1568x980, {args.runs} runs each; ms")
    print(f"{'stage':<44} {'median':>8} {'p95':>8}")
    for name in STAGES:
        label = f"{name} (beside serve, not on the path)" if name == "pool" else name
        print(f"{label:<44} {statistics.median(stages[name]):8.1f} {p95(stages[name]):8.1f}")
    path = [sum(stages[name][i] for name in ON_PATH) for i in range(args.runs)]
    rest = [answer - staged_sum for answer, staged_sum in zip(whole, path, strict=True)]
    for label, values in (
        ("stages on the path, summed", path),
        ("the whole answer (noru mcp over stdio)", whole),
        ("the rest: hops, wake-ups, the client", rest),
    ):
        print(f"{label:<44} {statistics.median(values):8.1f} {p95(values):8.1f}")
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{host_speed():.0f} ms after"
    )


if __name__ == "__main__":
    main()
