"""Kinds of text for the fifth dev set of kinds (``TRACES``): what is on
screen when a program misbehaves and a person looks inside it, laid out as
gdb 13, valgrind 3.19, strace 6.1, lsof 4.95 (Debian 12), BuildKit's plain
progress and npm-audit-report lay it out. None is a held-out kind of the
corpus or close to one: Go's panic gives each frame two lines, gdb one with
``#N``, addresses and arguments, valgrind ``==PID==`` before each; syscalls
and descriptors share no words with ``curl -v`` or the tables of kubectl and
df; ``npm audit`` ends with the line ``npm install`` (training) ends with.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    BOLD,
    NOUNS,
    Part,
    blank,
    hexid,
    line,
    project,
    runs,
    snake,
    version,
)

Kind = Callable[[random.Random, int, int], list[Shown]]
# A frame: its address (none where the pc starts a line), function, arguments, file.
Frame = tuple[str | None, str, list[tuple[str, str]], tuple[str, str, str]]

# --- gdb ----------------------------------------------------------------------------

_ADDRESS, _FUNCTION, _FILE, _VARIABLE = "34", "33", "32", "36"
_C_TOKEN = re.compile(r"\s+|[A-Za-z_]\w*|\d+|'[^']*'|[^\w\s']+")
_C_LINES = ("if ({a}[0] == '#')", "return {f}(NULL, {n});", "{a}->next = {b}->head;")
_VALUES = ("0x0", "0x55555555{h}", "0x7fffffff{h}", "{n}", '0x55555555{h} "{w}"', "...")
_QUIT = (
    "(gdb) quit\nA debugging session is active.\n\n"
    "        Inferior 1 [process {}] will be killed.\n\nQuit anyway? (y or n) y"
)


def _source(rng: random.Random, number: str) -> Shown:
    """A line of the program as gdb lists it (number, tab) in source-highlight's
    colours: keywords bold blue, calls bold, numbers magenta, the rest red."""
    a, b = rng.sample(NOUNS, 2)
    code = rng.choice(_C_LINES).format(a=a, b=b, f=snake(rng), n=rng.randint(1, 512))
    tokens = _C_TOKEN.findall(f"    {code}")
    parts: list[Part] = [f"{number:<8}"]
    for n, token in enumerate(tokens):
        sgr = "01;34" if token in ("if", "return") else "35" if token[0].isdigit() else ""
        if not (token[0].isalnum() or token[0] in "_ "):
            sgr = "31"
        elif tokens[n + 1 : n + 2] == ["("]:
            sgr = "01"
        parts.append((token, sgr) if sgr else token)
    return line(*parts)


def _frame(number: int | None, frame: Frame, columns: int) -> list[Shown]:
    """A frame as gdb prints it ``columns`` wide (``#N`` first in ``bt``), broken
    after ``(``, after an argument's comma or before ``at``, indented four."""
    address, function, args, (word, path, number_in) = frame
    head: list[Part] = [] if number is None else [f"#{number:<2} "]
    if address:
        head += [(address, _ADDRESS), " in "]
    atoms = [[*head, (function, _FUNCTION), " (" if args else " () "]]
    for n, (name, value) in enumerate(args):
        atoms.append([(name, _VARIABLE), f"={value}" + (") " if n == len(args) - 1 else ", ")])
    atoms.append([f"{word} ", (path, _FILE), f":{number_in}"])
    rows: list[list[Part]] = [[]]
    used = 0
    for atom in atoms:
        text = "".join(part if isinstance(part, str) else part[0] for part in atom)
        if used and used + len(text) > columns:
            rows.append(["    "])
            used = 4
        rows[-1] += atom
        used += len(text)
    return [line(*row) for row in rows]


def _gdb_session(rng: random.Random, columns: int) -> list[Shown]:
    """A program run under gdb to its crash or failed ``assert``, ``bt``."""
    name, pid, at = project(rng), rng.randint(2000, 99999), "at"
    files = [f"src/{noun}.c" for noun in rng.sample(NOUNS, 3)]
    frames: list[Frame] = []
    for _ in range(rng.randint(1, 5)):
        values = ((key, rng.choice(_VALUES)) for key in rng.sample(NOUNS, rng.randint(0, 3)))
        where = (at, rng.choice(files), str(rng.randint(12, 900)))
        args = [(key, v.format(h=hexid(rng, 4), n=where[2], w=project(rng))) for key, v in values]
        frames.append((f"0x0000555555555{hexid(rng, 3)}", snake(rng), args, where))
    argv = [("argc", "3"), ("argv", f"0x7fffffff{hexid(rng, 4)}")]
    frames.append((f"0x0000555555555{hexid(rng, 3)}", "main", argv, (at, "src/main.c", "37")))
    top, a, aborts = frames[0], rng.choice(NOUNS), rng.random() < 0.4
    check = rng.choice((f"{a}->len < {a}->cap", f"{a} != NULL", f"n <= {a.upper()}_MAX"))
    if aborts:  # stopped in libc, its debug info installed
        text = [f"0x5555555560{hexid(rng, 2)} " for _ in range(3)]
        libc = [f"0x00007ffff7{hexid(rng, 6)}" for _ in range(3)]
        frames[:0] = [
            (None, "__pthread_kill_implementation", [("threadid", "<optimized out>"),
             ("signo=signo@entry", "6"), ("no_tid=no_tid@entry", "0")],
             (at, "./nptl/pthread_kill.c", "44")),
            (libc[0], "__GI_raise", [("sig=sig@entry", "6")],
             (at, "../sysdeps/posix/raise.c", "26")),
            (libc[1], "__GI_abort", [], (at, "./stdlib/abort.c", "79")),
            (libc[2], "__GI___assert_fail", [("assertion", f'{text[0]}"{check}"'),
             ("file", f'{text[1]}"{top[3][1]}"'), ("line", top[3][2]), ("function",
             f'{text[2]}<__PRETTY_FUNCTION__.0> "{top[1]}"')], (at, "./assert/assert.c", "103")),
        ]  # fmt: skip
    command = f"build/{name} --config etc/{name}.toml"
    lib = ("/lib/x86_64-linux-gnu/libthread_db.so.1", _FILE)
    failed = [line(f"{name}: {top[3][1]}:{top[3][2]}: {top[1]}: Assertion `{check}' failed.")]
    signal = "SIGABRT, Aborted" if aborts else "SIGSEGV, Segmentation fault"
    _, path, number = frames[0][3]
    missing = line(f"{number:<8}{path}: No such file or directory.")
    out = [
        line(f"$ gdb -q --args {command}"),
        line("Reading symbols from ", (f"build/{name}", _FILE), "..."),
        line("(gdb) run"),
        line(f"Starting program: /home/dev/{name}/{command}"),
        line("[Thread debugging using libthread_db enabled]"),
        line('Using host libthread_db library "', lib, '".'),
        *(failed if aborts else []),
        blank(),
        line(f"Program received signal {signal}."),
        *_frame(None, frames[0], columns),
        _source(rng, number) if path in files else missing,
        line("(gdb) bt"),
    ]
    out += [shown for n, frame in enumerate(frames) for shown in _frame(n, frame, columns)]
    return out + [line(text) for text in _QUIT.format(pid).split("\n")]


def gdb_backtrace(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """gdb after a crash or a failed ``assert``: the signal, the frame it
    stopped in and its source line, ``bt``; session after session."""
    return runs(lambda: _gdb_session(rng, columns), columns, rows)


# --- valgrind -----------------------------------------------------------------------

_PRELOAD = "(in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)"
_ALLOCATORS = ("0x48417B4: malloc", "0x4846A53: calloc", "0x4846C8B: realloc")
_FREE = f"0x484417B: free {_PRELOAD}"
_MEMCHECK = """Memcheck, a memory error detector
Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.
Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info
Command: {}
"""
_SUMMARY = """HEAP SUMMARY:
    in use at exit: {:,} bytes in {} blocks
  total heap usage: {:,} allocs, {:,} frees, {:,} bytes allocated"""
_LEAKS = """LEAK SUMMARY:
   definitely lost: {:,} bytes in {} blocks
   indirectly lost: 0 bytes in 0 blocks
     possibly lost: 0 bytes in 0 blocks
   still reachable: {:,} bytes in {} blocks
        suppressed: 0 bytes in 0 blocks"""


def valgrind_report(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``valgrind --leak-check=full``: memcheck's errors with their frames and
    the block they hit, the leaks, the summaries; its first lines or its last."""

    def run() -> list[Shown]:
        pid, name = rng.randint(2000, 99999), project(rng)
        functions, files = [snake(rng) for _ in range(4)], rng.sample(NOUNS, 3)

        def stack(top: str = "") -> str:
            """``top`` (a library's frame), then the program's down to main."""
            chain = [top] if top else []
            for function in [*rng.sample(functions, rng.randint(0, 3)), "main"]:
                where = f"{rng.choice(files)}.c:{rng.randint(5, 400)}"
                chain.append(f"0x{rng.randint(0x109000, 0x10BFFF):X}: {function} ({where})")
            return "\n".join(f"   {'by' if n else 'at'} {frame}" for n, frame in enumerate(chain))

        def error() -> str:
            block, address = rng.choice((16, 24, 32, 64, 1024)), f"0x4a{hexid(rng, 5)}"
            at = f" Address {address} is {rng.randrange(block)} bytes"
            size = f"a block of size {block}"
            freed = f"{at} inside {size} free'd\n{stack(_FREE)}\n Block was alloc'd at"
            report = rng.choice(
                (
                    f"Invalid read of size 4\n{stack()}\n{at} after {size} alloc'd",
                    f"Invalid write of size 8\n{stack()}\n{freed}",
                    f"Invalid read of size 8\n{stack()}\n Address 0x0 is not stack'd, malloc'd or "
                    "(recently) free'd",
                    f"Conditional jump or move depends on uninitialised value(s)\n{stack()}",
                    f"Invalid free() / delete / delete[] / realloc()\n{stack(_FREE)}\n{freed}",
                )
            )
            alloc = stack(f"{rng.choice(_ALLOCATORS)} {_PRELOAD}")
            return f"{report}\n{alloc}\n" if report.endswith(("alloc'd", " at")) else f"{report}\n"

        command = f"./build/{name}" + rng.choice(("", f" --config etc/{name}.toml", " -v"))
        lost = [rng.choice((24, 64, 100)) * rng.randint(1, 9) for _ in range(rng.randint(0, 2))]
        errors, reachable = rng.randint(1, 4), rng.choice((0, 0, 1024, 72704))
        blocks, allocs = len(lost) + (reachable > 0), rng.randint(9, 9999)
        heap = (sum(lost) + reachable, blocks, allocs, allocs - blocks, allocs * 97)
        text = "\n".join([_MEMCHECK.format(command), *(error() for _ in range(errors))])
        text += f"\n{_SUMMARY.format(*heap)}\n"
        for n, size in enumerate(lost, 1):
            record = f"{size:,} bytes in 1 blocks are definitely lost in loss record {n} of"
            text += f"\n{record} {blocks}\n{stack(f'{rng.choice(_ALLOCATORS)} {_PRELOAD}')}\n"
        leaks = _LEAKS.format(sum(lost), len(lost), reachable, int(reachable > 0))
        text += f"\n{leaks if blocks else 'All heap blocks were freed -- no leaks are possible'}\n"
        if "uninitialised" in text:
            text += "\nUse --track-origins=yes to see where uninitialised values come from"
        text += "\nFor lists of detected and suppressed errors, rerun with: -s\n"
        text += f"ERROR SUMMARY: {errors} errors from {errors} contexts (suppressed: 0 from 0)"
        shown = [line(f"$ valgrind --leak-check=full {command}")]
        return shown + [line(f"=={pid}== {row}") for row in text.split("\n")]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


# --- strace -------------------------------------------------------------------------

# ``call = result``: the loader's calls, then the program's, as strace prints them.
_CALLS = r"""brk(NULL) = 0x55{h}000
mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = {a}000
access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)
openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
newfstatat(3, "", {{st_mode=S_IFREG|0644, st_size={size}, ...}}, AT_EMPTY_PATH) = 0
mmap(NULL, {size}, PROT_READ, MAP_PRIVATE, 3, 0) = {c}000
close(3) = 0
openat(AT_FDCWD, "/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3
read(3, "\177ELF\2\1\1\3\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0P\236\2\0\0\0\0\0"..., 832) = 832
newfstatat(3, "", {{st_mode=S_IFREG|0755, st_size=1922136, ...}}, AT_EMPTY_PATH) = 0
mmap(NULL, 1970000, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, 3, 0) = {b}000
mmap({b}000, 1396736, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 0x26000) = {b}000
close(3) = 0
arch_prctl(ARCH_SET_FS, {a}740) = 0
set_tid_address({a}a10) = {pid}
set_robust_list({a}a20, 24) = 0
rseq({a}060, 0x20, 0, 0x53053053) = 0
prlimit64(0, RLIMIT_STACK, NULL, {{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}}) = 0
munmap({c}000, {size}) = 0
getrandom("{random}", 8, GRND_NONBLOCK) = 8
openat(AT_FDCWD, "{config}", O_RDONLY) = -1 ENOENT (No such file or directory)
openat(AT_FDCWD, "/home/dev/.config/{name}/{name}.toml", O_RDONLY) = 3
read(3, "[server]\nport = {port}\nhost = \"0.0.0.0\"\n"..., 4096) = {n}
close(3) = 0
socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4
connect(4, {{sa_family=AF_INET, sin_port=htons({port}), sin_addr=inet_addr("127.0.0.1")}}, 16) = \
-1 ECONNREFUSED (Connection refused)
write(2, "{name}: cannot connect to 127.0"..., {n}) = {n}"""
_ENDS = (
    "exit_group(1) = ?\n+++ exited with 1 +++",
    "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---\n"
    "+++ killed by SIGSEGV (core dumped) +++",
)


def strace_trace(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``strace`` from ``execve``: the loader, the program's calls and their
    errors, its end; a result at column 40 as strace aligns it."""

    def run() -> list[Shown]:
        name, pid = project(rng), rng.randint(1000, 99999)
        argv = [f"./build/{name}", "--config", f"etc/{name}.toml"]
        quoted, env = ", ".join(f'"{arg}"' for arg in argv), f"/* {rng.randint(20, 60)} vars */"
        calls = f'execve("{argv[0]}", [{quoted}], 0x7ffd{hexid(rng, 8)} {env}) = 0\n' + _CALLS
        values = {"a": f"0x7f{hexid(rng, 7)}", "b": f"0x7f{hexid(rng, 7)}", "pid": pid}
        values |= {"c": f"0x7f{hexid(rng, 7)}", "h": hexid(rng, 7), "name": name, "port": 5432}
        values |= {"size": rng.randint(20000, 90000), "n": rng.randint(40, 90), "config": argv[2]}
        values |= {"random": "".join(f"\\x{hexid(rng, 2)}" for _ in range(8))}
        texts = calls.format(**values).replace("\\\n", "").split("\n")[: rng.randint(21, 28)]
        return [line(f"$ strace {' '.join(argv)}")] + [
            line(f"{call} ".ljust(40) + f"= {result}" if call else result)
            for text in [*texts, *rng.choice(_ENDS).split("\n")]
            for call, _, result in [text.rpartition(" = ")]
        ]

    return runs(run, columns, rows)


# --- lsof ---------------------------------------------------------------------------

_SERVICES = """sshd root ssh|systemd-resolved systemd-resolve domain|cupsd root ipp
avahi-daemon avahi mdns|postgres postgres postgresql|redis-server redis 6379
nginx www-data http|containerd root 41235|node {user} 5173|firefox-esr {user} https"""


def lsof_list(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``lsof -p PID`` (a process's files, descriptors, sockets) or ``lsof -i``,
    columns as wide as their widest cell, commands cut at nine characters."""

    def run() -> list[Shown]:
        user, pid, name = rng.choice(("ana", "dev")), str(rng.randint(1000, 99999)), project(rng)
        program, port = rng.choice(("python3", "node", "nginx")), rng.randint(3000, 9000)

        def node() -> str:
            return str(rng.randint(10**5, 4 * 10**6))

        def file(fd: str, path: str) -> list[str]:
            return [*fd.split(":"), "REG", "259,2", str(rng.randint(10**4, 10**7)), node(), path]

        libraries = ("libc.so.6", "libm.so.6", "libssl.so.3", "libz.so.1.2.13")[: port % 4 + 1]
        table = [
            ["cwd", "", "DIR", "259,2", "4096", node(), f"/home/{user}/{name}"],
            ["rtd", "", "DIR", "259,2", "4096", "2", "/"], file("txt:", f"/usr/bin/{program}"),
            *(file("mem:", f"/usr/lib/x86_64-linux-gnu/{lib}") for lib in libraries),
            *([str(fd), "u", "CHR", "136,3", "0t0", "6", "/dev/pts/3"] for fd in range(3)),
            file("3:r", f"/home/{user}/{name}/{rng.choice(NOUNS)}.db"),
            ["4", "u", "IPv4", node(), "0t0", "TCP", f"localhost:{port} (LISTEN)"],
            ["5", "u", "a_inode", "0,14", "0", node()[:4], "[eventpoll:4]"],
            ["6", "u", "unix", f"0x{hexid(rng, 16)}", "0t0", node(), "type=STREAM (CONNECTED)"],
            ["7", "r", "FIFO", "0,13", "0t0", node(), "pipe"],
            file("8:w", f"/var/log/{name}.log (deleted)"),
        ]  # fmt: skip
        table, command = [[program, pid, user, *row] for row in table], f"$ lsof -p {pid}"
        if rng.random() < 0.5:
            services = [row.split() for row in re.split("[|\n]", _SERVICES.format(user=user))]
            table, command = [], "$ sudo lsof -i"
            for program, owner, service in rng.sample(services, rng.randint(3, 10)):
                udp = service in ("mdns", "domain")
                state = f"{rng.choice(('*', 'localhost'))}:{service}" + ("" if udp else " (LISTEN)")
                if owner == user:
                    far = rng.choice(("140.82.112.3", "lb-3.example.net", "fra16s52.1e100.net"))
                    state = f"laptop:{rng.randint(32768, 60999)}->{far}:https (ESTABLISHED)"
                where = [rng.choice(("IPv4", "IPv6")), node(), "0t0", ("TCP", "UDP")[udp], state]
                table.append([program, node()[:5], owner, str(rng.randint(3, 40)), "u", *where])
        head = ["COMMAND", "PID", "USER", "FD", "", "TYPE", "DEVICE", "SIZE/OFF", "NODE", "NAME"]
        table = [head, *([row[0][:9], *row[1:]] for row in table)]
        width = [max(4, *(len(row[n]) for row in table)) for n in range(10)]
        return [line(command)] + [
            line(f"{row[0]:<{width[0]}} {row[1]:>{width[1]}} {row[2]:>{width[2]}} "
                 f"{row[3]:>{width[3]}}{row[4]:<2}"
                 + "".join(f" {row[n]:>{width[n]}}" for n in range(5, 9)) + f" {row[9]}")
            for row in table
        ]  # fmt: skip

    return runs(run, columns, rows)


# --- docker build -------------------------------------------------------------------

_BUILDKIT = """#0 building with "default" instance using docker driver

#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: {0}B done
#1 DONE 0.0s

#2 [internal] load metadata for docker.io/library/{1}
#2 DONE {3:.1f}s

#3 [internal] load .dockerignore
#3 transferring context: 2B done
#3 DONE 0.0s

#4 [1/6] FROM docker.io/library/{1}@sha256:{2}
#4 resolve docker.io/library/{1}@sha256:{2} 0.0s done"""
_EXPORT = """#11 exporting to image
#11 exporting layers
#11 exporting layers 0.6s done
#11 writing image sha256:{} done
#11 naming to docker.io/library/{}:dev done
#11 DONE 0.7s"""
_FAILED = 'process "/bin/sh -c {}" did not complete successfully: exit code: 1'
_DOCKERFILE = "FROM {0}\nWORKDIR /app\nCOPY {1}\nRUN {2}\nCOPY . .\nRUN {5}"
_STACKS = (  # the base image, what is copied first, its install, a log line, a failure, build
    ("python:3.12-slim", "requirements.txt .", "pip install --no-cache-dir -r requirements.txt",
     "Collecting {0}=={1} (from -r requirements.txt (line {2}))",
     "ERROR: No matching distribution found for {0}=={1}", "python -m compileall -q src"),
    ("node:20-alpine", "package*.json ./", "npm ci", "npm warn deprecated {0}@{1}: This package "
     "is no longer supported.", "npm error 404 Not Found - GET https://registry.npmjs.org/{0}",
     "npm run build"),
    ("golang:1.22-bookworm", "go.mod go.sum ./", "go mod download", "go: downloading "
     "github.com/{0}/{0} v{1}", "go: github.com/{0}/{0}@v{1}: invalid version: unknown revision",
     "CGO_ENABLED=0 go build -o /out/app ./cmd/app"),
)  # fmt: skip


def docker_build(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``docker build --progress=plain``: BuildKit's steps, logs, times and layers,
    the image exported or a step failing with its Dockerfile and the error."""

    def run() -> list[Shown]:
        stack, name, failing = rng.choice(_STACKS), project(rng), rng.random() < 0.5
        lines = _DOCKERFILE.format(*stack).split("\n")
        head = _BUILDKIT.format(rng.randint(150, 900), stack[0], hexid(rng, 64), rng.random() * 3)
        out = [f"$ docker build --progress=plain -t {name}:dev .", *head.split("\n")]
        for size in [rng.uniform(0.5, 50) for _ in range(rng.randint(0, 3))]:
            layer, extract = f"{size:.2f}MB", f"{size / 20:.1f}s done"
            out.append(f"#4 sha256:{hexid(rng, 64)} {layer} / {layer} {size / 9:.1f}s done")
            out.append(f"#4 extracting sha256:{hexid(rng, 64)} {extract}")
        out += [f"#4 DONE {rng.uniform(0, 4):.1f}s", "", "#5 [internal] load build context"]
        out += ["#5 transferring context: 21.4kB 0.1s done", "#5 DONE 0.1s"]
        for n, step in enumerate(lines[1:], 2):
            out += ["", f"#{n + 4} [{n}/6] {step}"]
            times = sorted(rng.uniform(0.2, 9) for _ in range(rng.randint(2, 6) if n == 4 else 0))
            p, v = [rng.choice(NOUNS) for _ in times], [version(rng) for _ in times]
            logs = [f"{t:.3f} {stack[3].format(p[m], v[m], m + 1)}" for m, t in enumerate(times)]
            out += [f"#{n + 4} {text}" for text in logs]
            if logs and failing:
                logs.append(f"{times[-1] + 0.4:.3f} {stack[4].format(p[-1], v[-1])}")
                error = _FAILED.format(step[4:])
                excerpt = [f"{k:>4} | {('   ', '>>>')[k == n]} {lines[k - 1]}" for k in range(2, 7)]
                out += [f"#{n + 4} {logs[-1]}", f"#{n + 4} ERROR: {error}", "------"]
                out += [f" > [{n}/6] {step}:", *logs[-4:], "------", f"Dockerfile:{n}", "-" * 20]
                out += [*excerpt, "-" * 20, f"ERROR: failed to solve: {error}"]
                return [line(text) for text in out]
            out.append(f"#{n + 4} DONE {times[-1] + 0.4 if times else rng.uniform(0, 0.4):.1f}s")
        out += ["", *_EXPORT.format(hexid(rng, 64), name).split("\n")]
        return [line(text) for text in out]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


# --- npm audit ----------------------------------------------------------------------

# name|range|severity|title|advisory, as GitHub's advisory database has them
_ADVISORIES = """axios|1.0.0 - 1.7.3|high|Server-Side Request Forgery in axios|8hc4-vh64-cxmj
braces|<3.0.3|high|Uncontrolled resource consumption in braces|grv7-fg5c-xmjg
follow-redirects|<=1.15.5|moderate|Follow Redirects improperly handles URLs|jchw-25xp-jwwc
micromatch|<4.0.8|moderate|Regular Expression Denial of Service (ReDoS) in micromatch|952p-6rrq-rcjv
minimist|<1.2.6|critical|Prototype Pollution in minimist|xvch-5gv4-984h
send|<0.19.0|low|send vulnerable to template injection that can lead to XSS|m6fv-jmcg-4jfg
ip|*|high|ip SSRF improper categorization in isPublic|2p57-rm9w-gvfp"""
_DEPENDENTS = ("chokidar", "webpack-dev-server", "nodemon", "react-scripts", "jest-config")
# npm-audit-report's colours: names bold, severities in theirs, paths dim
_SEVERITY = {"low": BOLD, "moderate": "1;33", "high": "1;31", "critical": "1;35"}
_FIXES = {
    "fix": (("fix available", "1;32"), " via `npm audit fix`"),
    "force": (("fix available", "1;33"), " via `npm audit fix --force`"),
    "none": (("No fix available", "1;31"), ""),
}


def npm_audit(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``npm audit``: each vulnerable package, its severity, advisory, fix
    and path, the packages depending on it indented under it; the summary."""
    advisories = [row.split("|") for row in _ADVISORIES.splitlines()]

    def run() -> list[Shown]:
        out = [line("$ npm audit"), line(("# npm audit report", BOLD)), blank()]
        counts, fixes = dict.fromkeys(_SEVERITY, 0), set()
        pool = rng.sample(_DEPENDENTS, len(_DEPENDENTS))  # each package reported once
        for name, span, severity, title, ghsa in rng.sample(advisories, rng.randint(1, 4)):
            fix, take = rng.choice(("fix", "fix", "force", "none")), rng.randint(0, 3)
            dependents, pool = pool[:take], pool[take:]
            counts[severity] += 1 + len(dependents)
            fixes.add(fix)
            out.append(line((name, BOLD), f"  {span}"))
            if severity != "low":
                out.append(line("Severity: ", (severity, _SEVERITY[severity])))
            out.append(line((title, BOLD), f" - https://github.com/advisories/GHSA-{ghsa}"))
            out.append(line(*_FIXES[fix]))
            if fix == "force":
                major = f"{rng.choice(_DEPENDENTS)}@{rng.randint(2, 9)}.0.0"
                out.append(line(f"Will install {major}, which is a breaking change"))
            out.append(line((f"node_modules/{name}", "2")))
            indent, via = "  ", name
            for dependent in dependents:
                low = f"{rng.randint(1, 9)}.{rng.randint(0, 9)}"  # its versions depending on it
                out += [line(indent, (dependent, BOLD), f"  {low}.0 - {low}.{rng.randint(1, 20)}")]
                out += [line(f"{indent}Depends on vulnerable versions of ", (via, BOLD))]
                out += [line(indent, (f"node_modules/{dependent}", "2"))]
                indent, via = indent + "  ", dependent
            out.append(blank())
        found = [(severity, count) for severity, count in counts.items() if count]
        total = sum(count for _, count in found)
        parts: list[Part] = [(str(total), "1;31"), " vulnerabilities ("]
        for n, (severity, count) in enumerate(found):
            parts += [", " if n else "", f"{count} ", (severity, _SEVERITY[severity])]
        if len(found) == 1:  # one severity: named, the count plain
            noun = "vulnerability" if total == 1 else "vulnerabilities"
            parts = [f"{total} ", parts[-1], f" severity {noun}"]
        out.append(line(*parts, ")" if len(found) > 1 else ""))
        which = "issues that do not require attention" if len(fixes) > 1 else "all issues"
        possible = " possible" if "none" in fixes else ""
        notes = {
            "fix": f"To address {which}, run:\n  npm audit fix",
            "force": f"To address all issues{possible} (including breaking changes), run:\n"
            "  npm audit fix --force",
            "none": "Some issues need review, and may require choosing\na different dependency.",
        }
        text = "\n" + "\n\n".join(notes[fix] for fix in notes if fix in fixes)
        return out + [line(row) for row in text.split("\n")]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


TRACES: dict[str, Kind] = {
    "docker-build": docker_build,
    "gdb-backtrace": gdb_backtrace,
    "lsof-list": lsof_list,
    "npm-audit": npm_audit,
    "strace-trace": strace_trace,
    "valgrind-report": valgrind_report,
}
