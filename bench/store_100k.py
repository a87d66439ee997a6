"""History at scale: a 100,000-capture store, timed through the real reader and tools.

Builds a store with N captures (default 100,000) of synthetic OCR text
(150-250 words each, Zipf-like vocabulary) and small images, then prints
p50/p95 over repeated calls for:

- list: newest 20 locator rows (store level, and the list_captures tool);
- get by id without pixels (the get_capture tool with text_only);
- search for a rare term (~20 captures), a medium one (~2 %), and a very
  common one (in every capture), store level and tool level;
- database size per capture.

The build uses the real schema but bulk transactions and un-fsynced tiny files
(100,000 fsyncs would measure the disk, not Noru); a separate small sample
times the real durable ``Store.add_capture``.

    .venv/bin/python bench/store_100k.py [--captures 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from noru.mcp.tools import ToolContext
from noru.mcp.tools import history as tools
from noru.paths import db_path
from noru.store import Filters, NewImage, Reader, Store
from noru.store.files import relative_path

RARE, MEDIUM, COMMON = "zyxquartz", "kettlebell", "window"
APPS = [("Code", "code"), ("XTerm", "xterm"), ("Firefox", "firefox"), ("Slack", "slack")]


def vocabulary(rng: random.Random, size: int = 20000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)]


def tiny_png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 40), (200, 200, 200)).save(out, format="PNG")
    return out.getvalue()


def build(home: Path, count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    png = tiny_png()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids: list[str] = []
    with Store.open(home) as store:
        db = store.db
        db.execute("PRAGMA synchronous = OFF")
        batch = 2000
        for first in range(0, count, batch):
            db.execute("BEGIN")
            for n in range(first, min(count, first + batch)):
                moment = start + timedelta(seconds=n * 97)
                capture_id = moment.astimezone().strftime("capture_%Y-%m-%d_%H%M%S")
                text_words = rng.choices(words, weights, k=rng.randint(150, 250))
                text_words.append(COMMON)
                if rng.random() < 0.02:
                    text_words.append(MEDIUM)
                if rng.random() < 0.0002:
                    text_words.append(RARE)
                rng.shuffle(text_words)
                text = " ".join(text_words)
                app, app_id = APPS[n % len(APPS)]
                cur = db.execute(
                    "INSERT INTO captures (id, captured_at, captured_ts, origin, image_count,"
                    " ocr_state, ocr_engine, ocr_confidence) VALUES (?, ?, ?, 'user', 1, 'done',"
                    " 'tesseract', 0.9)",
                    (capture_id, moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.timestamp()),
                )
                rel = relative_path(capture_id, 1)
                path = store.images_root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(png)
                db.execute(
                    "INSERT INTO images (capture_seq, position, path, width, height, display_index,"
                    " app_id, app_name, window_title, workspace_hint, ocr_lines)"
                    " VALUES (?, 1, ?, 64, 40, 1, ?, ?, ?, 'repoB', ?)",
                    (
                        cur.lastrowid,
                        rel,
                        app_id,
                        app,
                        f"main.py - repoB - {app}",
                        f'[["{text[:60]}",0,0,64,10,0.9]]',
                    ),
                )
                db.execute(
                    "INSERT INTO capture_text (rowid, ocr, ax, note) VALUES (?, ?, '', '')",
                    (cur.lastrowid, text),
                )
                ids.append(capture_id)
            db.execute("COMMIT")
        db.execute("INSERT INTO capture_text (capture_text) VALUES ('optimize')")
    return ids


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    fn()  # warm
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[
        min(len(samples) - 1, round(0.95 * (len(samples) - 1)))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--captures", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the store here")
    args = parser.parse_args()
    tmp = None
    if args.keep:
        home = args.keep
    else:
        tmp = tempfile.TemporaryDirectory()
        home = Path(tmp.name)
    os.environ["NORU_HOME"] = str(home)
    if not db_path(home).exists():
        t = time.perf_counter()
        build(home, args.captures)
        print(f"built {args.captures} captures in {time.perf_counter() - t:.1f} s")
    now = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=args.captures * 97)
    context = ToolContext(home=home, now=lambda: now)
    reader = Reader.open(home)
    assert reader is not None
    ids = [r.id for r in reader.list_rows(Filters(), limit=200)[0]]
    rng = random.Random(3)
    count = reader.count()
    size = sum(p.stat().st_size for p in home.glob("noru.sqlite3*"))
    print(
        f"store: {count} captures, database {size / 1e6:.1f} MB, {size / count:.0f} bytes/capture"
    )

    rows: list[tuple[str, Callable[[], object], str]] = [
        ("list newest 20 (store)", lambda: reader.list_rows(Filters(), limit=20), "<= 5 ms"),
        ("list_captures tool", lambda: tools.list_captures(context, {}), "<= 5 ms"),
        ("list_captures app filter", lambda: tools.list_captures(context, {"app": "slack"}), ""),
        (
            "get_capture id, text_only",
            lambda: tools.get_capture(context, {"id": rng.choice(ids), "text_only": True}),
            "",
        ),
    ]
    for label, term in (("rare", RARE), ("medium", MEDIUM), ("very common", COMMON)):
        hits = reader.db.execute(
            "SELECT count(*) FROM capture_text WHERE capture_text MATCH ?", (f'"{term}"',)
        ).fetchone()[0]
        goal = "<= 20 ms" if label == "very common" else "<= 50 ms"
        rows.append(
            (
                f"search {label} ({hits} hits, store)",
                lambda term=term: reader.search(term, Filters(), now=now),
                goal,
            )
        )
        rows.append(
            (
                f"search_captures {label} (tool)",
                lambda term=term: tools.search_captures(context, {"query": term}),
                goal,
            )
        )
    print(f"{'operation':44} {'p50 ms':>8} {'p95 ms':>8}  goal (p95)")
    for label, fn, goal in rows:
        p50, p95 = timed(fn, args.runs)
        print(f"{label:44} {p50:8.2f} {p95:8.2f}  {goal}")
    reader.close()

    with tempfile.TemporaryDirectory() as fresh, Store.open(Path(fresh)) as store:
        png = tiny_png()
        p50, p95 = timed(lambda: store.add_capture([NewImage(png, 64, 40)], origin="user"), 50)
        print(f"{'durable add_capture (fsync file+db)':44} {p50:8.2f} {p95:8.2f}")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
