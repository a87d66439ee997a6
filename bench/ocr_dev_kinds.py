"""Kinds of text for the dev sets (``bench/ocr_dev_sets.py kinds``): real
tools' output that neither part of the corpus holds, written as the
corpus's kinds are (tests/terminal_texts).

``FIRST`` are the kinds of the first dev set of kinds (dev31): stack traces,
plans and logs. ``TREES`` are tools that draw trees and marks with box
drawing and geometric characters (``├─``, ``└──``, ``─┬─``, ``│``, ``●``),
which terminals draw from a fallback font or by themselves (kitty,
alacritty) rather than from the family on screen. ``REPORTS``
(``bench/ocr_dev_reports.py``) are errors and reports of other tools;
``DUMPS`` (``bench/ocr_dev_dumps.py``) are dumps, logs, runs and scans:
``hexdump -C``, ``dmesg``, ``ansible-playbook``, ``git log --graph``,
``ps aux`` and ``nmap``. ``TRACES`` (``bench/ocr_dev_traces.py``) are what
a person looks inside a misbehaving program with: gdb's ``bt``, valgrind,
``strace``, ``lsof``, a failing ``docker build`` and ``npm audit``.
``TOOLS`` (``bench/ocr_dev_tools.py``) are what a person asks of a binary,
a GPU, a name server, a certificate, a PHP program and a firewall:
``objdump -d``, ``nvidia-smi``, ``dig``, ``openssl x509 -text``, PHP's
fatal errors and ``iptables -L -v``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
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
    runs,
    snake,
    token62,
    version,
    wrap,
)
from tests.terminal_texts.probes import tree

from ocr_dev_dumps import DUMPS
from ocr_dev_reports import REPORTS
from ocr_dev_tools import TOOLS
from ocr_dev_traces import TRACES

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


def lsblk(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``lsblk``: disks, their partitions under ``├─`` and ``└─``, LVM volumes
    a level deeper, run again until the screen is full."""

    def run() -> list[Shown]:
        out = [line("$ lsblk"), line("NAME          MAJ:MIN RM   SIZE RO TYPE  MOUNTPOINTS")]
        for major, disk in enumerate(rng.sample(("sda", "sdb", "nvme0n1", "nvme1n1"), 2)):
            size = rng.choice(("476.9G", "931.5G", "1.8T", "238.5G"))
            out.append(line(f"{disk:<13} {8 + major * 251:>3}:0    0 {size:>6}  0 disk"))
            parts = rng.randint(1, 3)
            for n in range(1, parts + 1):
                name = f"{disk}p{n}" if disk.startswith("nvme") else f"{disk}{n}"
                joint = "└─" if n == parts else "├─"
                mount = rng.choice(("/boot/efi", "/boot", "[SWAP]", "", "/home"))
                size = rng.choice(
                    ("512M", "1G", "16G", f"{rng.randint(20, 900)}.{rng.randint(0, 9)}G")
                )
                numbers = f"{8 + major * 251:>3}:{n:<3}  0 {size:>6}  0"
                out.append(line(f"{joint}{name:<11} {numbers} part  {mount}"))
                if n == parts and rng.random() < 0.6:
                    inner = "  " if joint == "└─" else "│ "
                    volumes = rng.sample(("vg0-root", "vg0-swap", "vg0-home", "vg0-var"), 2)
                    for m, volume in enumerate(volumes):
                        sub = "└─" if m == len(volumes) - 1 else "├─"
                        out.append(
                            line(
                                f"{inner}{sub}{volume:<9} 254:{m:<3}  0 {rng.randint(8, 400):>5}G"
                                f"  0 lvm   /{volume.split('-')[1]}"
                            )
                        )
        return out

    return runs(run, columns, rows)


def pstree(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``pstree -p``: processes as a tree, a parent's children joined with
    ``─┬─``, ``├─`` and ``└─`` at the column where the parent ends, an only
    child with ``───``, threads in braces."""
    names = (
        "ModemManager", "NetworkManager", "dbus-daemon", "sshd", "bash", "postgres",
        "nginx", "containerd", "dockerd", "python3", "node", "cron", "rsyslogd", "tmux",
    )  # fmt: skip

    def node(depth: int) -> list[str]:
        name = rng.choice(names)
        label = f"{name}({rng.randint(300, 99999)})"
        if depth >= 3 or rng.random() < 0.45:
            return [label]
        kids = [
            [f"{{{name}}}({rng.randint(300, 99999)})"] if rng.random() < 0.4 else node(depth + 1)
            for _ in range(rng.randint(1, 3))
        ]
        return _joined(label, kids)

    kids = [node(1) for _ in range(rows)]
    drawn = _joined("systemd(1)", kids)
    out = [line("$ pstree -p"), *(line(text) for text in drawn)]
    return [row for shown in out for row in wrap(shown, columns)][:rows]


def _joined(label: str, kids: list[list[str]]) -> list[str]:
    """``label``'s line and its children's, as pstree joins them."""
    pad = " " * len(label)
    if len(kids) == 1:
        first = kids[0]
        return [label + "───" + first[0], *(pad + "   " + text for text in first[1:])]
    out = []
    for n, kid in enumerate(kids):
        if n == 0:
            head, rest = label + "─┬─", pad + " │ "
        elif n == len(kids) - 1:
            head, rest = pad + " └─", pad + "   "
        else:
            head, rest = pad + " ├─", pad + " │ "
        out += [head + kid[0], *(rest + text for text in kid[1:])]
    return out


def npm_ls(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``npm ls --depth=1``: the project's packages and theirs, drawn with
    ``├─┬``, ``│ ├──`` and ``└──``, deduped ones dim."""
    packages = (
        "express", "lodash", "react", "react-dom", "typescript", "eslint", "jest",
        "axios", "webpack", "vite", "zod", "dotenv", "chalk", "commander", "debug",
        "body-parser", "cookie", "ms", "semver", "uuid", "tslib", "esbuild",
    )  # fmt: skip

    def run() -> list[Shown]:
        name = project(rng)
        out = [
            line("$ npm ls --depth=1"),
            line(f"{name}@{version(rng)} /home/dev/{name}"),
        ]
        top = rng.sample(packages, rng.randint(3, 7))
        for n, package in enumerate(top):
            last = n == len(top) - 1
            deps = rng.sample([p for p in packages if p != package], rng.randint(0, 3))
            joint = ("└─" if last else "├─") + ("┬ " if deps else "─ ")
            out.append(line(f"{joint}{package}@{version(rng)}"))
            for m, dep in enumerate(deps):
                sub = "└── " if m == len(deps) - 1 else "├── "
                stem = "  " if last else "│ "
                if rng.random() < 0.3:
                    out.append(line(f"{stem}{sub}", (f"{dep}@{version(rng)} deduped", "2")))
                else:
                    out.append(line(f"{stem}{sub}{dep}@{version(rng)}"))
        return [*out, blank()]

    return runs(run, columns, rows)


def failed_units(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``systemctl list-units``: a table of units, the failed ones marked
    with a red ``●`` before the name, then the legend."""
    out = [
        line("$ systemctl list-units --type=service --no-pager"),
        line("  UNIT                          LOAD   ACTIVE SUB     DESCRIPTION"),
    ]
    while len(out) < rows - 3:
        unit = f"{rng.choice((project(rng), rng.choice(NOUNS), 'getty@tty1'))}.service"
        failed = rng.random() < 0.3
        mark = ("●", "1;31") if failed else " "
        state = ("failed failed ", "1;31") if failed else "active running"
        description = f"{camel(rng)} {rng.choice(NOUNS)} service"
        out.append(line(mark, f" {unit:<29} loaded ", state, f" {description}"))
    out += [
        blank(),
        line("LOAD   = Reflects whether the unit definition was properly loaded."),
        line(f"{len(out) - 3} loaded units listed."),
    ]
    return [row for shown in out for row in wrap(shown, columns)][:rows]


FIRST: dict[str, Kind] = {
    "apt-upgrade": apt_upgrade,
    "java-stacktrace": java_stacktrace,
    "journalctl": journalctl,
    "node-error": node_error,
    "ss-listening": ss_listening,
    "terraform-plan": terraform_plan,
}
TREES: dict[str, Kind] = {
    "failed-units": failed_units,
    "lsblk": lsblk,
    "npm-ls": npm_ls,
    "pstree": pstree,
    "tree": tree,
}
KINDS: dict[str, Kind] = {**FIRST, **TREES, **REPORTS, **DUMPS, **TRACES, **TOOLS}
