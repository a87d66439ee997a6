"""What redaction adds to an agent's look: `observe_screen` with and without it.

On a private 2560x1600 Xvfb with openbox, a real xterm 200x60 in DejaVu
Sans Mono 9 full of dense log lines, three of them holding planted
(generated) secrets. A real `noru app` (default settle: the answer waits
for the text, as it must for redaction to run) and a real `noru mcp`;
`observe_screen` of the display, its calls alternating between `redact`
on (the default) and `redact = []` (config.toml is read at each call), a
pause between looks. Printed: each side's median and p95, and their
difference; then, in-process on the last stored capture, the two stages
redaction adds: finding and replacing (``noru.redact.apply.for_agent``) and
filling the served image (decode, fill, encode: ``pixels.reuse_served``).

    .venv/bin/python bench/redact_observe.py [--runs 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from PIL import Image  # noqa: E402
from tests import real_terminals  # noqa: E402
from tests.redaction_cases import planted  # noqa: E402
from tests.xserver import running_xserver  # noqa: E402

from capture_pipeline import host_speed  # noqa: E402
from noru import imaging  # noqa: E402
from noru.config import load_config  # noqa: E402
from noru.present import Projection, plan  # noqa: E402
from noru.present import pixels as served_pixels  # noqa: E402
from noru.redact import policy  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from noru.store import Reader  # noqa: E402
from observe_vs_pipeline import Agent, app_running, x11_session  # noqa: E402
from time_to_text import log_line  # noqa: E402


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def stages(home: Path, capture_id: str, runs: int) -> tuple[list[float], list[float], int]:
    """ms of ``for_agent`` and of filling the served image, on a stored capture."""
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
        assert record is not None
        in_force = policy.load(home, load_config(home).redact)
        with Image.open(reader.image_file(record.images[0])) as original:
            made = [imaging.serve(original.convert("RGB"), 1568)]
        finding, filling = [], []
        count = 0
        for _ in range(runs):
            start = time.perf_counter()
            seen = for_agent(record, in_force)
            finding.append((time.perf_counter() - start) * 1000)
            view = plan(seen.record, Projection(), max_edge=1568)
            start = time.perf_counter()
            served_pixels.reuse_served(view, made, seen.boxes)
            filling.append((time.perf_counter() - start) * 1000)
            count = seen.count
    return finding, filling, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(5)
    secrets = [line for line, _, kind in planted(seed=9) if kind in ("aws-key", "password", "jwt")]
    lines = [log_line(rng, row) for row in range(59)]
    for i, secret in zip((10, 30, 50), secrets, strict=True):
        lines[i] = secret
    speed = host_speed()
    times: dict[bool, list[float]] = {True: [], False: []}
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
        real_terminals.open_xterm(
            server, lines, columns=200, rows=60, x=40, y=40, font="DejaVu Sans Mono", size=9
        ),
        app_running(Path(tmp) / "home", x11_session(server.display), settle=None) as (_, env),
    ):
        home = Path(env["NORU_HOME"])
        config = home / "config.toml"
        agent = Agent(env)
        last = ""
        try:
            for _ in range(3):
                agent.look_at("display")
            for run in range(args.runs * 2):
                on = run % 2 == 0
                config.write_text("" if on else "redact = []\n")
                time.sleep(0.5)
                elapsed, pending, capture_id = agent.look_at("display")
                if pending:
                    raise SystemExit("a look came back without its text: raise the settle")
                times[on].append(elapsed)
                last = capture_id if on else last
        finally:
            agent.close()
        config.write_text("")
        finding, filling, count = stages(home, last, args.runs)
    print("redaction in observe_screen: 2560x1600 display, xterm 200x60 DejaVu Sans Mono 9,")
    print(f"dense log lines with 3 planted secrets; {args.runs} looks each way, alternating")
    print(f"host speed (bench/capture_pipeline.host_speed): {speed:.0f} ms before, "
          f"{host_speed():.0f} ms after")  # fmt: skip
    for on in (True, False):
        name = "redact on (default)" if on else "redact = []"
        found = times[on]
        print(f"  {name:22} median {statistics.median(found):7.1f} ms   p95 {p95(found):7.1f} ms")
    median = statistics.median(times[True]) - statistics.median(times[False])
    tail = p95(times[True]) - p95(times[False])
    print(f"  difference            median {median:+7.1f} ms   p95 {tail:+7.1f} ms", end="")
    print("   (goal: <= 15 ms p95)")
    print(f"in-process, the last capture ({count} spans found):")
    stage = (("find and replace (for_agent)", finding), ("fill the served image", filling))
    for name, found in stage:
        print(f"  {name:30} median {statistics.median(found):6.2f} ms   p95 {p95(found):6.2f} ms")


if __name__ == "__main__":
    main()
