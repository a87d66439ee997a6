"""Windows the person excluded are never captured: rules, their file, and the
pixels of real windows on a real X server, through the capturer and the app."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from noru import exclusions
from noru.access import set_control
from noru.capture import Capturer
from noru.capture.base import WindowFacts
from noru.errors import CaptureError, DataDirError, WindowExcluded
from noru.exclusions import Rule
from noru.store import Filters, Reader
from tests.app_process import running_app, wait_until
from tests.noru_cli import invoke, noru_command
from tests.wire import MemoryClient, answer_text

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

RED, BLUE = "#cc2020", "#2040cc"
RED_RGB, BLUE_RGB = (0xCC, 0x20, 0x20), (0x20, 0x40, 0xCC)
VAULT = "Vault-app"  # the class (app) of the excluded window


# --- the rules ------------------------------------------------------------------------


def test_an_app_matches_its_class_or_name_whole_and_in_any_case() -> None:
    rule = Rule("app", "KeePassXC")
    assert rule.matches("keepassxc", None, "x") and rule.matches(None, "KEEPASSXC", None)
    assert not rule.matches("keepassxc-helper", "KeePass", None)


def test_a_title_is_a_glob_over_the_whole_title_or_a_regular_expression() -> None:
    glob, regex = Rule("title", "*bank*"), Rule("title", r"re:invoice \d+")
    assert glob.matches(None, None, "My BANK - Firefox") and not glob.matches(None, None, None)
    assert not Rule("title", "bank").matches(None, None, "my bank")  # the whole title
    assert regex.matches(None, None, "Draft INVOICE 4471 - Writer")
    assert not regex.matches(None, None, "invoice draft")


def test_the_built_in_rules_are_on_until_the_person_removes_one(tmp_path: Path) -> None:
    rules = exclusions.load(tmp_path)
    private = "Search — Mozilla Firefox Private Browsing"
    assert rules.excludes(None, None, private) and rules.excludes("KeePassXC", None, "db")
    exclusions.save(tmp_path, [], ["firefox-private"])
    rules = exclusions.load(tmp_path)
    assert not rules.excludes(None, None, private) and rules.excludes("KeePassXC", None, "db")


def test_the_person_s_rules_are_kept_0600_and_joined_with_the_config_s(tmp_path: Path) -> None:
    exclusions.save(tmp_path, [Rule("app", "Vault-app"), Rule("title", "*payroll*")], [])
    assert stat.S_IMODE(os.stat(tmp_path / exclusions.FILE).st_mode) == 0o600
    rules = exclusions.load(tmp_path, apps=["Signal"], titles=["re:^secret"])
    assert rules.excludes(None, "signal", None) and rules.excludes(None, None, "Secret plans")
    assert rules.excludes("vault-app", None, None) and rules.excludes(None, None, "Q3 PAYROLL")
    assert not rules.excludes("xterm", "XTerm", "shell")


@pytest.mark.parametrize(
    "body",
    ["not json", "[]", '{"rules": {}}', '{"rules": [{"kind": "colour", "pattern": "x"}]}',
     '{"rules": [{"kind": "title", "pattern": "re:("}]}', '{"builtin_off": "all"}'],
    ids=["not JSON", "a list", "rules not a list", "unknown kind", "a bad regex", "builtin_off"],
)  # fmt: skip
def test_a_damaged_file_fails_closed_with_what_is_wrong(tmp_path: Path, body: str) -> None:
    (tmp_path / exclusions.FILE).write_text(body)
    with pytest.raises(DataDirError, match="captures are refused"):
        exclusions.load(tmp_path)


# --- real windows -----------------------------------------------------------------------


def vault(window: WindowFacts) -> bool:
    return window.app_name == VAULT


@pytest.fixture
def capturer(desktop: XServer) -> Iterator[Capturer]:
    with Capturer(display=desktop.display) as c:
        c.excluded = vault
        yield c


@pytest.fixture
def two_windows(desktop: XServer, open_window: OpenWindow) -> tuple[TkWindow, TkWindow]:
    """The excluded window, and a normal one opened after it, over part of it."""
    hidden = open_window(
        desktop, "Ledger 7781", x=100, y=100, width=500, height=300,
        background=RED, text="vault code 7781", class_name=VAULT,
    )  # fmt: skip
    above = open_window(
        desktop, "Notes", x=400, y=250, width=500, height=300,
        background=BLUE, text="public notes", class_name="Noru-test",
    )  # fmt: skip
    above.activate()
    return hidden, above


def test_a_display_capture_paints_the_excluded_window_black_but_not_what_covers_it(
    capturer: Capturer, two_windows: tuple[TkWindow, TkWindow]
) -> None:
    hidden, above = two_windows
    (grab,) = capturer.grab_display(1)
    assert grab.excluded == 1
    # Where only the excluded window shows: black. Where the window above covers it: that window.
    assert grab.image.getpixel((hidden.x + 20, hidden.y + 20)) == (0, 0, 0)
    assert grab.image.getpixel((above.x + 20, above.y + 20)) == BLUE_RGB
    assert grab.image.getpixel((hidden.x + 250, hidden.y + 10)) == (0, 0, 0)
    # Nothing red is left of it, its frame's title bar included.
    colours = grab.image.crop((hidden.x - 10, hidden.y - 40, hidden.x + 290, hidden.y + 140))
    assert RED_RGB not in {c for _, c in colours.getcolors(1 << 20) or []}
    # It is no region for OCR to read, and the active window (not excluded) is the source.
    assert all(not (x <= hidden.x + 20 < x + w and y <= hidden.y + 20 < y + h)
               for x, y, w, h in grab.windows)  # fmt: skip
    assert grab.source.window_title == "Notes"


def test_without_exclusions_the_same_capture_shows_the_window(
    desktop: XServer, two_windows: tuple[TkWindow, TkWindow]
) -> None:
    hidden, _ = two_windows
    with Capturer(display=desktop.display) as plain:
        (grab,) = plain.grab_display(1)
    assert grab.excluded == 0 and grab.image.getpixel((hidden.x + 20, hidden.y + 20)) == RED_RGB


def test_the_excluded_window_active_leaves_no_facts_of_it(
    capturer: Capturer, two_windows: tuple[TkWindow, TkWindow]
) -> None:
    hidden, _ = two_windows
    hidden.activate()
    (grab,) = capturer.grab_display(1)
    assert grab.source.window_title is None and grab.source.app_name is None
    assert grab.image.getpixel((hidden.x + 20, hidden.y + 20)) == (0, 0, 0)


def test_a_window_capture_of_an_excluded_window_is_refused_without_naming_it(
    capturer: Capturer, two_windows: tuple[TkWindow, TkWindow]
) -> None:
    hidden, _ = two_windows
    hidden.bring_under_pointer()
    with pytest.raises(WindowExcluded) as refused:
        capturer.grab_window("pointer")
    assert "7781" not in str(refused.value) and "Ledger" not in str(refused.value)
    assert refused.value.tag == "Noru permission denied"


def test_a_window_capture_hides_an_excluded_window_lying_over_it(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    below = open_window(desktop, "Below", x=100, y=100, width=600, height=400, background=BLUE)
    over = open_window(
        desktop, "Over", x=300, y=200, width=200, height=150, background=RED, class_name=VAULT
    )
    below.activate()
    over.server.run("xdotool", "windowraise", over.window_id)
    (grab,) = capturer.grab_window("active")
    assert grab.excluded == 1
    assert grab.image.getpixel((over.x - below.x + 10, over.y - below.y + 10)) == (0, 0, 0)
    assert grab.image.getpixel((10, 10)) == BLUE_RGB


def test_a_window_list_that_cannot_be_read_refuses_the_capture(
    capturer: Capturer, two_windows: tuple[TkWindow, TkWindow], monkeypatch: pytest.MonkeyPatch
) -> None:
    capturer.grab_display(1)  # opens the backend
    backend = capturer._backend
    assert backend is not None

    def broken(*, facts: bool = True) -> list[object]:
        raise CaptureError("the X server did not answer")

    monkeypatch.setattr(backend, "stacked_windows", broken)
    with pytest.raises(CaptureError, match="cannot be hidden: the capture is refused"):
        capturer.grab_display(1)


def test_a_window_whose_facts_cannot_be_read_refuses_the_capture(
    capturer: Capturer, two_windows: tuple[TkWindow, TkWindow], monkeypatch: pytest.MonkeyPatch
) -> None:
    capturer.grab_display(1)
    backend = capturer._backend
    assert backend is not None
    real = backend.stacked_windows

    def one_unknown(*, facts: bool = True) -> list[object]:
        found = real(facts=facts)
        return [(found[0][0], None), *found[1:]]

    monkeypatch.setattr(backend, "stacked_windows", one_unknown)
    with pytest.raises(CaptureError, match="might be one the person excluded"):
        capturer.grab_display(1)


# --- through the app ----------------------------------------------------------------


def _read(home: Path, capture_id: str) -> str | None:
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
    return None if record is None else record.ocr_state


def test_the_app_keeps_no_trace_of_an_excluded_window_and_says_one_was_hidden(
    home: Path, desktop: XServer, two_windows: tuple[TkWindow, TkWindow], tmp_path: Path
) -> None:
    exclusions.save(home, [Rule("app", VAULT)], [])
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        done = subprocess.run(
            [*noru_command(), "capture", "--display", "1"],
            capture_output=True, text=True, timeout=120,
            env={**desktop.env, "NORU_HOME": str(home)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        client = MemoryClient(home)
        try:
            client.initialize("2025-06-18")
            capture_id = done.stdout.strip().split()[-1]
            wait_until(lambda: _read(home, capture_id) == "done", "the capture's text")
            answer = client.call("get_capture", {"id": capture_id})
            assert "!px(1 window excluded)" in answer_text(answer).splitlines()[-1]
            # observe_screen of the excluded window (made active) is a refusal.
            two_windows[0].activate()
            refused = answer_text(client.call("observe_screen", {"target": "window"}))
            assert refused.startswith("Noru permission denied: the window is excluded")
            assert "Next: The person has excluded this window" in refused
            assert "7781" not in refused and "Ledger" not in refused
        finally:
            client.close()
    with Reader.open(home) as reader:
        rows, _ = reader.list_rows(Filters(), limit=10)
        assert [row.id for row in rows] == [capture_id]  # the refused look kept nothing
        record = reader.get(capture_id)
        assert record is not None and record.images[0].excluded == 1
        assert record.ocr_state == "done", record.ocr_state
        assert "public" in record.ocr_text.lower()  # the window above was read
        assert "7781" not in record.ocr_text and "vault" not in record.ocr_text.lower()
    db = sqlite3.connect(f"file:{home / 'noru.sqlite3'}?mode=ro", uri=True)
    try:
        dump = "\n".join(db.iterdump())
    finally:
        db.close()
    assert "Ledger" not in dump and VAULT not in dump and "7781" not in dump


# --- the person's command ------------------------------------------------------------


def test_noru_exclude_adds_lists_and_removes_rules_and_turns_built_ins_off(home: Path) -> None:
    assert invoke("exclude", "add", "--app", "Vault-app").exit_code == 0
    assert invoke("exclude", "add", "--title", "*payroll*").exit_code == 0
    bad = invoke("exclude", "add", "--title", "re:(")
    assert bad.exit_code == 2 and "not a regular expression" in bad.output
    assert invoke("exclude", "add").exit_code == 2  # neither --app nor --title
    assert invoke("exclude", "remove", "--builtin", "keepassxc").exit_code == 0
    listed = invoke("exclude", "list").output.splitlines()
    assert "app Vault-app" in listed and "title *payroll*" in listed
    assert "app KeePassXC  (built in: keepassxc, off)" in listed
    assert "app Bitwarden  (built in: bitwarden, on)" in listed
    rules = exclusions.load(home)
    assert rules.excludes(None, "vault-app", None) and not rules.excludes("KeePassXC", None, None)
    assert invoke("exclude", "remove", "--app", "Vault-app").exit_code == 0
    missing = invoke("exclude", "remove", "--app", "Vault-app")
    assert missing.exit_code == 1 and "no such exclusion" in missing.output
    assert not exclusions.load(home).excludes(None, "vault-app", None)
