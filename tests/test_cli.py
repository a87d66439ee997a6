"""The `noru` command: version, help, client snippets, access commands, retention."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest

from noru import __version__
from noru.connect import CLIENTS
from tests.noru_cli import invoke, noru, noru_command


def test_version_prints_the_package_version() -> None:
    done = noru("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"noru, version {__version__}"


def test_help_lists_the_commands() -> None:
    done = noru("--help")
    assert done.returncode == 0
    for command in ("mcp", "config", "allow", "pause", "resume", "revoke", "status"):
        assert f"  {command} " in done.stdout


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_each_client_snippet_parses_and_names_an_existing_executable(
    client: str, home: Path
) -> None:
    done = noru("config", client)
    assert done.returncode == 0, done.stderr
    if client == "codex":
        server = tomllib.loads(done.stdout)["mcp_servers"]["noru"]
    else:
        snippet = json.loads(done.stdout)
        key = {"vscode": "servers", "opencode": "mcp"}.get(client, "mcpServers")
        server = snippet[key]["noru"]
    if client == "opencode":  # one command line, its own name for the environment
        command, *args = server["command"]
        env = server["environment"]
    else:
        command, args, env = server["command"], server["args"], server["env"]
    exe = Path(command)
    assert exe.is_absolute() and exe.is_file() and os.access(exe, os.X_OK)
    assert args == ["mcp"]
    assert env == {"NORU_HOME": str(home)}
    assert done.stderr.strip()  # where to put it


def test_the_snippet_command_really_serves_mcp(home: Path) -> None:
    server = json.loads(noru("config", "claude-desktop").stdout)["mcpServers"]["noru"]
    done = subprocess.run(
        [server["command"], *server["args"]],
        input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        capture_output=True,
        timeout=60,
        env={**os.environ, **server["env"]},
    )
    assert json.loads(done.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_an_unknown_client_is_refused_with_the_choices() -> None:
    done = noru("config", "emacs")
    assert done.returncode != 0
    assert "claude-desktop" in done.stderr


def test_access_commands_change_what_status_reports(home: Path) -> None:
    assert "Authorized for live requests: no" in invoke("status").output
    assert invoke("allow").exit_code == 0
    assert "Authorized for live requests: yes" in invoke("status").output
    invoke("pause")
    assert "Paused: yes" in invoke("status").output
    invoke("resume")
    assert "Paused: no" in invoke("status").output
    invoke("revoke")
    out = invoke("status").output
    assert "History revoked: yes" in out and "Authorized for live requests: no" in out
    mode = stat.S_IMODE((home / "access.json").stat().st_mode)
    assert mode == 0o600


def test_a_damaged_access_file_fails_closed_and_status_says_so(home: Path) -> None:
    (home / "access.json").write_text("{ this is not json")
    out = invoke("status").output
    assert "History revoked: no" not in out
    assert "damaged" in out and "treated as revoked" in out
    assert invoke("allow").exit_code == 0
    assert "treated as revoked" not in invoke("status").output


def test_retention_shows_the_defaults_then_what_it_set_in_config_toml(home: Path) -> None:
    shown = invoke("retention")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].split()[:3] == ["keep_days", "0", "(default)"]
    assert lines[1].split()[:4] == ["max_disk", "20.0", "GB", "(default)"]
    assert lines[2].split()[:4] == ["min_free", "1.0", "GB", "(default)"]
    assert "noru prune --dry-run" in shown.output
    assert not (home / "config.toml").exists()  # showing writes nothing

    done = invoke("retention", "--keep-days", "30", "--max-disk", "5 gb")
    assert done.exit_code == 0, done.output
    assert (home / "config.toml").read_text() == 'keep_days = 30\nmax_disk = "5GB"\n'
    lines = done.output.splitlines()
    assert lines[0] == f"Saved in {home / 'config.toml'}:"
    assert lines[1].split()[:4] == ["keep_days", "30", "days", "(config.toml)"]
    assert lines[2].split()[:4] == ["max_disk", "5.0", "GB", "(config.toml)"]
    assert lines[3].split()[:4] == ["min_free", "1.0", "GB", "(default)"]
    assert "`noru prune` applies" in done.output and "without a restart" in done.output

    again = invoke("retention", "--min-free", "0")
    assert again.exit_code == 0, again.output
    assert (home / "config.toml").read_text() == (
        'keep_days = 30\nmax_disk = "5GB"\nmin_free = "0"\n'
    )
    shown = invoke("retention").output.splitlines()
    assert [line.split()[:2] for line in shown[:3]] == [
        ["keep_days", "30"],
        ["max_disk", "5.0"],
        ["min_free", "0"],
    ]
    assert all("(config.toml)" in line for line in shown[:3])


def test_prune_uses_what_retention_set(home: Path) -> None:
    invoke("retention", "--keep-days", "2", "--max-disk", "300MB")
    done = invoke("prune", "--dry-run")
    assert done.exit_code == 0, done.output
    assert "budget 300 MB; 2 days;" in done.output


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["--max-disk", "big"], "--max-disk", "not a size: 'big'"),
        (["--keep-days", "soon"], "--keep-days", "use a number of days (0: no age limit)"),
        (["--keep-days", "3", "--min-free", "-1"], "--min-free", "not a size: '-1'"),
    ],
)
def test_retention_refuses_a_bad_value_in_the_parsers_words_and_writes_nothing(
    home: Path, args: list[str], option: str, words: str
) -> None:
    original = b"# mine\nkeep_days = 1\n"
    (home / "config.toml").write_bytes(original)
    done = invoke("retention", *args)
    assert done.exit_code == 2
    assert f"Invalid value for '{option}': {words}" in done.output
    assert (home / "config.toml").read_bytes() == original


def test_retention_refuses_to_touch_a_config_that_does_not_parse(home: Path) -> None:
    original = b'hotkey = "f9"\nmax_disk = [\n'
    (home / "config.toml").write_bytes(original)
    done = noru("retention", "--max-disk", "5GB", home=home)
    assert done.returncode == 1
    assert f"Error: {home / 'config.toml'} does not parse (" in done.stderr
    assert "Traceback" not in done.stderr
    assert (home / "config.toml").read_bytes() == original


def test_the_readme_s_claude_code_line_is_what_noru_config_prints() -> None:
    """The line the client harness runs (tests/clients) is the README's own."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    shown = re.search(r"`(claude mcp add noru -- (\S+) mcp)`", readme)
    assert shown is not None
    env = {k: v for k, v in os.environ.items() if k != "NORU_HOME"}
    done = subprocess.run(
        [*noru_command(), "config", "claude-code"], capture_output=True, text=True, env=env
    )
    printed = done.stderr.split("Alternatively: ", 1)[1].strip()
    exe = json.loads(done.stdout)["mcpServers"]["noru"]["command"]
    assert printed == shown.group(1).replace(shown.group(2), exe)
