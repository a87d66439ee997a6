"""The system and its services: listings, process tables, disks, containers,
pods, units, the environment and a database's prompt, as their tools align
them in columns."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    NOUNS,
    PACKAGES,
    Screen,
    blank,
    camel,
    clock,
    hexid,
    host,
    line,
    month_day,
    project,
    runs,
    snake,
    token62,
    tricky,
    version,
)

__all__ = [
    "df_free",
    "docker_ps",
    "env_listing",
    "kubectl_get_pods",
    "ls_la",
    "systemctl_status",
    "top",
]


def _table(rows: list[list[str]], gap: int = 3) -> list[str]:
    """Rows as columns padded to the widest cell, ``gap`` spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        (" " * gap).join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]


def _fits(lines: list[str], columns: int) -> bool:
    return all(len(text) <= columns for text in lines)


def ls_la(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``ls -la`` with ``--color``: directories in bold blue, executables in
    bold green, symlinks in bold cyan with their targets, archives in red."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            folder = rng.choice((f"~/src/{project(rng)}", "/etc/nginx", "/var/log", "."))
            entries = []
            for _ in range(rng.randint(3, 24)):
                kind = rng.choice("fffffddxlz")
                name = {
                    "f": lambda: rng.choice(
                        (
                            f"{snake(rng)}.py",
                            f"{rng.choice(NOUNS)}.toml",
                            "README.md",
                            "Makefile",
                            f"{tricky(rng).strip('/')}.log",
                            f".{rng.choice(NOUNS)}rc",
                        )
                    ),
                    "d": lambda: rng.choice(
                        (
                            rng.choice(NOUNS) + "s",
                            "src",
                            "tests",
                            ".git",
                            "node_modules",
                            "__pycache__",
                        )
                    ),
                    "x": lambda: rng.choice(("run.sh", "configure", f"{project(rng)}-cli")),
                    "l": lambda: rng.choice(("current", "latest", f"lib{rng.choice(NOUNS)}.so")),
                    "z": lambda: f"{project(rng)}-{version(rng)}.tar.gz",
                }[kind]()
                entries.append((kind, name))
            owner = rng.choice(("me", "root", "www-data", "deploy"))
            block = [line(f"$ ls -la {folder}"), line(f"total {rng.randint(8, 2048)}")]
            for kind, name in [("d", "."), ("d", ".."), *entries]:
                mode = {
                    "f": "-rw-r--r--",
                    "d": "drwxr-xr-x",
                    "x": "-rwxr-xr-x",
                    "l": "lrwxrwxrwx",
                    "z": "-rw-r--r--",
                }[kind]
                size = 4096 if kind == "d" else rng.randint(0, 99_999_999)
                links = rng.randint(2, 9) if kind == "d" else 1
                # ls gives the time for recent files, else the year.
                when = rng.choice((clock(rng)[:5], f" {rng.randint(2019, 2024)}"))
                head = f"{mode} {links:>2} {owner:<8} {owner:<8} {size:>8} {month_day(rng)} {when} "
                sgr = {"d": "1;34", "x": "1;32", "l": "1;36", "z": "1;31"}.get(kind, "")
                tail = [(" -> ", ""), (f"/opt/{project(rng)}/{name}", "")] if kind == "l" else []
                block.append(line(head, (name, sgr), *tail))
            yield block

    return Screen(columns, rows).fill(blocks())


def docker_ps(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``docker ps`` (``-a``): its wide table when the screen is wide, else
    a ``--format`` table of fewer columns, as people narrow it."""

    def table() -> list[str]:
        header = ["CONTAINER ID", "IMAGE", "COMMAND", "CREATED", "STATUS", "PORTS", "NAMES"]
        rows_ = [header]
        for _ in range(rng.randint(2, 40)):
            name = f"{project(rng)}-{rng.choice(NOUNS)}-{rng.randint(1, 9)}"
            image = rng.choice(
                (
                    f"postgres:{rng.randint(12, 16)}",
                    "redis:7-alpine",
                    f"ghcr.io/{project(rng)}/{rng.choice(NOUNS)}:{version(rng)}",
                    f"nginx:1.{rng.randint(20, 27)}",
                    f"{project(rng)}-api:latest",
                )
            )
            command = rng.choice(
                (
                    '"docker-entrypoint.s…"',
                    '"/bin/sh -c \'exec …"',
                    '"nginx -g \'daemon of…"',
                    '"python -m app"',
                )
            )
            created = f"{rng.randint(2, 59)} {rng.choice(('minutes', 'hours', 'days'))} ago"
            status = rng.choice(
                (
                    f"Up {rng.randint(2, 59)} minutes",
                    f"Up {rng.randint(2, 23)} hours (healthy)",
                    f"Exited ({rng.choice((0, 1, 137))}) {rng.randint(2, 59)} seconds ago",
                    "Restarting (1) 5 seconds ago",
                )
            )
            port = rng.choice((5432, 6379, 8080, 443, 3000))
            ports = f"0.0.0.0:{port}->{port}/tcp" if status.startswith("Up") else ""
            rows_.append([hexid(rng, 12), image, command, created, status, ports, name])
        full = _table(rows_)
        if _fits(full, columns):
            return full
        narrow = _table([[r[0], r[1], r[4], r[6]] for r in rows_])
        if _fits(narrow, columns):
            return narrow
        return _table([[r[6], r[4]] for r in rows_])

    def blocks() -> Iterator[list[Shown]]:
        while True:
            text = table()
            if text[0].startswith("CONTAINER ID   IMAGE   "):
                fields = "{{.ID}}\\t{{.Image}}\\t{{.Status}}\\t{{.Names}}"
            else:
                fields = "{{.Names}}\\t{{.Status}}"
            wide = "COMMAND" in text[0]
            command = "$ docker ps -a" if wide else f'$ docker ps --format "table {fields}"'
            yield [line(command), *(line(t) for t in text)]

    return Screen(columns, rows).fill(blocks())


def kubectl_get_pods(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``kubectl get pods`` (``-o wide`` when it fits): names with their
    replica-set hashes, READY, STATUS, RESTARTS with ``(5m ago)``, AGE."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            namespace = rng.choice(("default", "prod", "staging", "kube-system", "monitoring"))
            header = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
            table = [header]
            for _ in range(rng.randint(2, 40)):
                deployment = f"{project(rng)}-{rng.choice(NOUNS)}"
                name = f"{deployment}-{token62(rng, 10).lower()}-{token62(rng, 5).lower()}"
                status = rng.choice(
                    ("Running",) * 6
                    + (
                        "CrashLoopBackOff",
                        "Pending",
                        "Completed",
                        "ImagePullBackOff",
                        "OOMKilled",
                        "Terminating",
                    )
                )
                total = rng.randint(1, 3)
                ready = f"{total if status == 'Running' else 0}/{total}"
                restarts = str(rng.randint(0, 4))
                if restarts != "0":
                    restarts += f" ({rng.randint(1, 59)}m ago)"
                age = rng.choice(
                    (
                        f"{rng.randint(1, 59)}m",
                        f"{rng.randint(1, 23)}h",
                        f"{rng.randint(2, 90)}d",
                        f"{rng.randint(1, 9)}h{rng.randint(1, 59)}m",
                    )
                )
                ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
                node = f"ip-10-0-{rng.randint(0, 255)}-{rng.randint(2, 254)}"
                node += ".eu-west-1.compute.internal"
                table.append([name, ready, status, restarts, age, ip, node])
            wide = _table(table)
            text = wide if _fits(wide, columns) else _table([r[:5] for r in table])
            option = " -o wide" if text is wide else ""
            out = [line(f"$ kubectl get pods -n {namespace}{option}")]
            yield [*out, *(line(text_line) for text_line in text)]

    return Screen(columns, rows).fill(blocks())


def top(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``top`` in batch form: its summary lines, the column header in reverse
    video across the width, and processes sorted by CPU."""
    out = [
        line(
            f"top - {clock(rng)} up {rng.randint(1, 300)} days, {rng.randint(0, 23):>2}:"
            f"{rng.randint(0, 59):02d},  {rng.randint(1, 9)} users,  load average: "
            f"{rng.random() * 4:.2f}, {rng.random() * 4:.2f}, {rng.random() * 4:.2f}"
        ),
        line(
            f"Tasks: {rng.randint(100, 600)} total,   {rng.randint(1, 9)} running, "
            f"{rng.randint(100, 590)} sleeping,   0 stopped,   {rng.randint(0, 3)} zombie"
        ),
        line(
            f"%Cpu(s): {rng.random() * 40:4.1f} us, {rng.random() * 9:4.1f} sy,  0.0 ni, "
            f"{rng.random() * 99:4.1f} id,  {rng.random():3.1f} wa,  0.0 hi,  0.1 si,  0.0 st"
        ),
        line(
            f"MiB Mem :  {rng.randint(4000, 64000):>7}.{rng.randint(0, 9)} total,   "
            f"{rng.randint(100, 9000):>5}.{rng.randint(0, 9)} free,   {rng.randint(900, 9000):>5}"
            f".{rng.randint(0, 9)} used,   {rng.randint(100, 9000):>5}.{rng.randint(0, 9)} "
            "buff/cache"
        ),
        line(
            f"MiB Swap:   2048.0 total,   {rng.randint(100, 2048):>4}.0 free,"
            f"     {rng.randint(0, 900):>3}.0 used.   {rng.randint(1000, 9000)}.4 avail Mem"
        ),
        blank(),
    ]
    header = "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND"
    out.append(line((header.ljust(columns), "7")))
    commands = [
        "python3",
        "node",
        "postgres",
        "java",
        "Xorg",
        "firefox-esr",
        "dockerd",
        "containerd",
        "systemd",
        "kworker/u16:2-events_unbound",
        "gnome-shell",
        "rg",
        "cc1plus",
        f"{project(rng)}-worker",
        "sshd",
        "redis-server",
        "nvme0n1p2",
    ]
    cpu = sorted((rng.random() * 100 for _ in range(rows)), reverse=True)
    for share in cpu:
        user = rng.choice(("me", "root", "postgres", "www-data", "deploy"))
        state = rng.choice("SSSSRRDI")
        out.append(
            line(
                f"{rng.randint(1, 999999):>7} {user:<9}{rng.randint(0, 39):>3} "
                f"{rng.randint(-20, 19):>3} {rng.randint(10000, 9999999):>7} "
                f"{rng.randint(1000, 999999):>6} {rng.randint(100, 99999):>6} {state} "
                f"{share:5.1f} {rng.random() * 30:5.1f} {rng.randint(0, 999):>4}:"
                f"{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d} {rng.choice(commands)}"
            )
        )
    screen = Screen(columns, rows)
    screen.add(*out)
    return screen.lines


def df_free(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``df -h`` and ``free -m``: devices (``/dev/nvme0n1p2``, mapper names),
    sizes with units, percentages, mount points."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            table = [["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"]]
            for _ in range(rng.randint(3, 14)):
                device = rng.choice(
                    (
                        "/dev/nvme0n1p2",
                        "/dev/nvme0n1p1",
                        "/dev/sda1",
                        "/dev/mapper/vg0-root",
                        "tmpfs",
                        "udev",
                        "/dev/loop0",
                        "overlay",
                        f"/dev/md{rng.randint(0, 3)}",
                        "//nas.local/share",
                        f"s3fs-{token62(rng, 6)}",
                    )
                )
                whole = rng.randint(10, 999)
                taken = rng.randint(0, whole)
                unit = rng.choice("GGGMT")
                size, used, avail = (f"{n}{unit}" for n in (whole, taken, whole - taken))
                share = f"{100 * taken // whole}%"
                mount = rng.choice(
                    (
                        "/",
                        "/boot/efi",
                        "/home",
                        "/var/lib/docker",
                        "/dev/shm",
                        "/run",
                        "/mnt/backup",
                        f"/snap/{rng.choice(PACKAGES)}/{rng.randint(10, 999)}",
                    )
                )
                table.append([device, size, used, avail, share, mount])
            widths = [max(len(r[i]) for r in table) for i in range(6)]
            text = [
                " ".join(
                    (cell.ljust(widths[i]) if i in (0, 5) else cell.rjust(widths[i]))
                    for i, cell in enumerate(row)
                ).rstrip()
                for row in table
            ]
            yield [line("$ df -h"), *(line(t) for t in text)]
            total = rng.randint(4000, 64000)
            taken = rng.randint(500, total - 200)
            yield [
                line("$ free -m"),
                line(
                    "               total        used        free      shared  buff/cache"
                    "   available"
                ),
                line(
                    f"Mem:    {total:>12} {taken:>11} {total - taken:>11} {rng.randint(1, 900):>11}"
                    f" {rng.randint(100, 9000):>11} {rng.randint(100, total):>11}"
                ),
                line(f"Swap:   {2047:>12} {rng.randint(0, 900):>11} {rng.randint(1000, 2047):>11}"),
            ]

    return Screen(columns, rows).fill(blocks())


def env_listing(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``env`` (or ``printenv | sort``): NAME=value lines, paths full of
    colons, URLs, flags, ids with look-alike characters."""
    name = project(rng)
    candidates = [
        "SHELL=/bin/bash",
        f"HOME=/home/{rng.choice(('me', 'ana', 'dev'))}",
        "LANG=en_US.UTF-8",
        "LC_ALL=C.UTF-8",
        "TERM=xterm-256color",
        "COLORTERM=truecolor",
        f"PWD=/home/me/src/{name}",
        f"OLDPWD=/home/me/src/{project(rng)}",
        "PATH=/home/me/.local/bin:/home/me/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin"
        ":/usr/bin:/sbin:/bin",
        f"VIRTUAL_ENV=/home/me/src/{name}/.venv",
        "PYTHONPATH=src:tests",
        f"DATABASE_URL=postgresql://{name}:<redacted>@db-primary:5432/{name}_dev",
        f"REDIS_URL=redis://cache:6379/{rng.randint(0, 15)}",
        f"AWS_REGION=eu-west-{rng.randint(1, 3)}",
        f"AWS_PROFILE={name}-staging",
        f"KUBECONFIG=/home/me/.kube/{name}.yaml",
        "DOCKER_HOST=unix:///run/user/1000/docker.sock",
        "GOPATH=/home/me/go",
        f"NODE_OPTIONS=--max-old-space-size={rng.choice((2048, 4096, 8192))}",
        f"{name.upper()}_LOG_LEVEL=" + rng.choice(("debug", "info", "warning")),
        f"{name.upper()}_FEATURE_FLAGS=" + ",".join(snake(rng, 2) for _ in range(3)),
        f"{name.upper()}_BUILD_ID={token62(rng, 12)}",
        f"GIT_COMMIT={hexid(rng, 40)}",
        f"HOSTNAME={host(rng)}",
        "XDG_RUNTIME_DIR=/run/user/1000",
        "XDG_SESSION_TYPE=x11",
        "DISPLAY=:0",
        f"SSH_AUTH_SOCK=/tmp/ssh-{token62(rng, 12)}/agent.{rng.randint(1000, 99999)}",
        "EDITOR=" + rng.choice(("vim", "nvim", "nano", "code --wait")),
        "LESS=-R",
        f"HISTSIZE={rng.choice((1000, 10000, 50000))}",
        "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64",
        f"CUDA_VISIBLE_DEVICES={rng.randint(0, 3)}",
        f"DEVICE={tricky(rng)}",
    ]

    def run() -> list[Shown]:
        rng.shuffle(candidates)
        sort = rng.random() < 0.5
        chosen = sorted(candidates) if sort else candidates
        return [line("$ printenv | sort" if sort else "$ env"), *(line(text) for text in chosen)]

    return runs(run, columns, rows)


def systemctl_status(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``systemctl status``: the unit's ``●`` in colour, Loaded/Active lines,
    its process tree drawn with ``├─`` and ``└─``, and the journal's last lines."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            unit = rng.choice(
                (
                    f"{project(rng)}-api",
                    "nginx",
                    "postgresql@15-main",
                    "docker",
                    f"{project(rng)}-worker@{rng.randint(1, 4)}",
                    "ssh",
                )
            )
            failed = rng.random() < 0.4
            dot = ("●", "1;31" if failed else "1;32")
            state = ("failed", "1;31") if failed else ("active (running)", "1;32")
            pid = rng.randint(300, 99999)
            out = [
                line(f"$ systemctl status {unit}"),
                line(dot, f" {unit}.service - {camel(rng)} {rng.choice(NOUNS)} service"),
                line(
                    f"     Loaded: loaded (/etc/systemd/system/{unit}.service; enabled; preset: "
                    "enabled)"
                ),
                line(
                    "     Active: ",
                    state,
                    f" since {rng.choice(('Mon', 'Tue', 'Fri'))} "
                    f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)} {clock(rng)} UTC; "
                    f"{rng.randint(1, 59)}min ago",
                ),
            ]
            if failed:
                out.append(
                    line(
                        f"    Process: {pid} ExecStart=/usr/bin/{unit.split('@')[0]} "
                        f"(code=exited, status={rng.randint(1, 127)}/FAILURE)"
                    )
                )
            else:
                out += [
                    line(f"   Main PID: {pid} ({unit.split('@')[0][:15]})"),
                    line(f"      Tasks: {rng.randint(1, 90)} (limit: {rng.randint(9000, 38000)})"),
                    line(f"     Memory: {rng.randint(2, 900)}.{rng.randint(0, 9)}M"),
                    line(f"        CPU: {rng.randint(0, 59)}.{rng.randint(100, 999)}s"),
                    line(f"     CGroup: /system.slice/{unit}.service"),
                ]
                children = rng.randint(1, 5)
                for n in range(children):
                    branch = "└─" if n == children - 1 else "├─"
                    out.append(
                        line(
                            f"             {branch}{pid + n} /usr/bin/python3 -m "
                            f"{project(rng)}.{snake(rng, 2)} --workers {rng.randint(1, 8)}"
                        )
                    )
            out.append(blank())
            for _ in range(rng.randint(2, 6)):
                out.append(
                    line(
                        f"{rng.choice(('Mar', 'Apr', 'Nov'))} {rng.randint(10, 28)} "
                        f"{clock(rng)} {host(rng)} {unit.split('@')[0]}[{pid}]: "
                        f"{rng.choice(('INFO', 'WARNING', 'ERROR'))} {snake(rng)}: "
                        f"{rng.choice(NOUNS)} {rng.choice(('ok', 'timeout', 'refused'))}"
                    )
                )
            yield out

    return Screen(columns, rows).fill(blocks())
