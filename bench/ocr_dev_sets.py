"""Dev sets for the terminal reader: screens in neither part of the corpus.

The corpus (tests/terminal_corpus.py) holds out a third of its families and
kinds of text; the reader is tuned on the rest. A dev set is what a tuner
looks at besides: the training part's plan for another seed, drawn with
what neither part holds, so a change is seen on type or text it was not
shaped for before the held-out part scores it once.

- ``fonts``: the plan's screens drawn in families neither part holds (those
  installed here: Nimbus Mono PS, CMU Typewriter Text), alternately; xterm's
  bitmap font left out.
- ``kinds``: the plan's screens showing kinds of text neither part holds,
  written here (Java and Node stack traces, ``terraform plan``,
  ``journalctl``, ``ss -tlnp``, ``apt upgrade``), in turn; the plan's CJK,
  ligature, Powerline and tmux screens left out (their fonts and layout go
  with their kind).

Every screen is a training-part screen in the plan's split, so the readers'
tools that take the training part (``bench/ocr_calibrate.py``, a scorer
filtering ``split=train``) take a dev set as it is. Scored as the corpus is:
``ocr_terminals.py score --corpus OUT --split train --readers noru``.

    .venv/bin/python bench/ocr_dev_sets.py fonts --seed 21 --limit 60 --out bench/out/dev21
    .venv/bin/python bench/ocr_dev_sets.py kinds --seed 31 --limit 60 --out bench/out/dev31
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests import terminal_corpus  # noqa: E402
from tests.terminal_shown import Shown  # noqa: E402
from tests.terminal_texts import KINDS as CORPUS_KINDS  # noqa: E402
from tests.terminal_texts.build import (  # noqa: E402
    BOLD,
    NOUNS,
    Screen,
    blank,
    camel,
    clock,
    hexid,
    host,
    line,
    project,
    snake,
    token62,
    version,
)

FAMILIES = ("Nimbus Mono PS", "CMU Typewriter Text")
# Kinds whose screens need their own fonts or layout: not given other text.
KEPT_KINDS = ("cjk", "ligatures", "powerline-prompt", "tmux-panes")

Kind = Callable[[random.Random, int, int], list[Shown]]


def _lower_camel(rng: random.Random) -> str:
    name = camel(rng)
    return name[0].lower() + name[1:]


def java_stacktrace(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A JVM program failing: the exception, its frames, a cause."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            package = f"com.{project(rng)}.{rng.choice(NOUNS)}"
            error = rng.choice(
                (
                    "java.lang.NullPointerException",
                    "java.lang.IllegalStateException",
                    f"{package}.{camel(rng)}Exception",
                    "java.io.UncheckedIOException",
                )
            )
            message = rng.choice(
                (
                    f': Cannot invoke "{package}.{camel(rng)}.get{camel(rng, 1)}()" because '
                    f'"{rng.choice(NOUNS)}" is null',
                    f": {rng.choice(NOUNS)} {rng.randint(1, 9999)} not found",
                    "",
                )
            )
            thread = rng.choice(("main", "pool-1-thread-3", "http-nio-8080-exec-7"))
            jar = f"build/libs/{project(rng)}-{version(rng)}.jar"
            out = [
                line(f"$ java -jar {jar} --port {rng.randint(1024, 65535)}"),
                line(f'Exception in thread "{thread}" ', (error + message, "1;31")),
            ]
            for _ in range(rng.randint(3, 9)):
                cls = f"{package}.{camel(rng)}"
                where = f"{cls.rsplit('.', 1)[1]}.java:{rng.randint(12, 900)}"
                out.append(line(f"    at {cls}.{_lower_camel(rng)}({where})"))
            if rng.random() < 0.5:
                out += [
                    line(f"    ... {rng.randint(2, 40)} more"),
                    line(
                        "Caused by: java.sql.SQLException: Connection refused: "
                        f"{host(rng)}:{rng.randint(1000, 9999)}"
                    ),
                ]
            yield out

    return Screen(columns, rows).fill(blocks())


def node_error(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Node.js failing: the throwing line and its caret, the error, its stack."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            name = project(rng)
            error = rng.choice(("TypeError", "Error", "RangeError"))
            module = f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}"
            out = [
                line(f"$ node dist/{rng.choice(NOUNS)}.js"),
                line(f"/home/dev/{name}/node_modules/{module}/lib/index.js:{rng.randint(10, 500)}"),
                line(
                    f"    throw new {error}(`Invalid {rng.choice(NOUNS)}: "
                    f"${{{rng.choice(NOUNS)}}}`);"
                ),
                line("    ^"),
                blank(),
                line(
                    (
                        f'TypeError [ERR_INVALID_ARG_TYPE]: The "{rng.choice(NOUNS)}" argument '
                        "must be of type string. Received undefined",
                        "31",
                    )
                ),
            ]
            for _ in range(rng.randint(3, 7)):
                where = f"{rng.choice(NOUNS)}.ts:{rng.randint(1, 400)}:{rng.randint(1, 80)}"
                out.append(line(f"    at {_lower_camel(rng)} (/home/dev/{name}/src/{where})"))
            out += [
                line(
                    "    at process.processTicksAndRejections "
                    f"(node:internal/process/task_queues:{rng.randint(60, 99)}:{rng.randint(1, 9)})"
                ),
                line("  code: 'ERR_INVALID_ARG_TYPE'"),
                blank(),
                line(f"Node.js v{rng.randint(18, 22)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}"),
            ]
            yield out

    return Screen(columns, rows).fill(blocks())


def terraform_plan(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``terraform plan``: state refreshed, then resources to create, change, destroy."""

    def blocks() -> Iterator[list[Shown]]:
        yield [line("$ terraform plan -out=tfplan")]
        yield [
            line(
                f"aws_s3_bucket.{snake(rng)}: Refreshing state... "
                f"[id={project(rng)}-{hexid(rng, 8)}]"
            )
            for _ in range(rng.randint(1, 3))
        ]
        yield [blank(), line("Terraform will perform the following actions:"), blank()]
        while True:
            kind = rng.choice(("instance", "security_group", "iam_role", "lambda_function"))
            name = snake(rng)
            sign, verb, sgr = rng.choice(
                (
                    ("+", "will be created", "32"),
                    ("~", "will be updated in-place", "33"),
                    ("-", "will be destroyed", "31"),
                )
            )
            block = [
                line((f"  # aws_{kind}.{name}", BOLD), f" {verb}"),
                line((f"  {sign}", sgr), f' resource "aws_{kind}" "{name}" {{'),
            ]
            for _ in range(rng.randint(2, 6)):
                value = rng.choice(
                    (
                        f'"{hexid(rng, 12)}"',
                        f'"{rng.choice(NOUNS)}-{rng.randint(1, 99)}"',
                        "(known after apply)",
                        str(rng.randint(1, 4096)),
                        "true",
                    )
                )
                block.append(line((f"      {sign}", sgr), f" {snake(rng, 2):<22} = {value}"))
            yield [*block, line("    }"), blank()]

    return Screen(columns, rows).fill(blocks())


def journalctl(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``journalctl``: a day's log of a few units, the stamps dim."""
    units = [
        "nginx.service",
        "sshd[812]",
        "kernel",
        "systemd[1]",
        "dockerd[1093]",
        "postgres[2231]",
    ]
    machine = host(rng).split(".")[0]

    def message() -> str:
        address = f"{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        return rng.choice(
            (
                f"Started {camel(rng)} {rng.choice(('Daemon', 'Service', 'Timer'))}.",
                f"Accepted publickey for {rng.choice(('deploy', 'root', 'git'))} from "
                f"10.{address} port {rng.randint(1024, 65535)} ssh2: ED25519 "
                f"SHA256:{token62(rng, 43)}",
                f"[UFW BLOCK] IN=eth0 OUT= MAC={':'.join(hexid(rng, 2) for _ in range(6))} "
                f"SRC=192.168.{address.split('.', 1)[1]} PROTO=TCP DPT={rng.randint(1, 9999)}",
                f"{rng.choice(NOUNS)}.service: Main process exited, code=exited, "
                f"status={rng.randint(1, 255)}/FAILURE",
                f'ERROR:  duplicate key value violates unique constraint "{snake(rng)}_pkey"',
            )
        )

    def blocks() -> Iterator[list[Shown]]:
        unit = rng.choice(units).split("[")[0]
        yield [line(f"$ journalctl -u {unit} --since today -n {rng.randint(20, 200)}")]
        while True:
            stamp = f"Dec {rng.randint(1, 28):>2} {clock(rng)}"
            yield [line((stamp, "2"), f" {machine} {rng.choice(units)}: {message()}")]

    return Screen(columns, rows).fill(blocks())


def ss_listening(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``ss -tlnp``: listening sockets, their addresses and processes."""
    out = [
        line("$ sudo ss -tlnp"),
        line("State   Recv-Q  Send-Q   Local Address:Port    Peer Address:Port  Process"),
    ]
    while len(out) < rows:
        address = rng.choice(
            ("0.0.0.0", "127.0.0.1", "[::]", "127.0.0.53%lo", f"10.0.{rng.randint(0, 9)}.2")
        )
        port = rng.choice((22, 53, 80, 443, 5432, 6379, 8080, 9090, rng.randint(1024, 65535)))
        process = rng.choice(("sshd", "nginx", "postgres", "redis-server", "node", "python3"))
        peer = "[::]:*" if address.startswith("[") else "0.0.0.0:*"
        users = f'users:(("{process}",pid={rng.randint(300, 99999)},fd={rng.randint(3, 40)}))'
        queues = f"{rng.randint(0, 9):<6}  {rng.choice((128, 511, 4096, 244)):<6}"
        out.append(line(f"LISTEN  {queues}  {f'{address}:{port}':>20}  {peer:>17}  {users}"))
    screen = Screen(columns, rows)
    screen.add(*out)
    return screen.lines


def apt_upgrade(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``apt upgrade``: the packages, what it fetches, what it unpacks."""
    packages = [
        "libssl3", "openssl", "linux-image-6.1.0-28-amd64", "python3.11", "libc6", "curl",
        "libcurl4", "tzdata", "git", "libsqlite3-0", "nodejs", "docker-ce",
    ]  # fmt: skip
    chosen = rng.sample(packages, rng.randint(4, 10))
    out = [
        line("$ sudo apt upgrade"),
        line("Reading package lists... Done"),
        line("Building dependency tree... Done"),
        line("Reading state information... Done"),
        line("Calculating upgrade... Done"),
        line("The following packages will be upgraded:"),
        line("  " + " ".join(chosen)),
        line(
            f"{len(chosen)} upgraded, 0 newly installed, 0 to remove and "
            f"{rng.randint(0, 9)} not upgraded."
        ),
        line(f"Need to get {rng.randint(1, 99)}.{rng.randint(0, 9)} MB of archives."),
        line(
            f"After this operation, {rng.randint(1, 900)} kB of additional disk space will be used."
        ),
        line("Do you want to continue? [Y/n] y"),
    ]
    for n, package in enumerate(chosen, 1):
        release = f"{version(rng)}-{rng.randint(1, 9)}+deb12u{rng.randint(1, 9)}"
        out.append(
            line(
                f"Get:{n} http://deb.debian.org/debian bookworm-updates/main amd64 {package} "
                f"amd64 {release} [{rng.randint(10, 9000)} kB]"
            )
        )
    for package in chosen:
        out.append(line(f"Preparing to unpack .../{package}_{version(rng)}_amd64.deb ..."))
        out.append(line(f"Unpacking {package} ({version(rng)}) over ({version(rng)}) ..."))
    screen = Screen(columns, rows)
    screen.add(*out)
    return screen.lines


KINDS: dict[str, Kind] = {
    "apt-upgrade": apt_upgrade,
    "java-stacktrace": java_stacktrace,
    "journalctl": journalctl,
    "node-error": node_error,
    "ss-listening": ss_listening,
    "terraform-plan": terraform_plan,
}


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


def of_kinds(seed: int, limit: int) -> list[terminal_corpus.Screen]:
    """``limit`` screens of the plan, each showing the next of ``KINDS``."""
    names = sorted(KINDS)
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
    args = parser.parse_args()
    if args.what == "fonts":
        screens = in_fonts(args.seed, args.limit, tuple(args.families.split(",")))
    else:
        screens = of_kinds(args.seed, args.limit)
    terminal_corpus.draw(screens, args.out)


if __name__ == "__main__":
    main()
