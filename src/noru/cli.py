"""The `noru` command: a thin click layer over the library.

- One seam (``NoruGroup.invoke``) turns every Noru error, and the system's
  own (a full disk, a folder it may not write), into a clear message on
  stderr and exit status 1; usage errors are click's (status 2). No command
  shows a traceback for something the person can fix.
- Shared option decorators give ``list``, ``search`` and ``show`` the same
  filters (``--app``, ``--workspace``, ``--display``, ``--since``,
  ``--before``, ``--origin``), and typed options (``Moment``, ``NonEmpty``)
  name the option a bad value was given to.
- Every command that loads the configuration prints its problems on stderr.

Heavy modules are imported inside the commands that need them, so that
`noru mcp` starts fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from noru import __version__
from noru.errors import NoruError, StoreError
from noru.paths import check_data_dir, data_dir, ensure_data_dir, noru_executable

if TYPE_CHECKING:
    from noru.autostart import Via
    from noru.config import Config
    from noru.exclusions import Rule
    from noru.store import Filters, Reader, Row, SearchHit

__all__ = ["main"]

F = TypeVar("F", bound=Callable[..., Any])

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
        "Alternatively: claude mcp add noru{env} -- {exe} mcp",
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


# --- the seam -------------------------------------------------------------------


def _message(exc: NoruError) -> str:
    from noru.errors import Steering

    if isinstance(exc, Steering):
        # The details carry the platform's own words (which display, how to grant access).
        first = f"{exc.tag}: {exc.summary}" if exc.summary else exc.tag
        return "\n".join([first, *exc.details])
    if isinstance(exc, StoreError):
        return f"{exc} (run `noru doctor`)"
    return str(exc)


class NoruGroup(click.Group):
    """Runs a command; what it raises on purpose becomes a message and status 1.

    Anything else is a bug: it is named in one line, with how to see its
    traceback (``NORU_DEBUG=1``), never dumped on the person.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except NoruError as exc:
            raise click.ClickException(_message(exc)) from None
        except OSError as exc:  # the system's words: a full disk, a folder not ours
            where = f" ({exc.filename})" if exc.filename else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from None
        except Exception as exc:
            if os.environ.get("NORU_DEBUG"):
                raise
            raise click.ClickException(
                f"Noru failed unexpectedly ({type(exc).__name__}: {exc}). This is a bug; "
                "run the command again with NORU_DEBUG=1 to see where, and report it."
            ) from None


# --- typed options ----------------------------------------------------------------


class Moment(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.5 only
    """``30m``, ``2d`` (ago), or an RFC 3339 / ISO date-time; ``past`` refuses the future."""

    name = "WHEN"

    def __init__(self, *, past: bool = False) -> None:
        self.past = past

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, datetime):
            return value
        from noru.times import parse_moment

        now = datetime.now(UTC)
        try:
            moment = parse_moment(str(value), now)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if self.past and moment > now:
            self.fail(f"{value!r} is in the future", param, ctx)
        return moment


class NonEmpty(click.ParamType):  # type: ignore[type-arg]
    """A string with something in it (an empty fact would be shown as a blank)."""

    name = "TEXT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value).strip()
        if not text:
            self.fail("must not be empty", param, ctx)
        return text


class CaptureId(click.ParamType):  # type: ignore[type-arg]
    name = "ID"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from noru.store.files import check_id

        try:
            return check_id(str(value))
        except ValueError:
            self.fail("a capture id looks like capture_2026-08-12_141502", param, ctx)


def filter_options(command: F) -> F:
    """The source and time filters ``list``, ``search`` and ``show`` share."""
    options = [
        click.option("--app", type=NonEmpty(), help="App name or id (substring, any case)."),
        click.option("--workspace", type=NonEmpty(), help="Workspace / project hint (substring)."),
        click.option("--display", type=NonEmpty(), help="Display index (1 = first) or name."),
        click.option("--since", type=Moment(), help="At or after: 30m, 2h, 1d or a date-time."),
        click.option("--before", type=Moment(), help="Before: 30m, 2h, 1d or a date-time."),
        click.option(
            "--origin",
            type=click.Choice(["user", "agent"]),
            help="user: taken by you; agent: an agent's observe_screen.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _filters(options: dict[str, Any]) -> Filters:
    from noru.store import Filters

    since, before = options.get("since"), options.get("before")
    if since is not None and before is not None and since >= before:
        raise click.BadParameter("must be earlier than --before", param_hint="'--since'")
    display = options.get("display")
    return Filters(
        app=options.get("app"),
        workspace=options.get("workspace"),
        display=int(display) if display is not None and display.isdigit() else display,
        since=since,
        before=before,
        origin=options.get("origin"),
    )


def _filter_flags(filters: Filters) -> list[str]:
    """The filters as the options that give them, to repeat in a hint."""
    from noru.times import format_utc

    flags: list[str] = []
    for name in ("app", "workspace", "display", "origin"):
        value = getattr(filters, name)
        if value is not None:
            flags += [f"--{name}", _quote(str(value))]
    for name in ("since", "before"):
        moment = getattr(filters, name)
        if moment is not None:
            flags += [f"--{name}", format_utc(moment)]
    return flags


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


# --- shared helpers ---------------------------------------------------------------


def _home() -> Path:
    return check_data_dir(data_dir())


def _config(home: Path) -> Config:
    """The configuration, its problems said on stderr (naming the key) once per run."""
    from noru.config import load_config

    context = click.get_current_context()
    said = context.find_root().meta.setdefault("noru.config_said", set())
    config = load_config(home)
    for problem in config.problems:
        if problem not in said:
            said.add(problem)
            click.echo(f"warning: config.toml: {problem}", err=True)
    return config


def _history() -> Reader:
    from noru.store import Reader

    return Reader.open(_home())


def _now() -> datetime:
    return datetime.now(UTC)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# --- the commands -----------------------------------------------------------------


@click.group(cls=NoruGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="noru")
def main() -> None:
    """Noru: let AI agents see what is on your screen, only as far as you allow.

    Captures are kept in a local history; agents read them through `noru mcp`.
    Data lives in $NORU_HOME, else your user data dir.
    """
    # Every command says what is wrong with config.toml, so a typo is seen at
    # once rather than silently keeping a default (status and doctor report
    # it among their findings).
    if click.get_current_context().invoked_subcommand not in ("status", "doctor"):
        _config(data_dir())


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


def client_config(client: str, exe: Path) -> dict[str, Any]:
    """The client's configuration snippet; names ``NORU_HOME`` when it is set."""
    key, typed, _ = CLIENTS[client]
    server: dict[str, Any] = {}
    if typed:
        server["type"] = "stdio"
    server["command"] = str(exe)
    server["args"] = ["mcp"]
    if os.environ.get("NORU_HOME"):
        server["env"] = {"NORU_HOME": str(data_dir())}  # expanded as every command does
    return {key: {"noru": server}}


def compositor_binding(compositor: str, hotkey: str, exe: Path) -> str:
    """The line that makes ``compositor`` run `noru capture` on ``hotkey``."""
    from noru.app.hotkey import parse_hotkey

    mods, key = parse_hotkey(hotkey)
    names = [_BINDING_MODS[compositor][m] for m in mods]
    command = f"{_quote(str(exe))} capture"
    if os.environ.get("NORU_HOME"):
        command = f"env NORU_HOME={_quote(str(data_dir()))} {command}"
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
    click.echo(json.dumps(client_config(client, exe), indent=2))
    env = f" -e NORU_HOME={_quote(str(data_dir()))}" if os.environ.get("NORU_HOME") else ""
    click.echo(CLIENTS[client][2].format(exe=_quote(str(exe)), env=env), err=True)


# --- access controls ----------------------------------------------------------------


def _access_command(command: str) -> None:
    from noru.access import set_control

    state = set_control(ensure_data_dir(), command)
    if state.revoked:
        lines = {
            "pause": "Agent perception paused.",
            "resume": "Agent perception resumed, but agent access is still revoked.",
            "revoke": "Agent access revoked. Stored captures are kept.",
        }
        click.echo(lines[command])
        click.echo("No live requests and no history reads until you run `noru allow`.")
        return
    if command == "allow":
        click.echo("Agent observations allowed. History is readable.")
        if state.paused:
            click.echo("Agent perception is still paused: `noru resume` lifts it.")
    elif command == "pause":
        click.echo("Agent perception paused. History remains readable.")
    elif not state.authorized:
        click.echo("Agent perception resumed, but agents may not observe yet: `noru allow`.")
    else:
        click.echo("Agent perception resumed.")


@main.group()
def exclude() -> None:
    """Windows Noru never captures: apps and window titles."""


def _exclusion_rule(app: str | None, title: str | None) -> Rule:
    from noru.exclusions import Rule, check_pattern

    if (app is None) == (title is None):
        raise click.UsageError("name one of --app NAME or --title PATTERN")
    kind, pattern = ("app", app) if app is not None else ("title", title or "")
    problem = check_pattern(kind, pattern)
    if problem:
        raise click.BadParameter(problem, param_hint=f"'--{kind}'")
    return Rule(kind, pattern.strip())


@exclude.command(name="add")
@click.option("--app", help="An app, by its class or name (any case), e.g. KeePassXC.")
@click.option("--title", help='A window title: a glob ("*bank*"), or "re:" and a regex.')
def exclude_add(app: str | None, title: str | None) -> None:
    """Never capture these windows (painted black in a display capture)."""
    from noru import exclusions

    rule = _exclusion_rule(app, title)
    exclusions.add(ensure_data_dir(), rule)
    click.echo(f"Excluded: {rule}. Captures from now on leave it out.")


@exclude.command(name="remove")
@click.option("--app", help="The app rule to remove.")
@click.option("--title", help="The title rule to remove, as it was added.")
@click.option("--builtin", help="A built-in rule to turn off (see `noru exclude list`).")
def exclude_remove(app: str | None, title: str | None, builtin: str | None) -> None:
    """Capture these windows again."""
    from noru import exclusions

    home = ensure_data_dir()
    if builtin is not None:
        if app is not None or title is not None:
            raise click.UsageError("name --builtin alone")
        if not exclusions.turn_off(home, builtin):
            known = ", ".join(exclusions.BUILTIN)
            raise click.BadParameter(f"no built-in rule {builtin!r} (known: {known})")
        click.echo(f"Built-in exclusion {builtin} turned off.")
        return
    rule = _exclusion_rule(app, title)
    if not exclusions.remove(home, rule):
        raise click.ClickException(f"no such exclusion: {rule} (see `noru exclude list`)")
    click.echo(f"No longer excluded: {rule}.")


@exclude.command(name="list")
def exclude_list() -> None:
    """The exclusions in force: yours, config.toml's, and the built-in ones."""
    from noru import exclusions
    from noru.config import load_config

    home = data_dir()
    config = load_config(home)
    current = exclusions.load(home)
    for rule in current.rules:
        click.echo(f"{rule}")
    for app in config.exclude_apps:
        click.echo(f"app {app}  (config.toml)")
    for title in config.exclude_titles:
        click.echo(f"title {title}  (config.toml)")
    for name, rule in exclusions.BUILTIN.items():
        state = "off" if name in current.builtin_off else "on"
        click.echo(f"{rule}  (built in: {name}, {state})")


@main.command()
def allow() -> None:
    """Allow agent observations (live requests); also lifts a revoke."""
    _access_command("allow")


@main.command()
def pause() -> None:
    """Pause agent perception: live requests stop, history stays readable."""
    _access_command("pause")


@main.command()
def resume() -> None:
    """Resume agent perception after a pause."""
    _access_command("resume")


@main.command()
def revoke() -> None:
    """Revoke agent access: no live requests and no history reads. Files are kept."""
    _access_command("revoke")


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
        caps = ", ".join(f"{c.get('id')} ({c.get('how')})" for c in served)
        line = f"{entry.get('at')}  {who or 'unknown client'} ({entry.get('transport')})  {what}"
        line += f" {args}" if args else ""
        line += f"  -> {entry.get('outcome')}"
        if entry.get("shape") == "content":
            line += " (content shape)"
        line += f": {caps}" if caps else ""
        click.echo(f"{line}  [{entry.get('bytes')} bytes]")


@main.command()
def status() -> None:
    """Show what agents may do now, and why."""
    from noru import status as noru_status

    for line in noru_status.person_lines(noru_status.gather(_home(), disk=True)):
        click.echo(line)


# --- history ------------------------------------------------------------------------


@main.command(name="import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--app", type=NonEmpty(), help="App the screenshots show (kept as the source app).")
@click.option("--window-title", type=NonEmpty(), help="Window title (also gives the workspace).")
@click.option("--note", help="A note attached to every imported capture.")
@click.option(
    "--at", type=Moment(past=True), help="When they were taken (default: each file's time)."
)
@click.option(
    "--no-ocr",
    is_flag=True,
    help="Do not recognise their text now: the running app (or the next start) does.",
)
def import_cmd(
    paths: tuple[Path, ...],
    app: str | None,
    window_title: str | None,
    note: str | None,
    at: datetime | None,
    no_ocr: bool,
) -> None:
    """Import existing screenshots (PNG, JPEG, WebP files or folders) into history."""
    from rich.console import Console
    from rich.progress import Progress

    from noru.errors import OcrError
    from noru.importer import ImportOptions, find_images, import_file
    from noru.recognition import open_engine
    from noru.store import Store

    home = ensure_data_dir()
    config = _config(home)
    options = ImportOptions(app=app, window_title=window_title, note=note or None, at=at)
    found = list(find_images(paths))
    ocr = None
    if no_ocr:
        click.echo("Text not recognised now (--no-ocr): `noru app` reads it.", err=True)
    else:
        try:
            ocr = open_engine(home, config.ocr_engine)
        except OcrError as exc:
            click.echo(f"Text not recognised now ({exc}): `noru app` reads it.", err=True)
    failed: list[str] = []
    unread: list[str] = []
    imported = 0
    with (
        Store.open(home, min_free=config.min_free) as store,
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
    click.echo(f"Imported {imported} of {_plural(len(found), 'file')}.", err=True)
    for line in failed:
        click.echo(f"skipped {line}", err=True)
    for line in unread:  # imported all the same: the app reads them
        click.echo(f"text not recognised, left for `noru app`: {line}", err=True)
    if failed:
        sys.exit(1)


def _described(filters: Filters) -> str:
    flags = _filter_flags(filters)
    return " with " + " ".join(flags) if flags else ""


def _page(
    rows: Sequence[Row | SearchHit],
    *,
    next_cursor: str | None,
    cursor: str | None,
    total: int,
    title: str,
    nothing: str,
    again: list[str],
) -> None:
    """Print one page of rows for the person, with how to see the next one."""
    from noru.present.person import rows_text

    if total == 0:
        raise click.ClickException("history is empty: take a capture or `noru import` some")
    if not rows:
        # Like grep: nothing found is said plainly and is status 1, not an error.
        click.echo("Nothing more." if cursor is not None else nothing)
        sys.exit(0 if cursor is not None else 1)
    footer = ["Show one with `noru show ID`."]
    if next_cursor:
        footer.insert(
            0, f"Showing {len(rows)}; more: {' '.join([*again, '--cursor', next_cursor])}"
        )
    click.echo(rows_text(rows, now=_now(), title=title, footer=footer))


@main.command(name="list")
@filter_options
@click.option(
    "--order",
    type=click.Choice(["newest_first", "oldest_first"]),
    default="newest_first",
    show_default=True,
)
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@click.option("--cursor", help="Continue a list where the previous page ended.")
def list_cmd(order: str, limit: int, cursor: str | None, **filtered: Any) -> None:
    """List captures in history, newest first, one row each."""
    filters = _filters(filtered)
    with _history() as reader:
        try:
            rows, next_cursor = reader.list_rows(filters, order=order, limit=limit, cursor=cursor)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cursor'") from None
        matching, total = reader.count_matching(filters), reader.count()
    where = _described(filters)
    title = f"{_plural(matching, 'capture')}{where}, {order.replace('_', ' ')}"
    if not filters.empty:
        title += f" ({total} in history)"
    again = ["noru", "list"]
    if limit != 20:
        again += ["--limit", str(limit)]
    if order != "newest_first":
        again += ["--order", order]
    _page(
        rows,
        next_cursor=next_cursor,
        cursor=cursor,
        total=total,
        title=title + ":",
        nothing=f"No capture matches{where} ({total} in history).",
        again=[*again, *_filter_flags(filters)],
    )


@main.command()
@click.argument("query")
@filter_options
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@click.option("--cursor", help="Continue a search where the previous page ended.")
def search(query: str, limit: int, cursor: str | None, **filtered: Any) -> None:
    """Search the on-screen text, accessibility text and notes of your captures.

    Every word of QUERY must appear, in any order; operators are taken literally.
    """
    from noru.store import fts_query

    if fts_query(query) is None:
        raise click.BadParameter(
            "give at least one word to search for" if not query.strip() else "has no words in it",
            param_hint="'QUERY'",
        )
    filters = _filters(filtered)
    with _history() as reader:
        try:
            hits, next_cursor = reader.search(
                query, filters, now=_now(), limit=limit, cursor=cursor
            )
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cursor'") from None
        total = reader.count()
    where = _described(filters)
    again = ["noru", "search", _quote(query)] + (["--limit", str(limit)] if limit != 20 else [])
    _page(
        hits,
        next_cursor=next_cursor,
        cursor=cursor,
        total=total,
        title=f"Matches for {query!r}{where}, best first:",
        nothing=f"Nothing found for {query!r}{where}.",
        again=[*again, *_filter_flags(filters)],
    )


@main.command()
@click.argument("capture_id", metavar="[ID]", required=False, type=CaptureId())
@click.option(
    "--index", type=click.IntRange(1, 1_000_000), help="1 = the most recent (after filters)."
)
@filter_options
def show(capture_id: str | None, index: int | None, **filtered: Any) -> None:
    """Show one capture: its facts, text, note, and where its image files are.

    Name it by ID, by --index, or by filters alone (the newest match).
    """
    from noru.present.person import capture_lines

    filters = _filters(filtered)
    if capture_id is not None and (index is not None or not filters.empty):
        raise click.UsageError("name a capture by ID, or by --index and filters, not both")
    with _history() as reader:
        if capture_id is not None:
            record = reader.get(capture_id)
            missing = f"no capture {capture_id}"
        else:
            record = reader.nth(index or 1, filters)
            missing = f"no capture{_described(filters)}" + (f" at index {index}" if index else "")
        if record is None:
            raise click.ClickException(missing)
        waiting = None
        if record.ocr_state == "pending":
            from noru.status import text_wait

            waiting = text_wait(reader.home)
        lines = capture_lines(record, now=_now(), files=reader, waiting=waiting)
    for line in lines:
        click.echo(line)


@main.command()
@click.argument("capture_id", metavar="ID", type=CaptureId())
@click.argument("text")
def note(capture_id: str, text: str) -> None:
    """Attach a note to a capture (an empty TEXT removes it)."""
    from noru.store import Store

    with Store.open(ensure_data_dir()) as store:
        if not store.set_note(capture_id, text.strip() or None):
            raise click.ClickException(f"no capture {capture_id}")
    click.echo("Note saved." if text.strip() else "Note removed.")


@main.command()
@click.argument("capture_ids", metavar="ID...", nargs=-1, required=True, type=CaptureId())
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete(capture_ids: tuple[str, ...], yes: bool) -> None:
    """Delete captures: their rows and their image files."""
    from noru.store import Store

    ids = list(dict.fromkeys(capture_ids))
    if not yes:
        click.confirm(f"Delete {_plural(len(ids), 'capture')} and their files?", abort=True)
    missing = []
    with Store.open(ensure_data_dir()) as store:
        for capture_id in ids:
            if not store.delete(capture_id):
                missing.append(capture_id)
    click.echo(f"Deleted {_plural(len(ids) - len(missing), 'capture')}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


def _frees(plan: Any) -> str:
    from noru.sizes import format_size

    by_age = sum(1 for d in plan.doomed if d.reason == "age")
    reasons = []
    if by_age:
        reasons.append(f"{by_age} older than {plan.keep_days:g} days")
    if len(plan.doomed) - by_age:
        reasons.append(f"{len(plan.doomed) - by_age} oldest over the budget")
    return (
        f"{_plural(len(plan.doomed), 'capture')} ({', '.join(reasons) or 'none due'}),"
        f" {format_size(plan.frees)} of images"
    )


@main.command()
@click.option("--dry-run", is_flag=True, help="Only say what would be deleted.")
def prune(dry_run: bool) -> None:
    """Delete captures past keep_days, then the oldest while over max_disk (kept ones stay)."""
    from rich.console import Console
    from rich.progress import Progress

    from noru.sizes import format_size
    from noru.store import Store

    home = ensure_data_dir()
    config = _config(home)
    with Store.open(home) as store:
        plan = store.prune_plan(keep_days=config.keep_days, max_disk=config.max_disk)
        budget = format_size(config.max_disk) if config.max_disk else "no budget (max_disk = 0)"
        age = f"{config.keep_days:g} days" if config.keep_days else "no age limit (keep_days = 0)"
        click.echo(
            f"History: {_plural(plan.usage.captures, 'capture')},"
            f" {format_size(plan.usage.total)} on disk; budget {budget}; {age};"
            f" {plan.usage.kept} kept forever."
        )
        if dry_run:
            click.echo(f"Would delete {_frees(plan)}; {format_size(plan.after)} would remain.")
        else:
            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("Pruning", total=len(plan.doomed))
                deleted = store.prune(plan, progress=lambda n: bar.update(task, completed=n))
            if deleted == len(plan.doomed):
                click.echo(f"Deleted {_frees(plan)}.")
            else:
                click.echo(
                    f"Deleted {deleted} of the {_frees(plan)} planned;"
                    f" {len(plan.doomed) - deleted} were kept or deleted meanwhile."
                )
        if plan.unreachable:
            click.echo(
                f"Over the budget ({format_size(plan.usage.total)} of {budget}), and deleting"
                " every capture it may take would not bring it within: what is kept forever"
                f" ({format_size(plan.usage.kept_images)}) and the database"
                f" ({format_size(plan.usage.database)}) alone are too large, so nothing is"
                " deleted for it. Raise max_disk, or `noru unkeep` some.",
                err=True,
            )


def _retention_lines(config: Config) -> list[str]:
    """The three retention settings in force, each with where it comes from."""
    from noru.sizes import format_size

    days = config.keep_days
    said = {
        "keep_days": (
            f"{days:g} day{'' if days == 1 else 's'}" if days else "0",
            "captures older than this are deleted" if days else "no age limit",
        ),
        "max_disk": (
            format_size(config.max_disk) if config.max_disk else "0",
            "images plus database at most this; the oldest go first"
            if config.max_disk
            else "no disk budget",
        ),
        "min_free": (
            format_size(config.min_free) if config.min_free else "0",
            "a capture that would leave the disk with less is refused"
            if config.min_free
            else "captures are refused only when the disk is full",
        ),
    }
    lines = []
    for key, (value, meaning) in said.items():
        where = "config.toml" if key in config.from_file else "default"
        lines.append(f"{key:<10} {value:<10} {f'({where})':<14} {meaning}")
    return lines


@main.command()
@click.option("--keep-days", metavar="DAYS", help="Delete captures older than this; 0: no limit.")
@click.option(
    "--max-disk", metavar="SIZE", help='Images plus database at most this ("20GB"); 0: none.'
)
@click.option(
    "--min-free", metavar="SIZE", help='Refuse a capture that would leave less free ("1GB").'
)
def retention(keep_days: str | None, max_disk: str | None, min_free: str | None) -> None:
    """Show how much history is kept; with options, set it in config.toml."""
    from noru.config import SettingError, set_values

    wanted = {"keep_days": keep_days, "max_disk": max_disk, "min_free": min_free}
    changes = {key: value for key, value in wanted.items() if value is not None}
    if not changes:
        for line in _retention_lines(_config(_home())):
            click.echo(line)
        click.echo(
            "Change them with `noru retention --keep-days DAYS --max-disk SIZE --min-free SIZE`;"
            " `noru prune --dry-run` shows what they delete now."
        )
        return
    home = ensure_data_dir()
    try:
        config = set_values(home, changes)
    except SettingError as exc:
        option = "--" + exc.key.replace("_", "-")
        raise click.BadParameter(exc.reason, param_hint=f"'{option}'") from None
    click.echo(f"Saved in {home / 'config.toml'}:")
    for line in _retention_lines(config):
        click.echo(line)
    # The app's pruner reads config.toml at each run; `noru prune` reads it each time.
    click.echo(
        "`noru prune` applies keep_days and max_disk now. A running `noru app` takes"
        " the new values at its next capture or within 10 minutes, without a restart,"
        " and prunes by them in the background."
    )


@main.command()
@click.argument("capture_ids", metavar="[ID]...", nargs=-1, type=CaptureId())
def keep(capture_ids: tuple[str, ...]) -> None:
    """Keep captures forever: pruning passes them by. Without IDs, list the kept ones."""
    from noru.store import Store

    with Store.open(ensure_data_dir()) as store:
        if not capture_ids:
            for capture_id in store.kept_ids():
                click.echo(capture_id)
            return
        missing = [c for c in dict.fromkeys(capture_ids) if not store.set_kept(c, True)]
    click.echo(f"Kept forever: {_plural(len(set(capture_ids)) - len(missing), 'capture')}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


@main.command()
@click.argument("capture_ids", metavar="ID...", nargs=-1, required=True, type=CaptureId())
def unkeep(capture_ids: tuple[str, ...]) -> None:
    """Let kept captures go again: pruning may then delete them by age or budget."""
    from noru.store import Store

    with Store.open(ensure_data_dir()) as store:
        missing = [c for c in dict.fromkeys(capture_ids) if not store.set_kept(c, False)]
    click.echo(f"No longer kept: {_plural(len(set(capture_ids)) - len(missing), 'capture')}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


@main.command()
@click.argument("capture_ids", metavar="[ID]...", nargs=-1, type=CaptureId())
@click.option("--all", "every", is_flag=True, help="Every capture in history.")
@click.option("--engine", help="OCR engine (default: config.toml's ocr_engine, else tesseract).")
def reocr(capture_ids: tuple[str, ...], every: bool, engine: str | None) -> None:
    """Run OCR again on captures; the old text stays until the new text is saved."""
    from rich.console import Console
    from rich.progress import Progress

    from noru.errors import OcrError
    from noru.recognition import open_engine, recognise_and_save
    from noru.store import Store

    if bool(capture_ids) == every:
        raise click.UsageError("name capture ids, or use --all")
    home = ensure_data_dir()
    config = _config(home)
    ocr = open_engine(home, engine or config.ocr_engine)
    failed = 0
    with (
        closing(ocr),
        Store.open(home) as store,
        Progress(console=Console(stderr=True), transient=True) as bar,
    ):
        targets = store.all_ids() if every else list(capture_ids)
        task = bar.add_task(f"OCR ({ocr.name} {ocr.version})", total=len(targets))
        for capture_id in targets:
            try:
                recognise_and_save(store, capture_id, ocr)
            except OcrError as exc:  # nothing was written: the old text is kept
                click.echo(f"{capture_id}: not re-read: {exc}", err=True)
                failed += 1
            bar.advance(task)
    click.echo(f"Re-recognised {len(targets) - failed} of {_plural(len(targets), 'capture')}.")
    if failed:
        sys.exit(1)


# --- the app ------------------------------------------------------------------------


@main.command()
def app() -> None:
    """Run the Noru app: captures, the shortcut, OCR, and live requests from agents."""
    from noru.app.server import run_app

    sys.exit(run_app(ensure_data_dir()))


@main.command()
@click.argument("action", type=click.Choice(["on", "off", "status"]))
@click.option(
    "--systemd",
    "via",
    flag_value="systemd",
    help="With on: write the systemd user unit even where the XDG entry would be chosen.",
)
@click.option(
    "--xdg",
    "via",
    flag_value="xdg",
    help="With on: write the XDG autostart entry even where systemd runs the session.",
)
def autostart(action: str, via: Via | None) -> None:
    """Start Noru at login: on, off, or show how it starts (status).

    A systemd user unit where the desktop's session runs under systemd, else an
    XDG autostart entry; an app menu launcher beside it. NORU_HOME, if set, is
    carried into them.
    """
    from noru import autostart as login

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
    from noru.errors import AppNotRunning, AppVersionMismatch

    note = (note or "").strip() or None
    if display is not None:
        request = live.Capture(mode="display", display=display, note=note)
    elif region is not None:
        request = live.Capture(mode="region", region=_region(region), note=note)
    else:
        whole = mode == "all_displays"
        request = live.Capture(mode="all_displays" if whole else "window", note=note)
    try:
        result = live.LiveClient(_home(), timeout=60).expect(request, live.Captured)
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

    sys.exit(run_console(ensure_data_dir(), port=port, open_browser=open_browser))


@main.command()
def doctor() -> None:
    """Check what works on this machine, and say what to do where it does not."""
    from noru.doctor import run_checks

    checks = run_checks(data_dir())
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        click.echo(f"{mark} {check.name}: {check.found}")
        if check.fix:
            click.echo(f"     -> {check.fix}")
    if not all(check.ok for check in checks):
        sys.exit(1)
