"""The commands about agents: `noru mcp` (the server clients start), `noru
config` (a client's configuration, or a compositor's binding), `noru token`
(what `noru mcp --http` asks of every request) and `noru log` (what agents
read)."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from noru.cli.base import CaptureId, Moment, checked_home, main, quote
from noru.cli.output import chosen_format, emit, output_options
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

    With --http, serve MCP Streamable HTTP on a loopback address until stopped,
    answering only requests that carry this install's token (`noru token
    show`; made now if there is none yet).
    Read-only: it never changes your history or your access controls.
    """
    if listen is None:
        from noru.mcp.transports.stdio import run_stdio

        if sys.stdin.isatty():  # a person, not a client: say what this waits for
            click.echo(
                "noru mcp: waiting for an MCP client's JSON-RPC on stdin (clients start it"
                " themselves: see `noru config CLIENT`); Ctrl-D ends it.",
                err=True,
            )

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
    from noru.app.key_combination import parse_hotkey

    mods, key = parse_hotkey(hotkey)
    names = [_BINDING_MODS[compositor][m] for m in mods]
    command = f"{quote(str(exe))} capture"
    if os.environ.get("NORU_HOME"):
        command = f"env NORU_HOME={quote(str(data_dir()))} {command}"
    if compositor == "sway":
        return f"bindsym {'+'.join([*names, key])} exec {command}"
    return f"bind = {' '.join(names)}, {key.upper() if len(key) == 1 else key}, exec, {command}"


def http_url(text: str) -> str:
    """The endpoint of a `noru mcp --http`: its URL as printed
    (``http://127.0.0.1:8765/mcp``), or ``[HOST:]PORT`` as given to it.
    ValueError with a message for people."""
    from urllib.parse import urlsplit

    from noru.loopback import is_loopback_name, split_authority

    text = text.strip()
    if "://" not in text:  # as given to `noru mcp --http`
        text = f"http://{'127.0.0.1:' if text.isascii() and text.isdigit() else ''}{text}/mcp"
    parts = urlsplit(text)
    authority = split_authority(parts.netloc) if "@" not in parts.netloc else None
    if parts.scheme != "http" or authority is None or authority[2] is None:
        raise ValueError(
            "expected the URL `noru mcp --http` printed (e.g. http://127.0.0.1:8765/mcp)"
            f" or [HOST:]PORT, got {text!r}"
        )
    host, bracketed, port = authority[0], authority[1], authority[2]
    if not is_loopback_name(host, bracketed=bracketed):
        raise ValueError(f"{host!r} is not loopback: `noru mcp --http` listens on loopback only")
    if not 0 < int(port) <= 65535:
        raise ValueError(f"port {port}: give the port your `noru mcp --http` printed")
    if parts.path != "/mcp" or parts.query or parts.fragment:
        raise ValueError("Noru's endpoint is /mcp (e.g. http://127.0.0.1:8765/mcp)")
    return text


@main.command(name="config")
@click.argument("client", type=click.Choice(sorted(CLIENTS) + sorted(COMPOSITORS)))
@click.option(
    "--http",
    "url",
    metavar="URL",
    help="Reach the `noru mcp --http` you run at URL (or [HOST:]PORT), with the token, "
    "instead of starting `noru mcp` over stdio.",
)
def config_cmd(client: str, url: str | None) -> None:
    """Print the MCP configuration snippet for CLIENT, or for a Wayland
    compositor (sway, hyprland) the binding that runs `noru capture`.

    With --http, the snippet reaches a `noru mcp --http` you run, sending
    this install's token from the NORU_TOKEN environment variable (VS Code
    asks for it instead); the token is made if there is none yet.

    The snippet goes to stdout; where to put it goes to stderr.
    """
    exe = noru_executable()
    if exe is None:
        raise click.ClickException("cannot find the installed `noru` command on PATH")
    if url is not None:
        if client in COMPOSITORS:
            raise click.BadParameter("only for an MCP client", param_hint="'--http'")
        try:
            url = http_url(url)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--http'") from exc
    if client in COMPOSITORS:
        from noru.settings import snapshot

        hotkey = snapshot(data_dir()).config.hotkey
        try:
            click.echo(compositor_binding(client, hotkey, exe))
        except ValueError as exc:
            raise click.ClickException(f"hotkey = {hotkey!r} in config.toml: {exc}") from None
        click.echo(COMPOSITORS[client], err=True)
        return
    # NORU_HOME, when set, expanded as every command expands it.
    home = data_dir() if os.environ.get("NORU_HOME") else None
    try:
        shown = snippet(client, exe=exe, home=home, url=url)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--http'") from exc
    if url is not None:
        from noru import httptoken

        httptoken.ensure(checked_home())  # the snippet names it: it must exist
    click.echo(shown.text)
    click.echo(shown.where, err=True)


@main.group(name="token")
def token_group() -> None:
    """The token `noru mcp --http` asks of every request.

    Only requests that carry it (Authorization: Bearer TOKEN) are answered,
    so another user or a sandboxed app on this machine cannot read your
    history through the loopback port. It lives in the data dir (0600).
    """


@token_group.command(name="show")
def token_show() -> None:
    """Print this install's token (made now if there is none yet)."""
    from noru import httptoken

    click.echo(httptoken.ensure(checked_home()))


@token_group.command(name="rotate")
def token_rotate() -> None:
    """Replace the token: every running `noru mcp --http` refuses the old one
    from its next request and ends the sessions opened with it."""
    from noru import httptoken

    httptoken.rotate(checked_home())
    click.echo(
        "A new token is in place: running `noru mcp --http` servers refuse the old one from"
        " their next request. Give your clients the new one (`noru token show`; set"
        " NORU_TOKEN again) and restart them.",
        err=True,
    )


@main.command(name="log")
@click.option("--since", type=Moment(), help="Only reads since WHEN (30m, 2d, or a date-time).")
@click.option("--client", help="Only this client (its name, any case).")
@click.option(
    "--capture", "capture_id", type=CaptureId(), help="Only reads that served this capture."
)
@output_options
def log_command(
    since: datetime | None, client: str | None, capture_id: str | None, **formats: bool
) -> None:
    """What agents read: every tool call and resource read, newest last; and
    the requests `noru mcp --http` refused for want of the token.

    Each entry as recorded with --json (one array) or --nl (one a line).
    """
    from noru import accesslog
    from noru.times import parse_utc

    fmt = chosen_format(formats)
    chosen: list[dict[str, Any]] = []
    shown = total = 0
    for entry in accesslog.read(data_dir()):
        total += 1
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
        shown += 1
        if fmt is not None:
            chosen.append(entry)
            continue
        refused = accesslog.describe_refused(entry)
        if refused is not None:
            click.echo(f"{entry.get('at')}  {refused}")
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
    if fmt is None and not shown:
        filtered = since is not None or client is not None or capture_id is not None
        if total and filtered:
            click.echo(f"No read matches ({total} in the log).")
        else:
            click.echo("Nothing logged yet: no agent has read anything from Noru.")
    if fmt is not None:
        from dataclasses import fields

        # The entries as recorded: --nl prints what `--json` printed before.
        columns = [f.name for f in fields(accesslog.Entry)] + ["refused"]
        emit(chosen, fmt, columns=columns)
