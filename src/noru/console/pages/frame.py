"""The frame every console page shares (its head, the links between pages,
the search box) and the words a capture is shown by: its time, source and
alternative text."""

from __future__ import annotations

from datetime import datetime
from html import escape

from noru.sources import Source
from noru.store import CaptureRecord, Row

__all__ = ["alt", "capture_of", "local", "message_page", "page", "source_words"]


def local(moment: datetime) -> datetime:
    return moment.astimezone()


def _display(source: Source) -> str | None:
    return f"display {source.display_index}" if source.display_index is not None else None


def source_words(row: Row | CaptureRecord) -> str:
    """A card's caption: what the capture is first (a window of an app, a
    display, a region), then the app and workspace, and where."""
    source = row.source if isinstance(row, Row) else row.images[0].source
    app = source.app_name or source.app_id
    parts: list[str | None]
    if source.shows == "window":
        parts = [f"{app} window" if app else "window", source.workspace_hint, _display(source)]
    elif source.whole:
        what = _display(source) or "display"
        if source.shows == "region":
            what = f"region of {what}"
        elif isinstance(row, Row) and row.image_count > 1:
            what = f"{row.image_count} displays"
        elif isinstance(row, CaptureRecord) and len(row.images) > 1:
            what = f"{len(row.images)} displays"
        parts = [what, f"active: {app}" if app else None, source.workspace_hint]
    else:  # not recorded (an import, an older capture): the facts alone
        parts = [app, source.workspace_hint, _display(source)]
    return " · ".join(p for p in parts if p) or "unknown source"


def capture_of(source: Source) -> str:
    """What one image is, for its alternative text: the window by its title,
    or the display (with the window active on it)."""
    title = f"“{source.window_title}”" if source.window_title else None
    if source.shows == "window":
        app = source.app_name or source.app_id
        return f"the window {title}" if title else f"a window of {app}" if app else "a window"
    if source.whole:
        what = source.subject or "the screen"
        return f"{what}, {title} active" if title else what
    return source.window_title or source.app_name or "the screen"


def alt(row: Row) -> str:
    return f"Capture of {capture_of(row.source)}, {local(row.captured_at):%Y-%m-%d %H:%M}"


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
