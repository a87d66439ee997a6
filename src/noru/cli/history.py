"""The person's history: `noru import`, `list`, `search`, `show`, `open`,
`note`, `delete`, `keep`, `unkeep` and `reocr`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from noru.cli.base import (
    CaptureId,
    Moment,
    NonEmpty,
    filter_flags,
    filter_options,
    filters_from,
    history,
    main,
    noted_config,
    now,
    plural,
    quote,
)
from noru.cli.output import chosen_format, emit, output_options
from noru.paths import ensure_data_dir

if TYPE_CHECKING:
    from noru.store import Filters, Row, SearchHit, Store


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
    config = noted_config(home)
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
    taken: list[str] = []
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
                taken.append(done.record.id)
                if done.unread is not None:
                    unread.append(f"{done.record.id} ({path}): {done.unread}")
                if len(found) == 1:
                    click.echo(done.record.id)
            progress.advance(task)
        _index_for_agents(store, config.redact, taken)
    if ocr is not None:
        ocr.close()
    click.echo(f"Imported {imported} of {plural(len(found), 'file')}.", err=True)
    for line in failed:
        click.echo(f"skipped {line}", err=True)
    for line in unread:  # imported all the same: the app reads them
        click.echo(f"text not recognised, left for `noru app`: {line}", err=True)
    if failed:
        sys.exit(1)


def _index_for_agents(store: Store, categories: Sequence[str], ids: Sequence[str]) -> None:
    """Agents' search index given these captures' new text (``noru.redact.index``;
    the app keeps the rest of it)."""
    from noru.redact import index

    for first in range(0, len(ids), index.BATCH):
        index.refresh(store, categories, ids=ids[first : first + index.BATCH])


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
        from noru.config import load_config
        from noru.redact import policy

        in_force = policy.load(reader.home, load_config(reader.home).redact)
        lines = capture_lines(record, now=now(), files=reader, waiting=waiting, policy=in_force)
    for line in lines:
        click.echo(line)


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

        sys.exit(run_console(ensure_data_dir(), opener=_xdg_open, capture=capture_id))
    _xdg_open(str(path))
    click.echo(path)


@main.command()
@click.argument("capture_id", metavar="ID", type=CaptureId())
@click.argument("text")
def note(capture_id: str, text: str) -> None:
    """Attach a note to a capture (an empty TEXT removes it)."""
    from noru.store import Store

    home = ensure_data_dir()
    with Store.open(home) as store:
        if not store.set_note(capture_id, text.strip() or None):
            raise click.ClickException(f"no capture {capture_id}")
        _index_for_agents(store, noted_config(home).redact, [capture_id])
    click.echo("Note saved." if text.strip() else "Note removed.")


@main.command()
@click.argument("capture_ids", metavar="[ID]...", nargs=-1, type=CaptureId())
@click.option(
    "--since", type=Moment(), help="Every capture at or after WHEN (30m, 2h, 1d, a date-time)."
)
@click.option("--before", type=Moment(), help="With --since: before WHEN (default: now).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete(
    capture_ids: tuple[str, ...], since: datetime | None, before: datetime | None, yes: bool
) -> None:
    """Delete captures: their rows and their image files. Name them by ID, or
    a time range with --since (and --before): its count is shown to confirm."""
    from noru.store import Store

    if capture_ids and (since is not None or before is not None):
        raise click.UsageError("name captures by ID, or a time range with --since, not both")
    if not capture_ids:
        if since is None:
            raise click.UsageError("name captures by ID, or a time range with --since")
        _delete_range(since, before, yes=yes)
        return
    ids = list(dict.fromkeys(capture_ids))
    if not yes:
        click.confirm(f"Delete {plural(len(ids), 'capture')} and their files?", abort=True)
    missing = []
    with Store.open(ensure_data_dir()) as store:
        for capture_id in ids:
            if not store.delete(capture_id):
                missing.append(capture_id)
    click.echo(f"Deleted {plural(len(ids) - len(missing), 'capture')}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


def _delete_range(since: datetime, before: datetime | None, *, yes: bool) -> None:
    """As the console deletes a range: count, confirm that count, and delete
    only if it is still the count (kept captures too: the person chose the range)."""
    from noru.store import Filters, Store

    end = before or now()
    if since >= end:
        raise click.BadParameter("must be earlier than --before (or now)", param_hint="'--since'")
    window = Filters(since=since, before=end)
    home = ensure_data_dir()
    with Store.open(home) as store:
        count = store.count_matching(window)
    span = f"from {since.astimezone():%Y-%m-%d %H:%M:%S} to {end.astimezone():%Y-%m-%d %H:%M:%S}"
    if count == 0:
        click.echo(f"No capture was taken {span} (local time): nothing to delete.")
        return
    if not yes:
        them = "it, its text and its file" if count == 1 else "them, their text and their files"
        click.confirm(
            f"{plural(count, 'capture')} taken {span} (local time). Delete {them}?", abort=True
        )
    with Store.open(home) as store:
        gone = store.delete_matching(window, expected=count)
    if gone is None:
        raise click.ClickException(
            "the range changed since it was counted (a capture came or went): nothing deleted;"
            " run the command again"
        )
    click.echo(f"Deleted {plural(len(gone), 'capture')}.")


def _set_kept(capture_ids: Sequence[str], *, kept: bool) -> None:
    """Keep captures or let them go, saying what changed: a capture already
    so is named apart, never counted as changed."""
    from noru.store import Store

    changed, unchanged, missing = [], [], []
    with Store.open(ensure_data_dir()) as store:
        for capture_id in dict.fromkeys(capture_ids):
            record = store.get(capture_id)
            if record is None:
                missing.append(capture_id)
            elif record.kept == kept:
                unchanged.append(capture_id)
            elif store.set_kept(capture_id, kept):
                changed.append(capture_id)
            else:  # deleted meanwhile
                missing.append(capture_id)
    if changed or not (unchanged or missing):
        done = "Kept forever" if kept else "No longer kept"
        click.echo(f"{done}: {plural(len(changed), 'capture')}.")
    if unchanged:
        already = "Already kept" if kept else "Not kept, so nothing changed"
        click.echo(f"{already}: {', '.join(unchanged)}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


@main.command()
@click.argument("capture_ids", metavar="[ID]...", nargs=-1, type=CaptureId())
def keep(capture_ids: tuple[str, ...]) -> None:
    """Keep captures forever: pruning passes them by. Without IDs, list the kept ones."""
    from noru.store import Store

    if not capture_ids:
        with Store.open(ensure_data_dir()) as store:
            for capture_id in store.kept_ids():
                click.echo(capture_id)
        return
    _set_kept(capture_ids, kept=True)


@main.command()
@click.argument("capture_ids", metavar="ID...", nargs=-1, required=True, type=CaptureId())
def unkeep(capture_ids: tuple[str, ...]) -> None:
    """Let kept captures go again: pruning may then delete them by age or budget."""
    _set_kept(capture_ids, kept=False)


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
    config = noted_config(home)
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
        _index_for_agents(store, config.redact, targets)
        if config.redact_at_rest:  # text stored before it was on: its terms out of the index
            store.scrub_search()
    click.echo(f"Re-recognised {len(targets) - failed} of {plural(len(targets), 'capture')}.")
    if failed:
        sys.exit(1)
