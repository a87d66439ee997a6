"""The Noru app on a real X server: capture, shortcut, live targets, steering."""

from __future__ import annotations

import base64
import io
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

from noru.access import set_control
from noru.app.memory import QUIET
from noru.capture.x11 import PERMISSION_HOW, PERMISSION_NEXT_ACTION
from noru.store import Filters, Reader
from tests.app_process import SETTLE_FOR_TESTS, AppProcess, running_app, wait_until
from tests.noru_cli import noru, noru_command
from tests.wire import MemoryClient, StdioProcess, first_line

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

TITLE = "main.py - repoB - Visual Studio Code"


def configure(home: Path, settings: str = "") -> None:
    """config.toml for these tests' apps: ``settings``, and a settle time a
    loaded host's OCR never runs out of (a handoff or a look whose text is
    not read in time is served without pixels, redaction failing closed)."""
    (home / "config.toml").write_text(SETTLE_FOR_TESTS + settings)


@pytest.fixture
def app(home: Path, desktop: XServer, tmp_path: Path) -> Iterator[AppProcess]:
    configure(home)
    with running_app(home, desktop.env, tmp_path / "app.log") as process:
        yield process


def served(answer: dict[str, Any]) -> list[Image.Image]:
    return [
        Image.open(io.BytesIO(base64.b64decode(block["data"])))
        for block in answer["result"]["content"]
        if block["type"] == "image"
    ]


def window_under_pointer(desktop: XServer, open_window: OpenWindow, **kw: Any) -> TkWindow:
    window = open_window(
        desktop,
        kw.pop("title", TITLE),
        x=kw.pop("x", 200),
        y=kw.pop("y", 150),
        width=kw.pop("width", 640),
        height=kw.pop("height", 360),
        **kw,
    )
    window.bring_under_pointer()
    return window


class TestTheApp:
    def test_a_second_app_says_one_is_running_and_exits_non_zero(
        self, app: AppProcess, home: Path, desktop: XServer
    ) -> None:
        second = noru("app", home=home, env=desktop.env)
        assert second.returncode != 0
        assert "already running" in second.stderr

    def test_sigterm_stops_it_cleanly_and_removes_the_socket(
        self, home: Path, desktop: XServer, tmp_path: Path
    ) -> None:
        process = AppProcess(home, desktop.env, tmp_path / "app.log")
        process.wait_ready()
        assert (home / "app.sock").exists()
        assert oct((home / "app.sock").stat().st_mode & 0o777) == oct(0o600)
        assert process.stop() == 0
        assert not (home / "app.sock").exists()
        assert "Traceback" not in process.output

    def test_a_sigterm_the_kernel_hands_to_another_thread_stops_the_app(
        self, home: Path, desktop: XServer, tmp_path: Path
    ) -> None:
        """A process's signal may land on any of its threads; the main thread
        sleeps in the server's wait for a connection and runs no Python then.
        Sent to a thread other than the main one (tgkill), it still stops the app."""
        import ctypes
        import os
        import signal

        process = AppProcess(home, desktop.env, tmp_path / "app.log")
        process.wait_ready()
        # Its start done: the main thread goes on to its wait for connections.
        wait_until(lambda: "Noru app running" in process.output, "the app's start")
        time.sleep(0.5)
        pid = process.proc.pid
        others = [int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid]
        assert others, "the app runs threads beside its main one"
        libc = ctypes.CDLL(None, use_errno=True)
        # glibc's tgkill(tgid, tid, sig) (since 2.30): the same call on every
        # architecture, where a raw syscall number is x86-64's alone.
        assert libc.tgkill(pid, others[-1], signal.SIGTERM) == 0, ctypes.get_errno()
        try:
            code = process.proc.wait(timeout=30)  # no second signal, to the main thread
        finally:
            process.stop(signal.SIGKILL)  # only if it is still running
        assert code == 0, process.output
        assert not (home / "app.sock").exists()

    def test_a_killed_app_leaves_a_stale_socket_that_means_not_running_and_is_replaced(
        self, home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient
    ) -> None:
        import signal

        process = AppProcess(home, desktop.env, tmp_path / "app.log")
        process.wait_ready()
        process.stop(signal.SIGKILL)
        configure(home)
        assert (home / "app.sock").exists()
        assert first_line(session.call("observe_screen")).startswith("Noru app not running")
        with running_app(home, desktop.env, tmp_path / "again.log"):
            set_control(home, "allow")
            answer = session.call("observe_screen", {"target": "display"})
            assert first_line(answer).startswith("Noru capture")

    def test_capture_without_an_app_says_so_and_fails(self, home: Path, desktop: XServer) -> None:
        done = noru("capture", home=home, env=desktop.env)
        assert done.returncode != 0 and "noru app" in done.stderr


class TestCapture:
    def test_capture_keeps_the_window_with_its_source_facts_and_note(
        self, app: AppProcess, home: Path, desktop: XServer, open_window: OpenWindow
    ) -> None:
        window = window_under_pointer(desktop, open_window)
        done = noru("capture", "--note", "look here", home=home, env=desktop.env)
        assert done.returncode == 0, done.stderr
        capture_id = done.stdout.strip()
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            assert record is not None
            image = record.images[0]
            assert (image.width, image.height) == (window.width, window.height)
            with Image.open(reader.image_file(image)) as original:
                assert original.convert("RGB").getpixel((3, 3)) == (0x33, 0x66, 0xCC)
        assert record.origin == "user" and record.note == "look here"
        source = image.source
        assert (source.window_title, source.app_name, source.workspace_hint) == (
            TITLE,
            "Noru-test",
            "repoB",
        )
        assert source.display_index == 1
        assert image.display_mode == "2560x1600"

    def test_the_shortcut_captures_the_window_under_the_pointer(
        self, app: AppProcess, home: Path, desktop: XServer, open_window: OpenWindow
    ) -> None:
        window_under_pointer(desktop, open_window, title="Shortcut target")
        desktop.run("xdotool", "key", "ctrl+alt+n")

        def captured() -> bool:
            with Reader.open(home) as reader:
                return reader.count() > 0

        wait_until(captured, f"a capture from the shortcut; app log: {app.output}", 30)
        with Reader.open(home) as reader:
            record = reader.nth(1, Filters())
        assert record is not None, app.output
        assert record.origin == "user"
        assert record.images[0].source.window_title == "Shortcut target"


class TestLiveTargets:
    def test_the_handoff_steers_until_allowed_then_delivers_once(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        session: MemoryClient,
    ) -> None:
        window_under_pointer(desktop, open_window)
        capture_id = noru("capture", home=home, env=desktop.env).stdout.strip()
        assert first_line(session.call("get_latest_capture")).startswith("Noru not authorized")
        set_control(home, "allow")
        set_control(home, "pause")
        assert first_line(session.call("get_latest_capture")).startswith("Noru paused")
        set_control(home, "resume")
        answer = session.call("get_latest_capture")
        result = answer["result"]
        assert result["structuredContent"]["id"] == capture_id
        assert "sources" not in result["structuredContent"]
        assert [i.size for i in served(answer)] == [(640, 360)]
        assert first_line(session.call("get_latest_capture")).startswith("Noru nothing new")
        set_control(home, "revoke")
        assert first_line(session.call("get_latest_capture")).startswith("Noru not authorized")

    def test_only_the_persons_captures_within_the_configured_window_are_handed_off(
        self,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        tmp_path: Path,
        session: MemoryClient,
    ) -> None:
        configure(home, 'handoff_window = "1s"\n')
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        with running_app(home, desktop.env, tmp_path / "app.log"):
            session.call("observe_screen", {"text_only": True})  # an agent's own capture
            assert first_line(session.call("get_latest_capture")).startswith("Noru nothing new")
            noru("capture", home=home, env=desktop.env)
            time.sleep(1.5)  # let the capture age past the one-second window
            text = session.call("get_latest_capture")["result"]["content"][0]["text"]
        assert text.startswith("Noru nothing new") and "handoff window (1 second)" in text

    def test_a_restart_never_re_serves_a_delivered_capture(
        self,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        tmp_path: Path,
        session: MemoryClient,
    ) -> None:
        configure(home)
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        with running_app(home, desktop.env, tmp_path / "one.log"):
            noru("capture", home=home, env=desktop.env)
            assert first_line(session.call("get_latest_capture")).startswith("Noru capture")
        with running_app(home, desktop.env, tmp_path / "two.log"):
            assert first_line(session.call("get_latest_capture")).startswith("Noru nothing new")

    def test_eight_concurrent_agents_get_exactly_one_delivery(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        tmp_path: Path,
    ) -> None:
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        noru("capture", home=home, env=desktop.env)
        agents = [StdioProcess(home, stderr_path=tmp_path / f"agent{i}.err") for i in range(8)]
        try:
            for agent in agents:
                agent.exchange(
                    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
                    b'{"protocolVersion":"2025-06-18"}}',
                    "initialize",
                )
                agent.revision = "2025-06-18"
            call = (
                b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":'
                b'{"name":"get_latest_capture","arguments":{"text_only":true}}}\n'
            )
            for agent in agents:  # all eight asks are in flight before any answer is read
                agent.write(call)
            answers = [agent.read() for agent in agents]
        finally:
            for agent in agents:
                agent.close()
        lines = [first_line(a) for a in answers]
        assert sum(line.startswith("Noru capture") for line in lines) == 1, lines
        assert sum(line.startswith("Noru nothing new") for line in lines) == 7, lines

    def test_when_quiet_the_app_lets_go_of_its_grab_buffer_and_looks_as_before(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        session: MemoryClient,
    ) -> None:
        # After a quiet spell (noru.app.memory.QUIET) the app hands back the
        # screen-sized shared memory it grabs into; the next look makes it again.
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        first = served(session.call("observe_screen", {"target": "display"}))
        maps = Path(f"/proc/{app.proc.pid}/maps")
        assert len(first) == 1 and "mss-shm-buf" in maps.read_text()
        wait_until(
            lambda: "mss-shm-buf" not in maps.read_text(),
            "the app letting go of its grab buffer",
            seconds=QUIET + 30,
        )
        again = served(session.call("observe_screen", {"target": "display"}))
        assert [image.tobytes() for image in again] == [image.tobytes() for image in first]
        assert "mss-shm-buf" in maps.read_text()

    @pytest.mark.parametrize(
        ("arguments", "sizes"),
        [
            ({}, [(640, 360)]),
            ({"target": "display"}, [(1568, 980)]),
            ({"target": "display", "display": 1}, [(1568, 980)]),
            ({"target": "all_displays"}, [(1568, 980)]),
        ],
    )
    def test_observe_screen_captures_now_as_an_agent_capture(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        session: MemoryClient,
        arguments: dict[str, Any],
        sizes: list[tuple[int, int]],
    ) -> None:
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        answer = session.call("observe_screen", arguments)
        assert [i.size for i in served(answer)] == sizes
        structured = answer["result"]["structuredContent"]
        if sizes == [(1568, 980)]:
            assert structured["images"][0]["downscaled_from"] == [2560, 1600]
            label = answer["result"]["content"][1]["text"]
            assert "served at 1568x980 px (downscaled from 2560x1600 px)" in label
        with Reader.open(home) as reader:
            record = reader.get(structured["id"])
        assert record is not None and record.origin == "agent"
        if arguments.get("target") in ("display", "all_displays"):
            # Kept with the capture, so its text is read window by window.
            assert any(w[2] >= 640 and w[3] >= 360 for w in record.images[0].windows)
        else:
            assert record.images[0].windows == ()
        # The app's ready-served images are exactly what serving the stored original gives.
        again = session.call("get_capture", {"id": structured["id"], "layers": ["image"]})
        assert [i.tobytes() for i in served(answer)] == [i.tobytes() for i in served(again)]
        assert answer["result"]["content"][-1]["text"].splitlines()[-1].startswith("prov: !px !dm")

    def test_observe_text_only_sends_no_pixels(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        session: MemoryClient,
    ) -> None:
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        answer = session.call("observe_window", {"text_only": True})
        assert served(answer) == []
        assert answer["result"]["structuredContent"]["images"] == []

    def test_an_app_that_cannot_capture_while_another_capture_waits_answers_busy(
        self,
        app: AppProcess,
        home: Path,
        desktop: XServer,
        open_window: OpenWindow,
        session: MemoryClient,
    ) -> None:
        """A real cause of busy: another writer holds the database, so the capture in
        progress waits while holding the app's capture lock."""
        window_under_pointer(desktop, open_window)
        set_control(home, "allow")
        noru("capture", home=home, env=desktop.env)  # the store exists
        blocker = sqlite3.connect(home / "noru.sqlite3", isolation_level=None, timeout=30)
        blocker.execute("BEGIN IMMEDIATE")
        answers: list[tuple[str, str]] = []
        first_done = threading.Event()

        def ask(label: str, fn: Callable[[], str]) -> None:
            answers.append((label, fn()))
            first_done.set()

        cli = threading.Thread(
            target=ask, args=("cli", lambda: noru("capture", home=home, env=desktop.env).stderr)
        )
        agent = threading.Thread(
            target=ask, args=("agent", lambda: first_line(session.call("observe_screen")))
        )
        try:
            cli.start()
            agent.start()
            assert first_done.wait(timeout=60)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        cli.join(timeout=60)
        agent.join(timeout=60)
        label, text = answers[0]
        assert "Noru busy" in text, answers
        other = dict(answers)["agent" if label == "cli" else "cli"]
        assert "busy" not in other.lower(), answers

    def test_permission_denied_when_the_x_server_refuses_the_app(
        self, home: Path, desktop_with_auth: XServer, tmp_path: Path, session: MemoryClient
    ) -> None:
        env = {**desktop_with_auth.env, "XAUTHORITY": str(tmp_path / "no-cookie")}
        with running_app(home, env, tmp_path / "app.log") as process:
            set_control(home, "allow")
            body = session.call("observe_screen")["result"]["content"][0]["text"]
            assert body.startswith("Noru permission denied"), process.output
            # The X11 words for granting access cross the socket whole, details too.
            assert f"\nNext: {PERMISSION_NEXT_ACTION}" in body
            assert f"Display {desktop_with_auth.display}:" in body
            assert PERMISSION_HOW in body
            # The person's own command and status show how to grant it too.
            capture = subprocess.run(
                [*noru_command(), "capture"], capture_output=True, text=True, timeout=60
            )
            assert capture.returncode == 1
            assert "Noru permission denied" in capture.stderr
            assert PERMISSION_HOW in capture.stderr
            status = session.call("get_status")["result"]["content"][0]["text"]
            assert "Screen access: denied (the X server refused" in status
            assert PERMISSION_HOW in status


def test_a_multi_display_bundle_has_one_image_and_one_source_per_display(
    home: Path, two_monitors: XServer, tmp_path: Path, session: MemoryClient
) -> None:
    configure(home)
    set_control(home, "allow")
    with running_app(home, two_monitors.env, tmp_path / "app.log"):
        answer = session.call("observe_screen", {"target": "all_displays"})
        capture_id = answer["result"]["structuredContent"]["id"]
        result = session.call("get_capture", {"id": capture_id, "text_only": True})["result"]
    sources = result["structuredContent"]["sources"]
    assert [(s["display_index"], s["display_name"]) for s in sources] == [(1, "LEFT"), (2, "RIGHT")]
    assert [i.size for i in served(answer)] == [(1568, 882), (1568, 882)]
    images = answer["result"]["structuredContent"]["images"]
    assert [i["downscaled_from"] for i in images] == [[2560, 1440], [1920, 1080]]
    # Each image keeps its place on the whole screen (a line a seam cuts is
    # searched as one across it: noru.redact.seams).
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
    assert record is not None
    assert [i.screen_rect for i in record.images] == [(0, 0, 2560, 1440), (2560, 0, 1920, 1080)]


def test_get_status_reports_the_apps_facts(app: AppProcess, session: MemoryClient) -> None:
    text = session.call("get_status")["result"]["content"][0]["text"]
    assert "App running: yes" in text
    assert "Hotkey: ctrl+alt+n (grabbed)" in text
    assert "OCR engine: tesseract" in text


def _wake_ups(pid: int) -> int:
    """How often the threads of ``pid`` have given up the CPU of their own accord."""
    return sum(
        int((task / "status").read_text().split("voluntary_ctxt_switches:")[1].split()[0])
        for task in Path(f"/proc/{pid}/task").iterdir()
    )


def test_an_idle_app_hardly_wakes(app: AppProcess, session: MemoryClient) -> None:
    # Its shortcut listener and socket server each wait on their connection
    # with no timeout; they woke five times a second each. What is left: the
    # OCR queue's look at the store every 5 s. Counted, not timed.
    status = session.call("get_status")["result"]["content"][0]["text"]
    assert "Hotkey: ctrl+alt+n (grabbed)" in status  # the listener is running
    before = _wake_ups(app.proc.pid)
    time.sleep(3)
    assert _wake_ups(app.proc.pid) - before < 12  # 2 here; 32 while they polled


def test_doctor_without_the_app_warns_that_it_is_not_running(home: Path, desktop: XServer) -> None:
    done = noru("doctor", home=home, env=desktop.env)
    # Not started is no broken install: the live tools wait for it.
    assert "WARN app: not running\n     -> start it with `noru app`\n" in done.stdout, done.stdout
    assert "FAIL app" not in done.stdout


def test_doctor_reports_each_part(app: AppProcess, home: Path, desktop: XServer) -> None:
    home.chmod(0o700)
    done = noru("doctor", home=home, env=desktop.env)
    out = done.stdout
    for name in ("display", "capture backend", "window manager", "hotkey", "ocr engine", "app"):
        assert f"ok   {name}:" in out, out
    assert "ok   exclusions: 0 of yours, 5 built in" in out, out
    assert f"ok   access log: {home / 'access.log'} writable" in out, out
    # This session has no D-Bus: the one thing missing is the accessibility text
    # (tests/test_app_ax.py runs doctor where there is a bus). Captures and their
    # OCR text work without it: a warning, and doctor passes.
    assert not [line for line in out.splitlines() if line.startswith("FAIL")], out
    warned = [line for line in out.splitlines() if line.startswith("WARN")]
    assert warned == [
        "WARN accessibility bus: no accessibility bus in this session: there is no D-Bus "
        "session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
    ], out
    assert done.returncode == 0, out
    assert "(configured)" in out and "ocr engine rapidocr (optional):" in out


def test_an_app_that_runs_for_hours_keeps_no_record_per_capture_whose_text_settled(
    home: Path,
) -> None:
    """The person's captures no agent claims each left a record of their text
    having settled, for as long as the app ran: a slow climb over a day."""
    from noru.app.core import SETTLING_KEPT, App

    app = App(home)
    try:
        for n in range(SETTLING_KEPT * 3):
            app._event(f"capture-{n}")  # as a capture does, before its OCR
            app._settle(f"capture-{n}")  # as the OCR queue does once it is read
        assert len(app._settled) <= SETTLING_KEPT
        # The newest are still known settled: a handoff claiming one answers at once.
        assert app._event(f"capture-{SETTLING_KEPT * 3 - 1}").is_set()
    finally:
        app.close()
