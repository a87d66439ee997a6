"""The app and what runs beside it: `noru app`, `capture`, `console`,
`autostart` and `doctor`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from noru.cli.base import checked_home, main
from noru.paths import data_dir, ensure_data_dir, noru_executable

if TYPE_CHECKING:
    from noru.autostart import Via


@main.command()
def app() -> None:
    """Run the Noru app: captures, the shortcut, OCR, and live requests from agents."""
    import os

    from noru.app.server import run_app

    # Started outside a desktop session (ssh, a bare tty), it could never capture.
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise click.ClickException(
            "no display to capture: neither $DISPLAY nor $WAYLAND_DISPLAY is set. Start"
            " `noru app` inside your desktop session (`noru autostart on` does it at login)."
        )

    sys.exit(run_app(ensure_data_dir()))


@main.command()
@click.argument("action", type=click.Choice(["on", "off", "status"]))
@click.option(
    "--systemd",
    is_flag=True,
    help="With on: write the systemd user unit even where the XDG entry would be chosen.",
)
@click.option(
    "--xdg",
    is_flag=True,
    help="With on: write the XDG autostart entry even where systemd runs the session.",
)
def autostart(action: str, systemd: bool, xdg: bool) -> None:
    """Start Noru at login: on, off, or show how it starts (status).

    A systemd user unit where the desktop's session runs under systemd, else an
    XDG autostart entry; an app menu launcher beside it. NORU_HOME, if set, is
    carried into them.
    """
    from noru import autostart as login

    if systemd and xdg:
        raise click.UsageError("--systemd and --xdg: choose one")
    via: Via | None = "systemd" if systemd else "xdg" if xdg else None
    if via is not None and action != "on":
        raise click.UsageError(f"--{via} goes with `noru autostart on` only")
    if action == "status":
        for line in login.report(exe=noru_executable()).lines():
            click.echo(line)
        return
    if action == "off":
        outcome = login.turn_off()
    else:
        exe = noru_executable()
        if exe is None:
            raise click.ClickException("cannot find the installed `noru` command on PATH")
        outcome = login.turn_on(exe=exe, via=via)
    for line in outcome.lines:
        click.echo(line)
    if action == "on":
        for line in login.report(exe=noru_executable()).lines():
            click.echo(f"Now: {line}")
    for problem in outcome.problems:
        click.echo(f"error: {problem}", err=True)
    if outcome.problems:
        sys.exit(1)


def _region(value: str | None) -> tuple[int, int, int, int] | None:
    if value is None:
        return None
    try:
        parts = [int(p) for p in value.split(",")]
    except ValueError:
        parts = []
    if len(parts) != 4 or parts[2] < 1 or parts[3] < 1 or min(parts[:2]) < 0:
        raise click.BadParameter("use X,Y,W,H in screen pixels", param_hint="'--region'")
    return (parts[0], parts[1], parts[2], parts[3])


@main.command()
@click.option(
    "--window", is_flag=True, help="The window under the pointer (default, like the shortcut)."
)
@click.option("--display", "display", type=click.IntRange(1, 64), help="Display N (from 1).")
@click.option("--all-displays", is_flag=True, help="Every display.")
@click.option("--region", help="A screen rectangle X,Y,W,H.")
@click.option("--note", help="A note to keep with the capture.")
def capture(
    window: bool, display: int | None, all_displays: bool, region: str | None, note: str | None
) -> None:
    """Take a capture now (asks the running app)."""
    from noru import appwire
    from noru.edits import note_text
    from noru.errors import AppNotRunning, AppVersionMismatch

    given = {
        "--window": window,
        "--display": display is not None,
        "--all-displays": all_displays,
        "--region": region is not None,
    }
    chosen = [flag for flag, on in given.items() if on]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)}: choose one of {', '.join(given)}")
    note = note_text(note)  # the app applies the same limit
    if display is not None:
        request = appwire.Capture(mode="display", display=display, note=note)
    elif region is not None:
        request = appwire.Capture(mode="region", region=_region(region), note=note)
    else:
        request = appwire.Capture(mode="all_displays" if all_displays else "window", note=note)
    try:
        result = appwire.AppClient(checked_home(), timeout=60).expect(request, appwire.Captured)
    except AppVersionMismatch as exc:
        raise click.ClickException(f"{exc.summary}: restart `noru app`") from None
    except AppNotRunning:
        raise click.ClickException("no Noru app is running: start it with `noru app`") from None
    click.echo(result.id)


@main.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the sign-in link in the browser.")
def console(port: int, open_browser: bool) -> None:
    """Serve the web console on 127.0.0.1: timeline, search, viewer and controls."""
    from noru.console import run_console

    opener = _browser if open_browser else None
    sys.exit(run_console(ensure_data_dir(), port=port, opener=opener))


def _browser(url: str) -> None:
    """Open ``url`` in the person's browser, or say that it could not: the
    link printed above still works, opened by hand."""
    import os
    import webbrowser

    if webbrowser.open(url):
        return
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        why = "this terminal has no $DISPLAY nor $WAYLAND_DISPLAY to show one on"
    else:
        why = "no browser found (set $BROWSER to one)"
    click.echo(f"Could not open a browser: {why}. Open the link above in yours.", err=True)


@main.command()
def doctor() -> None:
    """Check what works on this machine, and say what to do where it does not.

    Each line is ok, WARN (Noru works, with less here, or something deserves
    a look) or FAIL (something it needs is broken); exits 1 only on a FAIL.
    """
    from noru.doctor import run_checks

    checks = run_checks(data_dir())
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    for check in checks:
        click.echo(f"{marks[check.level]} {check.name}: {check.found}")
        if check.fix:
            click.echo(f"     -> {check.fix}")
    if not all(check.ok for check in checks):
        sys.exit(1)
