"""What every `noru` command shares: the group, its one error seam, typed
options, the history filters, and small helpers.

- One seam (``NoruGroup.invoke``) turns every Noru error, and the system's
  own (a full disk, a folder it may not write), into a clear message on
  stderr and exit status 1; usage errors are click's (status 2). No command
  shows a traceback for something the person can fix.
- Shared option decorators give ``list``, ``search`` and ``show`` the same
  filters (``--app``, ``--workspace``, ``--display``, ``--since``,
  ``--before``, ``--origin``), and typed options (``Moment``, ``NonEmpty``)
  name the option a bad value was given to.
- Every command that loads the configuration prints its problems on stderr
  (``noted_config``).
- A reader that goes away (``noru log --json | head -2``) ends the command
  quietly, as it ends the usual Unix tools: by SIGPIPE (``closed_pipe``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from noru import __version__
from noru.errors import NoruError, StoreError
from noru.paths import check_data_dir, data_dir

if TYPE_CHECKING:
    from noru.config import Config
    from noru.store import Filters, Reader, Store

__all__ = [
    "CaptureId",
    "Moment",
    "NonEmpty",
    "NoruGroup",
    "checked_home",
    "closed_pipe",
    "filter_flags",
    "filter_options",
    "filters_from",
    "history",
    "index_for_agents",
    "main",
    "noted_config",
    "now",
    "plural",
    "quote",
]

F = TypeVar("F", bound=Callable[..., Any])

# --- the seam -------------------------------------------------------------------


def _message(exc: NoruError) -> str:
    from noru.errors import Refusal

    if isinstance(exc, Refusal):
        # The details carry the platform's own words (which display, how to grant access).
        first = f"{exc.tag}: {exc.summary}" if exc.summary else exc.tag
        return "\n".join([first, *exc.details])
    if isinstance(exc, StoreError):
        return f"{exc} (run `noru doctor`)"
    return str(exc)


def closed_pipe() -> NoReturn:
    """Stdout's reader is gone (``noru show ID | true``): nothing more can be
    said, so end at once and silently, killed by SIGPIPE as ``seq`` or
    ``cat`` would be, rather than with an error and status 1."""
    # What is still buffered has nowhere to go: let the last flush drop it.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    # Python ignores SIGPIPE (a write then fails instead); this one end takes it back.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)
    sys.exit(128 + signal.SIGPIPE)  # the status a shell gives it, where the signal is held


# `noru --help`: the commands by job, each with an example (a test checks
# that every command is in one group and that its example parses).
GROUPS: dict[str, dict[str, str]] = {
    "Your history": {
        "list": "noru list --since 2h --app firefox",
        "search": 'noru search "connection refused" --json',
        "show": "noru show --index 1",
        "open": "noru open capture_2026-08-12_141502",
        "note": 'noru note capture_2026-08-12_141502 "the failing build"',
        "delete": "noru delete --since 15m",
        "keep": "noru keep capture_2026-08-12_141502",
        "unkeep": "noru unkeep capture_2026-08-12_141502",
        "import": "noru import ~/Pictures/Screenshots --app Figma",
        "reocr": "noru reocr --all",
        "ocr": "noru ocr rapidocr",
    },
    "What agents may do": {
        "status": "noru status",
        "allow": "noru allow",
        "pause": "noru pause",
        "resume": "noru resume",
        "revoke": "noru revoke",
        "exclude": "noru exclude add --app KeePassXC",
        "redact": "noru redact add --pattern 'ACME-\\d{6}' --kind ticket",
        "log": "noru log --since 1d --client claude-code",
    },
    "Connect agents": {
        "config": "noru config claude-code",
        "mcp": "noru mcp --http 8765",
        "token": "noru token show",
    },
    "Run Noru": {
        "app": "noru app",
        "capture": "noru capture --display 1 --note 'before the upgrade'",
        "console": "noru console --open",
        "autostart": "noru autostart on",
        "doctor": "noru doctor",
    },
    "Disk space": {
        "retention": "noru retention --keep-days 90 --max-disk 20GB",
        "prune": "noru prune --dry-run",
    },
}


class NoruGroup(click.Group):
    """Runs a command; what it raises on purpose becomes a message and status 1.

    Anything else is a bug: it is named in one line, with how to see its
    traceback (``NORU_DEBUG=1``), never dumped on the person.
    """

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands by job (``GROUPS``), each with its whole summary and an example."""
        import textwrap

        grouped = {name for names in GROUPS.values() for name in names}
        others = {"Other commands": {n: "" for n in self.list_commands(ctx) if n not in grouped}}
        names = self.list_commands(ctx)
        indent = 2 + max(len(n) for n in names) + 2
        width = max((formatter.width or 80) - indent, 30)
        for title, examples in {**GROUPS, **others}.items():
            lines = []
            for name, example in examples.items():
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                summary = textwrap.wrap(command.get_short_help_str(limit=200), width)
                if example:
                    summary.append(f"e.g. {example}")
                lines.append(f"  {name:<{indent - 4}}  {summary[0]}")
                lines += [" " * indent + line for line in summary[1:]]
            if lines:
                formatter.write_paragraph()
                formatter.write(f"{title}:\n" + "\n".join(lines) + "\n")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            done = super().invoke(ctx)
            sys.stdout.flush()  # a closed pipe is found here, not at the interpreter's exit
            return done
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            closed_pipe()
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


def filters_from(options: dict[str, Any]) -> Filters:
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


def filter_flags(filters: Filters) -> list[str]:
    """The filters as the options that give them, to repeat in a hint."""
    from noru.times import format_utc

    flags: list[str] = []
    for name in ("app", "workspace", "display", "origin"):
        value = getattr(filters, name)
        if value is not None:
            flags += [f"--{name}", quote(str(value))]
    for name in ("since", "before"):
        moment = getattr(filters, name)
        if moment is not None:
            flags += [f"--{name}", format_utc(moment)]
    return flags


def quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


# --- shared helpers ---------------------------------------------------------------


def checked_home() -> Path:
    return check_data_dir(data_dir())


def noted_config(home: Path) -> Config:
    """The configuration, its problems said on stderr (naming the key) once per run."""
    from noru.settings import snapshot

    context = click.get_current_context()
    said = context.find_root().meta.setdefault("noru.config_said", set())
    config = snapshot(home).config
    for problem in config.problems:
        if problem not in said:
            said.add(problem)
            click.echo(f"warning: config.toml: {problem}", err=True)
    return config


def index_for_agents(store: Store, categories: Sequence[str], ids: Sequence[str]) -> None:
    """Agents' search index given these captures' new text (``noru.redact.index``;
    the app keeps the rest of it)."""
    from noru.redact import index

    for first in range(0, len(ids), index.BATCH):
        index.refresh(store, categories, ids=ids[first : first + index.BATCH])


def history() -> Reader:
    from noru.store import Reader

    return Reader.open(checked_home())


def now() -> datetime:
    return datetime.now(UTC)


def plural(count: int, word: str) -> str:
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
        noted_config(data_dir())
