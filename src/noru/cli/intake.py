"""What comes into the person's history from outside a capture: screenshots
imported (`noru import`), captures' text read again (`noru reocr`), and the
OCR engine that reads it (`noru ocr`)."""

from __future__ import annotations

import sys
from contextlib import closing
from datetime import datetime
from pathlib import Path

import click

from noru.cli.base import (
    CaptureId,
    Moment,
    NonEmpty,
    index_for_agents,
    main,
    noted_config,
    plural,
)
from noru.paths import ensure_data_dir


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

    from noru.edits import note_text
    from noru.errors import OcrError
    from noru.importer import ImportOptions, find_images, import_file
    from noru.recognition import open_engine
    from noru.store import Store

    kept_note = note_text(note)  # refused before anything is imported
    home = ensure_data_dir()
    config = noted_config(home)
    options = ImportOptions(app=app, window_title=window_title, note=kept_note, at=at)
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
        index_for_agents(store, config.redact, taken)
    if ocr is not None:
        ocr.close()
    click.echo(f"Imported {imported} of {plural(len(found), 'file')}.", err=True)
    for line in failed:
        click.echo(f"skipped {line}", err=True)
    for line in unread:  # imported all the same: the app reads them
        click.echo(f"text not recognised, left for `noru app`: {line}", err=True)
    if failed:
        sys.exit(1)


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
        index_for_agents(store, config.redact, targets)
        if config.redact_at_rest:  # text stored before it was on: its terms out of the index
            store.scrub_search()
    click.echo(f"Re-recognised {len(targets) - failed} of {plural(len(targets), 'capture')}.")
    if failed:
        sys.exit(1)


@main.command(name="ocr")
@click.argument("engine", required=False)
def ocr_engine(engine: str | None) -> None:
    """Show the OCR engines that run here; with ENGINE, read text with it from now on."""
    from noru import edits
    from noru.errors import EditRefused

    home = ensure_data_dir()
    if engine is None:
        chosen = noted_config(home).ocr_engine
        for found in edits.ocr_engines(chosen):
            about = f"{found.name} {found.version}" if found.available else "cannot run here"
            if not found.available:
                about += f": {found.problem}"
            click.echo(f"{'*' if found.name == chosen else ' '} {found.name:<10} {about}")
        click.echo("* chosen in config.toml. Choose another with `noru ocr ENGINE`.")
        return
    try:
        found = edits.set_ocr_engine(home, engine)
    except EditRefused as exc:
        raise click.BadParameter(str(exc), param_hint="'ENGINE'") from None
    click.echo(f"Saved in {home / 'config.toml'}: ocr_engine = {found.name} ({found.version}).")
    click.echo(
        "A running `noru app` reads text with it from its next recognition; text read"
        " before stays (`noru reocr --all` reads it again)."
    )
