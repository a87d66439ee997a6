"""The frame every console page shares and the words a capture is shown by.

The HTML is in ``templates/`` (Jinja2, autoescaped: every value from
history, such as titles, app names, OCR and accessibility text and notes, is
escaped by the template engine and nowhere else). This module holds the
environment that renders them, with the words below as its filters: a
capture's time, source and alternative text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from noru.sources import Source
from noru.store import CaptureRecord, Row

__all__ = [
    "alt",
    "capture_of",
    "local",
    "message_page",
    "plural",
    "render",
    "source_words",
]


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


def alt(row: Row | CaptureRecord) -> str:
    source = row.source if isinstance(row, Row) else row.images[0].source
    return f"Capture of {capture_of(source)}, {local(row.captured_at):%Y-%m-%d %H:%M}"


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 capture``, ``2 captures``."""
    return f"{count} {one if count == 1 else many or one + 's'}"


def _at(moment: datetime, form: str) -> str:
    return f"{local(moment):{form}}"


def _marked(snippet: str) -> Markup:
    """A search snippet with its «hits» marked, escaped."""
    return Markup(str(escape(snippet)).replace("«", "<mark>").replace("»", "</mark>"))


_ENV = Environment(
    loader=PackageLoader("noru.console", "templates"),
    autoescape=True,  # every value is escaped unless a filter says it is markup
    undefined=StrictUndefined,  # a name the route forgot is an error, not an empty string
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters.update(at=_at, source_words=source_words, alt=alt, marked=_marked, plural=plural)


def render(template: str, **context: Any) -> str:
    """One page: ``template`` from ``templates/`` given ``context``; what the
    frame shows beside it: ``notice`` (what a button just did), ``query``
    (the search box's words) and ``here`` (the page's own link)."""
    frame = {"notice": None, "query": "", "here": ""}
    return _ENV.get_template(template).render(**(frame | context))


def message_page(title: str, text: str) -> str:
    return render("message.html", title=title, text=text)
