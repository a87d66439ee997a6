"""Faults: a killed app, a damaged database, a damaged access file."""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from noru.access import set_control
from noru.appwire import AppClient, Capture, Captured
from noru.errors import Busy, NoruError
from noru.store import Store
from tests.app_process import AppProcess, running_app, wait_until
from tests.history_data import seed
from tests.noru_cli import invoke, noru_command
from tests.parts import FIGURES
from tests.store_checks import check_store
from tests.wire import MemoryClient

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

ROUNDS = 8


def test_killing_the_app_during_captures_and_ocr_loses_nothing_committed(
    home: Path, desktop: XServer, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(
        desktop,
        "Fault - Ledger",
        x=50,
        y=50,
        width=1200,
        height=700,
        background="#ffffff",
        foreground="#000000",
        text="Durable ledger",
    )
    window.bring_under_pointer()
    rng = random.Random(4)
    committed: set[str] = set()
    seen: dict[str, str] = {}  # each capture's first check, for a failure to say
    for n in range(ROUNDS):
        app = AppProcess(home, desktop.env, tmp_path / f"app{n}.log")
        app.wait_ready()
        stop = threading.Event()

        def capture_loop(stop: threading.Event = stop) -> None:
            client = AppClient(home, timeout=30)
            while not stop.is_set():
                try:
                    result = client.expect(Capture(mode="display"), Captured)
                except Busy:
                    continue  # the other worker's capture is in progress
                except NoruError:
                    return  # the app is gone
                committed.add(result.id)  # answered only after its commit

        workers = [threading.Thread(target=capture_loop) for _ in range(2)]
        for worker in workers:
            worker.start()
        deadline = time.monotonic() + 30
        while len(committed) < 2 * (n + 1) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))  # somewhere in a write, or in OCR
        assert app.stop(signal.SIGKILL) == -signal.SIGKILL
        stop.set()
        for worker in workers:
            worker.join(timeout=30)
        check_store(home, committed, seen=seen, when=f"after kill {n + 1}")
    with running_app(home, desktop.env, tmp_path / "final.log"):

        def ocr_done() -> bool:
            with Store.open(home) as store:
                return not store.pending_ocr()

        wait_until(ocr_done, "the OCR work left by the kills", 180)
    count = check_store(home, committed, seen=seen, when="after the final run")
    with Store.open(home) as store:
        assert store.pending_ocr() == []
    FIGURES.append(
        f"faults: {ROUNDS} kill -9 of the app mid-capture/mid-OCR survived, "
        f"{len(committed)} committed captures all intact ({count} stored)"
    )


def test_a_damaged_database_gives_clear_errors_and_no_traceback_to_the_agent(
    home: Path, session: MemoryClient, tmp_path: Path
) -> None:
    seed(home)
    db = home / "noru.sqlite3"
    db.write_bytes(db.read_bytes()[:1500])  # truncated mid-page
    answer = session.call("list_captures")
    assert answer["error"]["code"] == -32603
    assert "noru doctor" in answer["error"]["message"]
    assert "Traceback" not in str(answer)
    status = invoke("status")
    assert status.exit_code == 0 and "Captures in history: unknown" in status.output
    doctor = invoke("doctor")
    assert doctor.exit_code == 1
    assert "FAIL history:" in doctor.output and "-> move noru.sqlite3 aside" in doctor.output


def test_the_app_refuses_to_start_on_a_damaged_database_with_a_message(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    (home / "noru.sqlite3").write_bytes(b"this is not a database at all" * 100)
    done = subprocess.run(
        [*noru_command(), "app"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**desktop.env, "NORU_HOME": str(home)},
    )
    assert done.returncode != 0
    assert "noru doctor" in done.stderr and "Traceback" not in done.stderr


def test_a_damaged_access_file_fails_closed_for_agents(home: Path, session: MemoryClient) -> None:
    seed(home)
    set_control(home, "allow")
    (home / "access.json").write_bytes(b'{"version": 1, "authorized": "yes"')
    text = session.call("list_captures")["result"]["content"][0]["text"]
    assert text.startswith("Noru history revoked") and "damaged" in text
    assert session.request("resources/list")["result"] == {"resources": []}


@pytest.mark.parametrize("asked", [False, True])
def test_an_x_server_that_goes_away_leaves_the_app_answering_and_stopping_cleanly(
    home: Path, tmp_path: Path, session: MemoryClient, asked: bool
) -> None:
    # Ctrl-C in a terminal reaches the app and its virtual display together:
    # the X server may be gone before the app lets go of it, whether or not
    # anything tried to capture in between.
    from tests.xserver import running_xserver

    set_control(home, "allow")
    with (
        running_xserver(tmp_path, width=800, height=600, window_manager=False) as server,
        running_app(home, server.env, tmp_path / "app.log") as app,
    ):
        xvfb = server.processes[0]
        xvfb.terminate()
        xvfb.wait(timeout=30)
        if asked:
            answer = session.call("observe_screen", {"target": "display"})
            assert "error" in answer, (answer, app.proc.poll(), app.output)
            error = answer["error"]
            assert error["code"] == -32603
            assert error["message"].startswith("The Noru app could not complete the request: "), (
                error
            )
            assert "X server" in error["message"], error
            assert AppClient(home).running()  # the app is still there
    assert app.proc.returncode == 0, app.output
    assert "Traceback" not in app.output, app.output
