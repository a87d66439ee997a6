"""The person's CLI, tried as a new user would: clear words, never a traceback.

Each test is one of the reproductions the house issue listed, run through
the real `noru` command in its own process.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from noru.access import set_control
from noru.store import NewImage, Store
from tests.history_data import png, redaction_off, seed, source
from tests.noru_cli import noru
from tests.parts import require
from tests.wire import MemoryClient


def a_png(path: Path) -> Path:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 120, 200)).save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return path


def unprivileged() -> list[str]:
    """A prefix that runs a command without the power to write what it does not own.

    Root writes anywhere whatever the mode; without CAP_DAC_OVERRIDE (and
    CAP_DAC_READ_SEARCH) it meets the permissions everyone else meets.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    require(setpriv is not None, "setpriv (util-linux) is needed to drop root's file powers")
    assert setpriv is not None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


# --- 1. NORU_HOME pointing at a file ------------------------------------------------


@pytest.fixture
def home_is_a_file(tmp_path: Path) -> Path:
    path = tmp_path / "not-a-folder"
    path.write_text("I am a file\n")
    return path


@pytest.mark.parametrize("command", [["allow"], ["list"], ["search", "words"], ["status"]])
def test_a_data_dir_that_is_a_file_is_named_as_such(
    home_is_a_file: Path, command: list[str]
) -> None:
    done = noru(*command, home=home_is_a_file)
    assert done.returncode == 1
    assert f"NORU_HOME={home_is_a_file} is a file, not a folder" in done.stderr
    assert home_is_a_file.read_text() == "I am a file\n"  # nothing lost


def test_importing_into_a_data_dir_that_is_a_file_says_so(
    home_is_a_file: Path, tmp_path: Path
) -> None:
    done = noru("import", str(a_png(tmp_path / "a.png")), home=home_is_a_file)
    assert done.returncode == 1 and "is a file, not a folder" in done.stderr


def test_doctor_says_a_data_dir_that_is_a_file_is_not_a_folder(home_is_a_file: Path) -> None:
    done = noru("doctor", home=home_is_a_file)
    assert done.returncode == 1
    assert f"FAIL data dir: {home_is_a_file} is a file, not a folder" in done.stdout
    assert "chmod" not in done.stdout


# --- 2. a data dir this user cannot write --------------------------------------------


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "locked"
    home.mkdir()
    seed(home)
    home.chmod(0o500)
    yield home
    home.chmod(0o700)


@pytest.mark.parametrize("command", ["allow", "pause", "revoke"])
def test_an_access_command_in_a_data_dir_it_cannot_write_says_so(
    read_only_home: Path, command: str
) -> None:
    done = noru(command, home=read_only_home, prefix=unprivileged())
    assert done.returncode == 1
    assert f"the data dir NORU_HOME={read_only_home} is not writable by this user" in done.stderr
    assert not (read_only_home / "access.json").exists()


def test_importing_into_a_data_dir_it_cannot_write_says_so(
    read_only_home: Path, tmp_path: Path
) -> None:
    picture = a_png(tmp_path / "a.png")
    done = noru("import", str(picture), home=read_only_home, prefix=unprivileged())
    assert done.returncode == 1 and "is not writable by this user" in done.stderr


def test_reading_a_data_dir_it_cannot_write_still_works(read_only_home: Path) -> None:
    done = noru("list", home=read_only_home, prefix=unprivileged())
    assert done.returncode == 0, done.stderr
    assert "3 captures, newest first:" in done.stdout


# --- 3. option names -------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--since", "--before"])
def test_a_bad_time_names_the_option_it_was_given_to(home: Path, option: str) -> None:
    done = noru("list", option, "yesterday", home=home)
    assert done.returncode == 2
    assert f"Invalid value for '{option}'" in done.stderr and "--at" not in done.stderr
    assert "not a time: 'yesterday'" in done.stderr


# --- 4 and 5. NORU_HOME in printed snippets --------------------------------------------


def test_the_claude_code_line_carries_noru_home(tmp_path: Path) -> None:
    home = tmp_path / "x"
    done = noru("config", "claude-code", home=home)
    assert done.returncode == 0
    assert f"claude mcp add noru -e NORU_HOME={home} -- " in done.stderr
    assert json.loads(done.stdout)["mcpServers"]["noru"]["env"] == {"NORU_HOME": str(home)}


def test_a_tilde_in_noru_home_means_the_home_folder_everywhere(tmp_path: Path) -> None:
    fake_home = tmp_path / "person"
    fake_home.mkdir()
    env = {**os.environ, "HOME": str(fake_home)}
    config = noru("config", "cursor", home="~/t", env=env)
    claude = noru("config", "claude-code", home="~/t", env=env)
    status = noru("status", home="~/t", env=env)
    expected = str(fake_home / "t")
    assert json.loads(config.stdout)["mcpServers"]["noru"]["env"] == {"NORU_HOME": expected}
    assert json.loads(claude.stdout)["mcpServers"]["noru"]["env"] == {"NORU_HOME": expected}
    assert f"claude mcp add noru -e NORU_HOME={expected} -- " in claude.stderr
    assert f"Data dir: {expected}" in status.stdout.splitlines()


# --- 6. empty facts ------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--app", "--window-title"])
def test_an_empty_fact_on_import_is_refused(home: Path, tmp_path: Path, option: str) -> None:
    done = noru("import", str(a_png(tmp_path / "a.png")), option, "  ", home=home)
    assert done.returncode == 2
    assert f"Invalid value for '{option}': must not be empty" in done.stderr
    assert not (home / "noru.sqlite3").exists()


# --- 7. what the access commands say ---------------------------------------------------


def test_after_a_revoke_pause_and_resume_say_access_is_still_revoked(home: Path) -> None:
    assert noru("revoke", home=home).returncode == 0
    paused = noru("pause", home=home).stdout
    resumed = noru("resume", home=home).stdout
    assert "History remains readable" not in paused
    assert "still revoked" in resumed or "until you run `noru allow`" in resumed
    for said in (paused, resumed):
        assert "No live requests and no history reads until you run `noru allow`." in said
    allowed = noru("allow", home=home).stdout
    assert allowed.startswith("Agent observations allowed. History is readable.")
    assert "still paused" not in allowed  # resume lifted it


def test_resume_before_any_allow_says_agents_may_not_observe_yet(home: Path) -> None:
    done = noru("resume", home=home)
    assert "agents may not observe yet: `noru allow`" in done.stdout


# --- 8. configuration problems are said by every command that reads it ----------------


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("max_egde = 900", "max_egde: unknown setting, ignored (did you mean max_edge?)"),
        ('max_edge = "big"', "max_edge = 'big' ignored: use whole pixels between 64 and 8192"),
    ],
)
@pytest.mark.parametrize("command", [["list"], ["search", "frobnicate"], ["show", "--index", "1"]])
def test_a_config_problem_is_warned_about_naming_the_key(
    home: Path, setting: str, said: str, command: list[str]
) -> None:
    seed(home)
    (home / "config.toml").write_text(setting + "\n")
    done = noru(*command, home=home)
    assert done.returncode == 0, done.stderr
    assert f"warning: config.toml: {said}" in done.stderr.splitlines()


def test_status_and_doctor_say_config_problems_too(home: Path) -> None:
    (home / "config.toml").write_text("max_egde = 900\n")
    assert "Warning: config.toml: max_egde: unknown setting" in noru("status", home=home).stdout
    doctor = noru("doctor", home=home).stdout
    assert "FAIL configuration: max_egde: unknown setting" in doctor


# --- 9. list names its filters, says how many, and pages -------------------------------


def test_a_filtered_list_names_the_filter_and_the_history_size(home: Path) -> None:
    seed(home)
    done = noru("list", "--app", "xterm", home=home)
    lines = done.stdout.splitlines()
    assert lines[0] == "1 capture with --app xterm, newest first (3 in history):"
    assert lines[-1] == "Show one with `noru show ID`."
    assert "get_capture" not in done.stdout


def test_a_list_longer_than_its_limit_says_how_to_see_the_rest(home: Path) -> None:
    seeded = seed(home)
    first = noru("list", "--limit", "2", home=home)
    more = [line for line in first.stdout.splitlines() if line.startswith("Showing 2; more: ")]
    assert len(more) == 1
    command = more[0].removeprefix("Showing 2; more: ").split()
    assert command[:4] == ["noru", "list", "--limit", "2"]
    rest = noru(*command[1:], home=home)
    assert rest.returncode == 0
    assert seeded.editor.id in rest.stdout and seeded.editor.id not in first.stdout
    assert "more:" not in rest.stdout


def test_a_list_that_matches_nothing_says_so_with_status_1(home: Path) -> None:
    seed(home)
    done = noru("list", "--app", "firefox", home=home)
    assert done.returncode == 1
    assert done.stdout == "No capture matches with --app firefox (3 in history).\n"


# --- 10. the capped-bundle remark -------------------------------------------------------


def test_a_text_only_answer_does_not_count_images_it_was_never_going_to_send(
    home: Path, session: MemoryClient
) -> None:
    seeded = seed(home)
    answer = session.call("get_capture", {"id": seeded.editor.id, "text_only": True})
    text = "\n".join(block["text"] for block in answer["result"]["content"])
    assert "This capture holds" not in text and "images; the first" not in text


def test_a_bundle_larger_than_one_answer_says_how_many_are_sent(
    home: Path, session: MemoryClient
) -> None:
    image = NewImage(png(64, 48), 64, 48, source("Term", "t"), "64x48")
    redaction_off(home)  # not read by OCR: with redaction on it is held back
    with Store.open(home) as store:
        record = store.add_capture([image] * 9, origin="user")
    answer = session.call("get_capture", {"id": record.id})
    text = "\n".join(b["text"] for b in answer["result"]["content"] if b["type"] == "text")
    assert "This capture holds 9 images; the first 8 are sent." in text


# --- 11. an empty search ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "said"), [("", "give at least one word"), ("*** ---", "has no words in it")]
)
def test_a_search_without_words_is_a_usage_error(home: Path, query: str, said: str) -> None:
    seed(home)
    done = noru("search", query, home=home)
    assert done.returncode == 2 and said in done.stderr


# --- 12 and 13. import's reasons and times ----------------------------------------------


def test_import_gives_reasons_in_words(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "notes.png").write_text("not a picture")
    (folder / "cut.png").write_bytes(a_png(tmp_path / "ok.png").read_bytes()[:60])
    done = noru("import", str(folder), home=home)
    assert done.returncode == 1
    assert "notes.png: not an image Noru can read (PNG, JPEG or WebP)" in done.stderr
    assert "cut.png: the image is damaged: " in done.stderr
    assert "Error" not in done.stderr  # no exception class names


def test_an_import_time_in_the_future_is_refused(home: Path, tmp_path: Path) -> None:
    done = noru("import", str(a_png(tmp_path / "a.png")), "--at", "2999-01-01", home=home)
    assert done.returncode == 2
    assert "Invalid value for '--at': '2999-01-01' is in the future" in done.stderr


# --- 14. why live requests are refused ---------------------------------------------------


def test_status_says_live_requests_are_refused_because_the_app_is_not_running(
    home: Path, session: MemoryClient
) -> None:
    set_control(home, "allow")
    reason = "Live requests now: refused (the Noru app is not running: "
    assert any(line.startswith(reason) for line in noru("status", home=home).stdout.splitlines())
    text = session.call("get_status")["result"]["content"][0]["text"]
    assert any(line.startswith(reason) for line in text.splitlines())


# --- the seam ----------------------------------------------------------------------------


def test_a_damaged_history_is_a_message_for_every_reading_command(home: Path) -> None:
    (home / "noru.sqlite3").write_bytes(b"this is not a database" * 100)
    for command in (["list"], ["search", "x"], ["show", "--index", "1"], ["note", "x", "y"]):
        if command[0] == "note":
            command = ["note", "capture_2026-08-12_141502", "y"]
        done = noru(*command, home=home)
        assert done.returncode == 1, command
        assert "(run `noru doctor`)" in done.stderr, (command, done.stderr)
    assert (home / "noru.sqlite3").read_bytes() == b"this is not a database" * 100


def test_status_says_a_config_problem_once(home: Path) -> None:
    (home / "config.toml").write_text("max_egde = 900\n")
    done = noru("status", home=home)
    assert (done.stdout + done.stderr).count("max_egde") == 1


# --- values out of any range ---------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--since", "999999d"],
        ["list", "--since", "99999999999d"],
        ["list", "--before", "9999-12-31T23:59:59-05:00"],
        ["search", "x", "--since", "999999999w"],
    ],
)
def test_a_time_out_of_range_is_a_usage_error_not_a_crash(home: Path, args: list[str]) -> None:
    seed(home)
    done = noru(*args, home=home)
    assert done.returncode == 2 and "is out of range" in done.stderr


def test_numbers_out_of_range_are_refused_or_match_nothing(home: Path) -> None:
    seed(home)
    index = noru("show", "--index", "99999999999999999999", home=home)
    assert index.returncode == 2 and "--index" in index.stderr
    display = noru("list", "--display", "99999999999999999999999", home=home)
    assert display.returncode == 1 and display.stdout.startswith("No capture matches")


def test_an_agent_giving_values_out_of_range_gets_invalid_params_or_no_match(
    home: Path, session: MemoryClient
) -> None:
    seed(home)
    late = session.call("list_captures", {"since": "99999999999d"})
    assert late["error"]["code"] == -32602 and "out of range" in late["error"]["message"]
    far = session.call("list_captures", {"display": "9" * 40})
    assert far["result"]["content"][0]["text"].startswith("Noru no match")


# --- a file whose clock was wrong ----------------------------------------------------------


def test_a_file_modified_in_the_future_is_skipped_with_the_reason(
    home: Path, tmp_path: Path
) -> None:
    picture = a_png(tmp_path / "later.png")
    os.utime(picture, (4_000_000_000, 4_000_000_000))  # in 2096
    done = noru("import", str(picture), home=home)
    assert done.returncode == 1
    assert "its modification time is in the future: give the time with --at" in done.stderr
    assert noru("import", str(picture), "--at", "1h", home=home).returncode == 0


# --- the seam itself ------------------------------------------------------------------------


def test_an_unexpected_failure_is_one_line_naming_it_and_how_to_see_more(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from noru import status
    from noru.cli import main

    def broken(home: Path, **_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(status, "gather", broken)
    result = CliRunner().invoke(main, ["status"])
    assert result.exit_code == 1
    assert "Noru failed unexpectedly (RuntimeError: boom)" in result.output
    assert "NORU_DEBUG=1" in result.output and "Traceback" not in result.output
    monkeypatch.setenv("NORU_DEBUG", "1")
    debug = CliRunner().invoke(main, ["status"])
    assert isinstance(debug.exception, RuntimeError)  # the developer sees where


def test_the_in_process_helper_fails_on_a_crash_but_not_on_a_clear_refusal(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noru import status
    from tests.noru_cli import invoke

    def broken(home: Path, **_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(status, "gather", broken)
    refused = invoke("status")  # the CLI's own words and status 1: no crash
    assert refused.exit_code == 1 and "RuntimeError: boom" in refused.output
    monkeypatch.setenv("NORU_DEBUG", "1")  # now the exception escapes the command
    with pytest.raises(AssertionError, match=r"noru status raised RuntimeError\('boom'\)"):
        invoke("status")
