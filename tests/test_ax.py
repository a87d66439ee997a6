"""The accessibility text of real windows over a real AT-SPI bus.

Each module run has a private session bus (tests/session_bus.py) on which
D-Bus starts Debian's at-spi-bus-launcher and registry as a real desktop
does; a GTK 3 form (tests/real_clients.py) runs on the session's Xvfb with
its tree on that bus, and ``noru.ax.read_window`` reads it as the app will:
by the window's _NET_WM_PID and its rectangle. Everything started is
stopped by its pid, and the bus's helper checks that nothing it started
outlives it. A missing part skips on a developer machine and fails under
CI=true.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

import noru.ax as ax
from noru.ax import AxAbsent, AxText
from noru.geometry import Rect
from tests import real_clients, real_terminals
from tests.parts import require
from tests.real_clients import Client
from tests.session_bus import SessionBus, accessibility_bus, carrying, running_session_bus

if TYPE_CHECKING:
    # Types only: pytest imports tests.xserver itself, as a plugin.
    from tests.xserver import XServer

LABELS = ("Invoice number 4471", "Shipping address on file")
ENTRY = "quarterly forecast draft"
SECRET = "hunter2-Noru-secret"
VIEW = ("first line of the view", "second line of the view", "third line of the view")
BUTTON = "Send the report"
CELLS = tuple(f"cell {n}" for n in range(40))  # a grid of labels, 10 a row
# Where a line's box may differ from GTK's own idea of the widget.
SLACK = 3


@pytest.fixture(scope="module")
def session_bus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionBus]:
    with running_session_bus(tmp_path_factory.mktemp("ax-bus")) as bus:
        yield bus


@pytest.fixture(scope="module")
def reader(session_bus: SessionBus) -> Iterator[SessionBus]:
    """The reader on the test's session bus; its connection closed before the bus goes."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DBUS_SESSION_BUS_ADDRESS", session_bus.address)
        try:
            yield session_bus
        finally:
            ax.close()


@pytest.fixture(scope="module")
def form(desktop: XServer, session_bus: SessionBus) -> Iterator[Client]:
    problem = real_clients.missing("gtk")
    require(problem is None, problem or "")
    with real_clients.open_gtk_form(
        desktop,
        session_bus.env,
        labels=LABELS,
        entry=ENTRY,
        secret=SECRET,
        view=VIEW,
        button=BUTTON,
        cells=CELLS,
        columns=10,
        x=60,
        y=60,
    ) as client:
        yield client


def read(client: Client, *, rect: Rect | None = None, budget_s: float = 10.0) -> AxText:
    """The client's window read as a capture reads it, with a budget no test
    machine runs out of (the budget's own test gives a tiny one)."""
    return ax.read_window(client.pid, rect or client.rect, title=client.title, budget_s=budget_s)


def near(box: Rect, place: Rect) -> bool:
    return all(abs(a - b) <= SLACK for a, b in zip(box, place, strict=True))


def test_a_gtk_window_gives_its_labels_entry_view_and_button_at_their_places(
    reader: SessionBus, form: Client
) -> None:
    result = read(form)
    assert (result.absent, result.reason, result.partial) == (None, None, False)
    found = {line.text: line for line in result.lines}
    for n, label in enumerate(LABELS):
        assert found[label].role == "label"
        assert near(found[label].box, form.places[f"label {n}"]), (found[label], form.places)
    assert near(found[ENTRY].box, form.places["entry"])
    assert found[BUTTON].role == "push button"
    assert near(found[BUTTON].box, form.places["button"])
    # Each line of the view where GTK drew it: one under another, inside the view.
    vx, vy, vw, vh = form.places["view"]
    tops = []
    for line in VIEW:
        x, y, w, h = found[line].box
        assert vx - SLACK <= x and x + w <= vx + vw + SLACK
        assert vy - SLACK <= y and y + h <= vy + vh + SLACK
        tops.append(y)
    assert abs(tops[0] - vy) <= SLACK and tops == sorted(tops) and len(set(tops)) == 3
    assert result.nodes > 0


def test_lines_read_top_to_bottom_as_the_window_shows_them(
    reader: SessionBus, form: Client
) -> None:
    texts = [line.text for line in read(form).lines]
    assert texts == [*LABELS, ENTRY, *VIEW, BUTTON, *CELLS]


def test_a_password_field_leaves_no_trace_not_even_its_length(
    reader: SessionBus, form: Client
) -> None:
    assert_no_secret(read(form), form)


def assert_no_secret(result: AxText, client: Client) -> None:
    """Nothing of ``SECRET``: not the words, not a mask of its length, no
    password line, nothing at the password field's place."""
    masks = {"•" * len(SECRET), "●" * len(SECRET), "*" * len(SECRET), SECRET}
    for line in result.lines:
        assert not any(mask in line.text for mask in masks), line
        assert not set(line.text) <= set("•●*"), line
        assert line.role != "password text"
    password = client.places["password"]
    assert not [line for line in result.lines if near(line.box, password)]


def test_only_what_is_inside_the_grabbed_rectangle_is_read(
    reader: SessionBus, form: Client
) -> None:
    x, y, w, _ = form.rect
    entry = form.places["entry"]
    top = (x, y, w, entry[1] + entry[3] - y)  # down to the entry, the view below it not
    result = read(form, rect=top)
    assert [line.text for line in result.lines] == [*LABELS, ENTRY]
    assert all(line.box[1] + line.box[3] <= top[1] + top[3] for line in result.lines)
    assert result.nodes <= read(form).nodes - len(CELLS)  # the grid below was not walked


def test_a_tiny_budget_gives_a_partial_read_that_says_so(reader: SessionBus, form: Client) -> None:
    result = read(form, budget_s=0.0005)
    assert result.partial
    assert result.reason is not None and "the budget of 0.5 ms ran out" in result.reason
    if not result.lines:
        assert result.absent is AxAbsent.TIMED_OUT


def test_a_firefox_page_gives_its_heading_paragraphs_and_tab_title(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("firefox")
    require(problem is None, problem or "")
    heading, paragraphs = (
        "Quarterly shipping summary",
        ["first paragraph here", "and the second one"],
    )
    with real_clients.open_firefox(
        desktop, heading, paragraphs, bus=reader.env, x=1000, y=400, width=1000, height=700
    ) as firefox:
        # Firefox builds a page's nodes on the first request: the read says so.
        # On a loaded machine its page may not be in its tree yet at all (the
        # read is whole, of the window's chrome): look again until it is.
        result = read(firefox)
        deadline = time.monotonic() + 30
        while (result.partial or heading not in {line.text for line in result.lines}) and (
            time.monotonic() < deadline
        ):
            if result.partial:
                assert result.reason is not None and "may still be building" in result.reason
            time.sleep(0.2)
            result = read(firefox)
    assert (result.absent, result.partial) == (None, False)
    roles = {line.text: line.role for line in result.lines}
    assert roles[heading] == "heading"
    assert [roles[p] for p in paragraphs] == ["paragraph", "paragraph"]
    assert roles[firefox.title.removesuffix(" — Mozilla Firefox")] == "page tab"
    texts = [line.text for line in result.lines]
    assert texts.index(heading) < texts.index(paragraphs[0]) < texts.index(paragraphs[1])
    # An icon's name is not text on screen.
    assert "View site information" not in texts


def test_a_qt_window_with_accessibility_on_gives_its_labels_entry_and_button(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("qt")
    require(problem is None, problem or "")
    labels = ("Qt shipping label", "Qt second label")
    with real_clients.open_qt_form(
        desktop, reader.env, labels=labels, entry=ENTRY, secret=SECRET, button=BUTTON, x=1300
    ) as qt:
        # Qt registers its tree a moment after its window shows; until then
        # the read says so (not that Qt must be switched on: it was).
        result = read(qt)
        deadline = time.monotonic() + 30
        while result.absent is not None and time.monotonic() < deadline:
            assert result.absent is AxAbsent.NO_TREE, result
            assert result.reason is not None and "switched on, but" in result.reason
            time.sleep(0.1)
            result = read(qt)
    assert (result.absent, result.partial) == (None, False)
    assert [line.text for line in result.lines] == [*labels, ENTRY, BUTTON]
    found = {line.text: line for line in result.lines}
    for n, label in enumerate(labels):
        assert found[label].role == "label"
        assert near(found[label].box, qt.places[f"label {n}"])
    assert near(found[ENTRY].box, qt.places["entry"])
    assert near(found[BUTTON].box, qt.places["button"])
    assert_no_secret(result, qt)


def test_a_qt_window_left_switched_off_names_the_switch(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("qt")
    require(problem is None, problem or "")
    with real_clients.open_qt_form(
        desktop,
        reader.env,
        labels=["not exposed"],
        entry=ENTRY,
        secret=SECRET,
        button=BUTTON,
        accessible=False,
        x=1300,
    ) as qt:
        result = read(qt)
    assert (result.lines, result.absent) == ((), AxAbsent.SWITCHED_OFF)
    assert result.reason is not None and result.reason.endswith(
        "(Qt) exposes its accessibility tree only when started with "
        "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 in its environment, or with accessibility "
        "switched on for the session (org.a11y.Status.IsEnabled)"
    )


def test_chromium_with_its_pages_switched_on_gives_the_page_text(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("chromium")
    require(problem is None, problem or "")
    heading, paragraphs = "Chromium shipping summary", ["one paragraph here", "and another one"]
    with real_clients.open_chromium(
        desktop, reader.env, heading, paragraphs, x=1000, y=300
    ) as chromium:
        # Like Firefox, Chromium may still be building a page's tree at first.
        result = read(chromium)
        deadline = time.monotonic() + 30
        while heading not in {line.text for line in result.lines}:
            assert time.monotonic() < deadline, result
            time.sleep(0.2)
            result = read(chromium)
    assert result.absent is None
    texts = [line.text for line in result.lines]
    assert texts.count(heading) == 1  # the heading's words, and the text inside it: once
    assert texts.index(heading) < texts.index(paragraphs[0]) < texts.index(paragraphs[1])


def test_chromium_without_its_pages_switched_on_names_the_switch(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("chromium")
    require(problem is None, problem or "")
    with real_clients.open_chromium(
        desktop, reader.env, "not shown", ["to the reader"], renderer=False, x=1000, y=300
    ) as chromium:
        result = read(chromium)
    assert (result.lines, result.absent) == ((), AxAbsent.SWITCHED_OFF)
    assert result.reason == (
        "chromium (Chromium) exposes its pages' text only when started with "
        "--force-renderer-accessibility"
    )


def test_chromium_without_accessibility_names_both_switches(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_clients.missing("chromium")
    require(problem is None, problem or "")
    with real_clients.open_chromium(
        desktop, reader.env, "not shown", ["to the reader"], accessibility=False, x=1000, y=300
    ) as chromium:
        result = read(chromium)
    assert result.absent is AxAbsent.SWITCHED_OFF, result
    assert (result.lines, result.absent) == ((), AxAbsent.SWITCHED_OFF)
    assert result.reason == (
        "chromium (Chromium) exposes its accessibility tree only with accessibility "
        "switched on for the session (org.a11y.Status.IsEnabled) or ACCESSIBILITY_ENABLED=1 "
        "in its environment, and its pages' text only when started with "
        "--force-renderer-accessibility"
    )


def test_an_xterm_exposes_no_tree_and_the_reason_names_it(
    desktop: XServer, reader: SessionBus
) -> None:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    with real_terminals.open_xterm(desktop, ["no tree here"], x=900, y=60) as xterm:
        pid = xterm.pid
        result = read(xterm)
    assert result.lines == () and result.absent is AxAbsent.NO_TREE
    assert result.reason == (
        f"no application with process id {pid} (xterm) exposes an accessibility tree "
        "on this session's accessibility bus"
    )


def test_without_a_session_bus_the_reason_says_there_is_none(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    result = ax.read_window(4242, (0, 0, 100, 100), title=None)
    assert (result.lines, result.absent) == ((), AxAbsent.NO_BUS)
    assert result.reason == (
        "no accessibility bus in this session: there is no D-Bus session bus "
        "(DBUS_SESSION_BUS_ADDRESS is not set)"
    )
    gone = f"unix:path={tmp_path}/no-bus-here"
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", gone)
    result = ax.read_window(4242, (0, 0, 100, 100), title=None)
    assert result.absent is AxAbsent.NO_BUS and result.reason is not None
    assert result.reason.startswith(
        f"no accessibility bus in this session: the session bus ({gone}) cannot be joined: "
    )
    assert ax.exposing_apps().absent is AxAbsent.NO_BUS
    assert ax.session_status().enabled is None


def test_the_applications_exposing_a_tree_include_the_gtk_window(
    reader: SessionBus, form: Client
) -> None:
    listed = ax.exposing_apps()
    assert listed.absent is None
    assert [app.toolkit for app in listed.apps if app.pid == form.pid] == ["gtk"]


def test_the_session_switch_is_off_until_the_person_turns_it_on(reader: SessionBus) -> None:
    assert ax.session_status().enabled is False
    try:
        assert ax.set_session_enabled(True).enabled is True
        assert ax.session_status().enabled is True
    finally:
        assert ax.set_session_enabled(False).enabled is False


def test_nothing_a_session_bus_started_for_accessibility_outlives_it(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_session_bus(tmp_path) as bus:  # type: ignore[arg-type]
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
        try:
            # Asking for the bus starts the launcher, its bus and the registry.
            assert ax.exposing_apps().absent is None
            assert len(carrying(bus.token)) >= 3
        finally:
            ax.close()
    assert carrying(bus.token) == []


def test_a_read_after_the_accessibility_bus_restarted_joins_the_new_one(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_session_bus(tmp_path) as bus:  # type: ignore[arg-type]
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
        try:
            assert ax.exposing_apps().absent is None  # joined, and kept
            os.kill(accessibility_bus(bus), signal.SIGTERM)  # the launcher starts another
            deadline = time.monotonic() + 30
            while (listed := ax.exposing_apps()).absent is not None:
                # Until the launcher has the new bus up: no bus, with the reason
                # of the moment (the kept connection failed, the old bus cannot be
                # joined, the launcher left without answering).
                assert listed.absent is AxAbsent.NO_BUS and listed.reason, listed
                assert time.monotonic() < deadline, listed
                time.sleep(0.1)
            result = ax.read_window(os.getpid(), (0, 0, 10, 10), title=None)
            assert result.absent is AxAbsent.NO_TREE
        finally:
            ax.close()


def test_a_vte_terminal_gives_only_the_rows_on_screen_not_its_scrollback(
    reader: SessionBus, desktop: XServer
) -> None:
    """VTE's tree holds the whole buffer; what scrolled off is not on screen."""
    problem = real_terminals.missing("xfce4-terminal")
    require(problem is None, problem or "")
    lines = [f"scroll line {n:03d} with words" for n in range(60)]
    with real_terminals.open_terminal(
        desktop, "xfce4-terminal", lines, columns=80, rows=20, theme="light",
        env=reader.env, x=40, y=40,
    ) as client:  # fmt: skip
        result = read(client)
    assert (result.absent, result.reason) == (None, None)
    assert [line.text for line in result.lines] == list(client.lines)
    assert client.lines[0] == "scroll line 041 with words"  # the first 41 scrolled away
