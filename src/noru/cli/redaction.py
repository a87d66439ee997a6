"""What agents never get of the screen: `noru redact add`, `remove`, `allow`, `list`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from noru.cli.base import main
from noru.paths import data_dir, ensure_data_dir

if TYPE_CHECKING:
    from noru.redact.policy import AllowedValue, Pattern


def _redactions_or_fail() -> tuple[list[Pattern], list[AllowedValue]]:
    """The person's patterns and allowed values (redactions.json), or the
    error that says the file cannot be read and what that means."""
    from noru.errors import DataDirError
    from noru.redact import policy

    home = data_dir()
    try:
        return policy.load_patterns(home), policy.load_allowed(home)
    except DataDirError as exc:
        raise click.ClickException(
            f"{exc}: no capture is served to agents until it is fixed or removed "
            f"({home / policy.FILE})"
        ) from None


@contextmanager
def _refused_as_bad_parameter(**hints: str) -> Iterator[None]:
    """An edit ``noru.edits`` refuses, said as click says a bad option (its
    hint by the part refused)."""
    from noru.errors import EditRefused

    try:
        yield
    except EditRefused as exc:
        hint = hints.get(exc.what or "")
        if hint is None:
            raise
        raise click.BadParameter(str(exc), param_hint=hint) from None


@main.group()
def redact() -> None:
    """Secrets Noru takes out of what agents get: text and pixels."""


@redact.command(name="add")
@click.option("--pattern", required=True, help="A regular expression; its group v, if any, goes.")
@click.option("--kind", default="pattern", show_default=True, help="What agents are told it was.")
def redact_add(pattern: str, kind: str) -> None:
    """Redact what this pattern matches too, in every capture agents get."""
    from noru.edits import add_redaction

    _redactions_or_fail()
    with _refused_as_bad_parameter(pattern="'--pattern'", kind="'--kind'"):
        same = add_redaction(ensure_data_dir(), pattern, kind)
    if same is not None:
        raise click.ClickException(
            f"already redacted: {pattern} (as [redacted: {same.kind}]); nothing changed."
            + (" To change its kind, `noru redact remove` it first." if same.kind != kind else "")
        )
    click.echo(f"Redacted for agents from now on: {pattern} (as [redacted: {kind}]).")


@redact.command(name="remove")
@click.option("--pattern", required=True, help="The pattern to remove, as it was added.")
def redact_remove(pattern: str) -> None:
    """Stop redacting a pattern of yours."""
    from noru.redact import policy

    _redactions_or_fail()
    if not policy.remove(ensure_data_dir(), pattern):
        raise click.ClickException(f"no such pattern: {pattern} (see `noru redact list`)")
    click.echo(f"No longer redacted: {pattern}.")


@redact.command(name="allow")
@click.argument("value", required=False)
@click.option("--remove", is_flag=True, help="Redact this value again where the rules find it.")
def redact_allow(value: str | None, remove: bool) -> None:
    """Never redact VALUE: it is no secret (asked for, unshown, if not given).

    Only a digest of it is kept in redactions.json, and a hint to tell it by
    (its first characters and length) in `noru redact list`.
    """
    from noru.edits import allow_value
    from noru.redact import policy

    if value is None:
        value = click.prompt("Value", hide_input=True)
    problem = policy.check_value(value)
    if problem:
        raise click.BadParameter(problem, param_hint="'VALUE'")
    _redactions_or_fail()
    if remove:
        if not policy.disallow(ensure_data_dir(), value):
            raise click.ClickException("that value is not allowed (see `noru redact list`)")
        click.echo("Redacted again where the rules find it.")
        return
    with _refused_as_bad_parameter(value="'VALUE'"):
        allowed = allow_value(ensure_data_dir(), value)
    click.echo(f"Never redacted from now on: {allowed.hint}.")


@redact.command(name="list")
def redact_list() -> None:
    """What is redacted: the kinds on (config.toml's redact), your patterns
    and the values you allowed."""
    from noru.settings import snapshot

    home = data_dir()
    patterns, allowed = _redactions_or_fail()
    in_force = snapshot(home).policy
    click.echo(f"Redacted in what agents get: {in_force.describe()}")
    for mine in patterns:
        click.echo(f"pattern {mine.pattern}  (as [redacted: {mine.kind}])")
    for value in allowed:
        click.echo(f"allowed {value.hint}  (never redacted)")
