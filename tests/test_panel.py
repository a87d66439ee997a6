"""The Noru menu as a panel sees it: a real `noru app` on Xvfb, a real
session bus, and this test acting as the StatusNotifierItem host."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from noru import access
from noru.store import Filters, Reader
from tests import real_terminals
from tests.app_process import AppProcess, running_app, wait_until
from tests.noru_cli import noru_command
from tests.panel_host import PanelHost
from tests.session_bus import SessionBus, hung, running_session_bus
from tests.wire import StdioSession, agent_looks

ACCESS_ITEMS = {
    "allow": "Allow Agent Observations",
    "pause": "Pause Agent Perception",
    "resume": "Resume Agent Perception",
    "revoke": "Revoke Agent Access",
}


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[SessionBus]:
    with running_session_bus(tmp_path / "bus") as started:
        yield started


@pytest.fixture
def host(bus: SessionBus) -> Iterator[PanelHost]:
    panel = PanelHost(bus.address)
    try:
        yield panel
    finally:
        panel.close()


def _app(home: Path, desktop: Any, bus: SessionBus, tmp_path: Path, **env: str) -> Any:
    return running_app(home, {**desktop.env, **bus.env, **env}, tmp_path / "app.log")


@pytest.fixture
def app(
    home: Path, desktop: Any, bus: SessionBus, host: PanelHost, tmp_path: Path
) -> Iterator[AppProcess]:
    with _app(home, desktop, bus, tmp_path) as running:
        wait_until(lambda: len(host.items) == 1, "the menu registered with the host")
        yield running


def mode(home: Path) -> tuple[bool, bool, bool]:
    state = access.load(home)
    return state.authorized, state.paused, state.revoked


def test_the_item_and_its_menu_read_as_a_panel_reads_them(app: AppProcess, host: PanelHost) -> None:
    (name,) = host.items
    assert name == f"org.kde.StatusNotifierItem-{app.proc.pid}-1"
    props = host.props()
    assert props["Id"] == "noru" and props["Title"] == "Noru"
    assert props["Category"] == "ApplicationStatus" and props["Status"] == "Active"
    assert props["ItemIsMenu"] is True and props["Menu"] == "/MenuBar"
    assert props["IconName"] == "noru-unset"  # never allowed yet
    assert Path(props["IconThemePath"], "noru-unset.png").is_file()  # shipped, no theme assumed
    sizes = [(w, h, len(data)) for w, h, data in props["IconPixmap"]]
    assert sizes == [(s, s, s * s * 4) for s in (22, 32, 48, 64)]  # ARGB32
    assert host.menu_props()["Version"] == 3
    _, items = host.layout()
    labels = [p.get("label") for _, p in items if p.get("type") != "separator"]
    assert labels == [
        "Allow Agent Observations", "Pause Agent Perception", "Resume Agent Perception",
        "Revoke Agent Access", "Capture Window Now", "Capture Display", "Open Console",
        "Quit Noru",
    ]  # fmt: skip
    shown = host.labels()
    assert shown["Allow Agent Observations"].get("enabled", True) is True
    assert shown["Pause Agent Perception"]["enabled"] is False  # nothing to pause yet


def test_each_access_item_writes_what_the_cli_writes(
    app: AppProcess, host: PanelHost, home: Path, tmp_path: Path
) -> None:
    other = tmp_path / "cli-home"
    other.mkdir(mode=0o700)
    for action in ("allow", "pause", "resume", "revoke", "allow"):
        before = host.signals["LayoutUpdated"]
        host.click(ACCESS_ITEMS[action])
        done = subprocess.run(
            [*noru_command(), action], env={**os.environ, "NORU_HOME": str(other)},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        wait_until(lambda: mode(home) == mode(other), f"the menu's {action}")
        wait_until(lambda b=before: host.signals["LayoutUpdated"] > b, "the menu redrawn")
        assert stat.S_IMODE((home / "access.json").stat().st_mode) == stat.S_IMODE(
            (other / "access.json").stat().st_mode
        )
        status = [
            subprocess.run(
                [*noru_command(), "status"], env={**os.environ, "NORU_HOME": str(h)},
                capture_output=True, text=True, timeout=60,
            ).stdout.splitlines()[0]
            for h in (home, other)
        ]  # fmt: skip
        assert status[0] == status[1], action
    assert host.props()["IconName"] == "noru-allowed"


def test_a_cli_change_shows_in_the_menu_and_the_icon(
    app: AppProcess, host: PanelHost, home: Path
) -> None:
    env = {**os.environ, "NORU_HOME": str(home)}
    for command, icon, checked in (
        ("allow", "noru-allowed", "Allow Agent Observations"),
        ("pause", "noru-paused", "Resume Agent Perception"),
        ("revoke", "noru-revoked", "Revoke Agent Access"),
    ):
        subprocess.run([*noru_command(), command], env=env, check=True, timeout=60)
        wait_until(lambda i=icon: host.props()["IconName"] == i, f"the icon after noru {command}")
        shown = host.labels()
        assert shown[checked]["toggle-state"] == 1
        assert [k for k, p in shown.items() if p.get("toggle-state") == 1] == [checked]
    assert host.labels()["Revoke Agent Access"]["enabled"] is False


def test_the_icon_says_an_agent_looked_and_not_when_the_person_captured(
    app: AppProcess, host: PanelHost, home: Path, desktop: Any
) -> None:
    access.set_control(home, "allow")
    wait_until(lambda: host.props()["IconName"] == "noru-allowed", "allowed")
    icons = host.signals["NewIcon"]
    real_terminals.need("xterm")
    with real_terminals.open_xterm(desktop, ["the active window"], x=200, y=200) as xterm:
        xterm.activate()
        host.click("Capture Window Now")  # the person's own capture: no sign
        wait_until(lambda: _count(home) == 1, "the menu's capture")
    with Reader.open(home) as reader:
        (row,) = reader.list_rows(Filters(), limit=5)[0]
        assert row.origin == "user" and row.source.window_title == xterm.title
    assert host.props()["IconName"] == "noru-allowed" and host.signals["NewIcon"] == icons
    agent_looks(home)
    props = host.props()
    assert props["IconName"] == "noru-looking" and props["Status"] == "NeedsAttention"
    assert host.signals["NewIcon"] > icons
    wait_until(lambda: host.props()["IconName"] == "noru-allowed", "the sign goes after a while")


def _count(home: Path) -> int:
    with Reader.open(home) as reader:
        return reader.count()


def test_capture_display_and_quit(app: AppProcess, host: PanelHost, home: Path) -> None:
    host.click("Capture Display")
    wait_until(lambda: _count(home) == 1, "the display capture")
    host.click("Quit Noru")
    app.proc.wait(timeout=60)
    assert app.proc.returncode == 0
    assert "Noru app stopped." in app.log_path.read_text()


def test_open_console_starts_it_and_the_app_stops_it(
    home: Path, desktop: Any, bus: SessionBus, host: PanelHost, tmp_path: Path
) -> None:
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    browser.chmod(0o755)
    with _app(home, desktop, bus, tmp_path, BROWSER=str(browser)):
        wait_until(lambda: len(host.items) == 1, "the menu registered")
        host.click("Open Console")
        wait_until(lambda: opened.exists() and opened.read_text().strip() != "", "the browser")
        url = opened.read_text().strip()
        assert url.startswith("http://127.0.0.1:") and "/signin?token=" in url
        consoles = _consoles(home)
        assert len(consoles) == 1
    wait_until(lambda: not _consoles(home), "the console stopped with the app")


def _consoles(home: Path) -> list[int]:
    """The pids of `noru console` processes on this data dir."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"console" in argv and f"NORU_HOME={home}".encode() in env:
            found.append(int(entry.name))
    return found


def test_without_a_host_the_app_runs_on_and_registers_when_one_appears(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    with _app(home, desktop, bus, tmp_path) as running:
        done = subprocess.run(
            [*noru_command(), "status"], env={**os.environ, "NORU_HOME": str(home)},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert "App running: yes" in done.stdout
        late = PanelHost(bus.address)
        try:
            wait_until(lambda: len(late.items) == 1, "registered once a host appeared")
            assert late.props()["Id"] == "noru"
        finally:
            late.close()
        assert running.proc.poll() is None
    assert "no StatusNotifierItem host" in (tmp_path / "app.log").read_text()


def test_a_session_bus_that_never_answers_costs_the_menu_not_the_app(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    said = "cannot reach the session D-Bus (no answer within 5 s): the Noru menu is not shown"
    env = {**desktop.env, "NORU_HOME": str(home)}

    def status() -> str:
        done = subprocess.run(
            [*noru_command(), "status"], env=env, capture_output=True, text=True, timeout=60
        )
        return done.stdout

    with hung(bus), _app(home, desktop, bus, tmp_path):
        # Asked as soon as the app listens: it answers while its menu waits on the bus.
        first = status()
        assert "App running: yes" in first, first
        wait_until(lambda: f"Noru menu: not shown: {said}" in status(), "the menu's problem")
        taken = subprocess.run(
            [*noru_command(), "capture", "--display", "1"], env=env,
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert taken.returncode == 0, taken.stderr
        assert _count(home) == 1
    log = (tmp_path / "app.log").read_text()
    assert f"note: {said}" in log  # said at the start, and the app stopped with 0
    assert "Traceback" not in log


def test_a_notification_says_which_client_looked_and_a_burst_is_one_notification(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    real_terminals.need("xterm")
    server = PanelHost(bus.address, notifications=True)
    assert server.notifications is not None
    try:
        access.set_control(home, "allow")
        with (
            real_terminals.open_xterm(desktop, ["looked at"], x=300, y=300) as xterm,
            _app(home, desktop, bus, tmp_path),
        ):
            wait_until(lambda: len(server.items) == 1, "the menu registered")
            xterm.bring_under_pointer()
            subprocess.run(
                [*noru_command(), "capture"], env={**desktop.env, "NORU_HOME": str(home)},
                check=True, timeout=60, capture_output=True,
            )  # fmt: skip
            assert server.notifications.shown == []  # the person's own capture: none
            stdio = subprocess.Popen(
                [*noru_command(), "mcp"], env={**os.environ, "NORU_HOME": str(home)},
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True,
            )  # fmt: skip
            try:
                session = StdioSession(stdio, client="Claude Code")
                session.call("get_latest_capture", {"text_only": True})  # handoff: off by default
                for _ in range(3):
                    session.call("observe_screen", {"target": "window", "text_only": True})
            finally:
                stdio.stdin.close()  # type: ignore[union-attr]
                stdio.wait(timeout=30)
                stdio.stdout.close()  # type: ignore[union-attr]
            shown = server.notifications.shown
            wait_until(lambda: len(shown) == 3, "a notification per look")
            assert {n["id"] for n in shown} == {1}  # one notification, replaced in place
            assert [n["summary"] for n in shown] == [
                "Claude Code looked at your screen",
                "Claude Code looked at your screen 2 times",
                "Claude Code looked at your screen 3 times",
            ]
            assert shown[-1]["body"] == f"the window “{xterm.title}” (XTerm)"
            assert shown[-1]["actions"] == ["pause", "Pause Agent Perception"]
            assert Path(shown[-1]["icon"]).is_file()
            server.invoke(1, "pause")  # the person clicks Pause on it
            wait_until(lambda: access.load(home).paused, "paused from the notification")
    finally:
        server.close()


def test_a_notification_server_that_never_answers_costs_the_notifications_not_the_app(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    said = (
        "the notification server (org.freedesktop.Notifications) did not answer within 5 s:"
        " the icon alone shows that an agent looked until it answers"
    )
    env = {**os.environ, "NORU_HOME": str(home)}

    def status(*args: str) -> str:
        return subprocess.run(
            [*noru_command(), "status", *args], env=env, capture_output=True, text=True,
            timeout=60,
        ).stdout  # fmt: skip

    server = PanelHost(bus.address, notifications=True)
    notifications = server.notifications
    assert notifications is not None
    try:
        access.set_control(home, "allow")
        with _app(home, desktop, bus, tmp_path):
            wait_until(lambda: len(server.items) == 1, "the menu registered")
            server.hold()  # takes each Notify, answers none
            for _ in range(3):
                agent_looks(home)  # each answered at once: no look waits for its notification
            wait_until(
                lambda: f"Notifications: not shown: {said}" in status(), "the reason", seconds=30
            )
            (fields,) = json.loads(status("--json"))
            assert fields["notifications_problem"] == said
            doctor = subprocess.run(
                [*noru_command(), "doctor"], env=env, capture_output=True, text=True, timeout=120
            )  # the server owns its name: only the app knows it does not answer
            assert f"notifications: {said}" in doctor.stdout
            stored = _count(home)
            server.click("Capture Display")  # the menu's loop answers, the app captures
            wait_until(lambda: _count(home) == stored + 1, "the menu's capture")
            # The looks after the first sent nothing: no call piles up on a server
            # that owes its answer (D-Bus cannot take one back).
            assert notifications.asked == 1
            assert notifications.shown == []
            server.release()  # it answers again: the late answer clears the reason
            wait_until(lambda: "Notifications:" not in status(), "the reason gone", seconds=30)
            agent_looks(home)
            wait_until(lambda: len(notifications.shown) == 2, "the next look told")
            assert notifications.asked == 2
            assert "looked at your screen" in notifications.shown[-1]["summary"]
        log = (tmp_path / "app.log").read_text()
        assert log.count(said) == 1  # said once, not at each look
        assert "Traceback" not in log
    finally:
        server.close()


def test_doctor_says_whether_the_menu_and_notifications_can_show(
    home: Path, bus: SessionBus
) -> None:
    def doctor() -> str:
        done = subprocess.run(
            [*noru_command(), "doctor"], env={**os.environ, **bus.env, "NORU_HOME": str(home)},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        (line,) = [x for x in done.stdout.splitlines() if "noru menu" in x]
        return line

    assert "not shown: no StatusNotifierItem host" in doctor()
    assert "notifications: no server" in doctor()
    with hung(bus):
        assert "not shown: cannot reach the session D-Bus (no answer within 2 s)" in doctor()
    server = PanelHost(bus.address, notifications=True)
    try:
        assert "the app shows the Noru menu; notifications: yes" in doctor()
    finally:
        server.close()


def test_no_notification_when_the_person_turned_them_off(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    (home / "config.toml").write_text("notify_observe = false\n")
    access.set_control(home, "allow")
    server = PanelHost(bus.address, notifications=True)
    assert server.notifications is not None
    try:
        with _app(home, desktop, bus, tmp_path):
            wait_until(lambda: len(server.items) == 1, "the menu registered")
            agent_looks(home)
            assert server.props()["IconName"] == "noru-looking"  # the icon still says it
            # The menu's one worker runs in order: once this click's capture is
            # stored, the look's notification was decided.
            server.click("Capture Display")
            wait_until(lambda: _count(home) == 2, "the click after the look")
        assert server.notifications.shown == []
    finally:
        server.close()


def test_a_menu_capture_that_fails_is_told_in_a_notification(
    home: Path, desktop: Any, bus: SessionBus, tmp_path: Path
) -> None:
    server = PanelHost(bus.address, notifications=True)
    assert server.notifications is not None
    try:
        with _app(home, desktop, bus, tmp_path):
            wait_until(lambda: len(server.items) == 1, "the menu registered")
            desktop.move_pointer(5, 5)  # no window open: nothing to capture
            server.click("Capture Window Now")
            wait_until(lambda: len(server.notifications.shown) == 1, "the failure told")
        (told,) = server.notifications.shown
        assert told["summary"] == "Noru could not capture the window"
        assert "no window to capture" in told["body"]
        assert _count(home) == 0
    finally:
        server.close()
