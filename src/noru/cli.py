"""The `noru` command: a thin click layer over the library.

Heavy modules are imported inside the commands that need them, so that
`noru mcp` starts fast.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from noru import __version__
from noru.paths import ensure_data_dir

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

        run_stdio(_home())
        return
    from noru.mcp.transports.http import parse_listen, run_http

    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--http'") from exc
    sys.exit(run_http(_home(), host=host, port=port))


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


def _parse_at(value: str | None) -> datetime | None:
    if value is None:
        return None
    from noru.times import parse_moment

    try:
        return parse_moment(value, datetime.now(UTC))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--at") from None


@main.command(name="import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--app", help="App the screenshots show (kept as the source app).")
@click.option("--window-title", help="Window title (also gives the workspace hint).")
@click.option("--note", help="A note attached to every imported capture.")
@click.option("--at", "at", help="When they were taken (default: each file's time).")
def import_cmd(
    paths: tuple[Path, ...],
    app: str | None,
    window_title: str | None,
    note: str | None,
    at: str | None,
) -> None:
    """Import existing screenshots (PNG, JPEG, WebP files or folders) into history."""
    from rich.console import Console
    from rich.progress import Progress

    from noru.errors import OcrError
    from noru.importer import ImportOptions, find_images, import_file
    from noru.recognition import open_engine
    from noru.store import Store

    options = ImportOptions(app=app, window_title=window_title, note=note, at=_parse_at(at))
    found = list(find_images(paths))
    try:
        ocr = open_engine(_home())
    except OcrError as exc:
        ocr = None
        click.echo(
            f"Text not recognised now ({exc}): `noru app` reads it at its next start.", err=True
        )
    failed: list[str] = []
    unread: list[str] = []
    imported = 0
    with (
        Store.open(ensure_data_dir()) as store,
        Progress(console=Console(stderr=True), disable=len(found) < 2, transient=True) as progress,
    ):
        task = progress.add_task("Importing", total=len(found))
        for path in found:
            try:
                done = import_file(store, path, options, engine=ocr)
            except ValueError as exc:
                failed.append(f"{path}: {exc}")
            else:
                imported += 1
                if done.unread is not None:
                    unread.append(f"{done.record.id} ({path}): {done.unread}")
                if len(found) == 1:
                    click.echo(done.record.id)
            progress.advance(task)
    if ocr is not None:
        ocr.close()
    click.echo(f"Imported {imported} of {len(found)} file(s).", err=True)
    for line in failed:
        click.echo(f"skipped {line}", err=True)
    for line in unread:  # imported all the same: the app reads them at its next start
        click.echo(f"text not recognised, left for `noru app`: {line}", err=True)
    if failed:
        sys.exit(1)


def _reader() -> Any:
    from noru.store import Reader

    reader = Reader.open(_home())
    if reader.count() == 0:
        reader.close()
        raise click.ClickException("history is empty: take a capture or `noru import` some")
    return reader


@main.command(name="list")
@click.option("--app", help="Only captures from this app (substring, any case).")
@click.option("--workspace", help="Only captures from this workspace.")
@click.option("--since", help="Only captures since 30m, 2h, 1d or a date-time.")
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
def list_cmd(app: str | None, workspace: str | None, since: str | None, limit: int) -> None:
    """List captures in history, newest first."""
    from noru.present import locator_lines
    from noru.store import Filters

    now = datetime.now(UTC)
    filters = Filters(app=app, workspace=workspace, since=_parse_at(since))
    with _reader() as reader:
        rows, _ = reader.list_rows(filters, limit=limit)
        total = reader.count()
    if not rows:
        click.echo(f"No capture matches (filters: {filters.describe()}).")
        return
    click.echo(
        locator_lines(
            rows,
            now=now,
            title=f"{total} capture{'s' if total != 1 else ''} in history.",
            next_cursor=None,
        )
    )


@main.command()
@click.argument("query")
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
def search(query: str, limit: int) -> None:
    """Search the on-screen text, accessibility text and notes of your captures."""
    from noru.present import locator_lines
    from noru.store import Filters

    now = datetime.now(UTC)
    with _reader() as reader:
        hits, _ = reader.search(query, Filters(), now=now, limit=limit)
    if not hits:
        click.echo(f"Nothing found for {query!r}.")
        return
    click.echo(locator_lines(hits, now=now, title=f"Matches for {query!r}:", next_cursor=None))


def _capture_id(value: str) -> str:
    from noru.store.files import check_id

    try:
        return check_id(value)
    except ValueError:
        raise click.BadParameter(
            "a capture id looks like capture_2026-08-12_141502", param_hint="ID"
        ) from None


@main.command()
@click.argument("capture_id", metavar="ID")
def show(capture_id: str) -> None:
    """Show one capture: its facts, text, note, and where its image files are."""
    from noru.contract import capture_result
    from noru.present import Projection, capture_view

    capture_id = _capture_id(capture_id)
    with _reader() as reader:
        record = reader.get(capture_id)
        if record is None:
            raise click.ClickException(f"no capture {capture_id}")
        view = capture_view(reader, record, Projection(text_only=True), max_edge=1568)
        result = capture_result(view, now=datetime.now(UTC), with_sources=True)
        for block in result["content"]:
            click.echo(block["text"])
            click.echo()
        for image in record.images:
            click.echo(f"Image {image.position}: {reader.image_file(image)}")


@main.command()
@click.argument("capture_id", metavar="ID")
@click.argument("text")
def note(capture_id: str, text: str) -> None:
    """Attach a note to a capture (an empty TEXT removes it)."""
    from noru.store import Store

    capture_id = _capture_id(capture_id)
    with Store.open(ensure_data_dir()) as store:
        if not store.set_note(capture_id, text or None):
            raise click.ClickException(f"no capture {capture_id}")
    click.echo("Note saved." if text else "Note removed.")


@main.command()
@click.argument("capture_ids", metavar="ID...", nargs=-1, required=True)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete(capture_ids: tuple[str, ...], yes: bool) -> None:
    """Delete captures: their rows and their image files."""
    from noru.store import Store

    ids = [_capture_id(value) for value in capture_ids]
    if not yes:
        click.confirm(f"Delete {len(ids)} capture(s) and their files?", abort=True)
    missing = []
    with Store.open(ensure_data_dir()) as store:
        for capture_id in ids:
            if not store.delete(capture_id):
                missing.append(capture_id)
    click.echo(f"Deleted {len(ids) - len(missing)} capture(s).")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


@main.command()
def app() -> None:
    """Run the Noru app: captures, the shortcut, OCR, and live requests from agents."""
    from noru.app.server import AlreadyRunning, run_app
    from noru.errors import StoreError
    from noru.paths import ensure_data_dir

    try:
        sys.exit(run_app(ensure_data_dir()))
    except AlreadyRunning as exc:
        raise click.ClickException(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(f"{exc}; run `noru doctor`") from None


def _region(value: str | None) -> tuple[int, int, int, int] | None:
    if value is None:
        return None
    try:
        parts = [int(p) for p in value.split(",")]
    except ValueError:
        parts = []
    if len(parts) != 4 or parts[2] < 1 or parts[3] < 1 or min(parts[:2]) < 0:
        raise click.BadParameter("use X,Y,W,H in screen pixels", param_hint="--region")
    return (parts[0], parts[1], parts[2], parts[3])


@main.command()
@click.option(
    "--window",
    "mode",
    flag_value="window",
    default=True,
    help="The window under the pointer (default, like the shortcut).",
)
@click.option("--display", "display", type=click.IntRange(1, 64), help="Display N (from 1).")
@click.option("--all-displays", "mode", flag_value="all_displays", help="Every display.")
@click.option("--region", help="A screen rectangle X,Y,W,H.")
@click.option("--note", help="A note to keep with the capture.")
def capture(mode: str, display: int | None, region: str | None, note: str | None) -> None:
    """Take a capture now (asks the running app)."""
    from noru import live
    from noru.errors import AppNotRunning, NoruError, Steering

    request = live.Capture(mode=mode, which="pointer", note=note or None)  # type: ignore[arg-type]
    if display is not None:
        request = live.Capture(mode="display", display=display, note=note or None)
    if region is not None:
        request = live.Capture(mode="region", region=_region(region), note=note or None)
    try:
        result = live.LiveClient(_home(), timeout=60).expect(request, live.Captured)
    except AppNotRunning:
        raise click.ClickException("no Noru app is running: start it with `noru app`") from None
    except Steering as exc:
        raise click.ClickException(f"{exc.tag}: {exc.summary}") from None
    except NoruError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(result.id)


@main.command()
def doctor() -> None:
    """Check what works on this machine, and say what to do where it does not."""
    from noru.doctor import run_checks

    checks = run_checks(_home())
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        click.echo(f"{mark} {check.name}: {check.found}")
        if check.fix:
            click.echo(f"     -> {check.fix}")
    if not all(check.ok for check in checks):
        sys.exit(1)


@main.command()
@click.argument("capture_ids", metavar="[ID]...", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every capture in history.")
@click.option("--engine", help="OCR engine (default: config.toml's ocr_engine, else tesseract).")
def reocr(capture_ids: tuple[str, ...], every: bool, engine: str | None) -> None:
    """Run OCR again on captures; the old text stays until the new text is saved."""
    from contextlib import closing

    from rich.console import Console
    from rich.progress import Progress

    from noru.errors import OcrError
    from noru.recognition import open_engine, recognise_and_save
    from noru.store import Store

    if bool(capture_ids) == every:
        raise click.UsageError("name capture ids, or use --all")
    ids = [_capture_id(value) for value in capture_ids]
    try:
        ocr = open_engine(_home(), engine)
    except OcrError as exc:
        raise click.ClickException(str(exc)) from None
    failed = 0
    with (
        closing(ocr),
        Store.open(ensure_data_dir()) as store,
        Progress(console=Console(stderr=True), transient=True) as bar,
    ):
        targets = store.all_ids() if every else ids
        task = bar.add_task(f"OCR ({ocr.name} {ocr.version})", total=len(targets))
        for capture_id in targets:
            try:
                recognise_and_save(store, capture_id, ocr)
            except OcrError as exc:  # nothing was written: the old text is kept
                click.echo(f"{capture_id}: not re-read: {exc}", err=True)
                failed += 1
            bar.advance(task)
    click.echo(f"Re-recognised {len(targets) - failed} of {len(targets)} capture(s).")
    if failed:
        sys.exit(1)


@main.command()
def status() -> None:
    """Show what agents may do now, and why."""
    from noru import status as noru_status

    for line in noru_status.person_lines(noru_status.gather(_home())):
        click.echo(line)
