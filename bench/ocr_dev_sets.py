"""Dev sets for the terminal reader: screens in neither part of the corpus.

The corpus (tests/terminal_corpus.py) holds out a third of its families and
kinds of text; the reader is tuned on the rest. A dev set is what a tuner
looks at besides: the training part's plan for another seed, drawn with
what neither part holds, so a change is seen on type or text it was not
shaped for before the held-out part scores it once.

- ``fonts``: the plan's screens drawn in families neither part holds (those
  installed here: Nimbus Mono PS, CMU Typewriter Text), alternately; xterm's
  bitmap font left out.
- ``kinds``: the plan's screens showing kinds of text neither part holds
  (bench/ocr_dev_kinds.py: by default its first set, Java and Node stack
  traces, ``terraform plan``, ``journalctl``, ``ss -tlnp``, ``apt
  upgrade``; ``--kinds`` names others, such as its trees, its reports, its
  dumps, its traces or its tools), in turn; the
  plan's CJK, ligature, Powerline and tmux screens left out (their fonts
  and layout go with their kind).

Every screen is a training-part screen in the plan's split, so the readers'
tools that take the training part (``bench/ocr_calibrate.py``, a scorer
filtering ``split=train``) take a dev set as it is. Scored as the corpus is:
``ocr_terminals.py score --corpus OUT --split train --readers noru``.

    .venv/bin/python bench/ocr_dev_sets.py fonts --seed 21 --limit 60 --out bench/out/dev21
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 31 --limit 60 --out bench/out/dev31
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 41 --limit 60 --out bench/out/dev41 \
        --kinds failed-units,lsblk,npm-ls,pstree,tree
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 51 --limit 60 --out bench/out/dev51 \
        --kinds dotnet-exception,eslint-report,gradle-failure,ip-addr,mysql-table,ruby-backtrace
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 61 --limit 60 --out bench/out/dev61 \
        --kinds ansible-play,dmesg,git-graph,hexdump-c,nmap-scan,ps-aux
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 71 --limit 60 --out bench/out/dev71 \
        --kinds docker-build,gdb-backtrace,lsof-list,npm-audit,strace-trace,valgrind-report
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 81 --limit 60 --out bench/out/dev81 \
        --kinds dig-answer,iptables-list,nvidia-smi,objdump-disasm,openssl-x509,php-fatal
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests import terminal_corpus  # noqa: E402
from tests.terminal_texts import KINDS as CORPUS_KINDS  # noqa: E402

from ocr_dev_kinds import FIRST, KINDS  # noqa: E402

FAMILIES = ("Nimbus Mono PS", "CMU Typewriter Text")
# Kinds whose screens need their own fonts or layout: not given other text.
KEPT_KINDS = ("cjk", "ligatures", "powerline-prompt", "tmux-panes")


def _training(
    seed: int, keep: Callable[[terminal_corpus.Screen], bool]
) -> list[terminal_corpus.Screen]:
    """The training part's plan for ``seed``, the screens ``keep`` keeps,
    shuffled by the seed."""
    screens = [s for s in terminal_corpus.plan(seed) if s.split == "train" and keep(s)]
    random.Random(seed).shuffle(screens)
    return screens


def in_fonts(seed: int, limit: int, families: tuple[str, ...]) -> list[terminal_corpus.Screen]:
    """``limit`` screens of the plan, each in the next of ``families``."""
    screens = _training(
        seed, lambda s: s.family != terminal_corpus.BITMAP and s.terminal != "xterm-fixed"
    )
    out = []
    for n, screen in enumerate(screens[:limit]):
        family = families[n % len(families)]
        tag = family.replace(" ", "")[:10]
        out.append(
            dataclasses.replace(
                screen, id=f"{n:04d}-{screen.terminal}-{screen.kind}-{tag}", family=family
            )
        )
    return out


def of_kinds(seed: int, limit: int, names: list[str]) -> list[terminal_corpus.Screen]:
    """``limit`` screens of the plan, each showing the next of the kinds
    ``names`` (of ``KINDS``), in their sorted order."""
    names = sorted(names)
    screens = _training(seed, lambda s: s.kind not in KEPT_KINDS)
    CORPUS_KINDS.update(KINDS)  # what ``Screen.shown`` draws from, once planned
    out = []
    for n, screen in enumerate(screens[:limit]):
        kind = names[n % len(names)]
        out.append(
            dataclasses.replace(
                screen,
                id=f"{n:04d}-{screen.terminal}-{kind}",
                kind=kind,
                seed=f"{screen.seed}:{kind}",
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("fonts", "kinds"))
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--kinds", default=",".join(FIRST), help="of: " + ",".join(KINDS))
    args = parser.parse_args()
    if args.what == "fonts":
        screens = in_fonts(args.seed, args.limit, tuple(args.families.split(",")))
    else:
        names = args.kinds.split(",")
        unknown = sorted(set(names) - set(KINDS))
        if unknown:
            parser.error(f"no such kinds: {', '.join(unknown)}")
        screens = of_kinds(args.seed, args.limit, names)
    terminal_corpus.draw(screens, args.out)


if __name__ == "__main__":
    main()
