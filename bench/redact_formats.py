"""Recall of noru.redact's formats and places, per kind, on planted values.

Values are generated from each format's published facts by
tests/redaction_formats.py. Two parts:

- tuned: ``TUNED_SEED``'s values in the ``TUNED`` lines (the tests assert
  on them; the rules were written looking at them);
- held out, first round: ``HELD_OUT_SEEDS``' values (10 per format) in the
  ``HELD_OUT`` lines; looked at once its first run had missed some, so
  tuned on since;
- held out, second round (the headline): ``FRESH_SEEDS``' values in the
  ``FRESH`` lines, never looked at line by line (its misses are counted,
  not printed).

Each value is tried as shown, and as the engine misreads it (a stray space
inside it, a case flip or a confused character in its first characters).
A value is caught when, its spans replaced as agents get them, no 8
consecutive characters of it are left (``leaked``); the places (values
with no format: options, .netrc, connection strings, ...) the same way.
Printed: recall per kind and per misread, each part; then what was missed
on the first round.

``--real``: the engine's own misreads instead of made ones. The second
round's lines that fit a row (150 columns; longer ones would wrap, a case
of its own) are shown by real clients (bench/redact_real.py's terminals,
Firefox and Chromium) on a private Xvfb, grabbed by Noru's capturer, kept
by the store's writer, read by its Tesseract engine as the app's OCR child
reads them and served as agents get them (``for_agent``, the boxes
``noru.present.pixels.fill`` fills; bench/redact_pixels.py). Recall per
client and per kind, four ways: in the text (each line's findings
replaced, as above); in the pixels, by the boxes the drawing program
gives (the terminal's grid, the page's layout; never the boxes the
engine found), a value caught when none of its ink is left unfilled,
and, looser, when none of its characters keeps more than a quarter of
its ink; and in the text agents get (``for_agent``'s). Printed after:
what the engine's reading left of each value missed in text, and each
value caught in text whose ink is not all filled (which characters keep
how many pixels). With ``--training``, the first
round's seeds and lines instead (tuned on: its misses may be looked at and
tuned to; the second round's may not). ``--from N``: the seeds N, N+1, ...
instead of a round's own (new seeds, in that round's lines: ``--training
--from 110`` for more to tune on, ``--from 300`` for a held-out set never
run before); ``--kinds``: only those kinds. In training, a line too long
for a row is shown as its value alone when that fits (the tuned line
``{v}``), so that long values are read too.

``--real --wrapped [COLUMNS] --from N``: lines as a terminal wraps them, a
figure of their own. Every kind's value of the seeds N on (``tests.
redaction_formats.wrapped``: a ``cat`` of a file, an ``export``, a log
line) on a line that the terminals of bench/redact_real.py, 80 columns wide
(or ``COLUMNS``: 150, the width the other lines are shown at), wrap with
the value across a row's end (a long one over several rows); the pages are left out
(a page wraps at its words, not across a token). The text is searched with
its rows joined as they were wrapped (``noru.redact.wrap``), and a value
counts as left when 8 of its characters in a row are, its rows' parts put
back together. Seeds 394-399 are tuned on; later ones are held out.

    .venv/bin/python bench/redact_formats.py [--real [--seeds 2] [--first 0 | --from 300]
        [--training] [--clients Chromium,xfce4] [--kinds aws-bedrock-key] [--wrapped [150]]]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests.redaction_cases import leaked  # noqa: E402
from tests.redaction_formats import (  # noqa: E402
    FRESH,
    FRESH_SEEDS,
    HELD_OUT,
    HELD_OUT_SEEDS,
    TUNED,
    TUNED_SEED,
    lines,
    misread,
    placed,
)

from noru.redact import find  # noqa: E402
from noru.redact.apply import replaced  # noqa: E402


def caught(line: str, value: str) -> bool:
    """No 8 characters of ``value`` in a row left in ``line`` as agents get
    it (a kind's name in ``[redacted: KIND]`` aside: ``rubygems-key``
    holds the prefix ``rubygems``)."""
    shown = re.sub(r"\[redacted: [a-z0-9-]+\]", "#", replaced(line, find(line)))
    return leaked(shown, value) is None


def measure(seeds: tuple[int, ...], templates: list[str]) -> tuple[dict, dict, list]:
    """Per kind and per way shown: [caught, tried]; and what was missed."""
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    ways: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for seed in seeds:
        for line, value, kind in lines(seed, templates):
            tries = [("as shown", line, value), *misread(random.Random(line), line, value)]
            for way, shown_line, shown in tries:
                ok = caught(shown_line, shown)
                for table, key in ((kinds, kind), (ways, way)):
                    table[key][0] += ok
                    table[key][1] += 1
                if not ok:
                    missed.append((kind, way, shown_line))
        for line, value, kind in placed(seed):
            ok = caught(line, value)
            for table, key in ((kinds, f"(placed) {kind}"), (ways, "placed")):
                table[key][0] += ok
                table[key][1] += 1
            if not ok:
                missed.append((f"(placed) {kind}", "as shown", line))
    return kinds, ways, missed


def share(counts: list[int]) -> str:
    return f"{counts[0]:5}/{counts[1]:<5} {counts[0] / max(1, counts[1]):7.1%}"


def real(
    first: int,
    seeds: int,
    training: bool = False,
    only: str = "",
    dump: str = "",
    start: int | None = None,
    kinds_only: str = "",
    wrapped: int = 0,
) -> None:
    """Recall per client and per kind on what real clients draw, as read:
    the second round's values and lines, or with ``training`` the first's;
    ``only``: the clients whose names hold one of its comma-separated
    words (all when empty); ``dump``: a file to write each training miss to
    (a JSON line: client, kind, value, the lines read that hold part of it),
    whole, to look at (refused for the held-out part); ``start``: the
    seeds ``start`` on instead of the part's own; ``kinds_only``: the
    comma-separated kinds to show (all when empty); ``wrapped``: when not 0,
    every kind's value on a line longer than a row (``tests.
    redaction_formats.wrapped``), in the terminals only, that many columns
    wide."""
    if dump and not training:
        raise SystemExit("--dump is for the training part only: held-out misses are not looked at")
    import tempfile

    from tests.page_layout import layouts
    from tests.redaction_formats import wrapped as wrapped_lines
    from tests.terminal_shown import xterm_screen
    from tests.xserver import running_xserver

    from noru.capture import Capturer
    from noru.ocr.tesseract import TesseractEngine
    from redact_pixels import held, ink_of, shown_and_seen
    from redact_real import SHOWN, wrapping

    engine = TesseractEngine()
    # per client and per kind: caught in text, in pixels (strict, unreadable),
    # in the text agents get; tried
    clients: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    missed, unfilled, unplaced = [], [], []
    placed: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # the boxes' hold on the ink
    skipped: set[str] = set()
    with (
        tempfile.TemporaryDirectory(prefix="noru-redact-formats-") as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
        Capturer(display=server.display) as capturer,
        layouts() as pages,
    ):
        chosen, templates = (HELD_OUT_SEEDS, HELD_OUT) if training else (FRESH_SEEDS, FRESH)
        picked = chosen[first : first + seeds] if start is None else range(start, start + seeds)
        wanted = {k for k in kinds_only.split(",") if k}
        screens = 0
        for seed in picked:
            if wrapped:
                cases = [
                    case for case in wrapped_lines(seed, wrapped)
                    if not wanted or case[2] in wanted
                ]  # fmt: skip
            else:
                cases = []
                bare = [line for line, _, _ in lines(seed, ["{v}"])]  # as shown (a webhook's URL)
                for (line, value, kind), alone in zip(lines(seed, templates), bare, strict=True):
                    if wanted and kind not in wanted:
                        continue
                    if training and len(line.expandtabs(8)) > 148:
                        line = alone  # the tuned line "{v}": long values are read too
                    if len(line.expandtabs(8)) > 148:
                        skipped.add(kind)
                    else:
                        cases.append((line.expandtabs(8), value, kind))
            for name, opener in (wrapping(wrapped) if wrapped else SHOWN).items():
                if only and not any(w and w in name for w in only.split(",")):
                    continue
                size = 20 if name.endswith(" px") else 50  # what fits its window (a page: 20)
                if wrapped:
                    screenfuls = _screenfuls(
                        cases,
                        lambda line: len(xterm_screen([line], columns=wrapped, rows=10**6)),
                    )
                else:
                    screenfuls = [cases[at : at + size] for at in range(0, len(cases), size)]
                for half in screenfuls:
                    shown = [line for line, _, _ in half]
                    screens += 1
                    home = Path(tmp) / f"home-{screens}"  # a store of its own
                    seen = shown_and_seen(
                        server, capturer, engine, opener, shown, home, pages,
                        columns=wrapped or 150,
                    )  # fmt: skip
                    inside, everything = held(seen)
                    placed[name][0] += inside
                    placed[name][1] += everything
                    served = re.sub(r"\[redacted: [a-z0-9-]+\]", "#", seen.text)
                    agent = re.sub(r"\[redacted: [a-z0-9-]+\]", "#", seen.agent)
                    if wrapped:
                        # A value's parts on rows one after another: left
                        # together, they are as many characters in a row.
                        served, agent = served.replace("\n", ""), agent.replace("\n", "")
                    for line, value, kind in half:
                        ok = leaked(served, value) is None
                        ink = ink_of(seen, line, value)
                        filled = ink is not None and ink.caught
                        for table, key in ((clients, name), (kinds, kind)):
                            table[key][0] += ok
                            table[key][1] += filled
                            table[key][2] += ink is not None and ink.unreadable
                            table[key][3] += leaked(agent, value) is None
                            table[key][4] += 1
                        if ink is None:
                            unplaced.append((name, kind, value))
                        elif ok and not filled:
                            unfilled.append((name, kind, value, ink))
                        if not ok:
                            near = [t for t in seen.read if leaked(t, value)] or [
                                " | ".join(t for t in seen.read if t.replace(" ", "") and
                                           t.replace(" ", "")[:8] in value)
                            ]  # fmt: skip
                            missed.append((name, kind, value, near[0] if near else "?"))
                            if dump:
                                with open(dump, "a", encoding="utf-8") as out:
                                    row = {"client": name, "kind": kind, "value": value}
                                    out.write(json.dumps({**row, "read": near}) + "\n")
                print(f"  ... seed {seed}: {name} done", file=sys.stderr, flush=True)
    engine.close()
    total = [sum(c[i] for c in clients.values()) for i in range(5)]
    part = "training (held-out first round)" if training else "held-out second round"
    if wrapped:
        part = f"lines wrapped {wrapped} columns wide"
    if start is not None:
        part += f", seeds {start}-{start + seeds - 1}"
    print(f"formats on real clients, Tesseract {engine.version}, {part}")
    heads = ("text", "pixels: all ink", "pixels: unreadable", "text agents get")
    print(f"{'':30}" + "".join(f" {head:>20}" for head in heads))
    print(f"all: {' ' * 25}{_shares(total)}")
    for name, counts in clients.items():
        print(f"  {name:28}{_shares(counts)}")
    print("\nthe drawing program's boxes: the share of the ink of the lines' rows inside them")
    for name, (inside, everything) in placed.items():
        print(f"  {name:28} {inside / max(1, everything):7.2%} of {everything:,} pixels")
    print("\nper kind")
    for kind, counts in sorted(kinds.items()):
        low = [
            what
            for what, at in (("text", 0), ("pixels", 1), ("unreadable", 2))
            if counts[at] < 0.95 * counts[4]
        ]
        flag = f"   < 95 % ({', '.join(low)})" if low else ""
        print(f"  {kind:28}{_shares(counts)}{flag}")
    print(f"\nnot shown (longer than a row): {', '.join(sorted(skipped)) or 'none'}")
    print(f"\nmissed ({len(missed)}):")
    for name, kind, value, near in missed:
        print(f"  {name}: {kind}: {value[:60]}\n      read: {near[:150]}")
    print(
        f"\ncaught in text, not all ink filled ({len(unfilled)}): ink pixels left of the value's,"
    )
    print("  and the value with each character that keeps under half its ink as ·")
    for name, kind, value, ink in unfilled:
        print(f"  {name}: {kind}: {ink.left} of {ink.ink} left (character: pixels {ink.where()})")
        print(f"      {ink.legible(value)[:150]}")
    if unplaced:
        print(f"\nno place drawn for ({len(unplaced)}; counted as not caught in pixels):")
        for name, kind, value in unplaced:
            print(f"  {name}: {kind}: {value[:60]}")


# Rows of a terminal's screen of wrapped lines (what fits 1,600 pixels in
# each terminal's font).
SCREEN_ROWS = 60


def _screenfuls(cases: list, rows_of: Callable[[str], int]) -> list[list]:
    """``cases`` (line first) in screens of at most ``SCREEN_ROWS`` rows
    (a line taller than that alone)."""
    screens: list[list] = [[]]
    used = 0
    for case in cases:
        rows = rows_of(case[0])
        if screens[-1] and used + rows > SCREEN_ROWS:
            screens.append([])
            used = 0
        screens[-1].append(case)
        used += rows
    return [screen for screen in screens if screen]


def _shares(counts: list[int]) -> str:
    """Text, pixels (both ways) and the text agents get, each caught of tried."""
    return "".join(f" {share([caught, counts[4]]):>20}" for caught in counts[:4])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--real", action="store_true", help="shown and read by real clients")
    parser.add_argument("--seeds", type=int, default=1, help="second-round seeds, with --real")
    parser.add_argument("--first", type=int, default=0, help="of the second round's seeds")
    parser.add_argument(
        "--from",
        dest="start",
        type=int,
        default=None,
        help="with --real: seeds from this one on, instead of the part's own",
    )
    parser.add_argument(
        "--kinds", default="", help="with --real: only these kinds (comma-separated)"
    )
    parser.add_argument(
        "--training", action="store_true", help="with --real: the first round's seeds and lines"
    )
    parser.add_argument(
        "--clients", default="", help="with --real: only clients named so (comma-separated)"
    )
    parser.add_argument(
        "--dump", default="", help="with --real --training: write each miss whole to this file"
    )
    parser.add_argument(
        "--wrapped",
        type=int,
        nargs="?",
        const=80,
        default=0,
        help="with --real --from N: every kind on a line a terminal this many columns"
        " wide (80 when not given) wraps (terminals only)",
    )
    args = parser.parse_args()
    if args.real:
        if args.wrapped and args.start is None:
            raise SystemExit("--wrapped takes its seeds from --from")
        real(
            args.first, args.seeds, args.training, args.clients, args.dump, args.start,
            args.kinds, args.wrapped,
        )  # fmt: skip
        return
    parts = {
        "tuned": measure((TUNED_SEED,), TUNED),
        "held out, first round": measure(HELD_OUT_SEEDS, HELD_OUT),
        "held out, second round": measure(FRESH_SEEDS, FRESH),
    }
    for name, (kinds, ways, _) in parts.items():
        total = [sum(c[0] for c in kinds.values()), sum(c[1] for c in kinds.values())]
        print(f"{name}: {share(total)} of planted values caught ({len(kinds)} kinds)")
        for way, counts in sorted(ways.items()):
            print(f"  {way:24} {share(counts)}")
    tuned, first, fresh = (parts[name][0] for name in parts)
    print(f"\n{'per kind':30} {'tuned':>20} {'held out 1':>20} {'held out 2':>20}")
    for kind in sorted(fresh):
        flag = "" if fresh[kind][0] >= 0.95 * fresh[kind][1] else "   < 95 %"
        row = "".join(f" {share(table.get(kind, [0, 0])):>20}" for table in (tuned, first, fresh))
        print(f"  {kind:28}{row}{flag}")
    missed = parts["held out, first round"][2]
    print(f"\nmissed on the first round of the held-out part ({len(missed)}):")
    for kind, way, line in missed:
        print(f"  {kind} ({way}): {line[:150]}")


if __name__ == "__main__":
    main()
