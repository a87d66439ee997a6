"""The frame every console page shares (its head, the links between pages,
the search box) and the words a capture is shown by: its time, source and
alternative text."""

from __future__ import annotations

from datetime import datetime
from html import escape

from noru.store import CaptureRecord, Row

__all__ = ["alt", "local", "message_page", "page", "source_words"]


def local(moment: datetime) -> datetime:
    return moment.astimezone()


def source_words(row: Row | CaptureRecord) -> str:
    source = row.source if isinstance(row, Row) else row.images[0].source
    parts = [source.app_name or source.app_id, source.workspace_hint]
    if source.display_index is not None:
        parts.append(f"display {source.display_index}")
    return " · ".join(p for p in parts if p) or "unknown source"


def alt(row: Row) -> str:
    source = row.source
    what = source.window_title or source.app_name or "the screen"
    return f"Capture of {what}, {local(row.captured_at):%Y-%m-%d %H:%M}"


def page(title: str, body: str, *, top: str = "") -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Noru</title>"
        '<link rel="stylesheet" href="/static/console.css">'
        '<script src="/static/console.js" defer></script></head><body>'
        '<header><a class="brand" href="/">Noru</a>'
        '<nav class="pages"><a href="/">Timeline</a> <a href="/log">Agent reads</a> '
        '<a href="/privacy">Privacy</a> <a href="/delete-range">Delete a range</a></nav>'
        '<form class="search" method="get" action="/search" role="search">'
        '<input name="q" type="search" placeholder="Search your screens" aria-label="Search">'
        "</form></header>"
        f"{top}<main>{body}</main></body></html>"
    )


def message_page(title: str, text: str) -> str:
    return page(title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>")
