"""Locator rows: one line per capture, shared by the agent's and the person's lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from noru.contract import Token, inferred, measured, prov_line
from noru.sources import shorten
from noru.store import Row, SearchHit
from noru.times import format_age

__all__ = ["locator_lines", "row_line"]


def row_line(n: int, row: Row, now: datetime) -> str:
    """``n. id · age · origin · what it holds · source · note preview``."""
    holds = [f"{row.image_count} image" + ("s" if row.image_count != 1 else "")]
    if row.has_text:
        holds.append("text")
    if row.note:
        holds.append("note")
    parts = [row.id, format_age(row.captured_at, now), row.origin, " + ".join(holds)]
    parts += row.source.parts(title_most=60, marked=False)
    if row.note:
        parts.append(f'note: "{shorten(row.note, 60)}"')
    return f"{n}. " + " · ".join(parts)


def locator_lines(
    rows: Sequence[Row | SearchHit],
    *,
    now: datetime,
    title: str,
    footer: Sequence[str],
    provenance: bool,
    start: int = 1,
) -> str:
    """The title, one line per row (and its matched snippet), the footer and,
    for an agent, a provenance line naming what the rows' facts rest on."""
    lines = [title]
    layers: set[str] = set()
    for n, item in enumerate(rows, start):
        if isinstance(item, SearchHit):
            lines.append(row_line(n, item.row, now))
            lines.append(f"   matched {item.layer}: {item.snippet}")
            layers.add(item.layer)
        else:
            lines.append(row_line(n, item, now))
    lines += footer
    if provenance:
        tokens: list[Token] = [measured("src"), inferred("ws")]
        if "ocr" in layers:
            tokens.append(inferred("rec"))
        if "ax" in layers:
            tokens.append(measured("ax"))
        lines.append(prov_line(tokens))
    return "\n".join(lines)
