"""How much history is kept: `noru retention` (show or set the three
settings) and `noru prune` (apply them now)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from noru.cli.base import checked_home, main, noted_config, plural
from noru.paths import ensure_data_dir

if TYPE_CHECKING:
    from noru.config import Config


def _frees(plan: Any) -> str:
    from noru.sizes import format_size

    by_age = sum(1 for d in plan.doomed if d.reason == "age")
    reasons = []
    if by_age:
        reasons.append(f"{by_age} older than {plan.keep_days:g} days")
    if len(plan.doomed) - by_age:
        reasons.append(f"{len(plan.doomed) - by_age} oldest over the budget")
    return (
        f"{plural(len(plan.doomed), 'capture')} ({', '.join(reasons) or 'none due'}),"
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
    config = noted_config(home)
    with Store.open(home) as store:
        plan = store.prune_plan(keep_days=config.keep_days, max_disk=config.max_disk)
        budget = format_size(config.max_disk) if config.max_disk else "no budget (max_disk = 0)"
        age = f"{config.keep_days:g} days" if config.keep_days else "no age limit (keep_days = 0)"
        click.echo(
            f"History: {plural(plan.usage.captures, 'capture')},"
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
        for line in _retention_lines(noted_config(checked_home())):
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
