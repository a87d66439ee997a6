"""The ax layer through the whole app: a real `noru app` captures real windows
on a real AT-SPI bus, stores their accessibility text, and agents read it.

A private session bus (tests/session_bus.py) carries the GTK form's tree; the
app runs in the same session (its ``DBUS_SESSION_BUS_ADDRESS``) on the test's
Xvfb. Captures are the person's (`noru capture`, the window under the
pointer); agents read them through the MCP session engine. OCR is off in
these apps (``ocr_engine = "none"``) so that what an agent finds is what the
ax layer holds. A missing part skips on a developer machine and fails under
CI=true.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from noru.access import set_control
from noru.store import Filters, Reader
from tests import real_clients, real_terminals
from tests.app_process import running_app
from tests.history_data import redaction_off
from tests.noru_cli import noru_command
from tests.parts import require
from tests.real_clients import Client
from tests.session_bus import SessionBus, running_session_bus
from tests.wire import MemoryClient, answer_text

if TYPE_CHECKING:
    from tests.xserver import XServer

LABELS = ("Consignment ledger for Castellan", "Harbour dues settled")
ENTRY = "marmalade shipment draft"
SECRET = "hunter2-Noru-secret"
VIEW = ("the quayside crane was idle", "until the tide turned")
BUTTON = "File the manifest"
SLACK = 3


@pytest.fixture(scope="module")
def bus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionBus]:
    with running_session_bus(tmp_path_factory.mktemp("app-ax-bus")) as found:
        yield found


@pytest.fixture(scope="module")
def form(desktop: XServer, bus: SessionBus) -> Iterator[Client]:
    problem = real_clients.missing("gtk")
    require(problem is None, problem or "")
    with real_clients.open_gtk_form(
        desktop,
        bus.env,
        labels=LABELS,
        entry=ENTRY,
        secret=SECRET,
        view=VIEW,
        button=BUTTON,
        x=80,
        y=80,
    ) as client:
        yield client


def _configure(home: Path, **settings: object) -> None:
    lines = ['ocr_engine = "none"']
    lines += [f"{key} = {str(value).lower() if isinstance(value, bool) else value}"
              for key, value in settings.items()]  # fmt: skip
    (home / "config.toml").write_text("\n".join(lines) + "\n")


def capture_window(home: Path, env: dict[str, str], client: Client) -> str:
    """`noru capture` with the pointer on ``client``: the id it prints."""
    client.bring_under_pointer()
    done = subprocess.run(
        [*noru_command(), "capture"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "NORU_HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().split()[-1]


def stored(home: Path, capture_id: str) -> Any:
    reader = Reader.open(home)
    with reader:
        return reader.get(capture_id)


@pytest.fixture(scope="module")
def gtk_capture(
    tmp_path_factory: pytest.TempPathFactory, desktop: XServer, bus: SessionBus, form: Client
) -> tuple[Path, str]:
    """One app session: the form captured once; the data dir and the capture's id."""
    home = tmp_path_factory.mktemp("app-ax-home")
    home.chmod(0o700)
    _configure(home, ax_budget=2.0)  # a budget no test machine runs out of
    env = {**desktop.env, **bus.env}
    with running_app(home, env, home / "app.log"):
        capture_id = capture_window(home, env, form)
    return home, capture_id


def test_a_capture_of_a_gtk_window_keeps_its_accessibility_text_where_the_widgets_are(
    gtk_capture: tuple[Path, str], form: Client
) -> None:
    home, capture_id = gtk_capture
    record = stored(home, capture_id)
    (image,) = record.images
    found = {line.text: line for line in image.ax_lines}
    assert {*LABELS, ENTRY, *VIEW, BUTTON} <= set(found), image.ax_lines
    assert image.ax_note is None
    # Boxes are in the image's pixels: the widget's place less the window's origin.
    wx, wy, _, _ = form.rect
    for key, text in (("label 0", LABELS[0]), ("entry", ENTRY), ("button", BUTTON)):
        px, py, pw, ph = form.places[key]
        box = found[text].box
        assert all(
            abs(a - b) <= SLACK for a, b in zip(box, (px - wx, py - wy, pw, ph), strict=True)
        ), (text, box, form.places[key], form.rect)


def test_the_password_leaves_no_trace_in_the_history(gtk_capture: tuple[Path, str]) -> None:
    home, capture_id = gtk_capture
    record = stored(home, capture_id)
    assert SECRET not in record.ax_text
    masked = {"•" * len(SECRET), "*" * len(SECRET), "●" * len(SECRET)}
    assert not any(line.text in masked for line in record.images[0].ax_lines)
    assert all(line.role != "password text" for line in record.images[0].ax_lines)
    # Nowhere in the database either, not even in the search index.
    db = sqlite3.connect(f"file:{home / 'noru.sqlite3'}?mode=ro", uri=True)
    try:
        dump = "\n".join(db.iterdump())
    finally:
        db.close()
    assert SECRET not in dump and not any(m in dump for m in masked)


def test_an_agent_gets_the_ax_layer_as_measured_screen_content(
    gtk_capture: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, capture_id = gtk_capture
    monkeypatch.setenv("NORU_HOME", str(home))
    set_control(home, "allow")
    # OCR is off here: with redaction on, an unread capture is held back whole.
    redaction_off(home)
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        answer = client.call("get_capture", {"id": capture_id, "layers": ["ax"]})
        body = answer_text(answer)
        assert "Accessibility text reported by the app (measured)" in body
        assert ENTRY in body and BUTTON in body and SECRET not in body
        assert " !ax" in answer["result"]["content"][-1]["text"]
        assert not any(b["type"] == "image" for b in answer["result"]["content"])
        # Search finds words only the ax layer holds (OCR is off here) and names it.
        found = answer_text(client.call("search_captures", {"query": "marmalade"}))
        assert capture_id in found and "matched ax:" in found
        # Regions carry the app's boxes, with their roles.
        regions = answer_text(client.call("get_capture", {"id": capture_id, "layers": ["regions"]}))
        assert "Accessibility boxes" in regions and f"(push button) {BUTTON}" in regions
    finally:
        client.close()


def test_a_capture_of_an_xterm_says_it_exposes_no_tree(
    tmp_path: Path, desktop: XServer, bus: SessionBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("NORU_HOME", str(home))
    _configure(home, ax_budget=2.0)
    env = {**desktop.env, **bus.env}
    with (
        real_terminals.open_xterm(desktop, ["no tree here"], x=900, y=80) as xterm,
        running_app(home, env, home / "app.log"),
    ):
        capture_id = capture_window(home, env, xterm)
        pid = xterm.pid
    record = stored(home, capture_id)
    assert record.ax_text == ""
    assert record.ax_note == "the app exposes no accessibility tree for this window"
    set_control(home, "allow")
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        answer = client.call("get_capture", {"id": capture_id, "text_only": True})
        prov = answer["result"]["content"][-1]["text"]
        assert "-ax(the app exposes no accessibility tree for this window)" in prov
        assert str(pid) not in answer_text(answer)  # no process id reaches an agent
    finally:
        client.close()


def test_with_ax_budget_0_no_text_is_read_and_the_result_says_it_is_switched_off(
    tmp_path: Path, desktop: XServer, bus: SessionBus, form: Client
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    _configure(home, ax_budget=0)
    env = {**desktop.env, **bus.env}
    with running_app(home, env, home / "app.log"):
        capture_id = capture_window(home, env, form)
    record = stored(home, capture_id)
    assert record.ax_text == ""
    assert record.ax_note == "switched off (ax_budget = 0 in config.toml)"
    reader = Reader.open(home)
    with reader:
        assert [row.id for row in reader.list_rows(Filters(), limit=5)[0]] == [capture_id]


def test_doctor_names_the_bus_and_the_apps_that_expose_a_tree(
    tmp_path: Path, desktop: XServer, bus: SessionBus, form: Client
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    done = subprocess.run(
        [*noru_command(), "doctor"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**desktop.env, **bus.env, "NORU_HOME": str(home)},
    )
    line = next(ln for ln in done.stdout.splitlines() if "accessibility bus" in ln)
    assert line.startswith("ok   accessibility bus: ") and "expose a tree" in line, done.stdout
    assert "(gtk)" in line.lower() or "gtk" in line.lower(), line
    switch = next(ln for ln in done.stdout.splitlines() if "accessibility switch" in ln)
    assert switch.startswith("ok   accessibility switch: off"), switch
