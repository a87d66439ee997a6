"""The `noru` command: a thin click layer over the library.

Heavy modules are imported inside the commands that need them, so that
`noru mcp` starts fast.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from noru import __version__

__all__ = ["main"]

CLIENTS = {
    "claude-desktop": (
        "mcpServers",
        False,
        "Merge into Claude Desktop's claude_desktop_config.json "
        "(Linux: ~/.config/Claude/, macOS: ~/Library/Application Support/Claude/), "
        "then restart Claude Desktop.",
    ),
    "claude-code": (
        "mcpServers",
        True,
        "Save as .mcp.json in your project (or merge into an existing one). "
        "Alternatively: claude mcp add noru -- {exe} mcp",
    ),
    "cursor": (
        "mcpServers",
        False,
        "Merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project).",
    ),
    "vscode": (
        "servers",
        True,
        "Save as .vscode/mcp.json in your workspace (or merge into an existing one).",
    ),
}


def noru_executable() -> Path | None:
    """The absolute path of the installed `noru` command, if there is one."""
    beside = Path(sys.executable).parent / "noru"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside.absolute()
    found = shutil.which("noru")
    return Path(found).absolute() if found else None


def client_config(client: str, exe: Path) -> dict[str, Any]:
    key, typed, _ = CLIENTS[client]
    server: dict[str, Any] = {}
    if typed:
        server["type"] = "stdio"
    server["command"] = str(exe)
    server["args"] = ["mcp"]
    if os.environ.get("NORU_HOME"):
        server["env"] = {"NORU_HOME": str(Path(os.environ["NORU_HOME"]).absolute())}
    return {key: {"noru": server}}


def _home() -> Path:
    from noru.paths import data_dir

    return data_dir()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="noru")
def main() -> None:
    """Noru: let AI agents see what is on your screen, only as far as you allow.

    Captures are kept in a local history; agents read them through `noru mcp`.
    Data lives in $NORU_HOME, else your user data dir.
    """


@main.command()
def mcp() -> None:
    """Serve MCP on stdin/stdout for an agent (what MCP clients start).

    Read-only: it never changes your history or your access controls.
    """
    from noru.mcp.transports.stdio import run_stdio

    run_stdio(_home())


@main.command(name="config")
@click.argument("client", type=click.Choice(sorted(CLIENTS)))
def config_cmd(client: str) -> None:
    """Print the MCP configuration snippet for CLIENT.

    The JSON goes to stdout; where to put it goes to stderr.
    """
    exe = noru_executable()
    if exe is None:
        raise click.ClickException("cannot find the installed `noru` command on PATH")
    click.echo(json.dumps(client_config(client, exe), indent=2))
    click.echo(CLIENTS[client][2].format(exe=exe), err=True)


def _access_command(command: str, done: str) -> None:
    from noru.access import set_control
    from noru.paths import ensure_data_dir

    set_control(ensure_data_dir(), command)
    click.echo(done)


@main.command()
def allow() -> None:
    """Allow agent observations (live requests); also lifts a revoke."""
    _access_command("allow", "Agent observations allowed. History is readable.")


@main.command()
def pause() -> None:
    """Pause agent perception: live requests stop, history stays readable."""
    _access_command("pause", "Agent perception paused. History remains readable.")


@main.command()
def resume() -> None:
    """Resume agent perception after a pause."""
    _access_command("resume", "Agent perception resumed.")


@main.command()
def revoke() -> None:
    """Revoke agent access: no live requests and no history reads. Files are kept."""
    _access_command(
        "revoke", "Agent access revoked. Stored captures are kept; `noru allow` restores."
    )


@main.command()
def status() -> None:
    """Show what agents may do now, and why."""
    from datetime import UTC, datetime

    from noru.access import load
    from noru.mcp.tools import ToolContext
    from noru.mcp.tools.status import status_lines

    home = _home()
    for line in status_lines(ToolContext(home=home, now=lambda: datetime.now(UTC))):
        click.echo(line)
    state = load(home)
    if state.damaged:
        click.echo(
            f"Warning: {state.damaged}; treated as revoked. "
            "Run `noru allow` or `noru revoke` to rewrite it."
        )
    click.echo(f"Data dir: {home}")
