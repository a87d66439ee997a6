"""The `noru` command: version, help, client snippets, access commands."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from noru import __version__
from noru.cli import CLIENTS, main
from tests.wire import noru_command


def noru(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*noru_command(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


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
    snippet = json.loads(done.stdout)
    servers = snippet["servers" if client == "vscode" else "mcpServers"]
    server = servers["noru"]
    exe = Path(server["command"])
    assert exe.is_absolute() and exe.is_file() and os.access(exe, os.X_OK)
    assert server["args"] == ["mcp"]
    assert server["env"] == {"NORU_HOME": str(home)}
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
    runner = CliRunner()
    assert "Authorized for live requests: no" in runner.invoke(main, ["status"]).output
    assert runner.invoke(main, ["allow"]).exit_code == 0
    assert "Authorized for live requests: yes" in runner.invoke(main, ["status"]).output
    runner.invoke(main, ["pause"])
    assert "Paused: yes" in runner.invoke(main, ["status"]).output
    runner.invoke(main, ["resume"])
    assert "Paused: no" in runner.invoke(main, ["status"]).output
    runner.invoke(main, ["revoke"])
    out = runner.invoke(main, ["status"]).output
    assert "History revoked: yes" in out and "Authorized for live requests: no" in out
    mode = stat.S_IMODE((home / "access.json").stat().st_mode)
    assert mode == 0o600


def test_a_damaged_access_file_fails_closed_and_status_says_so(home: Path) -> None:
    (home / "access.json").write_text("{ this is not json")
    out = CliRunner().invoke(main, ["status"]).output
    assert "History revoked: no" not in out
    assert "damaged" in out and "treated as revoked" in out
    assert CliRunner().invoke(main, ["allow"]).exit_code == 0
    assert "treated as revoked" not in CliRunner().invoke(main, ["status"]).output
