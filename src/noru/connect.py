"""How each agent client is told to start Noru: its configuration, in its own
format, and where it goes (`noru config CLIENT`).

Each client's file is the one the client itself reads, in the shape its own
docs give (and its own ``mcp add`` command writes): JSON for most, TOML for
Codex. Each snippet names the absolute path of the installed ``noru`` and,
when the person set one, ``NORU_HOME``. ``command_line`` is the client's own
``mcp add`` line, where it has one, which writes the same.

Every snippet here is loaded by the client itself in the client harness
(``tests/clients``): ``claude mcp list``, ``codex mcp list``, ``gemini mcp
list``... show Noru there.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CLIENTS", "Snippet", "snippet"]


@dataclass(frozen=True)
class Snippet:
    """``text``: what goes in the file; ``where``: which file, and how."""

    text: str
    where: str


def _env(home: Path | None) -> dict[str, str]:
    return {"NORU_HOME": str(home)} if home is not None else {}


def _json(value: Any) -> str:
    return json.dumps(value, indent=2)


def _stdio(exe: Path, home: Path | None, *, typed: bool) -> dict[str, Any]:
    server: dict[str, Any] = {"type": "stdio"} if typed else {}
    server["command"] = str(exe)
    server["args"] = ["mcp"]
    if home is not None:
        server["env"] = _env(home)
    return server


def _toml_string(text: str) -> str:
    # A TOML basic string is a JSON string (no control characters left raw).
    return json.dumps(text, ensure_ascii=False)


def _flags(flag: str, home: Path | None) -> str:
    return f" {flag} NORU_HOME={shlex.quote(str(home))}" if home is not None else ""


def _claude_desktop(exe: Path, home: Path | None) -> Snippet:
    return Snippet(
        _json({"mcpServers": {"noru": _stdio(exe, home, typed=False)}}),
        "Merge into Claude Desktop's claude_desktop_config.json (Linux: ~/.config/Claude/, "
        "macOS: ~/Library/Application Support/Claude/), then restart Claude Desktop.",
    )


def _claude_code(exe: Path, home: Path | None) -> Snippet:
    add = f"claude mcp add noru{_flags('-e', home)} -- {shlex.quote(str(exe))} mcp"
    return Snippet(
        _json({"mcpServers": {"noru": _stdio(exe, home, typed=True)}}),
        f"Save as .mcp.json in your project (or merge into an existing one). Alternatively: {add}",
    )


def _cursor(exe: Path, home: Path | None) -> Snippet:
    return Snippet(
        _json({"mcpServers": {"noru": _stdio(exe, home, typed=False)}}),
        "Merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project).",
    )


def _vscode(exe: Path, home: Path | None) -> Snippet:
    return Snippet(
        _json({"servers": {"noru": _stdio(exe, home, typed=True)}}),
        "Save as .vscode/mcp.json in your workspace (or merge into an existing one).",
    )


def _codex(exe: Path, home: Path | None) -> Snippet:
    lines = [
        "[mcp_servers.noru]",
        f"command = {_toml_string(str(exe))}",
        'args = ["mcp"]',
    ]
    if home is not None:
        lines.append(f"env = {{ NORU_HOME = {_toml_string(str(home))} }}")
    add = f"codex mcp add noru{_flags('--env', home)} -- {shlex.quote(str(exe))} mcp"
    return Snippet(
        "\n".join(lines),
        "Add to ~/.codex/config.toml ($CODEX_HOME/config.toml if you set CODEX_HOME). "
        f"Alternatively: {add}",
    )


def _gemini(exe: Path, home: Path | None) -> Snippet:
    server = _stdio(exe, home, typed=False)
    # Every Noru tool only reads, and what it may read is the person's own
    # controls (allow, pause, revoke): trusted, so Gemini CLI does not ask to
    # confirm each look (and `gemini -p` offers the tools at all).
    server["trust"] = True
    add = (
        f"gemini mcp add --scope user --trust{_flags('-e', home)} noru {shlex.quote(str(exe))} mcp"
    )
    return Snippet(
        _json({"mcpServers": {"noru": server}}),
        "Merge into ~/.gemini/settings.json (all projects) or .gemini/settings.json "
        f"(one project). Alternatively: {add}",
    )


def _opencode(exe: Path, home: Path | None) -> Snippet:
    server: dict[str, Any] = {"type": "local", "command": [str(exe), "mcp"], "enabled": True}
    if home is not None:
        server["environment"] = _env(home)
    return Snippet(
        _json({"$schema": "https://opencode.ai/config.json", "mcp": {"noru": server}}),
        "Merge into ~/.config/opencode/opencode.json (all projects) or opencode.json "
        "in your project.",
    )


def _copilot(exe: Path, home: Path | None) -> Snippet:
    server: dict[str, Any] = {"type": "local", **_stdio(exe, home, typed=False), "tools": ["*"]}
    return Snippet(
        _json({"mcpServers": {"noru": server}}),
        "Merge into ~/.copilot/mcp-config.json ($COPILOT_HOME/mcp-config.json if you set "
        "COPILOT_HOME).",
    )


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


def snippet(client: str, *, exe: Path, home: Path | None) -> Snippet:
    """``client``'s configuration that starts ``exe mcp`` (with ``NORU_HOME``
    = ``home`` when the person set one)."""
    return CLIENTS[client](exe, home)
