"""`make run`'s script: without a screen it brings its own virtual display."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from noru.appwire import LiveClient
from noru.store import Reader
from tests.parts import require
from tests.sway import Sway

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def running_script(env: dict[str, str], home: Path, log: Path) -> Iterator[None]:
    """`scripts/run` with ``env``, until its app answers; stopped after, and
    nothing of its process group may outlive it."""
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
        yield
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


def capture_all(env: dict[str, str], home: Path) -> str:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "noru"), "capture", "--all-displays"],
        env={**env, "NORU_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("capture_")
    return done.stdout.strip()


def test_without_a_screen_it_runs_the_app_on_a_private_virtual_display(
    home: Path, tmp_path: Path
) -> None:
    require(shutil.which("Xvfb") is not None, "Xvfb is not installed")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "SWAYSOCK")
    }
    log = tmp_path / "run.log"
    with running_script(env, home, log):
        text = log.read_text()
        assert "PRIVATE VIRTUAL DISPLAY" in text
        assert "noru config claude-desktop" in text and "claude mcp add noru" in text
        capture_all(env, home)


def test_in_a_wayland_session_it_runs_the_app_there(home: Path, tmp_path: Path, sway: Sway) -> None:
    log = tmp_path / "run.log"
    with running_script(sway.env, home, log):
        text = log.read_text()
        assert "PRIVATE VIRTUAL DISPLAY" not in text
        assert "Wayland session" in text and "noru config sway" in text
        capture_id = capture_all(sway.env, home)
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
        assert record is not None
        assert [(i.width, i.height) for i in record.images] == [(2560, 1600)]
        assert record.images[0].source.display_name == "HEADLESS-1"  # sway's own output
