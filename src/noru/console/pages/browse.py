"""Browsing the history: the timeline (with the access state and its
controls above it) and the search results."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from urllib.parse import urlencode

from noru.access import AccessState, history_decision, live_decision
from noru.console.pages.frame import alt, local, page, source_words
from noru.store import Row, SearchHit

__all__ = ["search_page", "state_bar", "timeline_page"]


def state_bar(state: AccessState, app_running: bool, pending: int) -> str:
    live = live_decision(state)
    history = history_decision(state)
    if state.revoked:
        mode = "revoked"
    elif state.paused:
        mode = "paused"
    elif state.authorized:
        mode = "allowed"
    else:
        mode = "not allowed yet"
    return (
        '<div class="state" role="status">'
        f'<span class="mode mode-{escape(mode.split()[0])}">Agents: {escape(mode)}</span>'
        f"<span>Live looks: {'yes' if live.allowed else 'no'} ({escape(live.reason)})</span>"
        f"<span>History: {'readable' if history.allowed else 'blocked'}</span>"
        f"<span>App: {'running' if app_running else 'not running'}</span>"
        f"<span>Text waiting: {pending}</span>"
        "</div>"
    )


def _controls(state: AccessState, back: str) -> str:
    pause = (
        ("resume", "Resume Agent Perception")
        if state.paused
        else ("pause", "Pause Agent Perception")
    )
    buttons = [("allow", "Allow Agent Observations"), pause, ("revoke", "Revoke Agent Access")]
    forms = "".join(
        f'<form method="post" action="/control"><input type="hidden" name="back" '
        f'value="{escape(back)}"><button name="action" value="{action}">{label}</button></form>'
        for action, label in buttons
    )
    return f'<nav class="controls" aria-label="Agent access">{forms}</nav>'


def _card(row: Row) -> str:
    note = f'<p class="note">{escape(row.note)}</p>' if row.note else ""
    origin = "taken by an agent" if row.origin == "agent" else "yours"
    return (
        f'<li><a class="card" href="/capture/{escape(row.id)}" data-capture="{escape(row.id)}">'
        f'<img src="/thumb/{escape(row.id)}" alt="{escape(alt(row))}" loading="lazy" '
        'width="240" height="150">'
        f'<span class="when">{local(row.captured_at):%H:%M:%S}</span>'
        f'<span class="src">{escape(source_words(row))}</span>'
        f'<span class="origin origin-{escape(row.origin)}">{origin}</span>{note}</a></li>'
    )


def timeline_page(
    rows: Sequence[Row],
    *,
    state: AccessState,
    app_running: bool,
    pending: int,
    filters: dict[str, str],
    next_cursor: str | None,
    choices: dict[str, list[str]],
) -> str:
    """Newest first, grouped by day and hour; ``choices``: the apps,
    workspaces and displays history holds, for the filters."""
    groups: list[str] = []
    current: tuple[str, str] | None = None
    items: list[str] = []

    def close() -> None:
        if current is not None and items:
            day, hour = current
            groups.append(
                f"<section><h2><time>{escape(day)}</time> <span>{escape(hour)}:00</span></h2>"
                f'<ul class="grid">{"".join(items)}</ul></section>'
            )

    for row in rows:
        moment = local(row.captured_at)
        key = (f"{moment:%A %Y-%m-%d}", f"{moment:%H}")
        if key != current:
            close()
            current, items = key, []
        items.append(_card(row))
    close()

    def choose(name: str, label: str, values: Iterable[tuple[str, str]]) -> str:
        chosen = filters.get(name, "")
        options = "".join(
            f'<option value="{escape(value)}"{" selected" if chosen == value else ""}>'
            f"{escape(shown)}</option>"
            for value, shown in values
        )
        return f'<label>{label} <select name="{name}">{options}</select></label>'

    def any_of(values: Iterable[str]) -> list[tuple[str, str]]:
        return [("", "any"), *((v, v) for v in values)]

    displays = [("", "any")] + [(d.split(" ", 1)[0], d) for d in choices.get("displays", ())]
    day = escape(filters.get("day", ""))
    picker = (
        '<form class="filters" method="get" action="/">'
        + choose("app", "App", any_of(choices.get("apps", ())))
        + choose("workspace", "Workspace", any_of(choices.get("workspaces", ())))
        + choose("display", "Display", displays)
        + choose("origin", "By", (("", "anyone"), ("user", "you"), ("agent", "agents")))
        + f'<label>Day <input type="date" name="day" value="{day}"></label>'
        "<button>Show</button></form>"
    )
    more = ""
    if next_cursor:
        query = urlencode({**{k: v for k, v in filters.items() if v}, "cursor": next_cursor})
        more = f'<p class="more"><a href="/?{escape(query)}" rel="next">Older captures</a></p>'
    body = (
        "".join(groups)
        or "<p>No captures here yet: take one with the shortcut or `noru capture`.</p>"
    )
    top = state_bar(state, app_running, pending) + _controls(state, "/")
    return page("Timeline", f"<h1>Timeline</h1>{picker}{body}{more}", top=top)


def _highlight(snippet: str) -> str:
    """A snippet with its «hits» marked, escaped."""
    out = escape(snippet)
    return out.replace("«", "<mark>").replace("»", "</mark>")


def search_page(query: str, hits: Sequence[SearchHit], *, next_cursor: str | None) -> str:
    items = "".join(
        f'<li><a class="hit" href="/capture/{escape(h.row.id)}?q={escape(query)}">'
        f'<img src="/thumb/{escape(h.row.id)}" alt="{escape(alt(h.row))}" loading="lazy" '
        'width="240" height="150">'
        f'<span class="when">{local(h.row.captured_at):%Y-%m-%d %H:%M}</span>'
        f'<span class="src">{escape(source_words(h.row))}</span>'
        f'<span class="layer">{escape(h.layer)}</span>'
        f'<q class="snippet">{_highlight(h.snippet)}</q></a></li>'
        for h in hits
    )
    more = ""
    if next_cursor:
        query_string = urlencode({"q": query, "cursor": next_cursor})
        more = f'<p class="more"><a href="/search?{escape(query_string)}">More</a></p>'
    found = (
        f'<ul class="hits">{items}</ul>' if hits else f"<p>Nothing matches “{escape(query)}”.</p>"
    )
    return page(f"Search: {query}", f"<h1>Search: {escape(query)}</h1>{found}{more}")
