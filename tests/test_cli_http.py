"""`noru config CLIENT --http URL`: each client's entry for the person's own
`noru mcp --http`, sending the token in the client's own way and never
holding it. (The real clients load these in tests/clients.)"""

from __future__ import annotations

import json
import shlex
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from noru import httptoken
from noru.connect import CLIENTS, HTTP_CLIENTS
from tests.noru_cli import noru

URL = "http://127.0.0.1:8765/mcp"

# Where each client's file keeps the server, and how it writes the header.
HEADER = {
    "claude-code": "Bearer ${NORU_TOKEN}",
    "gemini": "Bearer ${NORU_TOKEN}",
    "copilot": "Bearer ${NORU_TOKEN}",
    "cursor": "Bearer ${env:NORU_TOKEN}",
    "opencode": "Bearer {env:NORU_TOKEN}",
    "vscode": "Bearer ${input:noru-token}",
}


def server_entry(client: str, text: str) -> dict[str, Any]:
    if client == "codex":
        entry: dict[str, Any] = tomllib.loads(text)["mcp_servers"]["noru"]
        return entry
    key = {"vscode": "servers", "opencode": "mcp"}.get(client, "mcpServers")
    entry = json.loads(text)[key]["noru"]
    return entry


def test_every_client_but_claude_desktop_has_an_http_snippet() -> None:
    assert set(HTTP_CLIENTS) == set(CLIENTS) - {"claude-desktop"}


@pytest.mark.parametrize("client", sorted(HTTP_CLIENTS))
def test_each_http_snippet_names_the_url_and_the_token_s_variable_never_the_token(
    client: str, home: Path
) -> None:
    done = noru("config", client, "--http", URL)
    assert done.returncode == 0, done.stderr
    entry = server_entry(client, done.stdout)
    assert entry["url"] == URL
    assert "command" not in entry
    if client == "codex":
        assert entry["bearer_token_env_var"] == "NORU_TOKEN"
    else:
        assert entry["headers"] == {"Authorization": HEADER[client]}
    # The token exists now (the snippet names it) and is in neither stream.
    token = httptoken.load(home).value
    assert token is not None
    assert stat.S_IMODE((home / "http-token").stat().st_mode) == 0o600
    assert token not in done.stdout and token not in done.stderr
    # Where it goes, and how the person gives the client the token.
    if client == "vscode":
        assert "secret storage" in done.stderr
    else:
        assert 'export NORU_TOKEN="$(NORU_HOME=' in done.stderr
        assert f"{home}" in done.stderr and "token show)" in done.stderr


def test_vs_code_asks_for_the_token_as_a_password() -> None:
    done = noru("config", "vscode", "--http", URL)
    (asked,) = json.loads(done.stdout)["inputs"]
    assert asked == {
        "type": "promptString",
        "id": "noru-token",
        "description": "Noru token (`noru token show`)",
        "password": True,
    }


@pytest.mark.parametrize(
    ("client", "words"),
    [
        (
            "claude-code",
            ["claude", "mcp", "add", "--transport", "http", "noru", URL,
             "--header", "Authorization: Bearer ${NORU_TOKEN}"],
        ),
        ("codex", ["codex", "mcp", "add", "noru", "--url", URL,
                   "--bearer-token-env-var", "NORU_TOKEN"]),
        (
            "gemini",
            ["gemini", "mcp", "add", "--scope", "user", "--trust", "--transport", "http",
             "--header", "Authorization: Bearer ${NORU_TOKEN}", "noru", URL],
        ),
    ],
)  # fmt: skip
def test_the_mcp_add_lines_keep_the_variable_for_the_client_to_expand(
    client: str, words: list[str]
) -> None:
    done = noru("config", client, "--http", URL)
    line = done.stderr.split("Alternatively: ", 1)[1].splitlines()[0]
    # The shell passes ${NORU_TOKEN} on as written: the client expands it.
    assert shlex.split(line) == words


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("8765", URL),
        ("127.0.0.1:8765", URL),
        ("localhost:8765", "http://localhost:8765/mcp"),
        ("[::1]:8765", "http://[::1]:8765/mcp"),
        (URL, URL),
    ],
)
def test_the_url_may_be_given_as_noru_mcp_http_was(given: str, url: str) -> None:
    done = noru("config", "copilot", "--http", given)
    assert done.returncode == 0, done.stderr
    assert server_entry("copilot", done.stdout)["url"] == url


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("0.0.0.0:8765", "is not loopback"),
        ("http://example.com:8765/mcp", "is not loopback"),
        ("https://127.0.0.1:8765/mcp", "expected the URL"),
        ("http://127.0.0.1/mcp", "expected the URL"),
        ("http://user@127.0.0.1:8765/mcp", "expected the URL"),
        ("0", "give the port your `noru mcp --http` printed"),
        ("http://127.0.0.1:8765/", "Noru's endpoint is /mcp"),
        ("http://127.0.0.1:8765/mcp?x=1", "Noru's endpoint is /mcp"),
    ],
)
def test_a_url_noru_does_not_listen_on_is_refused(given: str, said: str, home: Path) -> None:
    done = noru("config", "claude-code", "--http", given)
    assert done.returncode == 2
    assert "'--http'" in done.stderr and said in done.stderr
    assert done.stdout == "" and not (home / "http-token").exists()


@pytest.mark.parametrize("client", ["claude-desktop", "sway"])
def test_a_client_whose_file_cannot_reach_a_url_is_refused(client: str, home: Path) -> None:
    done = noru("config", client, "--http", URL)
    assert done.returncode == 2
    assert "'--http'" in done.stderr and done.stdout == ""
    assert not (home / "http-token").exists()


def test_the_stdio_snippet_makes_no_token(home: Path) -> None:
    assert noru("config", "claude-code").returncode == 0
    assert not (home / "http-token").exists()
