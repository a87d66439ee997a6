"""What finding and replacing secrets costs, in process time: ``for_agent``
on the screen ``bench/redact_observe.py`` looks at, without the app.

``redact_observe.py`` times whole looks through a real app, on wall-clock
time that another process on the host's cores moves by milliseconds. This
times only ``noru.redact.apply.for_agent`` on that screen's real reading
(an xterm 200x60, DejaVu Sans Mono 9, on a 2560x1600 Xvfb: 59 dense log
lines, three holding planted secrets; grabbed by Noru's capturer, read by
Tesseract as the app's OCR child reads it), by ``time.process_time``
(CPU time of this process only), ``--runs`` calls after a warm-up.

The reading is kept as JSON (``--rows``, drawn and read again when the file
is missing), so an older checkout can be timed on the very same rows: run
this file with ``PYTHONPATH`` on the other checkout's ``src`` and the same
``--rows``; alternate the two a few times, the host's speed drifts. After
adding a rule, run it before and after: a rule that searches every row
with a costly pattern shows here (see docs/performance.md, "Redaction in
what agents get"). ``--profile`` prints where the time goes instead;
``--rules``, what each rule of formats costs on these rows: the rows whose
needles pick it (``search.searched``), its gate and its pattern on them,
the costliest first (a rule picked by most rows, with a pattern that
tries every place of a row, leads). For
a count the host's load does not move, run it under ``valgrind
--tool=callgrind`` with ``--runs 1`` and ``--runs 6``: the difference of
the instructions it collects, over 5, is one call's.

    PYTHONPATH=$PWD/src .venv/bin/python bench/redact_cost.py [--runs 300] \
        [--rows bench/out/redact_cost_rows.json] [--profile | --rules]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# PYTHONPATH first: another checkout's ``noru`` may be timed on the same rows.
sys.path[:0] = [*os.environ.get("PYTHONPATH", "").split(os.pathsep), str(ROOT), str(ROOT / "src")]
sys.path = [p for p in sys.path if p]

from noru.ocr.base import OcrLine  # noqa: E402
from noru.redact import policy  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from noru.sources import Source  # noqa: E402
from noru.store import CaptureRecord, ImageRecord  # noqa: E402

POLICY = policy.Policy.of(["secrets", "cards"])
ROWS = ROOT / "bench" / "out" / "redact_cost_rows.json"


def _draw_and_read(path: Path) -> None:
    """The screen drawn as ``redact_observe.py`` draws it, grabbed, read
    and kept at ``path`` as JSON (each image's size, windows and lines)."""
    sys.path[:0] = [str(ROOT / "bench")]
    from tests import real_terminals
    from tests.redaction_cases import planted
    from tests.served_terminal import settled, stored_and_seen
    from tests.xserver import running_xserver

    from noru.capture import Capturer
    from noru.ocr.tesseract import TesseractEngine
    from time_to_text import log_line

    rng = random.Random(5)
    secrets = [line for line, _, kind in planted(seed=9) if kind in ("aws-key", "password", "jwt")]
    lines = [log_line(rng, row) for row in range(59)]
    for i, secret in zip((10, 30, 50), secrets, strict=True):
        lines[i] = secret
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
        real_terminals.open_xterm(
            server, lines, columns=200, rows=60, x=40, y=40, font="DejaVu Sans Mono", size=9
        ),
        Capturer(display=server.display) as capturer,
    ):
        grabs = settled(capturer)
        engine = TesseractEngine()
        try:
            stored, _, _ = stored_and_seen(Path(tmp) / "home", engine, grabs)
        finally:
            engine.close()
    images = [
        {
            "width": image.width,
            "height": image.height,
            "windows": [list(w) for w in image.windows],
            "screen_rect": list(image.screen_rect) if image.screen_rect else None,
            "lines": [
                [line.text, list(line.box), line.confidence, line.columns]
                for line in image.ocr_lines or ()
            ],
        }
        for image in stored.images
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"images": images}, indent=1) + "\n")


def _known(cls: type, **values: Any) -> Any:
    """``cls(**values)`` with only the fields ``cls`` has (an older checkout's
    records lack some)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in values.items() if k in names})


def _record(path: Path) -> CaptureRecord:
    images = []
    for position, image in enumerate(json.loads(path.read_text())["images"]):
        lines = tuple(
            _known(OcrLine, text=text, box=tuple(box), confidence=confidence, columns=columns)
            for text, box, confidence, columns in image["lines"]
        )
        rect = image["screen_rect"]
        images.append(
            _known(
                ImageRecord, position=position, path=f"{position}.png", width=image["width"],
                height=image["height"], source=Source(), display_mode=None, ax_text=None,
                ocr_lines=lines, windows=tuple(tuple(w) for w in image["windows"]),
                screen_rect=tuple(rect) if rect else None,
            )
        )  # fmt: skip
    return CaptureRecord(
        seq=1, id="c", captured_at=datetime.now(UTC), origin="agent", note=None,
        ocr_state="done", ocr_engine="tesseract", ocr_version=None, ocr_confidence=None,
        ocr_error=None, imported=False, delivered=False, images=tuple(images),
    )  # fmt: skip


def _rules(record: CaptureRecord, runs: int) -> None:
    """Per rule of formats, what searching the rows it is picked for costs
    (``search.matched`` of it alone), in process time, the costliest
    first."""
    from noru.redact import search
    from noru.redact.rules import canon

    rows = [line.text for image in record.images for line in image.ocr_lines or ()]
    picked: dict[int, list[str]] = {}
    for row in rows:
        for i in search.searched(canon(row), POLICY.categories):
            picked.setdefault(i, []).append(row)
    costs = []
    for i, texts in picked.items():
        start = time.process_time()
        for _ in range(runs):
            for text in texts:
                search.matched(text, [i])
        costs.append(((time.process_time() - start) / runs * 1000, i, len(texts)))
    total = sum(cost for cost, _, _ in costs)
    print(f"rules of formats on {len(rows)} rows: {total:.3f} ms a call ({runs} runs)")
    for cost, i, count in sorted(costs, reverse=True)[:12]:
        rule = search._RULES[i]
        gate = "gate" if getattr(rule, "gate", None) is not None else "no gate"
        print(
            f"  {cost:6.3f} ms  {count:3d} rows  {rule.kind} ({gate}; needles {rule.needles[:4]})"
        )


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    parser.add_argument("--rules", action="store_true", help="print each rule's cost on the rows")
    args = parser.parse_args()
    if not args.rows.exists():
        _draw_and_read(args.rows)
    record = _record(args.rows)
    seen = for_agent(record, POLICY)  # warm-up: compiled patterns, caches
    rows = sum(len(image.ocr_lines or ()) for image in record.images)
    if args.rules:
        _rules(record, args.runs)
        return
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.runs):
            for_agent(record, POLICY)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return
    times = []
    for _ in range(args.runs):
        start = time.process_time()
        for_agent(record, POLICY)
        times.append((time.process_time() - start) * 1000)
    import noru

    print(f"for_agent ({Path(noru.__file__).parent.parent}): {rows} rows, {seen.count} spans")
    print(f"  {args.runs} runs, process time: median {statistics.median(times):.2f} ms   "
          f"p95 {p95(times):.2f} ms   least {min(times):.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
