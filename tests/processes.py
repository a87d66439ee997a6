"""Starting and stopping the real programs the tests run, by their own pids.

What every fixture module (tests/xserver.py, session_bus.py, sway.py,
portal.py, kde.py) does with its processes: stop a child it started
(``stop``), stop one that is not its child (``stop_detached``: a daemon the
session bus or the compositor started), tell whether one still runs
(``alive``: a zombie does not), list a process's children, any thread's,
ended or not (``children``), find the processes whose environment
carries a fixture's token (``carrying``: how what a fixture's programs
started, detached, is found to be stopped), read a child's first line
without hanging on it (``read_line``), and let a SIGTERM to the process
that runs them unwind the with-blocks that stop them (``terminated_unwinds``:
a benchmark stopped by ``timeout`` or ``kill`` leaves no Xvfb behind).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = [
    "START_TIMEOUT",
    "alive",
    "carrying",
    "children",
    "read_line",
    "stop",
    "stop_detached",
    "terminated_unwinds",
]

START_TIMEOUT = 30.0  # seconds for a program to become ready: a guard, not a measurement
STOP_TIMEOUT = 10.0  # seconds a program is given to end after SIGTERM


def stop(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """Stop one process we started, by its pid: SIGTERM, then SIGKILL."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie has stopped (only its parent has not reaped it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop_detached(pid: int) -> None:
    """Stop one process that is not our child, by its pid: SIGTERM, then SIGKILL."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_TIMEOUT
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not alive(pid):
            return


def children(pid: int) -> list[int]:
    """The children of ``pid``, whichever of its threads started them, living
    or ended and not yet waited for."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:  # the thread ended meanwhile
            continue
    return found


def carrying(variable: str, token: str) -> list[int]:
    """The pids of the live processes whose environment has ``variable=token``."""
    mark = f"{variable}={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone, or not ours to read
        if mark in environment.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def read_line(process: subprocess.Popen[str], stream: IO[str], what: str) -> str:
    """One line from a child's pipe, failing (not hanging) if it never comes."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.2)
        if ready:
            line = stream.readline()
            if line:
                return line
            break
        if process.poll() is not None:
            break
    raise RuntimeError(f"{what} did not become ready (exit status {process.poll()})")


@contextmanager
def terminated_unwinds() -> Iterator[None]:
    """Within it, SIGTERM raises KeyboardInterrupt, as Ctrl-C does: the
    with-blocks around the caller stop, by pid, what they started, where
    Python's default would end the process at once and leave them running.
    Only in the main thread (the one signals reach) and only over the
    default action (a handler of the caller's own stays)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
