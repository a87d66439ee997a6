"""Soak: the app left running with work to do, watched over time.

On a private Xvfb (2560x1600, openbox) with a real xterm 200x60 whose log
grows a line before each capture, a real `noru app` (a data dir of its own,
``max_disk`` small enough that retention prunes all along) is given, for
``--minutes``:

- a person's capture (`noru capture`, the real CLI) every ``--every`` seconds;
- an agent over the official MCP SDK (a real `noru mcp` over stdio, one
  session for the whole run) that every ``--look`` seconds looks
  (``observe_screen`` of the display), searches (``search_captures`` for a
  word just printed) and lists (``list_captures``); and every five minutes
  a second agent that starts, looks once and goes (agents come and go);
- the OCR child killed (SIGKILL) every ``--restart`` seconds, once its
  text is read, so that the app starts a fresh one for the next job;
- with ``--idle-tail``, the last that many seconds without any work: the
  app stops its idle OCR child (``ocr_worker.LINGER``, ``LOOK_LINGER``)
  and must reap it, not leave it ``<defunct>``.

Every ``--sample`` seconds it prints the app's and the OCR process's RSS
and PSS (MB), open files, threads, the app's children (zombies counted
apart), the captures kept, and the errors so far: lines the app wrote to
stderr (its warnings and tracebacks), agent calls answered with an error,
captures refused. Then a summary: each figure at the end of the first
``--warmup`` minutes beside its last and its largest since. Every process
it starts is stopped by its pid.

Ctrl-C (SIGINT) or SIGTERM stops it where it is: the agents' calls in
flight are dropped and their sessions closed, the app stopped by its pid
(it runs in a session of its own, as do the person's captures and the
agents' `noru mcp`, so a terminal's Ctrl-C reaches the soak and not them), and the summary covers
the samples taken before; the exit status is 128 + the signal's number.

    .venv/bin/python bench/soak.py [--minutes 60] [--every 5] [--look 15]
        [--restart 300] [--idle-tail 0] [--budget 20MB] [--sample 30]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from tests import processes, real_terminals  # noqa: E402
from tests.xserver import running_xserver  # noqa: E402

from capture_pipeline import _stop  # noqa: E402
from noru.appwire import AppClient  # noqa: E402
from noru.store import Reader  # noqa: E402
from time_to_text import log_line  # noqa: E402

NORU = [sys.executable, "-m", "noru"]
# What the app says on stderr that is no error: its start, its stop, a note.
QUIET_LINES = ("Noru app running;", "Noru app stopped.", "note:")


def _status(pid: int) -> dict[str, str]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        found[key] = value.strip()
    return found


def _pss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Figures:
    """One process's figures at one moment (all zero when there is none)."""

    rss: float = 0.0
    pss: float = 0.0
    files: int = 0
    threads: int = 0

    @classmethod
    def of(cls, pid: int | None) -> Figures:
        if pid is None:
            return cls()
        try:
            status = _status(pid)
            return cls(
                rss=int(status["VmRSS"].split()[0]) / 1024,
                pss=_pss(pid),
                files=len(os.listdir(f"/proc/{pid}/fd")),
                threads=int(status["Threads"]),
            )
        except (OSError, KeyError):  # it ended while we looked
            return cls()


def children(pid: int) -> tuple[list[int], list[int]]:
    """The live children of ``pid`` and its zombies (ended, not waited for)."""
    live: list[int] = []
    zombies: list[int] = []
    # Each thread's own: the OCR child is started by the app's OCR thread.
    for child in processes.children(pid):
        try:
            state = _status(child)["State"]
        except (OSError, KeyError):
            continue
        (zombies if state.startswith("Z") else live).append(child)
    return live, zombies


@dataclass
class Tally:
    captures: int = 0
    refused: int = 0
    looks: int = 0
    searches: int = 0
    agent_errors: int = 0
    restarts: int = 0
    zombies_seen: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class Sample:
    minute: float
    app: Figures
    ocr: Figures
    children: int
    zombies: int
    kept: int
    errors: int


class Soak:
    def __init__(self, args: argparse.Namespace, home: Path, env: dict[str, str]) -> None:
        self.args = args
        self.home = home
        self.env = env
        self.tally = Tally()
        self.samples: list[Sample] = []
        self.app: subprocess.Popen[bytes] | None = None
        self.log = home.parent / "app.log"
        self.start = time.monotonic()
        self.words: list[str] = []
        self.stopped: signal.Signals | None = None  # the signal that stopped the run

    # --- the app ----------------------------------------------------------

    def start_app(self) -> subprocess.Popen[bytes]:
        self.home.mkdir(mode=0o700)
        subprocess.run([*NORU, "allow"], env=self.env, check=True, stdout=subprocess.DEVNULL)
        # Redaction off: a look whose text is not read yet then still serves
        # its pixels (the served image is what an agent is waiting for).
        (self.home / "config.toml").write_text(f'max_disk = "{self.args.budget}"\nredact = []\n')
        with self.log.open("wb") as log:
            self.app = subprocess.Popen(
                [*NORU, "app"],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,  # stopped by its pid, after the agents' sessions
            )
        client = AppClient(self.home)
        deadline = time.monotonic() + 60
        while not client.running():
            if time.monotonic() > deadline or self.app.poll() is not None:
                raise SystemExit(f"noru app did not start:\n{self.log.read_text()}")
            time.sleep(0.1)
        return self.app

    def ocr_pid(self) -> int | None:
        assert self.app is not None
        live, _ = children(self.app.pid)
        return live[0] if live else None

    def errors(self) -> int:
        # Its warnings and tracebacks: what it says on stderr but QUIET_LINES.
        said = self.log.read_text(errors="replace").splitlines()
        said = [line for line in said if line.strip() and not line.startswith(QUIET_LINES)]
        return len(said) + self.tally.agent_errors + self.tally.refused

    def sample(self) -> Sample:
        assert self.app is not None
        live, zombies = children(self.app.pid)
        if zombies:
            self.tally.zombies_seen += 1
        with Reader.open(self.home) as reader:
            kept = reader.count()
        found = Sample(
            minute=(time.monotonic() - self.start) / 60,
            app=Figures.of(self.app.pid),
            ocr=Figures.of(live[0] if live else None),
            children=len(live),
            zombies=len(zombies),
            kept=kept,
            errors=self.errors(),
        )
        self.samples.append(found)
        print(
            f"{found.minute:6.1f} {found.app.rss:7.1f} {found.app.pss:7.1f} {found.app.files:5} "
            f"{found.app.threads:4} | {found.ocr.rss:7.1f} {found.ocr.pss:7.1f} "
            f"{found.ocr.files:5} {found.ocr.threads:4} | {found.app.pss + found.ocr.pss:7.1f} "
            f"{found.children:4} {found.zombies:4} {found.kept:6} {found.errors:6}",
            flush=True,
        )
        return found

    # --- the work ---------------------------------------------------------

    async def capture(self, terminal: Any, rng: random.Random, row: int) -> None:
        """The person's capture; a stop while it runs kills it (by its pid)."""
        line = log_line(rng, row)
        self.words.append(line.split()[3])
        terminal.print_line(line)
        await anyio.sleep(0.2)  # xterm draws it
        done = await anyio.run_process(
            [*NORU, "capture"], env=self.env, check=False, start_new_session=True
        )
        if done.returncode:
            self.tally.refused += 1
            said = done.stderr.decode(errors="replace").strip()[:200]
            self.tally.problems.append(f"noru capture: {said}")
        else:
            self.tally.captures += 1

    async def call(self, agent: ClientSession, tool: str, arguments: dict[str, Any]) -> Any:
        result = await agent.call_tool(tool, arguments)
        if result.is_error:
            self.tally.agent_errors += 1
            text = " ".join(getattr(block, "text", "") for block in result.content)
            self.tally.problems.append(f"{tool}: {text[:200]}")
        return result

    async def look(self, agent: ClientSession) -> str | None:
        looked = await self.call(agent, "observe_screen", {"target": "display"})
        self.tally.looks += 1
        if self.words:
            await self.call(agent, "search_captures", {"query": self.words[-1]})
            self.tally.searches += 1
        await self.call(agent, "list_captures", {"limit": 5})
        structured = looked.structured_content or {}
        return str(structured.get("id")) if structured.get("id") else None

    async def text_read(self, agent: ClientSession, capture_id: str) -> None:
        """Until the capture's text is no longer pending (at most a minute)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = await self.call(agent, "get_capture", {"id": capture_id, "text_only": True})
            if not (got.structured_content or {}).get("ocr_pending"):
                return
            await anyio.sleep(0.2)

    def restart_ocr(self) -> None:
        pid = self.ocr_pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            self.tally.restarts += 1


def agent_params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=NORU[0], args=[*NORU[1:], "mcp"], env=env)


async def soak(run: Soak, terminal: Any) -> None:
    """The work, until its end or a SIGINT or SIGTERM (``run.stopped``)."""
    async with anyio.create_task_group() as group:
        await group.start(watch_signals, run, group.cancel_scope)
        await work(run, terminal)
        group.cancel_scope.cancel()  # the watcher
    if run.stopped is None:
        run.sample()


async def watch_signals(
    run: Soak, scope: anyio.CancelScope, *, task_status: Any = anyio.TASK_STATUS_IGNORED
) -> None:
    """The first SIGINT or SIGTERM cancels the work, an agent's call in
    flight too (it may wait on an app that no longer answers); one after
    it changes nothing while the sessions close."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for signum in signals:
            if run.stopped is None:
                run.stopped = signal.Signals(signum)
                print(f"\n{run.stopped.name}: stopping", flush=True)
                scope.cancel()


async def work(run: Soak, terminal: Any) -> None:
    args, env = run.args, run.env
    rng = random.Random(1)
    print(
        f"{'minute':>6} {'app RSS':>7} {'PSS':>7} {'files':>5} {'thr':>4} | "
        f"{'OCR RSS':>7} {'PSS':>7} {'files':>5} {'thr':>4} | {'PSS sum':>7} "
        f"{'kids':>4} {'zomb':>4} {'kept':>6} {'errors':>6}"
    )
    end = run.start + args.minutes * 60
    busy_until = end - args.idle_tail
    next_capture = next_look = next_sample = next_visitor = run.start
    next_restart = run.start + args.restart
    row = 0
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(agent_params(env)))
        agent = await stack.enter_async_context(ClientSession(read, write))
        await agent.initialize()
        while (now := time.monotonic()) < end:
            if now >= next_sample:
                run.sample()
                next_sample += args.sample
            if now < busy_until:
                if now >= next_capture:
                    await run.capture(terminal, rng, row)
                    row += 1
                    next_capture += args.every
                if now >= next_look:
                    last = await run.look(agent)
                    next_look += args.look
                    if now >= next_restart and last is not None:
                        await run.text_read(agent, last)
                        run.restart_ocr()
                        next_restart += args.restart
                if now >= next_visitor:
                    async with AsyncExitStack() as visit:
                        pipes = await visit.enter_async_context(stdio_client(agent_params(env)))
                        visitor = await visit.enter_async_context(ClientSession(*pipes))
                        await visitor.initialize()
                        await run.look(visitor)
                    next_visitor += 300
            await anyio.sleep(max(0.05, min(next_sample, next_capture, next_look) - now))


def summary(run: Soak, warmup: float) -> None:
    tally = run.tally
    if run.stopped is not None:
        print(f"\nstopped by {run.stopped.name}: the figures of the samples before it")
    if not run.samples:
        return
    print(
        f"\n{tally.captures} captures, {tally.looks} looks, {tally.searches} searches, "
        f"{tally.restarts} OCR restarts; captures kept at the end {run.samples[-1].kept} "
        f"(retention pruned the rest)"
    )
    after = [s for s in run.samples if s.minute >= warmup] or run.samples[-1:]
    first = after[0]
    last = run.samples[-1]
    rows = (
        ("app PSS MB", lambda s: s.app.pss),
        ("app RSS MB", lambda s: s.app.rss),
        ("app open files", lambda s: s.app.files),
        ("app threads", lambda s: s.app.threads),
        ("OCR process PSS MB (while alive)", lambda s: s.ocr.pss),
        ("OCR process open files", lambda s: s.ocr.files),
        ("OCR process threads", lambda s: s.ocr.threads),
        ("app + OCR PSS MB", lambda s: s.app.pss + s.ocr.pss),
    )
    print(f"{'figure':34} {f'at {first.minute:.0f} min':>10} {'at the end':>11} {'most':>8}")
    for name, figure in rows:
        alive = [s for s in after if s.ocr.pss] if name.startswith("OCR") else after
        if not alive:
            continue
        print(
            f"{name:34} {figure(alive[0]):10.1f} {figure(alive[-1]):11.1f} "
            f"{max(map(figure, alive)):8.1f}"
        )
    together = [s.app.pss + s.ocr.pss for s in after]
    busy = [s.app.pss + s.ocr.pss for s in after if s.ocr.pss]
    print(
        f"app + OCR PSS over every sample: mean {sum(together) / len(together):.1f} MB; "
        f"an OCR process ran in {len(busy)} of {len(together)} samples"
    )
    if busy:
        print(f"app + OCR PSS while the OCR process ran: mean {sum(busy) / len(busy):.1f} MB")
    print(
        f"errors: {last.errors} (app stderr lines, agent errors {tally.agent_errors}, "
        f"captures refused {tally.refused}); samples with a zombie child: {tally.zombies_seen}; "
        f"children at the end: {last.children} live, {last.zombies} zombie"
    )
    with Reader.open(run.home) as reader:
        found = reader.db.execute("SELECT ocr_state, count(*) FROM captures GROUP BY 1")
        states = ", ".join(f"{count} {state}" for state, count in found.fetchall())
    print(f"captures kept, by their text's state at the end: {states}")
    for problem in tally.problems[:10]:
        print("  ", problem)
    said = run.log.read_text(errors="replace").strip()
    if said:
        print("the app said:\n" + "\n".join(said.splitlines()[:30]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=5.0, help="seconds between captures")
    parser.add_argument("--look", type=float, default=15.0, help="seconds between agent looks")
    parser.add_argument("--restart", type=float, default=300.0, help="seconds between OCR kills")
    parser.add_argument("--idle-tail", type=float, default=0.0, help="last seconds without work")
    parser.add_argument("--budget", default="20MB", help="max_disk for the run")
    parser.add_argument("--sample", type=float, default=30.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes before 'flat' counts")
    args = parser.parse_args()
    # Until the work starts (and while it runs: watch_signals), SIGTERM is
    # taken as Ctrl-C is: what was started so far is stopped on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
    ):
        env = {**os.environ, "DISPLAY": server.display, "NORU_HOME": str(Path(tmp) / "home")}
        env.pop("XAUTHORITY", None)
        rng = random.Random(0)
        lines = [log_line(rng, row) for row in range(59)]
        with real_terminals.open_xterm(
            server, lines, columns=200, rows=60, x=40, y=40, font="DejaVu Sans Mono", size=9
        ) as terminal:
            run = Soak(args, Path(tmp) / "home", env)
            try:
                run.start_app()
                run.start = time.monotonic()
                anyio.run(soak, run, terminal)
            except KeyboardInterrupt:  # before the work, or between its steps
                run.stopped = run.stopped or signal.SIGINT
            finally:
                # What is left is stopping what was started, by pid: not cut
                # short by a second Ctrl-C.
                for signum in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(signum, signal.SIG_IGN)
                if run.app is not None:
                    _stop(run.app)
            summary(run, args.warmup)
            if run.app is not None:
                print(f"app stopped with {run.app.returncode}")
    if run.stopped is not None:
        raise SystemExit(128 + run.stopped)


if __name__ == "__main__":
    main()
