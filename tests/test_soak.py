"""The soak benchmark (``bench/soak.py``) stopped as a person stops it: Ctrl-C
from the terminal it runs in. Real parts: its Xvfb, xterm, `noru app`, the
agents' `noru mcp` and the person's `noru capture`."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests import processes

SOAK = Path(__file__).resolve().parent.parent / "bench" / "soak.py"
TOKEN = "NORU_SOAK_TEST"  # carried by everything the soak starts, to find what is left


def _lines(process: subprocess.Popen[str], count: int, seconds: float = 120) -> list[str]:
    """The first ``count`` lines the soak prints (``seconds``: a guard)."""
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + seconds
    while len(lines) < count:
        assert time.monotonic() < deadline, f"the soak printed only {lines}"
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            line = process.stdout.readline()
            assert line, f"the soak ended after {lines}"
            lines.append(line)
    return lines


def _app(soak: int) -> int:
    for child in processes.children(soak):
        if b"noru\0app" in Path(f"/proc/{child}/cmdline").read_bytes():
            return child
    raise AssertionError("the soak started no app")


def test_ctrl_c_stops_a_soak_waiting_on_an_app_that_does_not_answer() -> None:
    """The app stops answering (held still, SIGSTOP): the soak waits on it,
    in an agent's call or the person's capture. Ctrl-C then stops the soak
    within its guards: the summary of the samples so far is printed, the
    exit status says SIGINT, and nothing it started is left running."""
    token = uuid.uuid4().hex
    soak = subprocess.Popen(
        [sys.executable, str(SOAK), "--minutes", "10", "--look", "1", "--sample", "1"],
        env={**os.environ, TOKEN: token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own terminal's process group, as in a shell
    )
    try:
        _lines(soak, 3)  # the heading, then two samples: the app runs, agents look
        os.kill(_app(soak.pid), signal.SIGSTOP)
        time.sleep(3)  # a capture or a look is now waiting on it
        os.killpg(soak.pid, signal.SIGINT)  # Ctrl-C: the terminal's whole group
        said, _ = soak.communicate(timeout=120)
    finally:
        if soak.poll() is None:
            soak.kill()
            soak.wait()
        left = processes.carrying(TOKEN, token)
        for pid in left:
            processes.stop_detached(pid)
    assert soak.returncode == 128 + signal.SIGINT, said
    assert "stopped by SIGINT" in said and "Traceback" not in said, said
    assert " captures, " in said  # the summary
    assert left == []
