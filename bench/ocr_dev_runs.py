"""Kinds of the fourth dev set of kinds (``bench/ocr_dev_dumps.py``'s
``DUMPS``) that a run or a scan prints: ``ansible-playbook`` (banners of
stars to the window's edge, each host's outcome in its colour, a host
failing with its JSON, the recap's ``ok=12   changed=3`` cells), ``git
log --graph --oneline --decorate --all`` (lanes opening at merges with
``|\\`` and ``|\\ \\``, joining with ``|/`` and ``|/ /``, each in its
colour) and an ``nmap`` scan report (ports, services and versions in
columns as wide as their widest cell, MAC addresses and vendors).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import cycle

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    NOUNS,
    Part,
    Screen,
    blank,
    camel,
    clock,
    hexid,
    line,
    project,
    runs,
    snake,
    version,
)

# --- ansible-playbook ---------------------------------------------------------------

_OK, _CHANGED, _FAILED, _SKIP = "32", "33", "31", "36"


def _banner(text: str, columns: int) -> Shown:
    """``TASK [x] ****``: the title, stars to the edge (at least three)."""
    return line(f"{text} {'*' * max(3, max(80, columns) - len(text) - 1)}")


def ansible_play(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``ansible-playbook``: the play, its tasks with each host's outcome in
    colour, a host failing, and the recap counting them; its first lines
    or, as a finished run leaves it, its last."""
    roles = {
        "common": ("Install base packages", "Set timezone", "Create deploy user"),
        "nginx": ("Template site config", "Enable site", "Open firewall ports"),
        "app": ("Check out release", "Install requirements", "Run migrations"),
        "postgres": ("Create database", "Grant privileges"),
    }

    def run() -> list[Shown]:
        hosts = sorted(
            rng.sample(
                ("web-01", "web-02", "web-03", "db-01", "cache-01", "worker-02"), rng.randint(2, 4)
            )
        )
        counts = {
            h: dict.fromkeys(("ok", "changed", "unreachable", "failed", "skipped"), 0)
            for h in hosts
        }
        play = rng.choice(("webservers", "all", f"Deploy {project(rng)}"))
        out = [
            line(
                f"$ ansible-playbook -i inventories/{rng.choice(('prod', 'staging'))}/hosts.ini "
                "site.yml"
            ),
            blank(),
            _banner(f"PLAY [{play}]", columns),
            blank(),
            _banner("TASK [Gathering Facts]", columns),
        ]
        for host in hosts:
            out.append(line((f"ok: [{host}]", _OK)))
            counts[host]["ok"] += 1
        doomed = rng.choice(hosts) if rng.random() < 0.8 else None
        tasks = [(role, task) for role in rng.sample(sorted(roles), 3) for task in roles[role]]
        for n, (role, task) in enumerate(tasks):
            live = [h for h in hosts if not counts[h]["failed"] and not counts[h]["unreachable"]]
            if not live:
                out += [blank(), _banner("NO MORE HOSTS LEFT", columns)]
                break
            out += [blank(), _banner(f"TASK [{role} : {task}]", columns)]
            item = f" => (item={rng.choice(NOUNS)}.conf)" if rng.random() < 0.2 else ""
            for host in live:
                if host == doomed and n >= len(tasks) // 2:
                    out.append(_fatal(rng, host, role))
                    counts[host]["unreachable" if "UNREACHABLE" in out[-1].plain else "failed"] += 1
                    continue
                outcome = rng.choice(("ok",) * 5 + ("changed",) * 3 + ("skipping",))
                colour = {"ok": _OK, "changed": _CHANGED, "skipping": _SKIP}[outcome]
                out.append(line((f"{outcome}: [{host}]{item}", colour)))
                counts[host]["skipped" if outcome == "skipping" else outcome] += 1
                counts[host]["ok"] += outcome == "changed"
        out += [blank(), _banner("PLAY RECAP", columns)]
        for host in hosts:
            c = counts[host]
            colour = (
                _FAILED if c["failed"] or c["unreachable"] else _CHANGED if c["changed"] else _OK
            )
            cells: list[Part] = [(host, colour), " " * (26 - len(host)) + " : "]
            numbers = [*c.items(), ("rescued", 0), ("ignored", 0)]
            for n, (name, value) in enumerate(numbers):
                tint = {
                    "ok": _OK,
                    "changed": _CHANGED,
                    "unreachable": "1;31",
                    "failed": _FAILED,
                    "skipped": _SKIP,
                }
                text = f"{name}={value:<4}"
                cells += [
                    (text, tint.get(name, "") if value else ""),
                    " " if n < len(numbers) - 1 else "",
                ]
            out.append(line(*cells))
        return out  # a blank last row would leave a one-row tail empty

    return runs(run, columns, rows, tail=rng.random() < 0.5)


def _fatal(rng: random.Random, host: str, role: str) -> Shown:
    """A host failing a task, the error as the JSON ansible prints."""
    message = rng.choice(
        (
            f'"msg": "No package matching \'{rng.choice(NOUNS)}-{rng.choice(("dev", "utils"))}\' '
            'is available"',
            f'"msg": "The task includes an option with an undefined variable. The error was: '
            f"'{snake(rng, 2)}' is undefined\"",
            f'"cmd": ["/opt/{project(rng)}/venv/bin/python", "manage.py", "migrate"], "delta": '
            f'"0:00:0{rng.randint(1, 9)}.{rng.randint(100000, 999999)}", "msg": '
            '"non-zero return code", "rc": 1',
            f'"msg": "Could not find or access \'{role}/templates/{rng.choice(NOUNS)}.conf.j2\'"',
        )
    )
    if rng.random() < 0.2:
        address = f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 254)}"
        return line(
            (
                f'fatal: [{host}]: UNREACHABLE! => {{"changed": false, "msg": "Failed to '
                f"connect to the host via ssh: ssh: connect to host {address} port 22: "
                'Connection timed out", '
                '"unreachable": true}',
                "1;31",
            )
        )
    changed = "true" if '"rc"' in message else "false"
    return line((f'fatal: [{host}]: FAILED! => {{"changed": {changed}, {message}}}', _FAILED))


# --- git log --graph ----------------------------------------------------------------

_LANE_COLOURS = ("31", "32", "33", "34", "35", "36", "1;31", "1;32", "1;33", "1;34", "1;35")


def _subject(rng: random.Random) -> str:
    """A conventional commit's subject: ``fix(api): ...``."""
    kind = rng.choice(("feat", "fix", "fix", "chore", "docs", "refactor", "test", "ci", "perf"))
    scope = rng.choice(("", f"({rng.choice(NOUNS)})", f"({project(rng)})"))
    what = rng.choice(
        (
            f"handle {rng.choice(NOUNS)} timeout in {snake(rng)}",
            f"bump {rng.choice(('ruff', 'mypy', 'pytest', 'eslint', 'vite'))} to {version(rng)}",
            f"add {camel(rng)} to the {rng.choice(NOUNS)} API",
            f"drop unused {snake(rng, 2)}",
            f"retry {rng.choice(NOUNS)} on HTTP {rng.choice((429, 502, 503))}",
            f"rename {camel(rng)} -> {camel(rng)}",
        )
    )
    return f"{kind}{scope}: {what}"


def _branch_name(rng: random.Random) -> str:
    return rng.choice(
        (
            f"feature/{rng.choice(NOUNS)}-{rng.choice(NOUNS)}",
            f"fix/{rng.choice(NOUNS)}-{rng.randint(100, 999)}",
            f"dependabot/pip/{rng.choice(('requests', 'urllib3', 'pydantic'))}-{version(rng)}",
            f"release/{rng.randint(1, 4)}.{rng.randint(0, 12)}",
        )
    )


def _decoration(names: list[tuple[str, str]]) -> list[Part]:
    """`` (HEAD -> main, origin/main)``: each name in its colour, the
    brackets and commas in the hash's yellow."""
    parts: list[Part] = [" ", ("(", "33")]
    for n, (name, colour) in enumerate(names):
        if name.startswith("HEAD -> "):
            parts += [("HEAD -> ", "1;36"), (name[8:], colour)]
        else:
            parts.append((name, colour))
        parts.append((", " if n < len(names) - 1 else ")", "33"))
    return parts


def git_graph(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``git log --graph --oneline --decorate --all``: commits as ``*`` in
    their branch's lane, merges opening a lane (``|\\``, ``|\\ \\``),
    branches joining one (``|/``, ``|/ /``), new tips to the right; each
    lane's edges in its colour, hashes yellow, decorations coloured."""
    colours = cycle(rng.sample(_LANE_COLOURS, len(_LANE_COLOURS)))
    lanes = [next(colours)]  # each lane's colour, left to right
    fresh = [False]  # whether a lane has had no commit since it opened

    def edges(cells: list[Part]) -> list[Part]:
        """The lanes' cells, a space after each but the last."""
        return [
            part
            for n, cell in enumerate(cells)
            for part in ([cell, " "] if n < len(cells) - 1 else [cell])
        ]

    def commit(
        at: int, *, merge: bool = False, names: list[tuple[str, str]] | None = None
    ) -> Shown:
        fresh[at] = False
        cells: list[Part] = ["*" if n == at else ("|", colour) for n, colour in enumerate(lanes)]
        text = (
            rng.choice(
                (
                    f"Merge branch '{_branch_name(rng)}'",
                    f"Merge pull request #{rng.randint(40, 2400)} from "
                    f"{project(rng)}/{_branch_name(rng)}",
                    "Merge remote-tracking branch 'origin/main'",
                )
            )
            if merge
            else _subject(rng)
        )
        decoration = _decoration(names) if names else []
        return line(
            *edges(cells), "   " if merge else " ", (hexid(rng, 7), "33"), *decoration, " " + text
        )

    def rows_out() -> Iterator[list[Shown]]:
        yield [line("$ git log --graph --oneline --decorate --all")]
        head = [("HEAD -> main", "1;32"), ("origin/main", "1;31"), ("origin/HEAD", "1;31")]
        yield [commit(0, names=head)]
        while True:
            n = len(lanes)
            roll = rng.random()
            joinable = [j for j in range(1, n) if not fresh[j]]
            if roll < 0.2 and n < 4:  # a merge in a lane opens a lane to its right
                at = rng.randrange(n)
                shown = commit(at, merge=True)
                colour = next(colours)
                cells: list[Part] = [("|", lanes[at]), ("\\", colour)]
                cells += [(" \\", c) for c in lanes[at + 1 :]]
                left = [("| ", c) for c in lanes[:at]]
                lanes.insert(at + 1, colour)
                fresh.insert(at + 1, True)
                yield [shown, line(*left, *cells)]
                yield [commit(at + 1)]
            elif roll < 0.35 and joinable:  # a branch's lane joins the one to its left
                j = rng.choice(joinable)
                cells = [("| ", c) for c in lanes[: j - 1]] + [("|", lanes[j - 1]), ("/", lanes[j])]
                cells += [(" /", c) for c in lanes[j + 1 :]]
                del lanes[j], fresh[j]
                yield [line(*cells), commit(j - 1)]
            elif roll < 0.42 and n < 4:  # a branch's tip, newer than what is below
                lanes.append(next(colours))
                fresh.append(False)
                name = _branch_name(rng)
                names = [(name, "1;32")] + (
                    [(f"origin/{name}", "1;31")] if rng.random() < 0.5 else []
                )
                yield [commit(n, names=names)]
            else:
                at = rng.randrange(n)
                tag = (
                    [(f"tag: v{version(rng)}", "1;33")] if at == 0 and rng.random() < 0.08 else None
                )
                yield [commit(at, names=tag)]

    return Screen(columns, rows).fill(rows_out())


# --- nmap ---------------------------------------------------------------------------

_SERVICES = (
    (
        22,
        "ssh",
        (
            "OpenSSH 9.2p1 Debian 2+deb12u3 (protocol 2.0)",
            "OpenSSH 8.9p1 Ubuntu 3ubuntu0.10 (Ubuntu Linux; protocol 2.0)",
            "Dropbear sshd 2022.83 (protocol 2.0)",
        ),
    ),
    (53, "domain", ("dnsmasq 2.89", "ISC BIND 9.18.28-1~deb12u2 (Debian Linux)")),
    (80, "http", ("nginx 1.22.1", "Apache httpd 2.4.62 ((Debian))", "lighttpd 1.4.69")),
    (111, "rpcbind", ("2-4 (RPC #100000)",)),
    (139, "netbios-ssn", ("Samba smbd 4.6.2",)),
    (443, "ssl/http", ("nginx 1.22.1", "Apache httpd 2.4.62 ((Debian))")),
    (445, "microsoft-ds", ("Samba smbd 4.6.2",)),
    (631, "ipp", ("CUPS 2.4",)),
    (3306, "mysql", ("MySQL 8.0.40-0ubuntu0.22.04.1", "MariaDB 5.5.5-10.11.6")),
    (5432, "postgresql", ("PostgreSQL DB 9.6.0 or later",)),
    (6379, "redis", ("Redis key-value store 7.0.15",)),
    (8080, "http-proxy", ("Apache Tomcat (language: en)", "")),
    (9100, "jetdirect", ("",)),
)
_VENDORS = (
    ("B8:27:EB", "Raspberry Pi Foundation"),
    ("DC:A6:32", "Raspberry Pi Trading"),
    ("50:C7:BF", "TP-Link Technologies"),
    ("00:11:32", "Synology Incorporated"),
    ("0C:C4:7A", "Super Micro Computer"),
    ("24:0A:C4", "Espressif"),
)


def _table(cells: list[list[str]]) -> list[str]:
    """nmap's columns: each as wide as its widest cell, one space between."""
    widths = [max(len(row[n]) for row in cells) for n in range(len(cells[0]) - 1)]
    return [
        " ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in cells
    ]


def nmap_scan(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """An nmap scan report: each host up, its open ports with services and
    versions, its MAC address and vendor, then ``Nmap done``."""
    versions, network, target, flags = False, "", "", ""

    def choose() -> None:
        """What the next scan scans, and how."""
        nonlocal versions, network, target, flags
        versions = rng.random() < 0.7
        network = rng.choice(("192.168.0", "192.168.1", "192.168.178", f"10.0.{rng.randint(0, 9)}"))
        target = f"{network}.0/24" if rng.random() < 0.6 else f"{network}.{rng.randint(2, 254)}"
        options = (
            ("-sV", "-sV -O", "-sC -sV", "-sS -sV -p-") if versions else ("", "-F", "-p 1-10000")
        )
        flags = rng.choice(options)

    def host(address: str) -> list[Shown]:
        name = rng.choice(
            (f"{rng.choice(('nas', 'printer', 'pi', 'router'))}.lan ({address})", address)
        )
        ports = sorted(rng.sample(_SERVICES, rng.randint(1, 6)))
        cells = [["PORT", "STATE", "SERVICE", *(["VERSION"] if versions else [])]]
        for port, service, known in ports:
            state = "filtered" if rng.random() < 0.1 else "open"
            cells.append(
                [f"{port}/tcp", state, service, *([rng.choice(known)] if versions else [])]
            )
        scanned = (
            65535 if "-p-" in flags else 10000 if "-p " in flags else 100 if "-F" in flags else 1000
        )
        closed = scanned - len(ports)
        out = [
            line(f"Nmap scan report for {name}"),
            line(f"Host is up ({rng.uniform(0.0002, 0.05):.2g}s latency)."),
        ]
        if rng.random() < 0.8:
            out.append(
                line(
                    f"Not shown: {closed} closed tcp ports "
                    f"({rng.choice(('reset', 'conn-refused'))})"
                )
            )
        out += [line(text) for text in _table(cells)]
        if "-sC" in flags and ports[0][0] == 22:  # the script's output under the port
            keys = [
                f"|   256 {':'.join(hexid(rng, 2) for _ in range(16))} (ECDSA)",
                f"|_  256 {':'.join(hexid(rng, 2) for _ in range(16))} (ED25519)",
            ]
            first = len(out) - len(ports) + 1
            out[first:first] = [line("| ssh-hostkey: "), *(line(key) for key in keys)]
        prefix, vendor = rng.choice(_VENDORS)
        mac = prefix + "".join(f":{hexid(rng, 2)}" for _ in range(3)).upper()
        out.append(line(f"MAC Address: {mac} ({vendor})"))
        if "-O" in flags:
            out += [
                line("Device type: general purpose"),
                line("Running: Linux 4.X|5.X"),
                line("OS CPE: cpe:/o:linux:linux_kernel:4 cpe:/o:linux:linux_kernel:5"),
                line("OS details: Linux 4.15 - 5.8"),
                line("Network Distance: 1 hop"),
            ]
        if versions and rng.random() < 0.6:
            out.append(line("Service Info: OS: Linux; CPE: cpe:/o:linux:linux_kernel"))
        return [*out, blank()]

    def blocks() -> Iterator[list[Shown]]:
        while True:
            yield from scan()

    def scan() -> Iterator[list[Shown]]:
        choose()
        yield [
            line(
                f"$ {'sudo ' if '-O' in flags or '-sS' in flags else ''}nmap "
                f"{flags + ' ' if flags else ''}{target}"
            ),
            line(
                f"Starting Nmap 7.93 ( https://nmap.org ) at 2026-12-0{rng.randint(1, 7)} "
                f"{clock(rng)[:5]} UTC"
            ),
        ]
        up = 0
        found = rng.sample(range(1, 255), rng.randint(1, 5)) if "/" in target else [0]
        for last in sorted(found):
            up += 1
            yield host(f"{network}.{last}" if last else target)
        tail = []
        if versions:
            tail.append(
                line(
                    "Service detection performed. Please report any incorrect results at "
                    "https://nmap.org/submit/ ."
                )
            )
        total = 256 if target.endswith("/24") else 1
        plural = "es" if total > 1 else ""
        hosts = f"{up} host{'s' if up > 1 else ''} up"
        tail.append(
            line(
                f"Nmap done: {total} IP address{plural} ({hosts}) scanned in "
                f"{rng.uniform(2, 400):.2f} seconds"
            )
        )
        yield tail

    return Screen(columns, rows).fill(blocks())
