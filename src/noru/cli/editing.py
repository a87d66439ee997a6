"""The person's edits of their history: `noru note`, `delete`, `keep` and
`unkeep`, over ``noru.edits`` (its limits are the console's and the app's).
Each writes through its own ``Store``, whether or not the app runs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import click

from noru import edits
from noru.cli.base import (
    CaptureId,
    Moment,
    main,
    noted_config,
    now,
    plural,
)
from noru.paths import ensure_data_dir


@main.command()
@click.argument("capture_id", metavar="ID", type=CaptureId())
@click.argument("text")
def note(capture_id: str, text: str) -> None:
    """Attach a note to a capture (an empty TEXT removes it)."""
    from noru.store import Store

    edits.note_text(text)  # refused before the store is opened
    home = ensure_data_dir()
    noted_config(home)  # its problems said
    with Store.open(home) as store:
        if not edits.set_note(store, capture_id, text):
            raise click.ClickException(f"no capture {capture_id}")
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
        _confirm(f"Delete {plural(len(ids), 'capture')} and their files?")
    with Store.open(ensure_data_dir()) as store:
        missing = edits.delete(store, ids)
    click.echo(f"Deleted {plural(len(ids) - len(missing), 'capture')}.")
    if missing:
        raise click.ClickException(f"not found: {', '.join(missing)}")


def _confirm(question: str) -> None:
    """Ask ``question``; a no (or no answer) ends the command with exit
    status 1, saying that nothing was deleted (not click's "Aborted!")."""
    if not click.confirm(question, default=False):
        click.echo("Nothing deleted.")
        raise click.exceptions.Exit(1)


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
        _confirm(f"{plural(count, 'capture')} taken {span} (local time). Delete {them}?")
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

    with Store.open(ensure_data_dir()) as store:
        outcome = edits.set_kept(store, capture_ids, kept=kept)
    changed, unchanged, missing = outcome.changed, outcome.unchanged, outcome.missing
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
