"""`make run`'s script: without a screen it brings its own virtual display,
with a session bus of its own; the README's next commands, run in another
terminal, pass (`noru doctor` included)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from noru.appwire import AppClient
from noru.store import Reader
from tests import processes, session_bus
from tests.parts import require
from tests.processes import read_line, stop, stop_detached
from tests.sway import Sway

ROOT = Path(__file__).resolve().parents[1]
#: What a terminal beside the app's screen lacks: ssh, or a shell without a desktop.
SESSION = ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "SWAYSOCK", "DBUS_SESSION_BUS_ADDRESS")


def readme_next_commands() -> list[str]:
    """The commands the README gives for the terminal beside `make run`."""
    readme = (ROOT / "README.md").read_text()
    after = readme.split("in another terminal", 1)[1]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block is not None, "no command block after 'in another terminal' in the README"
    return [line.split("#", 1)[0].strip() for line in block[1].splitlines() if line.strip()]


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
        client = AppClient(home, timeout=5)
        deadline = time.monotonic() + 60
        while not client.running():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield
    finally:
        os.kill(proc.pid, signal.SIGTERM)  # the script stops its app, then its display
        proc.wait(timeout=60)
        leaked = in_group(proc.pid)  # nothing of its process group may outlive it
        for pid in leaked:
            stop_detached(pid)
    assert leaked == [], "the run script left processes behind"
    assert "Traceback" not in log.read_text()
    assert not (home / "app.sock").exists()


def in_group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (a zombie has stopped:
    what the session bus started is reaped by init, in its own time)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and processes.alive(int(entry.name)):
            found.append(int(entry.name))
    return found


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


def test_the_readmes_next_commands_pass_beside_make_run_doctor_included(
    home: Path, tmp_path: Path
) -> None:
    """A fresh clone's path: `make run` on a machine with no screen, then the
    README's commands in another terminal, which has no $DISPLAY and no bus:
    `noru doctor` finds the app's private display and its session bus and
    exits 0; the banner gives the same commands; `noru console --open` says it
    could not open a browser; and when `make run` stops, nothing it started
    (what its session bus started on demand included) is left running."""
    require(shutil.which("Xvfb") is not None, "Xvfb is not installed")
    problem = session_bus.missing()
    require(problem is None, problem or "")
    token = secrets.token_hex(8)  # carried by everything the run starts
    env = {k: v for k, v in os.environ.items() if k not in SESSION}
    env |= {"NORU_TEST_RUN": token, "NORU_HOME": str(home)}
    env.pop("BROWSER", None)
    commands = readme_next_commands()
    assert any(c.endswith("noru doctor") for c in commands)
    log = tmp_path / "run.log"
    try:
        with running_script(env, home, log):
            banner = [line.split("#", 1)[0].strip() for line in log.read_text().splitlines()]
            for command in commands:
                assert command.replace(".venv/", f"{ROOT}/.venv/", 1) in banner, command
            outputs = {}
            for command in commands:
                if command.endswith("console --open"):
                    outputs[command] = console_opened(command, env, tmp_path / "console.err")
                    continue
                done = subprocess.run(
                    ["bash", "-c", command],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                assert done.returncode == 0, f"{command}:\n{done.stdout}{done.stderr}"
                outputs[command] = done.stdout
        doctor = next(out for c, out in outputs.items() if c.endswith("noru doctor"))
        assert "FAIL" not in doctor
        assert re.search(
            r"^ok   display: :\d+ \(the running app's; this terminal has none\)", doctor, re.M
        )
        assert re.search(r"^ok   accessibility bus: ", doctor, re.M), doctor
    finally:
        left = processes.carrying("NORU_TEST_RUN", token)
        for pid in left:
            stop_detached(pid)
    assert left == [], "make run left processes behind"


def console_opened(command: str, env: dict[str, str], said: Path) -> str:
    """`noru console --open` in a terminal with no display: it says it could
    not open a browser, and still gives the link; stopped by its pid."""
    with said.open("wb") as err:
        console = subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        assert console.stdout is not None
        link = read_line(console, console.stdout, "noru console")
        assert "/signin?token=" in link
        deadline = time.monotonic() + processes.START_TIMEOUT
        while "browser" not in said.read_text() and time.monotonic() < deadline:
            assert console.poll() is None, said.read_text()
            time.sleep(0.05)
        assert "Could not open a browser: this terminal has no $DISPLAY" in said.read_text()
        return link
    finally:
        stop(console)
