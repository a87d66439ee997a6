"""Output for scripts: ``--json`` (one JSON array), ``--nl`` (one JSON object
per line) and ``--csv`` (a header, then one row per object), as sqlite-utils
gives them; and a pipe closed early, which ends a command quietly.

Every command that prints records takes ``output_options``; ``emit`` prints
them in the format asked for. A CSV cell whose value is a list or an object
holds it as JSON, so that no field is lost in a row; true and false are
written as JSON writes them, and null as an empty cell.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

__all__ = ["FORMATS", "chosen_format", "emit", "output_options"]

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("json", "nl", "csv")


def output_options(command: F) -> F:
    """``--json``, ``--nl`` and ``--csv``: at most one of them."""
    options = [
        click.option("--json", "as_json", is_flag=True, help="Print one JSON array of objects."),
        click.option("--nl", "as_nl", is_flag=True, help="Print one JSON object per line."),
        click.option("--csv", "as_csv", is_flag=True, help="Print CSV: a header, then rows."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def chosen_format(options: dict[str, Any]) -> str | None:
    """The format asked for (removing its flags from ``options``), None for
    text; two of them at once is a usage error."""
    asked = [name for name in FORMATS if options.pop(f"as_{name}", False)]
    if len(asked) > 1:
        raise click.UsageError(f"--{asked[0]} and --{asked[1]} cannot be used together")
    return asked[0] if asked else None


def _cell(value: Any) -> Any:
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return ""
    if isinstance(value, bool):  # as JSON says it
        return "true" if value else "false"
    return value


def emit(records: Sequence[dict[str, Any]], fmt: str, *, columns: Sequence[str] = ()) -> None:
    """Print ``records`` in ``fmt``: "json", "nl" or "csv" (whose header is
    ``columns``, then any other key the records have)."""
    if fmt == "nl":
        for record in records:
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    if fmt == "json":
        # One object a line inside the array: still one JSON document, yet
        # readable and greppable (as sqlite-utils prints it). Written a line
        # at a time, so that a reader gone early is found at the next line.
        if not records:
            click.echo("[]")
        for n, record in enumerate(records):
            start = "[" if n == 0 else " "
            end = "]" if n == len(records) - 1 else ","
            click.echo(start + json.dumps(record, ensure_ascii=False) + end)
        return
    header = list(dict.fromkeys([*columns, *(key for record in records for key in record)]))
    writer = csv.DictWriter(_Echo(), fieldnames=header, lineterminator="\n")
    if header:
        writer.writeheader()
    for record in records:
        writer.writerow({key: _cell(value) for key, value in record.items()})


class _Echo:
    """A file for ``csv`` that writes each row as it comes."""

    def write(self, text: str) -> None:
        click.echo(text, nl=False)
