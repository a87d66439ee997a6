"""How each agent client is told to start Noru: its configuration, in its own
format, and where it goes (`noru config CLIENT`).

Each client's file is the one the client itself reads, in the shape its own
docs give (and its own ``mcp add`` command writes): JSON for most, TOML for
Codex. Each snippet names the absolute path of the installed ``noru`` and,
when the person set one, ``NORU_HOME``. ``command_line`` is the client's own
``mcp add`` line, where it has one, which writes the same.

For a `noru mcp --http` the person runs (``snippet(..., url=URL)``), the
entry names the URL and sends ``Authorization: Bearer`` with the install's
token (``noru.httptoken``) in the client's own way, from the environment
variable ``NORU_TOKEN`` where the client can read one (so the token is
never written into a project's file): Claude Code, Gemini CLI and Copilot
CLI expand ``${NORU_TOKEN}`` in a header, Cursor ``${env:NORU_TOKEN}``,
opencode ``{env:NORU_TOKEN}``, Codex reads ``bearer_token_env_var``; VS
Code asks the person for it once (an ``inputs`` entry with ``password``)
and keeps it in its secret storage. Claude Desktop's file starts servers
over stdio only.

Every snippet here is loaded by the client itself in the client harness
(``tests/clients``): ``claude mcp list``, ``codex mcp list``, ``gemini mcp
list``... show Noru there, and over HTTP each client connects with it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CLIENTS", "HTTP_CLIENTS", "TOKEN_ENV", "Snippet", "snippet"]

TOKEN_ENV = "NORU_TOKEN"
BEARER = "Bearer ${NORU_TOKEN}"  # expanded by the client from its environment


@dataclass(frozen=True)
class Snippet:
    """``text``: what goes in the file; ``where``: which file, and how."""

    text: str
    where: str


def _env(home: Path | None) -> dict[str, str]:
    return {"NORU_HOME": str(home)} if home is not None else {}


def _json(value: Any) -> str:
    return json.dumps(value, indent=2)


# Where each client's file is, and how the snippet goes in it: the same file
# over stdio and over HTTP.
_WHERE = {
    "claude-desktop": "Merge into Claude Desktop's claude_desktop_config.json (Linux: "
    "~/.config/Claude/, macOS: ~/Library/Application Support/Claude/), then restart "
    "Claude Desktop.",
    "claude-code": "Save as .mcp.json in your project (or merge into an existing one).",
    "cursor": "Merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project).",
    "vscode": "Save as .vscode/mcp.json in your workspace (or merge into an existing one).",
    "codex": "Add to ~/.codex/config.toml ($CODEX_HOME/config.toml if you set CODEX_HOME).",
    "gemini": "Merge into ~/.gemini/settings.json (all projects) or .gemini/settings.json "
    "(one project).",
    "opencode": "Merge into ~/.config/opencode/opencode.json (all projects) or opencode.json "
    "in your project.",
    "copilot": "Merge into ~/.copilot/mcp-config.json ($COPILOT_HOME/mcp-config.json if you "
    "set COPILOT_HOME).",
}


def _snippet(client: str, text: str, *, add: str | None = None, then: str | None = None) -> Snippet:
    """``text`` for ``client``'s file, said where it goes; ``add``: the client's
    own command that writes the same; ``then``: the step after, on a line of its own."""
    where = _WHERE[client] + (f" Alternatively: {add}" if add else "")
    return Snippet(text, f"{where}\n{then}" if then else where)


def _servers(server: dict[str, Any], key: str = "mcpServers") -> str:
    """The JSON most clients read: ``server`` as Noru's entry under ``key``."""
    return _json({key: {"noru": server}})


def _stdio(exe: Path, home: Path | None, *, typed: bool) -> dict[str, Any]:
    server: dict[str, Any] = {"type": "stdio"} if typed else {}
    server["command"] = str(exe)
    server["args"] = ["mcp"]
    if home is not None:
        server["env"] = _env(home)
    return server


def _opencode_file(server: dict[str, Any]) -> str:
    return _json({"$schema": "https://opencode.ai/config.json", "mcp": {"noru": server}})


def _toml_string(text: str) -> str:
    # A TOML basic string is a JSON string (no control characters left raw).
    return json.dumps(text, ensure_ascii=False)


def _flags(flag: str, home: Path | None) -> str:
    return f" {flag} NORU_HOME={shlex.quote(str(home))}" if home is not None else ""


def _claude_desktop(exe: Path, home: Path | None) -> Snippet:
    return _snippet("claude-desktop", _servers(_stdio(exe, home, typed=False)))


def _claude_code(exe: Path, home: Path | None) -> Snippet:
    add = f"claude mcp add noru{_flags('-e', home)} -- {shlex.quote(str(exe))} mcp"
    return _snippet("claude-code", _servers(_stdio(exe, home, typed=True)), add=add)


def _cursor(exe: Path, home: Path | None) -> Snippet:
    return _snippet("cursor", _servers(_stdio(exe, home, typed=False)))


def _vscode(exe: Path, home: Path | None) -> Snippet:
    return _snippet("vscode", _servers(_stdio(exe, home, typed=True), "servers"))


def _codex(exe: Path, home: Path | None) -> Snippet:
    lines = [
        "[mcp_servers.noru]",
        f"command = {_toml_string(str(exe))}",
        'args = ["mcp"]',
    ]
    if home is not None:
        lines.append(f"env = {{ NORU_HOME = {_toml_string(str(home))} }}")
    add = f"codex mcp add noru{_flags('--env', home)} -- {shlex.quote(str(exe))} mcp"
    return _snippet("codex", "\n".join(lines), add=add)


def _gemini(exe: Path, home: Path | None) -> Snippet:
    server = _stdio(exe, home, typed=False)
    # Every Noru tool only reads, and what it may read is the person's own
    # controls (allow, pause, revoke): trusted, so Gemini CLI does not ask to
    # confirm each look (and `gemini -p` offers the tools at all).
    server["trust"] = True
    add = (
        f"gemini mcp add --scope user --trust{_flags('-e', home)} noru {shlex.quote(str(exe))} mcp"
    )
    return _snippet("gemini", _servers(server), add=add)


def _opencode(exe: Path, home: Path | None) -> Snippet:
    server: dict[str, Any] = {"type": "local", "command": [str(exe), "mcp"], "enabled": True}
    if home is not None:
        server["environment"] = _env(home)
    return _snippet("opencode", _opencode_file(server))


def _copilot(exe: Path, home: Path | None) -> Snippet:
    server: dict[str, Any] = {"type": "local", **_stdio(exe, home, typed=False), "tools": ["*"]}
    return _snippet("copilot", _servers(server))


CLIENTS: dict[str, Callable[[Path, Path | None], Snippet]] = {
    "claude-desktop": _claude_desktop,
    "claude-code": _claude_code,
    "cursor": _cursor,
    "vscode": _vscode,
    "codex": _codex,
    "gemini": _gemini,
    "opencode": _opencode,
    "copilot": _copilot,
}


# --- Streamable HTTP: a `noru mcp --http` the person runs -------------------------


def _show_command(exe: Path, home: Path | None) -> str:
    """The person's command that prints the token."""
    show = f"{shlex.quote(str(exe))} token show"
    return f"NORU_HOME={shlex.quote(str(home))} {show}" if home is not None else show


def _step(show: str, client: str = "the client") -> str:
    """How the person gives a client the token: the variable, set where it starts."""
    return (
        f'Then, where {client} starts (e.g. in ~/.profile): export {TOKEN_ENV}="$({show})";'
        f" after `noru token rotate`, set it again and restart {client}."
    )


def _http_claude_code(url: str, show: str) -> Snippet:
    server = {"type": "http", "url": url, "headers": {"Authorization": BEARER}}
    add = (
        f"claude mcp add --transport http noru {shlex.quote(url)}"
        f" --header {shlex.quote('Authorization: ' + BEARER)}"
    )
    return _snippet("claude-code", _servers(server), add=add, then=_step(show))


def _http_codex(url: str, show: str) -> Snippet:
    lines = [
        "[mcp_servers.noru]",
        f"url = {_toml_string(url)}",
        f'bearer_token_env_var = "{TOKEN_ENV}"',
    ]
    add = f"codex mcp add noru --url {shlex.quote(url)} --bearer-token-env-var {TOKEN_ENV}"
    return _snippet("codex", "\n".join(lines), add=add, then=_step(show))


def _http_gemini(url: str, show: str) -> Snippet:
    # The shape `gemini mcp add --transport http` writes; trusted as over stdio.
    server = {"url": url, "type": "http", "headers": {"Authorization": BEARER}, "trust": True}
    add = (
        "gemini mcp add --scope user --trust --transport http"
        f" --header {shlex.quote('Authorization: ' + BEARER)} noru {shlex.quote(url)}"
    )
    return _snippet("gemini", _servers(server), add=add, then=_step(show))


def _http_opencode(url: str, show: str) -> Snippet:
    server = {
        "type": "remote",
        "url": url,
        "enabled": True,
        "headers": {"Authorization": f"Bearer {{env:{TOKEN_ENV}}}"},
    }
    return _snippet("opencode", _opencode_file(server), then=_step(show))


def _http_copilot(url: str, show: str) -> Snippet:
    server = {"type": "http", "url": url, "headers": {"Authorization": BEARER}, "tools": ["*"]}
    return _snippet("copilot", _servers(server), then=_step(show))


def _http_cursor(url: str, show: str) -> Snippet:
    server = {"url": url, "headers": {"Authorization": f"Bearer ${{env:{TOKEN_ENV}}}"}}
    return _snippet("cursor", _servers(server), then=_step(show, "Cursor"))


def _http_vscode(url: str, show: str) -> Snippet:
    token_input = {
        "type": "promptString",
        "id": "noru-token",
        "description": "Noru token (`noru token show`)",
        "password": True,
    }
    server = {
        "type": "http",
        "url": url,
        "headers": {"Authorization": "Bearer ${input:noru-token}"},
    }
    return Snippet(
        _json({"inputs": [token_input], "servers": {"noru": server}}),
        f"{_WHERE['vscode']} VS Code asks for the token when it first starts the server: "
        f"paste what `{show}` prints; it keeps it in its secret storage, not in the file.",
    )


HTTP_CLIENTS: dict[str, Callable[[str, str], Snippet]] = {
    "claude-code": _http_claude_code,
    "cursor": _http_cursor,
    "vscode": _http_vscode,
    "codex": _http_codex,
    "gemini": _http_gemini,
    "opencode": _http_opencode,
    "copilot": _http_copilot,
}


def snippet(client: str, *, exe: Path, home: Path | None, url: str | None = None) -> Snippet:
    """``client``'s configuration that starts ``exe mcp`` (with ``NORU_HOME``
    = ``home`` when the person set one); with ``url``, the one that reaches
    the person's `noru mcp --http` there with the token. ``ValueError`` for a
    client that cannot reach a URL from its file."""
    if url is None:
        return CLIENTS[client](exe, home)
    if client not in HTTP_CLIENTS:
        raise ValueError(
            f"{client}'s configuration file starts servers over stdio only; "
            f"use `noru config {client}` without --http"
        )
    return HTTP_CLIENTS[client](url, _show_command(exe, home))
