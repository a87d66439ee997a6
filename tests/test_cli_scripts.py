"""The `noru` command for people and scripts: data on stdout in one format
(--json, --nl, --csv), quiet on a closed pipe, usage errors for flags that
conflict, duplicates refused, counts in words that agree.

The history is a real SQLite store in the test's NORU_HOME (tests/history_data.py);
the access log is written by Noru's own ``accesslog.record``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from noru import accesslog
from noru.cli import main
from tests.history_data import Seeded
from tests.noru_cli import invoke, noru_command


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = invoke(*args, input=input)
    return result.exit_code, result.stdout, result.stderr


def logged(home: Path) -> list[accesslog.Entry]:
    entries = [
        accesslog.Entry(
            at="2026-08-12T14:15:02Z", client="claude-code", client_version="2.0.1",
            transport="stdio", method="tools/call", target="search_history",
            arguments={"query": "build"},
            captures=(accesslog.LoggedCapture("capture_2026-08-12_141502", "listed"),),
            bytes=812, shape="contract",
        ),
        accesslog.Entry(
            at="2026-08-12T14:16:00Z", client="cursor", client_version="1.4",
            transport="http", method="resources/read", target="noru://capture/x",
            outcome="not_authorized",
        ),
    ]  # fmt: skip
    for entry in entries:
        accesslog.record(home, entry)
    return entries


class TestFormatsForScripts:
    def test_list_json_is_one_array_of_the_rows_the_person_sees(self, seeded: Seeded) -> None:
        code, out, _ = run("list", "--json")
        assert code == 0
        rows = json.loads(out)
        assert [r["id"] for r in rows] == [seeded.browser.id, seeded.terminal.id, seeded.editor.id]
        editor = rows[2]
        assert editor == {
            "id": seeded.editor.id,
            "captured_at": seeded.editor.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "origin": "user",
            "images": 1,
            "has_text": True,
            "note": "the failing build",
            "shows": None,  # not recorded: put in the history as a test's data
            "display_index": 1,
            "display_name": "DP-1",
            "app_id": "code",
            "app_name": "Code",
            "window_title": "main.py - repoB - Visual Studio Code",
            "workspace_hint": "repoB",
        }

    def test_list_nl_is_one_object_a_line_and_csv_one_row_a_capture(self, seeded: Seeded) -> None:
        _, out, _ = run("list", "--nl", "--app", "xterm")
        assert [json.loads(line)["id"] for line in out.splitlines()] == [seeded.terminal.id]
        code, out, _ = run("list", "--csv")
        assert code == 0
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [r["id"] for r in rows] == [seeded.browser.id, seeded.terminal.id, seeded.editor.id]
        assert rows[1]["window_title"] == "user@host: ~/src/noru"
        assert rows[0]["app_name"] == "" and rows[0]["has_text"] == "false"

    def test_a_page_of_json_says_how_to_get_the_next_on_stderr(self, seeded: Seeded) -> None:
        code, out, err = run("list", "--json", "--limit", "2")
        assert code == 0 and len(json.loads(out)) == 2
        cursor = err.split("--cursor ", 1)[1].split()[0]
        assert "--json" in err
        _, out, _ = run("list", "--json", "--limit", "2", "--cursor", cursor)
        assert [r["id"] for r in json.loads(out)] == [seeded.editor.id]

    def test_nothing_matching_is_an_empty_array_with_status_1(self, seeded: Seeded) -> None:
        code, out, err = run("list", "--json", "--app", "nothing-like-this")
        assert (code, json.loads(out)) == (1, [])
        assert "No capture matches" in err

    def test_search_json_names_the_layer_and_snippet_matched(self, seeded: Seeded) -> None:
        code, out, _ = run("search", "frobnicate", "--json")
        assert code == 0
        (hit,) = json.loads(out)
        assert hit["id"] == seeded.editor.id
        assert hit["matched_layer"] == "ocr" and "frobnicate" in hit["snippet"]
        assert hit["app_name"] == "Code"

    def test_show_json_holds_the_text_and_files_unredacted(
        self, seeded: Seeded, home: Path
    ) -> None:
        code, out, _ = run("show", seeded.editor.id, "--json")
        assert code == 0
        (shown,) = json.loads(out)
        assert shown["id"] == seeded.editor.id
        assert shown["note"] == "the failing build"
        assert shown["ocr_state"] == "done"
        assert "No module named 'frobnicate'" in shown["ocr_text"]
        (image,) = shown["images"]
        assert (image["width"], image["height"]) == (2560, 1600)
        assert Path(image["file"]).is_file() and Path(image["file"]).is_relative_to(home)
        assert image["window_title"] == "main.py - repoB - Visual Studio Code"
        _, out, _ = run("show", seeded.terminal.id, "--csv")
        (row,) = csv.DictReader(io.StringIO(out))
        assert row["ax_text"] == "pytest -q\n3 passed"
        assert json.loads(row["images"])[0]["display_name"] == "HDMI-1"

    def test_status_json_is_one_object_with_the_person_s_facts(self, seeded: Seeded) -> None:
        code, out, _ = run("status", "--json")
        assert code == 0
        (state,) = json.loads(out)
        assert state["captures"] == 3
        assert state["app_running"] is False
        assert state["live_requests"] == "refused"
        assert state["history"] == "readable"
        assert state["data_dir"]

    def test_log_json_is_one_array_of_the_entries_as_recorded(self, home: Path) -> None:
        logged(home)
        recorded = list(accesslog.read(home))
        code, out, _ = run("log", "--json")
        assert code == 0
        assert json.loads(out) == recorded

    def test_log_nl_prints_what_log_json_printed_before(self, home: Path) -> None:
        """Scripts that read `noru log --json` a line at a time use --nl."""
        logged(home)
        before = [json.dumps(e, ensure_ascii=False) for e in accesslog.read(home)]
        code, out, _ = run("log", "--nl")
        assert code == 0
        assert out.splitlines() == before
        _, out, _ = run("log", "--csv", "--client", "cursor")
        (row,) = csv.DictReader(io.StringIO(out))
        assert row["outcome"] == "not_authorized" and row["captures"] == "[]"

    @pytest.mark.parametrize("command", [["list"], ["search", "x"], ["show"], ["log"], ["status"]])
    def test_two_formats_at_once_are_a_usage_error(self, home: Path, command: list[str]) -> None:
        code, _, err = run(*command, "--json", "--csv")
        assert code == 2
        assert "--json and --csv cannot be used together" in err


class TestAClosedPipe:
    """A reader that goes away ends `noru` as it ends `seq` or `cat`: killed by
    SIGPIPE, silently (status 141 in a shell), never `Error: Broken pipe`."""

    def test_show_into_a_pipe_nobody_reads_ends_quietly(self, seeded: Seeded) -> None:
        read, write = os.pipe()
        os.close(read)  # `| true`: the reader is gone before a byte is written
        try:
            done = subprocess.run(
                [*noru_command(), "show", seeded.editor.id],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(write)
        assert done.stderr == ""
        assert done.returncode == -signal.SIGPIPE

    @pytest.mark.parametrize("form", ["", "--json", "--nl", "--csv"])
    def test_log_into_head_ends_quietly(self, home: Path, form: str) -> None:
        entry = logged(home)[0]
        for _ in range(3000):  # far more than a pipe holds: head leaves before the end
            accesslog.record(home, entry)
        done = subprocess.run(
            ["bash", "-c", f"{' '.join(noru_command())} log {form} | head -2;"
             " echo status ${PIPESTATUS[0]}"],
            capture_output=True,
            text=True,
            timeout=60,
        )  # fmt: skip
        lines = done.stdout.splitlines()
        assert "2026-08-12T14:1" in lines[1]  # an entry (after the header, in CSV)
        assert lines[2] == "status 141"
        assert done.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["capture", "--window", "--display", "1"],
        ["capture", "--all-displays", "--region", "0,0,10,10"],
        ["capture", "--display", "2", "--all-displays"],
        ["autostart", "on", "--systemd", "--xdg"],
    ],
)
def test_flags_that_conflict_are_a_usage_error(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # Were autostart to run, it would write under this test's own home.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, err = run(*args)
    assert code == 2, out + err
    assert "choose one" in err


class TestDuplicates:
    def test_an_exclusion_added_twice_is_refused_with_a_sentence(self, home: Path) -> None:
        assert run("exclude", "add", "--title", "*bank*")[0] == 0
        code, _, err = run("exclude", "add", "--title", "*BANK*")
        assert code == 1
        assert "already excluded: title *BANK* is one of your exclusions" in err
        _, out, _ = run("exclude", "list")
        assert out.count("*bank*") == 1 and "*BANK*" not in out

    def test_an_exclusion_a_built_in_rule_makes_is_refused(self, home: Path) -> None:
        code, _, err = run("exclude", "add", "--app", "keepassxc")
        assert code == 1
        assert "excluded by the built-in rule keepassxc" in err

    def test_a_built_in_rule_is_turned_off_by_its_name_in_any_case(self, home: Path) -> None:
        code, out, err = run("exclude", "remove", "--builtin", "KeePassXC")
        assert code == 0, err
        assert out == "Built-in exclusion keepassxc turned off.\n"
        _, out, _ = run("exclude", "list")
        assert "(built in: keepassxc, off)" in out

    def test_a_redaction_pattern_added_twice_is_refused_with_a_sentence(self, home: Path) -> None:
        assert run("redact", "add", "--pattern", r"ACME-\d{6}", "--kind", "ticket")[0] == 0
        code, _, err = run("redact", "add", "--pattern", r"ACME-\d{6}")
        assert code == 1
        assert r"already redacted: ACME-\d{6} (as [redacted: ticket])" in err
        _, out, _ = run("redact", "list")
        assert out.count(r"pattern ACME-\d{6}") == 1


class TestCountsInWords:
    def test_an_empty_log_says_so(self, home: Path) -> None:
        code, out, _ = run("log")
        assert (code, out) == (0, "Nothing logged yet: no agent has read anything from Noru.\n")
        logged(home)
        code, out, _ = run("log", "--client", "nobody")
        assert (code, out) == (0, "No read matches (2 in the log).\n")

    def test_unkeep_of_a_capture_never_kept_does_not_claim_it_changed(self, seeded: Seeded) -> None:
        code, out, _ = run("unkeep", seeded.editor.id)
        assert code == 0
        assert "No longer kept" not in out
        assert out == f"Not kept, so nothing changed: {seeded.editor.id}.\n"
        assert run("keep", seeded.editor.id)[1] == "Kept forever: 1 capture.\n"
        assert run("keep", seeded.editor.id)[1] == f"Already kept: {seeded.editor.id}.\n"
        assert run("unkeep", seeded.editor.id)[1] == "No longer kept: 1 capture.\n"

    def test_doctor_counts_one_capture_as_one_capture(self, home: Path) -> None:
        from noru.store import NewImage, Store
        from tests.history_data import png

        with Store.open(home) as store:
            store.add_capture([NewImage(png(64, 48), 64, 48)], origin="user")
        _, out, _ = run("doctor")
        assert "history: 1 capture\n" in out

    def test_the_console_asks_to_delete_one_capture_as_one(self) -> None:
        from noru.console.pages import delete_range_page

        one = delete_range_page(since="2026-08-12T14:00", before="2026-08-12T15:00", count=1)
        assert "these 1" not in one and "1 captures" not in one
        assert "Delete it, its text and its files" in one
        two = delete_range_page(since="2026-08-12T14:00", before="2026-08-12T15:00", count=2)
        assert "Delete these 2, their text and their files" in two


@pytest.fixture
def opener(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The chosen seam: an `xdg-open` first on PATH that records its argument
    (a real one would start a viewer or a browser on this machine)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    said = tmp_path / "xdg-open.said"
    script = folder / "xdg-open"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {said}\n')
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}, said


class TestOpen:
    def test_open_hands_the_capture_s_image_file_to_xdg_open(
        self, seeded: Seeded, home: Path, opener: tuple[dict[str, str], Path]
    ) -> None:
        env, said = opener
        done = subprocess.run(
            [*noru_command(), "open", seeded.editor.id],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        (opened,) = said.read_text().splitlines()
        assert Path(opened).is_file() and Path(opened).is_relative_to(home / "images")
        assert done.stdout.strip() == opened

    def test_open_of_a_capture_not_in_history_says_so(self, seeded: Seeded) -> None:
        code, _, err = run("open", "capture_2020-01-01_000000")
        assert code == 1 and "no capture capture_2020-01-01_000000" in err

    def test_open_console_leads_to_the_capture_s_page(
        self, seeded: Seeded, opener: tuple[dict[str, str], Path]
    ) -> None:
        import time
        from http.cookiejar import CookieJar
        from urllib.parse import urlsplit
        from urllib.request import HTTPCookieProcessor, build_opener

        from tests.processes import START_TIMEOUT, stop

        env, said = opener
        console = subprocess.Popen(
            [*noru_command(), "open", "--console", seeded.editor.id],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not said.exists() and console.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            (url,) = said.read_text().splitlines()
            browser = build_opener(HTTPCookieProcessor(CookieJar()))  # follows the redirect
            with browser.open(url, timeout=30) as page:
                assert page.status == 200
                assert urlsplit(page.url).path == f"/capture/{seeded.editor.id}"
                assert "the failing build" in page.read().decode()
        finally:
            stop(console)

    def test_open_console_where_xdg_open_fails_says_so_and_keeps_serving(
        self, seeded: Seeded, tmp_path: Path
    ) -> None:
        import time
        from http.cookiejar import CookieJar
        from urllib.request import HTTPCookieProcessor, build_opener

        from tests.processes import START_TIMEOUT, stop

        # The seam again: an xdg-open that finds nothing to open with.
        folder = tmp_path / "failing-bin"
        folder.mkdir()
        script = folder / "xdg-open"
        script.write_text("#!/bin/sh\nexit 3\n")
        script.chmod(0o755)
        env = {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}
        out, err = tmp_path / "console.out", tmp_path / "console.err"
        with out.open("w") as stdout, err.open("w") as stderr:
            console = subprocess.Popen(
                [*noru_command(), "open", "--console", seeded.editor.id],
                env=env, stdout=stdout, stderr=stderr,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while "could not open" not in err.read_text() and time.monotonic() < deadline:
                assert console.poll() is None, err.read_text()
                time.sleep(0.05)
            said = err.read_text()
            assert "xdg-open could not open" in said and "Traceback" not in said, said
            assert "open the link above in your browser" in said, said
            url = out.read_text().split("open ", 1)[1].split()[0]
            # Still serving: the sign-in link leads to the capture's page.
            browser = build_opener(HTTPCookieProcessor(CookieJar()))
            with browser.open(url, timeout=30) as page:
                assert page.status == 200
                assert "the failing build" in page.read().decode()
        finally:
            stop(console)


class TestDeleteARange:
    def test_a_range_is_counted_confirmed_and_deleted_as_in_the_console(
        self, seeded: Seeded, home: Path
    ) -> None:
        code, out, _ = run("delete", "--since", "1h", input="y\n")
        assert code == 0, out
        assert "2 captures taken from " in out and "Delete them, their text" in out
        assert out.endswith("Deleted 2 captures.\n")
        _, out, _ = run("list", "--json")
        assert [r["id"] for r in json.loads(out)] == [seeded.editor.id]
        assert not any((home / "images").rglob(f"{seeded.terminal.id}*"))

    def test_a_range_declined_deletes_nothing(self, seeded: Seeded) -> None:
        code, out, err = run("delete", "--since", "1h", "--before", "10m", input="n\n")
        assert code == 1
        assert out.endswith("Nothing deleted.\n") and "Aborted" not in out + err
        assert len(json.loads(run("list", "--json")[1])) == 3

    def test_one_capture_in_a_range_is_asked_about_as_one(self, seeded: Seeded) -> None:
        code, out, _ = run("delete", "--since", "1h", "--before", "10m", input="y\n")
        assert code == 0
        assert "1 capture taken from " in out and "Delete it, its text and its file?" in out
        assert out.endswith("Deleted 1 capture.\n")

    def test_ids_and_a_range_together_are_a_usage_error(self, seeded: Seeded) -> None:
        code, _, err = run("delete", seeded.editor.id, "--since", "1h", "--yes")
        assert code == 2 and "not both" in err


def test_app_without_a_display_exits_1_with_a_sentence(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        [*noru_command(), "app"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "no display to capture: neither $DISPLAY nor $WAYLAND_DISPLAY is set" in done.stderr
    assert "Traceback" not in done.stderr


def test_mcp_on_a_terminal_says_in_one_line_what_it_waits_for(home: Path) -> None:
    from tests.processes import read_line, stop

    parent, child = os.openpty()  # stdin a terminal, as when a person types `noru mcp`
    server = subprocess.Popen(
        [*noru_command(), "mcp"], stdin=child, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    os.close(child)
    try:
        assert server.stderr is not None
        hint = read_line(server, server.stderr, "noru mcp's hint")
        assert hint.startswith("noru mcp: waiting for an MCP client's JSON-RPC on stdin")
        assert "noru config CLIENT" in hint and "Ctrl-D" in hint
    finally:
        os.close(parent)
        stop(server)


def test_mcp_from_a_client_says_nothing_on_stderr(home: Path) -> None:
    done = subprocess.run(
        [*noru_command(), "mcp"], input="", capture_output=True, text=True, timeout=60
    )
    assert done.stderr == ""


class TestHelp:
    def test_help_groups_the_commands_by_job_each_with_an_example(self) -> None:
        code, out, _ = run("--help")
        assert code == 0
        for title in ("Your history:", "What agents may do:", "Connect agents:", "Run Noru:"):
            assert f"\n{title}\n" in out
        assert "Other commands" not in out  # every command is in a group
        assert out.count("e.g. noru ") == len(main.commands)  # type: ignore[attr-defined]
        assert "..." not in out.split("Your history:", 1)[1]  # no summary cut short

    def test_every_example_in_help_is_a_command_line_noru_accepts(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import shlex

        import click

        from noru.cli.base import GROUPS

        monkeypatch.setenv("HOME", str(tmp_path))  # the shell expands ~: the folder exists
        (tmp_path / "Pictures" / "Screenshots").mkdir(parents=True)
        named = [name for names in GROUPS.values() for name in names]
        assert sorted(named) == sorted(main.commands)  # type: ignore[attr-defined]
        for examples in GROUPS.values():
            for example in examples.values():
                _, name, *args = [os.path.expanduser(a) for a in shlex.split(example)]
                command = main.commands[name]  # type: ignore[attr-defined]
                if isinstance(command, click.Group):
                    command, args = command.commands[args[0]], args[1:]
                command.make_context(name, args)  # raises on a wrong option or value
