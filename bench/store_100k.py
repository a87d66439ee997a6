"""History at scale (up to a decade of heavy use), timed through the real reader and tools.

Builds a store with N captures (default 100,000; 1,000,000 is about ten years
of heavy use) of synthetic OCR text (150-250 words each, Zipf-like
vocabulary), one small image each, taken 97 s apart from 2026-01-01 UTC, then
prints p50/p95 over repeated calls for:

- list: newest 20 locator rows (store level, and the list_captures tool);
- get by id without pixels (the get_capture tool with text_only);
- search for a rare term (~0.02 % of captures), a medium one (~2 %), and a
  very common one (in every capture), store level and tool level;
- durable ``Store.add_capture`` (in a fresh store);
- agents' searches (the tool, redaction on, as by default) made seen one by
  one, as without agents' search index; how long making that index takes
  (``noru.redact.index.refresh`` over the whole store); then every row above
  with the index;
- bytes per capture: the database's (with its write-ahead log) and the image
  files' (``Reader.usage()``: the ``bytes`` recorded per capture, not the disk
  blocks, which are 4 KiB a tiny file), and how long ``Reader.usage()`` takes
  (a full pass over the captures; ``noru status``, ``noru doctor`` and the
  app's pruner call it).

Then (``--prune``, on by default) pruning the oldest 10 % by age through the
real code, as the app's pruner does in the background (``--prune-by app``:
its own reader plans, the app's writer thread deletes a batch per job with
a pause between) or as ``noru prune`` does (``--prune-by cli``:
``Store.prune``, batches of 100 back to back). It times ``Store.open`` (it
looks for captures with no measured size) and ``prune_plan(keep_days=...,
max_disk=0)`` (with how many captures it names), then prunes while a reader
of its own calls ``list_rows`` (newest 20) and ``search`` (the medium term)
back to back. Both ways merge the search index after so large a prune
(``Store.tidy_search``). It prints the wall time, captures per second, each
batch's time (p50/p95/max, ``cli`` only), and the reader
calls' latency (p50/p95/max, and how many took over 50 ms) idle before, during
and idle after the prune, and beside a process that only burns a core (the
control: what sharing the cores alone does), against the goal "readers never
blocked > 50 ms".
The reader is a process of its own, as ``noru mcp`` is, on a 2-core
machine that the prune (and its disk writes) share.

The build uses the real schema but bulk transactions and un-fsynced tiny files
(a million fsyncs would measure the disk, not Noru); it records each capture's
image bytes as the writer does, so opening the store never measures files.

    .venv/bin/python bench/store_100k.py [--captures 100000] [--runs 200] [--keep DIR]
    .venv/bin/python bench/store_100k.py --captures 1000000

At 1,000,000 captures the build takes several minutes (20,000 take about
4 s here; the full-text index's final merge grows with the store) and needs
about 3 GB for the database and 4 GB for the million image files (one disk
block each), and removing the temporary store at the end takes a while too;
``--runs 50`` shortens the read timings.

``--keep DIR`` builds the store in DIR, or reuses the one there (``--captures``
is then ignored). The prune changes a kept store: its oldest 10 % are gone
afterwards, and its database bytes per capture rise (SQLite keeps the freed
pages for later captures). A re-run on a store already pruned skips the
prune (its reads are then timed on fewer captures, as the ``store:`` line
says); ``--prune`` prunes the oldest 10 % of what is left anyway,
``--no-prune`` never prunes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from itertools import accumulate
from pathlib import Path
from typing import Any

from noru.app.pruner import Pruner
from noru.app.writer import Writer
from noru.config import Config, load_config
from noru.errors import NoMatch
from noru.mcp.tools import ToolContext
from noru.mcp.tools import history as tools
from noru.paths import db_path
from noru.redact import index
from noru.store import Filters, NewImage, Reader, Store
from noru.store.files import relative_path

RARE, MEDIUM, COMMON = "zyxquartz", "kettlebell", "window"
APPS = [("Code", "code"), ("XTerm", "xterm"), ("Firefox", "firefox"), ("Slack", "slack")]
START = datetime(2026, 1, 1, tzinfo=UTC)
STEP = 97  # seconds between captures
PRUNE_SHARE = 0.10  # the oldest share of captures the prune takes
BLOCKED_MS = 50.0  # the goal: no reader call waits longer than this during a prune
IDLE_SECONDS = 3.0  # how long the reader calls are timed with no prune running


def vocabulary(rng: random.Random, size: int = 20000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)]


def tiny_png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 40), (200, 200, 200)).save(out, format="PNG")
    return out.getvalue()


def add_capture(
    store: Store,
    made: set[Path],
    png: bytes,
    n: int,
    *,
    app: str,
    app_id: str,
    title: str,
    hint: str | None,
    lines: list[list[Any]],
    text: str,
    display_name: str | None = None,
) -> None:
    """The ``n``-th capture of a synthetic history (one image, ``STEP``
    seconds after the one before), written row by row as the store lays it
    out, in the caller's transaction: its captures, images and capture_text
    rows and its image file. ``made``: the day folders already created."""
    db = store.db
    moment = START + timedelta(seconds=n * STEP)
    capture_id = moment.astimezone().strftime("capture_%Y-%m-%d_%H%M%S")
    cur = db.execute(
        "INSERT INTO captures (id, captured_at, captured_ts, origin, image_count,"
        " ocr_state, ocr_engine, ocr_confidence, bytes) VALUES (?, ?, ?, 'user', 1,"
        " 'done', 'tesseract', 0.9, ?)",
        (capture_id, moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.timestamp(), len(png)),
    )
    rel = relative_path(capture_id, 1)
    path = store.images_root / rel
    if path.parent not in made:
        path.parent.mkdir(parents=True, exist_ok=True)
        made.add(path.parent)
    path.write_bytes(png)
    db.execute(
        "INSERT INTO images (capture_seq, position, path, width, height, display_index,"
        " display_name, app_id, app_name, window_title, workspace_hint, ocr_lines)"
        " VALUES (?, 1, ?, 64, 40, 1, ?, ?, ?, ?, ?, ?)",
        (cur.lastrowid, rel, display_name, app_id, app, title, hint, json.dumps(lines)),
    )
    db.execute(
        "INSERT INTO capture_text (rowid, ocr, ax, note) VALUES (?, ?, '', '')",
        (cur.lastrowid, text),
    )


def build(home: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    words = vocabulary(rng)
    # The same draws as weights=1/(rank+1), without summing 20,000 weights a capture.
    cum_weights = list(accumulate(1 / (rank + 1) for rank in range(len(words))))
    png = tiny_png()
    made: set[Path] = set()  # day folders already created
    with Store.open(home) as store:
        db = store.db
        db.execute("PRAGMA synchronous = OFF")
        batch = 2000
        for first in range(0, count, batch):
            db.execute("BEGIN")
            for n in range(first, min(count, first + batch)):
                text_words = rng.choices(words, cum_weights=cum_weights, k=rng.randint(150, 250))
                text_words.append(COMMON)
                if rng.random() < 0.02:
                    text_words.append(MEDIUM)
                if rng.random() < 0.0002:
                    text_words.append(RARE)
                rng.shuffle(text_words)
                text = " ".join(text_words)
                app, app_id = APPS[n % len(APPS)]
                add_capture(
                    store,
                    made,
                    png,
                    n,
                    app=app,
                    app_id=app_id,
                    title=f"main.py - repoB - {app}",
                    hint="repoB",
                    lines=[
                        [" ".join(text_words[i : i + 12]), 0, row, 64, 1, 0.9]
                        for row, i in enumerate(range(0, len(text_words), 12))
                    ],
                    text=text,
                )
            db.execute("COMMIT")
            if first and first % 100_000 == 0:
                print(f"  ... {first} captures", flush=True)
        db.execute("INSERT INTO capture_text (capture_text) VALUES ('optimize')")


def percentile(samples: list[float], share: float) -> float:
    """The sample at ``share`` of the sorted samples (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    fn()  # warm
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples), percentile(samples, 0.95)


def _reader_loop(home: Path, now: datetime, ready: Any, stop: Any, out: Any) -> None:
    latency: dict[str, list[float]] = {"list": [], "search": []}
    try:
        with Reader.open(home) as reader:
            calls: dict[str, Callable[[], object]] = {
                "list": lambda: reader.list_rows(Filters(), limit=20),
                "search": lambda: reader.search(MEDIUM, Filters(), now=now),
            }
            for call in calls.values():
                call()
            ready.set()
            while not stop.is_set():
                for name, call in calls.items():
                    t = time.perf_counter()
                    call()
                    latency[name].append((time.perf_counter() - t) * 1000)
        out.send(latency)
    except BaseException as exc:  # reported by the bench
        out.send(repr(exc))
    finally:
        ready.set()


class ReaderCalls:
    """A reader in a process of its own (as ``noru mcp`` is), calling list_rows
    and search back to back until stopped, recording each call's latency (ms)."""

    def __init__(self, home: Path, now: datetime) -> None:
        context = multiprocessing.get_context("fork")
        self.ready = context.Event()  # warmed up: the timed calls start
        self.stop = context.Event()
        self._out, child = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_reader_loop, args=(home, now, self.ready, self.stop, child), daemon=True
        )

    def start_ready(self) -> None:
        self.process.start()
        self.ready.wait()

    def finish(self) -> dict[str, list[float]]:
        self.stop.set()
        result = self._out.recv()
        self.process.join()
        if isinstance(result, str):
            raise RuntimeError(f"the reader failed: {result}")
        latency: dict[str, list[float]] = result
        return latency


def idle_calls(home: Path, now: datetime) -> dict[str, list[float]]:
    calls = ReaderCalls(home, now)
    calls.start_ready()
    time.sleep(IDLE_SECONDS)
    return calls.finish()


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def busy_calls(home: Path, now: datetime) -> dict[str, list[float]]:
    """The reader beside a process that only burns a core, and touches no
    store: what sharing the 2 cores alone does to the reader's calls (the
    control for the prune's figures)."""
    calls = ReaderCalls(home, now)
    calls.start_ready()
    spinner = multiprocessing.get_context("fork").Process(target=_spin, args=(IDLE_SECONDS,))
    spinner.start()
    spinner.join()
    return calls.finish()


def prune_bench(home: Path, now: datetime, count: int, oldest: datetime, by: str) -> None:
    who = "the app" if by == "app" else "noru prune"
    print(
        f"\nprune the oldest {PRUNE_SHARE:.0%} by age, as {who} does"
        " (goal: readers never blocked > 50 ms)"
    )
    t = time.perf_counter()
    store = Store.open(home)
    print(f"{'Store.open (writer: sizes, leftover files)':44} {ms_since(t):8.1f} ms")
    try:
        # Captures are STEP s apart: the cutoff falls half a step before the
        # first capture to keep, so that exactly ``take`` are older.
        take = round(count * PRUNE_SHARE)
        cutoff = oldest + timedelta(seconds=take * STEP - STEP / 2)
        keep_days = (now - cutoff).total_seconds() / 86400
        t = time.perf_counter()
        plan = store.prune_plan(keep_days=keep_days, max_disk=0, now=now)
        plan_ms = ms_since(t)
        named = len(plan.doomed)
        print(
            f"{'prune_plan (usage + doomed rows)':44} {plan_ms:8.1f} ms: keep_days"
            f" {keep_days:.2f} names {named} captures ({named / count:.1%} of {count}),"
            f" frees {plan.frees / 1e6:.2f} MB of images"
        )
        idle = idle_calls(home, now)

        calls = ReaderCalls(home, now)
        calls.start_ready()
        marks: list[float] = []
        t = time.perf_counter()
        if by == "app":
            # The app's pruner: plans on its own reader, deletes through the
            # app's writer thread a batch per job, pausing between them.
            writer = Writer(home)
            try:
                deleted = Pruner(home, Config(keep_days=keep_days, max_disk=0), writer).run_once(
                    now
                )
            finally:
                writer.close()
        else:
            deleted = store.prune(plan, progress=lambda _done: marks.append(time.perf_counter()))
        wall = time.perf_counter() - t
        during = calls.finish()
    finally:
        store.close()
    after = idle_calls(home, now)
    busy = busy_calls(home, now)

    batches = [(b - a) * 1000 for a, b in zip([t, *marks], marks, strict=False)]
    line = f"prune: {deleted} captures in {wall:.2f} s, {deleted / wall:.0f} captures/s"
    if batches:
        line += (
            f"; {len(batches)} batches of 100: p50 {statistics.median(batches):.1f},"
            f" p95 {percentile(batches, 0.95):.1f}, max {max(batches):.1f} ms"
        )
    print(line + " (the search index is merged after 1,000 or more)")
    print(
        f"{'reader call (own process)':36} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8}"
        f" {'max ms':>8} {'> 50 ms':>8}"
    )
    for name, label in (("list", "list newest 20"), ("search", f"search {MEDIUM!r}")):
        for when, latency in (
            ("idle", idle[name]),
            ("prune", during[name]),
            ("after", after[name]),
            ("a core busy", busy[name]),
        ):
            blocked = sum(1 for x in latency if x > BLOCKED_MS)
            print(
                f"{label + ', ' + when:36} {len(latency):6} {statistics.median(latency):8.2f}"
                f" {percentile(latency, 0.95):8.2f} {max(latency):8.2f} {blocked:8}"
            )
    worst = max(max(latency) for latency in during.values())
    verdict = "met" if worst <= BLOCKED_MS else "NOT met"
    print(f"goal: readers never blocked > 50 ms during the prune: {verdict} (max {worst:.1f} ms)")


def tool_search(context: ToolContext, term: str) -> None:
    # NoMatch is the tool's answer when nothing matches (a small store's rare term).
    with contextlib.suppress(NoMatch):
        tools.search_captures(context, {"query": term})


def ms_since(t: float) -> float:
    return (time.perf_counter() - t) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--captures", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the store here")
    parser.add_argument(
        "--prune",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="time pruning the oldest 10%% (default: unless the store was already pruned)",
    )
    parser.add_argument(
        "--prune-by",
        choices=("app", "cli"),
        default="app",
        help="prune as the app does in the background (default), or as `noru prune` does",
    )
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
    reader = Reader.open(home)
    count = reader.count()
    assert count, "the store has no captures"
    first_ts, last_ts = reader.db.execute(
        "SELECT min(captured_ts), max(captured_ts) FROM captures"
    ).fetchone()
    oldest = datetime.fromtimestamp(first_ts, UTC)
    now = datetime.fromtimestamp(last_ts + STEP, UTC)  # one step after the newest capture
    context = ToolContext(home=home, now=lambda: now)
    ids = [r.id for r in reader.list_rows(Filters(), limit=200)[0]]
    rng = random.Random(3)
    size = sum(p.stat().st_size for p in home.glob("noru.sqlite3*"))
    print(
        f"store: {count} captures, database {size / 1e6:.1f} MB, {size / count:.0f} bytes/capture"
    )
    usage = reader.usage()
    p50, p95 = timed(reader.usage, min(args.runs, 10))
    print(
        f"usage(): {usage.captures} captures, database {usage.database / usage.captures:.0f}"
        f" bytes/capture, images {usage.images / usage.captures:.0f} bytes/capture;"
        f" Reader.usage() p50 {p50:.1f} ms, p95 {p95:.1f} ms"
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
                partial(reader.search, term, Filters(), now=now),
                goal,
            )
        )
        rows.append(
            (
                f"search_captures {label} (tool)",
                partial(tool_search, context, term),
                goal,
            )
        )
    print(f"{'operation':44} {'p50 ms':>8} {'p95 ms':>8}  goal (p95)")
    indexed = reader.agents_fingerprint() is not None
    if not indexed:  # agents' searches made seen one by one, as before the index
        for label, fn, _goal in rows:
            if label.startswith("search_captures"):
                p50, p95 = timed(fn, args.runs)
                print(f"{label.replace('(tool)', '(tool, no index)'):44} {p50:8.2f} {p95:8.2f}")
        t = time.perf_counter()
        with Store.open(home) as store:
            done = index.refresh(store, load_config(home).redact)
        took = time.perf_counter() - t
        print(
            f"agents' search index made: {done} captures in {took:.1f} s"
            f" ({took / max(1, done) * 1000:.2f} ms each)"
        )
    for label, fn, goal in rows:
        p50, p95 = timed(fn, args.runs)
        print(f"{label:44} {p50:8.2f} {p95:8.2f}  {goal}")
    size = sum(p.stat().st_size for p in home.glob("noru.sqlite3*"))
    print(f"database with agents' index: {size / 1e6:.1f} MB, {size / count:.0f} bytes/capture")
    reader.close()

    with tempfile.TemporaryDirectory() as fresh, Store.open(Path(fresh)) as store:
        png = tiny_png()
        p50, p95 = timed(lambda: store.add_capture([NewImage(png, 64, 40)], origin="user"), 50)
        print(f"{'durable add_capture (fsync file+db)':44} {p50:8.2f} {p95:8.2f}")

    pruned = oldest > START
    if args.prune or (args.prune is None and not pruned):
        prune_bench(home, now, count, oldest, args.prune_by)
    elif args.prune is None:
        print(
            "\nprune skipped: this store was pruned before (oldest capture"
            f" {oldest:%Y-%m-%d %H:%M} UTC); --prune prunes the oldest 10 % of what is left"
        )
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
