"""Reading the person's history: `noru list`, `search`, `show` and `open`.

A page of rows is printed for the person, or as data for scripts in the
format chosen with ``--json``, ``--nl`` or ``--csv`` (``noru.cli.output``),
with the command that shows the next page."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from noru.cli.base import (
    CaptureId,
    filter_flags,
    filter_options,
    filters_from,
    history,
    main,
    now,
    plural,
    quote,
)
from noru.cli.output import chosen_format, emit, output_options
from noru.paths import ensure_data_dir

if TYPE_CHECKING:
    from noru.store import Filters, Row, SearchHit


def _described(filters: Filters) -> str:
    flags = filter_flags(filters)
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
    fmt: str | None,
    searched: bool = False,
) -> None:
    """Print one page of rows for the person (or as data in ``fmt``), with how
    to see the next one."""
    from noru.present.person import HIT_FIELDS, ROW_FIELDS, hit_fields, row_fields, rows_text
    from noru.store import SearchHit

    if fmt is not None:
        # The data on stdout, whatever it holds; the words about it on stderr.
        records = [hit_fields(r) if isinstance(r, SearchHit) else row_fields(r) for r in rows]
        emit(records, fmt, columns=HIT_FIELDS if searched else ROW_FIELDS)
        if total == 0:
            click.echo("History is empty: take a capture or `noru import` some.", err=True)
        elif not rows and cursor is None:
            click.echo(nothing, err=True)
        if next_cursor:
            click.echo(f"More: {' '.join([*again, f'--{fmt}', '--cursor', next_cursor])}", err=True)
        sys.exit(1 if not rows and cursor is None else 0)
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
    click.echo(rows_text(rows, now=now(), title=title, footer=footer))


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
@output_options
def list_cmd(order: str, limit: int, cursor: str | None, **filtered: Any) -> None:
    """List captures in history, newest first, one row each."""
    fmt = chosen_format(filtered)
    filters = filters_from(filtered)
    with history() as reader:
        try:
            rows, next_cursor = reader.list_rows(filters, order=order, limit=limit, cursor=cursor)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cursor'") from None
        matching, total = reader.count_matching(filters), reader.count()
    where = _described(filters)
    title = f"{plural(matching, 'capture')}{where}, {order.replace('_', ' ')}"
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
        again=[*again, *filter_flags(filters)],
        fmt=fmt,
    )


@main.command()
@click.argument("query")
@filter_options
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@click.option("--cursor", help="Continue a search where the previous page ended.")
@output_options
def search(query: str, limit: int, cursor: str | None, **filtered: Any) -> None:
    """Search the on-screen text, accessibility text and notes of your captures.

    Every word of QUERY must appear, in any order; operators are taken literally.
    """
    from noru.store import fts_query

    fmt = chosen_format(filtered)
    if fts_query(query) is None:
        raise click.BadParameter(
            "give at least one word to search for" if not query.strip() else "has no words in it",
            param_hint="'QUERY'",
        )
    filters = filters_from(filtered)
    with history() as reader:
        try:
            hits, next_cursor = reader.search(query, filters, now=now(), limit=limit, cursor=cursor)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cursor'") from None
        total = reader.count()
    where = _described(filters)
    again = ["noru", "search", quote(query)] + (["--limit", str(limit)] if limit != 20 else [])
    _page(
        hits,
        next_cursor=next_cursor,
        cursor=cursor,
        total=total,
        title=f"Matches for {query!r}{where}, best first:",
        nothing=f"Nothing found for {query!r}{where}.",
        again=[*again, *filter_flags(filters)],
        fmt=fmt,
        searched=True,
    )


@main.command()
@click.argument("capture_id", metavar="[ID]", required=False, type=CaptureId())
@click.option(
    "--index", type=click.IntRange(1, 1_000_000), help="1 = the most recent (after filters)."
)
@filter_options
@output_options
def show(capture_id: str | None, index: int | None, **filtered: Any) -> None:
    """Show one capture: its facts, text, note, and where its image files are.

    Name it by ID, by --index, or by filters alone (the newest match).
    """
    from noru.present.person import CAPTURE_FIELDS, capture_fields, capture_lines

    fmt = chosen_format(filtered)
    filters = filters_from(filtered)
    if capture_id is not None and (index is not None or not filters.empty):
        raise click.UsageError("name a capture by ID, or by --index and filters, not both")
    with history() as reader:
        if capture_id is not None:
            record = reader.get(capture_id)
            missing = f"no capture {capture_id}"
        else:
            record = reader.nth(index or 1, filters)
            missing = f"no capture{_described(filters)}" + (f" at index {index}" if index else "")
        if record is None:
            raise click.ClickException(missing)
        if fmt is not None:
            emit([capture_fields(record, files=reader)], fmt, columns=CAPTURE_FIELDS)
            return
        waiting = None
        if record.ocr_state == "pending":
            from noru.status import text_wait

            waiting = text_wait(reader.home)
        from noru.settings import snapshot

        in_force = snapshot(reader.home).policy
        lines = capture_lines(record, now=now(), files=reader, waiting=waiting, policy=in_force)
    for line in lines:
        click.echo(line)


def _open_or_say(url: str) -> None:
    """The console's link handed to xdg-open; where it cannot be opened, the
    console goes on serving and says so (the link printed above still works)."""
    try:
        _xdg_open(url)
    except click.ClickException as exc:
        click.echo(f"noru: {exc.message}; open the link above in your browser.", err=True)


def _xdg_open(target: str) -> None:
    """Hand ``target`` (a file or a URL) to the desktop's opener, xdg-open."""
    import shutil
    import subprocess

    opener = shutil.which("xdg-open")
    if opener is None:
        raise click.ClickException(
            f"cannot open {target}: xdg-open is not installed (Debian: apt install xdg-utils)"
        )
    # Detached: the viewer outlives this command, and its words are not ours.
    done = subprocess.run(
        [opener, target], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False
    )
    if done.returncode != 0:
        raise click.ClickException(
            f"xdg-open could not open {target} (status {done.returncode}): no viewer is"
            " set for it, or no display to show it on"
        )


@main.command(name="open")
@click.argument("capture_id", metavar="ID", type=CaptureId())
@click.option("--image", type=click.IntRange(1, 64), default=1, help="Which image (from 1).")
@click.option(
    "--console",
    "in_console",
    is_flag=True,
    help="Open its page in the web console instead (serves the console until Ctrl-C).",
)
def open_cmd(capture_id: str, image: int, in_console: bool) -> None:
    """Open a capture's image in your image viewer (xdg-open), or its console page."""
    with history() as reader:
        record = reader.get(capture_id)
        if record is None:
            raise click.ClickException(f"no capture {capture_id}")
        if image > len(record.images):
            raise click.BadParameter(
                f"{capture_id} has {plural(len(record.images), 'image')}", param_hint="'--image'"
            )
        path = reader.image_file(record.images[image - 1])
    if in_console:
        if image != 1:
            raise click.UsageError("--image goes with the image, not with --console")
        from noru.console import run_console

        sys.exit(run_console(ensure_data_dir(), opener=_open_or_say, capture=capture_id))
    _xdg_open(str(path))
    click.echo(path)
