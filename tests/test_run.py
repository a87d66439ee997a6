"""`make run`'s script: without a screen it brings its own virtual display."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from noru.live import LiveClient
from tests.parts import require

ROOT = Path(__file__).resolve().parents[1]


def test_without_a_screen_it_runs_the_app_on_a_private_virtual_display(
    home: Path, tmp_path: Path
) -> None:
    require(shutil.which("Xvfb") is not None, "Xvfb is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY")}
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(ROOT / "scripts" / "run")],
            env={**env, "NORU_HOME": str(home)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        client = LiveClient(home, timeout=5)
        deadline = time.monotonic() + 60
        while not client.running():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        text = log.read_text()
        assert "PRIVATE VIRTUAL DISPLAY" in text
        assert "noru config claude-desktop" in text and "claude mcp add noru" in text
        done = subprocess.run(
            [str(ROOT / ".venv" / "bin" / "noru"), "capture", "--all-displays"],
            env={**env, "NORU_HOME": str(home)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("capture_")
    finally:
        os.kill(proc.pid, signal.SIGTERM)  # the script stops its app, then its display
        proc.wait(timeout=60)
        try:  # nothing of its process group may outlive it
            os.killpg(proc.pid, signal.SIGKILL)
            leaked = True
        except ProcessLookupError:
            leaked = False
    assert not leaked, "the run script left processes behind"
    assert "Traceback" not in log.read_text()
    assert not (home / "app.sock").exists()
