"""`noru autostart`: what starts Noru at login, checked by the tools that read it.

Every test runs in its own XDG_CONFIG_HOME, XDG_DATA_HOME and runtime dir,
with the session bus pointed at nothing: the real systemctl finds no user
manager (here, and on a developer's desktop alike), so `noru autostart on`
takes the XDG path for real. The systemd path is written and verified for
real; where it needs a running manager, ``tests.desktop_login.Manager`` plays
one at ``Systemctl.run``, the one seam.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from noru import autostart
from noru.autostart import Systemctl, Targets, Via
from noru.doctor import run_checks
from noru.errors import AutostartError
from noru.paths import noru_executable
from tests.desktop_login import Manager, launch_entry, validate_entry, verify_unit
from tests.noru_cli import noru
from tests.parts import require

DOCS = Path(__file__).resolve().parents[1] / "docs" / "autostart.md"

# Characters each format must quote or escape, in one folder name.
AWKWARD = "with space $dollar %percent ;semi é (paren) *star"
# What only a Desktop Entry can carry in a program's path (systemd refuses these).
ENTRY_ONLY = AWKWARD + " 'single' \"double\" back\\slash `tick`"


@dataclass(frozen=True)
class Desktop:
    config: Path
    data: Path
    targets: Targets


@pytest.fixture(autouse=True)
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path) -> Desktop:
    require(shutil.which("systemctl") is not None, "systemctl (Debian systemd)")
    config, data, runtime = tmp_path / "config", tmp_path / "data", tmp_path / "run"
    for folder in (config, data, runtime):
        folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    # No user manager to reach: never the one of the desktop running the tests.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={runtime}/no-bus")
    return Desktop(config, data, Targets.here())


def this_noru() -> Path:
    exe = noru_executable()
    assert exe is not None, "the tests run the installed noru"
    return exe


def files(root: Path) -> dict[str, bytes]:
    """Every file and link under ``root``, with its bytes (a link: where it points)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(root))] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


def linked(folder: Path, name: str) -> Path:
    """A link to the real installed noru, in a folder with an awkward name."""
    folder.mkdir(parents=True)
    link = folder / name
    link.symlink_to(this_noru())
    return link


def recorder(folder: Path, out: Path) -> Path:
    """A program that writes the arguments it was given and its NORU_HOME to ``out``."""
    folder.mkdir(parents=True)
    program = folder / "noru"
    program.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$NORU_HOME\" \"$@\" > '{out}'\n")
    program.chmod(0o755)
    return program


# --- the unit, as systemd reads it ------------------------------------------------------


def test_the_unit_passes_systemd_analyze_verify(desktop: Desktop, home: Path) -> None:
    path = desktop.targets.unit
    path.parent.mkdir(parents=True)
    path.write_text(autostart.unit_text(this_noru(), home))
    assert verify_unit(path) == ""


def test_the_unit_runs_noru_app_restarts_it_and_waits_for_a_graphical_session(
    home: Path,
) -> None:
    text = autostart.unit_text(this_noru(), home)
    assert autostart.read_unit_exec(text) == ([str(this_noru()), "app"], {"NORU_HOME": str(home)})
    for line in (
        "Restart=on-failure",
        "RestartSec=5",
        "PartOf=graphical-session.target",
        "After=graphical-session.target",
        "WantedBy=graphical-session.target",
        "ConditionEnvironment=|DISPLAY",
        "ConditionEnvironment=|WAYLAND_DISPLAY",
        "StandardError=journal",
    ):
        assert f"\n{line}\n" in text


def test_a_unit_quotes_a_path_with_spaces_dollars_and_percents_as_systemd_reads_it(
    tmp_path: Path, desktop: Desktop
) -> None:
    exe = linked(tmp_path / AWKWARD, "noru")
    home = tmp_path / 'data "quoted" back\\slash $HOME %h'
    path = desktop.targets.unit
    path.parent.mkdir(parents=True)
    path.write_text(autostart.unit_text(exe, home))
    # verify looks for the program: a word split at a space, or a %p read as a
    # specifier, names one that is not there.
    assert verify_unit(path) == ""
    assert autostart.read_unit_exec(path.read_text()) == (
        [str(exe), "app"],
        {"NORU_HOME": str(home)},
    )


def test_systemd_analyze_does_catch_a_path_left_unquoted(tmp_path: Path) -> None:
    """The check above can fail: the same unit with its quotes taken off does not verify."""
    exe = linked(tmp_path / AWKWARD, "noru")
    path = tmp_path / "noru.service"
    text = autostart.unit_text(exe, None)
    path.write_text(text.replace('ExecStart="', "ExecStart=").replace('" app\n', " app\n"))
    assert "not executable" in verify_unit(path)


def test_a_path_systemd_cannot_run_is_refused_for_a_unit(tmp_path: Path) -> None:
    exe = linked(tmp_path / ENTRY_ONLY, "noru")
    path = tmp_path / "noru.service"
    quoted = str(exe).replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    path.write_text(f'[Service]\nExecStart="{quoted}" app\n')
    assert "special characters" in verify_unit(path)  # systemd's own limit
    with pytest.raises(AutostartError, match="--xdg"):
        autostart.unit_text(exe, None)


# --- the entries, as a desktop reads them -------------------------------------------------


@pytest.mark.parametrize("kind", ["autostart", "launcher"])
def test_the_entries_pass_desktop_file_validate(kind: str, tmp_path: Path, home: Path) -> None:
    path = tmp_path / "noru.desktop"
    path.write_text(autostart.entry_text(this_noru(), home, autostart=kind == "autostart"))
    assert validate_entry(path) == ""


def test_an_entry_quotes_the_path_and_noru_home_as_a_desktop_launches_it(tmp_path: Path) -> None:
    out = tmp_path / "launched"
    program = recorder(tmp_path / ENTRY_ONLY, out)
    home = tmp_path / ENTRY_ONLY / "data %f $HOME"
    path = tmp_path / "noru.desktop"
    path.write_text(autostart.entry_text(program, home, autostart=True))
    assert validate_entry(path) == ""
    launch_entry(path)
    assert out.read_bytes().split(b"\0") == [os.fsencode(home), b"app", b""]
    assert autostart.read_desktop_exec(path.read_text()) == (
        [str(program), "app"],
        {"NORU_HOME": str(home)},
    )


@pytest.mark.parametrize("via", ["xdg", "systemd"])
def test_a_control_character_in_noru_home_is_refused_before_anything_changes(
    via: Via, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, desktop: Desktop
) -> None:
    autostart.turn_on(exe=this_noru(), via="xdg")
    before = files(desktop.config) | files(desktop.data)
    monkeypatch.setenv("NORU_HOME", str(tmp_path / "two\nlines"))
    with pytest.raises(AutostartError, match="control character"):
        autostart.turn_on(exe=this_noru(), via=via)
    assert files(desktop.config) | files(desktop.data) == before


# --- on, off and status through the command -------------------------------------------------


def test_on_status_off_round_trip_with_the_xdg_entry(desktop: Desktop, home: Path) -> None:
    done = noru("autostart", "status")
    assert done.returncode == 0, done.stderr
    assert "does not start at login" in done.stdout

    done = noru("autostart", "on")
    assert done.returncode == 0, done.stderr
    assert "XDG autostart entry" in done.stdout and "does not answer" in done.stdout
    entry, launcher = desktop.targets.entry, desktop.targets.launcher
    assert validate_entry(entry) == "" and validate_entry(launcher) == ""
    for path in (entry, launcher):
        argv, env = autostart.read_desktop_exec(path.read_text())
        assert argv == [str(this_noru()), "app"] and env == {"NORU_HOME": str(home)}
    assert not desktop.targets.unit.exists()

    done = noru("autostart", "status")
    assert f"XDG autostart entry {entry}; starts this noru" in done.stdout
    assert f"app menu launcher {launcher}; starts this noru" in done.stdout

    written = files(desktop.config) | files(desktop.data)
    again = noru("autostart", "on")
    assert again.returncode == 0 and "Kept the XDG autostart entry" in again.stdout
    assert files(desktop.config) | files(desktop.data) == written

    done = noru("autostart", "off")
    assert done.returncode == 0, done.stderr
    assert not entry.exists() and not launcher.exists()
    assert "does not start at login" in noru("autostart", "status").stdout
    done = noru("autostart", "off")
    assert done.returncode == 0 and "nothing to remove" in done.stdout


def test_off_removes_what_on_wrote_and_nothing_else(desktop: Desktop) -> None:
    (desktop.config / "autostart").mkdir()
    (desktop.config / "autostart" / "other.desktop").write_text("[Desktop Entry]\nName=Other\n")
    (desktop.config / "systemd" / "user").mkdir(parents=True)
    (desktop.config / "systemd" / "user" / "other.service").write_text("[Service]\n")
    (desktop.data / "applications").mkdir()
    (desktop.data / "applications" / "other.desktop").write_text("[Desktop Entry]\n")
    before = files(desktop.config) | files(desktop.data)

    assert noru("autostart", "on").returncode == 0
    assert noru("autostart", "off").returncode == 0
    assert files(desktop.config) | files(desktop.data) == before


def test_a_noru_desktop_file_not_written_by_noru_is_neither_replaced_nor_removed(
    desktop: Desktop,
) -> None:
    entry = desktop.targets.entry
    entry.parent.mkdir(parents=True)
    entry.write_text("[Desktop Entry]\nType=Application\nName=Mine\nExec=/bin/true\n")
    done = noru("autostart", "on", "--xdg")
    assert done.returncode == 1
    assert "was not written by `noru autostart`" in done.stderr
    done = noru("autostart", "off")
    assert f"Left {entry}" in done.stdout
    assert entry.read_text().startswith("[Desktop Entry]\nType=Application\nName=Mine")


def test_on_with_systemd_and_no_manager_keeps_the_unit_and_says_systemctl_failed(
    desktop: Desktop,
) -> None:
    done = noru("autostart", "on", "--systemd")
    assert done.returncode == 1
    assert "`systemctl --user daemon-reload` failed" in done.stderr
    assert "Failed to connect to bus" in done.stderr
    unit = desktop.targets.unit
    assert verify_unit(unit) == ""
    # The real systemctl enables it from the files alone: it starts at next login.
    assert desktop.targets.wants.resolve() == unit
    status = noru("autostart", "status").stdout
    assert f"systemd user unit {unit}: enabled (systemd's user manager does not answer" in status
    assert "starts this noru" in status

    done = noru("autostart", "off")
    assert "`systemctl --user disable --now noru.service` failed" in done.stderr
    assert not unit.exists() and not desktop.targets.wants.is_symlink()
    assert "does not start at login" in noru("autostart", "status").stdout


def test_the_choice_options_go_with_on_only() -> None:
    done = noru("autostart", "status", "--xdg")
    assert done.returncode == 2 and "--xdg goes with `noru autostart on` only" in done.stderr


# --- the systemd path with a running manager (the seam) -------------------------------------


def test_on_in_a_systemd_session_enables_and_starts_the_unit(desktop: Desktop) -> None:
    manager = Manager()
    outcome = autostart.turn_on(exe=this_noru(), systemctl=manager)
    assert outcome.problems == []
    assert manager.calls == [
        ("is-active", "graphical-session.target"),
        ("daemon-reload",),
        ("enable", "--now", "noru.service"),
    ]
    assert verify_unit(desktop.targets.unit) == ""
    assert not desktop.targets.entry.exists() and desktop.targets.launcher.exists()
    found = autostart.report(exe=this_noru(), systemctl=manager)
    assert found.how == "systemd"
    assert found.lines()[0] == (
        f"systemd user unit {desktop.targets.unit}: enabled, active; starts this noru"
    )


def test_a_systemd_manager_with_no_graphical_session_gets_the_xdg_entry(
    desktop: Desktop,
) -> None:
    outcome = autostart.turn_on(exe=this_noru(), systemctl=Manager(graphical=False))
    assert "graphical-session.target is inactive" in outcome.lines[0]
    assert desktop.targets.entry.exists() and not desktop.targets.unit.exists()


def test_a_noru_systemd_cannot_run_gets_the_xdg_entry_in_a_systemd_session(
    tmp_path: Path, desktop: Desktop
) -> None:
    exe = linked(tmp_path / ENTRY_ONLY, "noru")
    outcome = autostart.turn_on(exe=exe, systemctl=Manager())
    assert "quote or a backslash" in outcome.lines[0]
    assert validate_entry(desktop.targets.entry) == ""


def test_switching_to_the_xdg_entry_stops_and_removes_the_unit(desktop: Desktop) -> None:
    manager = Manager()
    autostart.turn_on(exe=this_noru(), systemctl=manager)
    manager.calls.clear()
    outcome = autostart.turn_on(exe=this_noru(), via="xdg", systemctl=manager)
    assert outcome.problems == []
    assert manager.calls == [("disable", "--now", "noru.service"), ("daemon-reload",)]
    assert not manager.running
    assert not desktop.targets.unit.exists() and not desktop.targets.wants.is_symlink()
    assert autostart.report(exe=this_noru(), systemctl=manager).how == "xdg"


def test_off_in_a_systemd_session_stops_disables_and_removes_the_unit(desktop: Desktop) -> None:
    before = files(desktop.config) | files(desktop.data)
    manager = Manager()
    autostart.turn_on(exe=this_noru(), systemctl=manager)
    outcome = autostart.turn_off(systemctl=manager)
    assert outcome.problems == []
    assert not manager.running
    assert files(desktop.config) | files(desktop.data) == before
    assert autostart.report(exe=this_noru(), systemctl=manager).how is None


# --- status tells the truth -----------------------------------------------------------------


def test_status_says_when_the_entry_starts_another_noru_or_one_that_is_gone(
    tmp_path: Path, desktop: Desktop, home: Path
) -> None:
    other = linked(tmp_path / "elsewhere", "noru")
    autostart.turn_on(exe=other, via="xdg")
    assert f"starts another noru ({other})" in noru("autostart", "status").stdout
    check = next(c for c in run_checks(home) if c.name == "start at login")
    assert check.level == "warn" and check.fix and "noru autostart on" in check.fix

    other.unlink()
    assert f"starts {other}, which is not there" in noru("autostart", "status").stdout
    check = next(c for c in run_checks(home) if c.name == "start at login")
    assert check.level == "fail"


def test_status_says_when_the_entry_starts_noru_with_another_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    autostart.turn_on(exe=this_noru(), via="xdg")
    monkeypatch.setenv("NORU_HOME", str(tmp_path / "another"))
    assert "starts this noru with another data dir" in noru("autostart", "status").stdout


def test_without_noru_home_nothing_sets_it_and_status_still_matches(
    monkeypatch: pytest.MonkeyPatch, desktop: Desktop
) -> None:
    monkeypatch.delenv("NORU_HOME")
    assert noru("autostart", "on").returncode == 0
    text = desktop.targets.entry.read_text()
    assert "NORU_HOME" not in text and "/usr/bin/env" not in text
    assert f"{desktop.targets.entry}; starts this noru" in noru("autostart", "status").stdout


def test_status_says_an_entry_switched_off_in_the_desktop_settings_starts_nothing(
    desktop: Desktop,
) -> None:
    autostart.turn_on(exe=this_noru(), via="xdg")
    entry = desktop.targets.entry
    entry.write_text(entry.read_text().replace("Autostart-enabled=true", "Autostart-enabled=false"))
    status = noru("autostart", "status").stdout
    assert "does not start at login" in status
    assert "switched off in the desktop's startup settings" in status


def test_doctor_says_how_noru_starts_and_not_being_set_up_is_no_failure(home: Path) -> None:
    check = next(c for c in run_checks(home) if c.name == "start at login")
    assert check.level == "ok" and check.found.startswith("not at login")
    autostart.turn_on(exe=this_noru(), via="xdg")
    check = next(c for c in run_checks(home) if c.name == "start at login")
    assert check.level == "ok" and check.found.startswith("XDG autostart entry")
    assert check.fix is None
    assert "start at login: XDG autostart entry" in noru("doctor").stdout


def test_the_real_systemctl_here_reaches_no_user_manager(desktop: Desktop) -> None:
    """The isolation above holds: the real systemctl here reaches no manager."""
    session = Systemctl().session()
    assert not session.reachable and "does not answer" in session.reason


def test_the_docs_show_the_unit_and_the_entry_as_they_are_written() -> None:
    shown = re.findall(r"```ini\n(.*?)```", DOCS.read_text(), flags=re.S)
    exe, home = Path("/home/ana/.venvs/noru/bin/noru"), Path("/home/ana/Noru data")
    assert shown == [
        autostart.unit_text(exe, home),
        autostart.entry_text(exe, home, autostart=True),
    ]


def test_the_two_start_lines_split_alike_and_escape_each_in_its_own_way() -> None:
    from noru.autostart.unit_file import read_unit_exec
    from noru.autostart.words import split_words

    # Outside quotes a launcher keeps a backslash; systemd reads a C escape.
    entry = '[Desktop Entry]\nExec="/a b/noru" "" x\\\\ty "q\\\\"q"\n'
    assert autostart.read_desktop_exec(entry) == (["/a b/noru", "", "x\\ty", 'q"q'], {})
    unit = "[Service]\nExecStart='/a b/noru' \"\" x\\ty \\x41\n"
    assert read_unit_exec(unit) == (["/a b/noru", "", "x\ty", "A"], {})
    plain = split_words(" a  'b c' ", quotes="'", escape=lambda value, i, quote: None)
    assert plain == ["a", "b c"]
