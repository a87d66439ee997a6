"""The commands about agents: `noru mcp` (the server clients start), `noru
config` (a client's configuration, or a compositor's binding) and `noru log`
(what agents read)."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path

import click

from noru.cli.base import CaptureId, Moment, main, quote
from noru.connect import CLIENTS, snippet
from noru.paths import data_dir, noru_executable

# Wayland compositors: no global key grab there, so the compositor's own
# binding runs `noru capture`. Where to put the line.
COMPOSITORS = {
    "sway": "Add it to ~/.config/sway/config, then reload sway (swaymsg reload).",
    "hyprland": "Add it to ~/.config/hypr/hyprland.conf (Hyprland reloads it when saved).",
}
_BINDING_MODS = {
    "sway": {"ControlMask": "Ctrl", "Mod1Mask": "Mod1", "ShiftMask": "Shift", "Mod4Mask": "Mod4"},
    "hyprland": {
        "ControlMask": "CTRL",
        "Mod1Mask": "ALT",
        "ShiftMask": "SHIFT",
        "Mod4Mask": "SUPER",
    },
}


@main.command()
@click.option(
    "--http",
    "listen",
    metavar="[HOST:]PORT",
    help="Serve MCP Streamable HTTP at http://HOST:PORT/mcp instead of stdio. "
    "HOST must be loopback (default 127.0.0.1); PORT 0 picks a free port.",
)
def mcp(listen: str | None) -> None:
    """Serve MCP on stdin/stdout for an agent (what MCP clients start).

    With --http, serve MCP Streamable HTTP on a loopback address until stopped.
    Read-only: it never changes your history or your access controls.
    """
    if listen is None:
        from noru.mcp.transports.stdio import run_stdio

        run_stdio(data_dir())
        return
    from noru.mcp.transports.http import parse_listen, run_http

    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--http'") from exc
    sys.exit(run_http(data_dir(), host=host, port=port))


def compositor_binding(compositor: str, hotkey: str, exe: Path) -> str:
    """The line that makes ``compositor`` run `noru capture` on ``hotkey``."""
    from noru.app.hotkey import parse_hotkey

    mods, key = parse_hotkey(hotkey)
    names = [_BINDING_MODS[compositor][m] for m in mods]
    command = f"{quote(str(exe))} capture"
    if os.environ.get("NORU_HOME"):
        command = f"env NORU_HOME={quote(str(data_dir()))} {command}"
    if compositor == "sway":
        return f"bindsym {'+'.join([*names, key])} exec {command}"
    return f"bind = {' '.join(names)}, {key.upper() if len(key) == 1 else key}, exec, {command}"


@main.command(name="config")
@click.argument("client", type=click.Choice(sorted(CLIENTS) + sorted(COMPOSITORS)))
def config_cmd(client: str) -> None:
    """Print the MCP configuration snippet for CLIENT, or for a Wayland
    compositor (sway, hyprland) the binding that runs `noru capture`.

    The snippet goes to stdout; where to put it goes to stderr.
    """
    exe = noru_executable()
    if exe is None:
        raise click.ClickException("cannot find the installed `noru` command on PATH")
    if client in COMPOSITORS:
        from noru.config import load_config

        hotkey = load_config(data_dir()).hotkey
        try:
            click.echo(compositor_binding(client, hotkey, exe))
        except ValueError as exc:
            raise click.ClickException(f"hotkey = {hotkey!r} in config.toml: {exc}") from None
        click.echo(COMPOSITORS[client], err=True)
        return
    # NORU_HOME, when set, expanded as every command expands it.
    home = data_dir() if os.environ.get("NORU_HOME") else None
    shown = snippet(client, exe=exe, home=home)
    click.echo(shown.text)
    click.echo(shown.where, err=True)


@main.command(name="log")
@click.option("--since", type=Moment(), help="Only reads since WHEN (30m, 2d, or a date-time).")
@click.option("--client", help="Only this client (its name, any case).")
@click.option(
    "--capture", "capture_id", type=CaptureId(), help="Only reads that served this capture."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line, as recorded.")
def log_command(
    since: datetime | None, client: str | None, capture_id: str | None, as_json: bool
) -> None:
    """What agents read: every tool call and resource read, newest last."""
    import json

    from noru import accesslog
    from noru.times import parse_utc

    for entry in accesslog.read(data_dir()):
        try:
            at = parse_utc(str(entry.get("at")))
        except ValueError:
            continue
        if since is not None and at < since:
            continue
        if client is not None and str(entry.get("client") or "").casefold() != client.casefold():
            continue
        served = [c for c in entry.get("captures") or () if isinstance(c, dict)]
        if capture_id is not None and not any(c.get("id") == capture_id for c in served):
            continue
        if as_json:
            click.echo(json.dumps(entry, ensure_ascii=False))
            continue
        who = " ".join(str(p) for p in (entry.get("client"), entry.get("client_version")) if p)
        what = entry.get("target") or entry.get("method")
        args = " ".join(f"{k}={v}" for k, v in (entry.get("arguments") or {}).items())
        caps = ", ".join(
            f"{c.get('id')} ({c.get('how')}"
            + (f"; redacted {c['redacted']}" if c.get("redacted") else "")
            + ")"
            for c in served
        )
        line = f"{entry.get('at')}  {who or 'unknown client'} ({entry.get('transport')})  {what}"
        line += f" {args}" if args else ""
        line += f"  -> {entry.get('outcome')}"
        if entry.get("shape") == "content":
            line += " (content shape)"
        line += f": {caps}" if caps else ""
        click.echo(f"{line}  [{entry.get('bytes')} bytes]")
