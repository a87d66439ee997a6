"""Browsing the history: the timeline (with the access state and its
controls above it) and the search results."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from noru.access import AccessState, history_decision, live_decision
from noru.console.pages.frame import local, render
from noru.store import Row, SearchHit

__all__ = ["Hour", "search_page", "timeline_page"]


@dataclass(frozen=True)
class Hour:
    """One group of the timeline: a day, an hour, its captures newest first."""

    day: str
    hour: str
    rows: list[Row]


def _hours(rows: Sequence[Row]) -> list[Hour]:
    groups: list[Hour] = []
    for row in rows:
        moment = local(row.captured_at)
        day, hour = f"{moment:%A %Y-%m-%d}", f"{moment:%H}"
        if not groups or (groups[-1].day, groups[-1].hour) != (day, hour):
            groups.append(Hour(day, hour, []))
        groups[-1].rows.append(row)
    return groups


def _mode(state: AccessState) -> str:
    if state.revoked:
        return "revoked"
    if state.paused:
        return "paused"
    return "allowed" if state.authorized else "not allowed yet"


def _any_of(values: Iterable[str]) -> list[tuple[str, str]]:
    return [("", "any"), *((v, v) for v in values)]


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
    more = None
    if next_cursor:
        more = "/?" + urlencode({**{k: v for k, v in filters.items() if v}, "cursor": next_cursor})
    selects = [
        ("app", "App", _any_of(choices.get("apps", ()))),
        ("workspace", "Workspace", _any_of(choices.get("workspaces", ()))),
        (
            "display",
            "Display",
            [("", "any")] + [(d.split(" ", 1)[0], d) for d in choices.get("displays", ())],
        ),
        ("origin", "By", [("", "anyone"), ("user", "you"), ("agent", "agents")]),
    ]
    return render(
        "timeline.html",
        title="Timeline",
        hours=_hours(rows),
        mode=_mode(state),
        live=live_decision(state),
        history=history_decision(state),
        app_running=app_running,
        pending=pending,
        paused=state.paused,
        back="/",
        filters=filters,
        selects=selects,
        more=more,
    )


def search_page(query: str, hits: Sequence[SearchHit], *, next_cursor: str | None) -> str:
    more = "/search?" + urlencode({"q": query, "cursor": next_cursor}) if next_cursor else None
    return render("search.html", title=f"Search: {query}", query=query, hits=hits, more=more)
