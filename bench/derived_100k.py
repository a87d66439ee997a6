"""Source facts as agents get them, at 100,000 captures: what redacting them costs.

Agents get every fact made from a window's text (title, workspace hint,
app and display names) redacted, and their filters match only those
values (``noru.redact.facts``). Builds a store of N captures (default
100,000) whose window titles are a realistic mix, then times through the
real tools (redaction on, as by default):

- ``list_captures`` with a ``workspace`` filter that matches nothing (every
  capture's source is looked at), an ``app`` filter, and without a filter;
- the no-match answer's values present;
- ``resources/list``'s first page;

each cold (the first call of a fresh ``noru mcp``: nothing redacted yet)
and warm (p50/p95 of repeated calls): first with agents' index not made
(the facts computed at read time, as after a change of rules until the
index is made again); then the upgrade of a store of the version before
(migration ``0008_agent_sources``, then ``noru.redact.index.refresh`` over
the whole store, what the app does after it, and after a change of rules);
then with the index made; then with redaction off.

Titles: ``--distinct`` of the captures (default 0.5) have a title of their
own (an editor's file in a project, a browser's page, a terminal's
command, one in ten with a secret in it); the rest repeat one of 200
terminal prompts (``user@host: ~/src/projN``).

    .venv/bin/python bench/derived_100k.py [--captures 100000] [--distinct 0.5] [--runs 20]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from noru.config import load_config
from noru.errors import NoMatch
from noru.mcp.tools import ToolContext, resources
from noru.mcp.tools import history as tools
from noru.paths import db_path
from noru.redact import facts, index
from noru.redact import policy as policies
from noru.sources import Source, infer_workspace
from noru.store import Store
from noru.store.schema import AGENT_FACTS
from store_100k import add_capture, tiny_png

APPS = [("Code", "code"), ("XTerm", "xterm"), ("Firefox", "firefox")]
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def title(rng: random.Random, n: int, distinct: float) -> tuple[str, str, str]:
    """A window title and its app's (name, id)."""
    if rng.random() >= distinct:
        return f"me@box: ~/src/proj{rng.randrange(200)}", "XTerm", "xterm"
    kind = n % 10
    if kind == 0:
        token = "".join(rng.choice(ALPHABET) for _ in range(34))
        return f"HF_TOKEN=hf_{token} python train{n}.py - xterm", "XTerm", "xterm"
    if kind < 5:
        return f"module{n}.py - proj{rng.randrange(200)} - Visual Studio Code", "Code", "code"
    if kind < 8:
        return f"Issue #{n} fails on startup · acme/proj{n % 300} - Mozilla Firefox", *APPS[2]
    return f"make test TARGET=case{n} - xterm", "XTerm", "xterm"


def build(home: Path, count: int, distinct: float) -> int:
    png = tiny_png()
    rng = random.Random(11)
    titles: set[str] = set()
    made: set[Path] = set()
    with Store.open(home) as store:
        store.db.execute("PRAGMA synchronous = OFF")
        for first in range(0, count, 2000):
            store.db.execute("BEGIN")
            for n in range(first, min(count, first + 2000)):
                text, app, app_id = title(rng, n, distinct)
                titles.add(text)
                words = f"build step {n} finished ok"
                add_capture(
                    store,
                    made,
                    png,
                    n,
                    app=app,
                    app_id=app_id,
                    title=text,
                    hint=infer_workspace(text),
                    lines=[[words, 0, 0, 64, 10, 0.9]],
                    text=words,
                    display_name="DP-1",
                )
            store.db.execute("COMMIT")
    return len(titles)


def cold_and_warm(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """The first call with nothing redacted yet, then p50/p95 of ``runs`` more (ms)."""
    facts.forget()
    t = time.perf_counter()
    fn()
    cold = (time.perf_counter() - t) * 1000
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return cold, statistics.median(samples), p95


def no_match(context: ToolContext, args: dict[str, str]) -> None:
    try:
        tools.list_captures(context, args)
    except NoMatch:
        return
    raise AssertionError("the filter matched")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--captures", type=int, default=100_000)
    parser.add_argument("--distinct", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        t = time.perf_counter()
        titles = build(home, args.captures, args.distinct)
        print(
            f"built {args.captures} captures, {titles} distinct titles,"
            f" in {time.perf_counter() - t:.1f} s"
        )
        rows: list[tuple[str, Callable[[ToolContext], object]]] = [
            ("list_captures, no filter", lambda c: tools.list_captures(c, {})),
            (
                "list_captures workspace=nothing (no match)",
                lambda c: no_match(c, {"workspace": "no such project"}),
            ),
            ("list_captures app=code", lambda c: tools.list_captures(c, {"app": "code"})),
            (
                "resources/list, first page",
                lambda c: resources.list_resources(c, None, titles=True),
            ),
        ]
        context = ToolContext(home=home, now=lambda: datetime.now(UTC))

        def table(heading: str) -> None:
            print(f"\n{heading}:")
            print(f"{'operation':44} {'cold ms':>9} {'p50 ms':>8} {'p95 ms':>8}")
            for label, fn in rows:
                cold, p50, p95 = cold_and_warm(partial(fn, context), args.runs)
                print(f"{label:44} {cold:9.1f} {p50:8.1f} {p95:8.1f}")

        table("redaction on, agents' index not made (computed at read time)")
        upgrade(home)
        table("redaction on, agents' index made")
        (home / "config.toml").write_text("redact = []\n")
        table("redaction off")


def upgrade(home: Path) -> None:
    """Make the store one of the version before agent_* facts, then upgrade
    it as the app does: the migration (``Store.open``), then agents' index
    made again over the whole store (``index.refresh``)."""
    db = sqlite3.connect(db_path(home), isolation_level=None)
    db.execute("DELETE FROM migrations WHERE name = '0008_agent_sources'")
    for fact in AGENT_FACTS:
        db.execute(f"ALTER TABLE images DROP COLUMN agent_{fact}")
    db.execute("VACUUM")
    db.close()
    t = time.perf_counter()
    with Store.open(home) as store:
        took_open = time.perf_counter() - t
        t = time.perf_counter()
        done = index.refresh(store, load_config(home).redact)
        took = time.perf_counter() - t
    # The share of the source facts: each image's, redacted from nothing cached.
    policy = policies.load(home, load_config(home).redact)
    db = sqlite3.connect(db_path(home))
    stored = [
        Source(None, *row)
        for row in db.execute(
            "SELECT display_name, app_id, app_name, window_title, workspace_hint FROM images"
        )
    ]
    db.close()
    facts.forget()
    t = time.perf_counter()
    for source in stored:
        facts.source_for_agent(source, policy)
    took_facts = time.perf_counter() - t
    print(f"\nupgrade: Store.open with migration 0008 {took_open * 1000:.0f} ms")
    print(
        f"agents' index made again (text and source facts): {done} captures in {took:.1f} s"
        f" ({took / max(1, done) * 1000:.3f} ms each); of which the source facts"
        f" {took_facts:.1f} s ({len(stored)} images, nothing cached)"
    )


if __name__ == "__main__":
    main()
