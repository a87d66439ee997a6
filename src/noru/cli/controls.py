"""The person's access controls: `noru allow`, `pause`, `resume`, `revoke`,
`status`, and the windows never captured (`noru exclude`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from noru.cli.base import checked_home, main
from noru.cli.output import chosen_format, emit, output_options
from noru.paths import data_dir, ensure_data_dir

if TYPE_CHECKING:
    from noru.exclusions import Rule


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
    from noru.edits import add_exclusion

    rule = _exclusion_rule(app, title)
    found = add_exclusion(ensure_data_dir(), rule.kind, rule.pattern)
    if found is not None:
        raise click.ClickException(
            f"already excluded: {found} (see `noru exclude list`); nothing changed"
        )
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
        name = exclusions.builtin_name(builtin)
        if name is None or not exclusions.turn_off(home, name):
            known = ", ".join(exclusions.BUILTIN)
            raise click.BadParameter(f"no built-in rule {builtin!r} (known: {known})")
        click.echo(f"Built-in exclusion {name} turned off.")
        return
    rule = _exclusion_rule(app, title)
    if not exclusions.remove(home, rule):
        raise click.ClickException(f"no such exclusion: {rule} (see `noru exclude list`)")
    click.echo(f"No longer excluded: {rule}.")


@exclude.command(name="list")
def exclude_list() -> None:
    """The exclusions in force: yours, config.toml's, and the built-in ones."""
    from noru import exclusions
    from noru.settings import snapshot

    home = data_dir()
    config = snapshot(home).config
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


@main.command()
@output_options
def status(**formats: bool) -> None:
    """Show what agents may do now, and why."""
    from noru import status as noru_status

    fmt = chosen_format(formats)
    gathered = noru_status.gather(checked_home(), disk=True)
    if fmt is not None:
        emit([noru_status.person_fields(gathered)], fmt)
        return
    for line in noru_status.person_lines(gathered):
        click.echo(line)
