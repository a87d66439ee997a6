"""The harness stops what it started when its own process is stopped: a
benchmark ended by ``timeout`` (SIGTERM) inside ``running_xserver`` stops
its Xvfb and openbox, by pid, as a Ctrl-C would. Real Xvfb and openbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests import processes

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "NORU_PROCESSES_TEST"  # carried by everything the script starts, to find what is left
# A script holding a private X server, as a benchmark does, until it is stopped.
HOLDS_A_SERVER = """
import sys, tempfile, time
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/src"]
from tests.xserver import running_xserver
with tempfile.TemporaryDirectory() as tmp:
    with running_xserver(Path(tmp), width=320, height=200) as server:
        print(" ".join(str(p.pid) for p in server.processes), flush=True)
        time.sleep(600)
"""


def test_sigterm_to_a_benchmark_holding_an_x_server_stops_the_server() -> None:
    token = uuid.uuid4().hex
    script = subprocess.Popen(
        [sys.executable, "-c", HOLDS_A_SERVER, str(ROOT)],
        env={**os.environ, TOKEN: token},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert script.stdout is not None
        line = processes.read_line(script, script.stdout, "the script's X server")
        started = [int(pid) for pid in line.split()]
        assert len(started) == 2 and all(processes.alive(pid) for pid in started)
        script.send_signal(signal.SIGTERM)
        script.wait(timeout=processes.STOP_TIMEOUT * 3)
        deadline = time.monotonic() + processes.STOP_TIMEOUT
        while processes.carrying(TOKEN, token) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not processes.carrying(TOKEN, token), "Xvfb or openbox outlived the script"
        assert not any(processes.alive(pid) for pid in started)
    finally:
        processes.stop(script)
        for pid in processes.carrying(TOKEN, token):
            processes.stop_detached(pid)
