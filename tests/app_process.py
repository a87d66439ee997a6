"""Start and stop a real `noru app` for tests, by its own pid."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from noru.appwire import AppClient
from noru.store import Filters, Reader
from tests.noru_cli import noru_command
from tests.wire import StdioSession

READY_TIMEOUT = 30.0
# config.toml for an app whose live requests must carry their text: a settle
# time no loaded machine runs out of (the request answers as soon as the
# text is there; with the default 1.5 s a busy host's OCR can miss it).
SETTLE_FOR_TESTS = "ocr_settle = 30\n"


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    """Poll ``condition`` until true; fail naming ``what`` after ``seconds`` (a guard)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.05)


class AppProcess:
    def __init__(self, home: Path, env: dict[str, str], log: Path) -> None:
        self.home = home
        self.log_path = log
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [*noru_command(), "app"],
            env={**env, "NORU_HOME": str(home)},
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self) -> None:
        client = AppClient(self.home, timeout=5)
        deadline = time.monotonic() + READY_TIMEOUT
        while not client.running():
            if self.proc.poll() is not None:
                raise RuntimeError(f"noru app exited: {self.log_path.read_text()}")
            if time.monotonic() > deadline:
                raise RuntimeError("noru app did not become ready")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"noru app did not stop in 30 s:\n{self.output}") from None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._log.close()
        return code

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def running_app(home: Path, env: dict[str, str], log: Path) -> Iterator[AppProcess]:
    app = AppProcess(home, env, log)
    try:
        app.wait_ready()
        yield app
    except BaseException:
        app.stop()
        raise
    if app.proc.poll() is not None:  # the test stopped it itself
        app.stop()
        return
    code = app.stop()
    # A stop that hung past STOP_REPORT ends the app with 1 (its log says where).
    assert code == 0, f"noru app stopped with {code}:\n{app.output}"


def capture_then_ask(env: dict[str, str], client: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """With an app running in ``env``: `noru capture` (what a shortcut or a
    compositor's binding runs), then an agent over `noru mcp`, named
    ``client``, takes the handoff once its text is read and looks at the
    active window. The two answers: ``get_latest_capture``'s and
    ``observe_screen``'s. For the look's text, start the app with a long
    ``ocr_settle`` (``SETTLE_FOR_TESTS``)."""
    taken = subprocess.run(
        [*noru_command(), "capture"], env=env, capture_output=True, text=True, timeout=60
    )
    assert taken.returncode == 0, taken.stderr

    # The handoff is asked for once the app's OCR has stored its text (on a
    # loaded host that takes longer than `noru mcp` takes to start).
    def recognised() -> bool:
        with Reader.open(Path(env["NORU_HOME"])) as reader:
            rows, _ = reader.list_rows(Filters(), limit=1)
            record = reader.get(rows[0].id) if rows else None
        return record is not None and record.ocr_state != "pending"

    wait_until(recognised, "the OCR of the capture `noru capture` took")
    stdio = subprocess.Popen(
        [*noru_command(), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        session = StdioSession(stdio, client=client)
        handed = session.call("get_latest_capture", {})
        looked = session.call("observe_screen", {"target": "window"})
    finally:
        assert stdio.stdin and stdio.stdout
        stdio.stdin.close()
        stdio.wait(timeout=30)
        stdio.stdout.close()
    return handed, looked
