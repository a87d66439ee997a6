"""Browsing the history: the timeline (with the access state and its
controls above it, a strip of days over it), the search results, and the
words the state is said in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from noru import access
from noru.console.pages.frame import local, render
from noru.status import Status
from noru.store import Row, SearchHit

__all__ = ["Day", "Hour", "ocr_words", "search_page", "state_words", "timeline_page"]


@dataclass(frozen=True)
class Hour:
    """One group of the timeline: a day, an hour, its captures newest first."""

    day: str
    hour: str
    rows: list[Row]


@dataclass(frozen=True)
class Day:
    """One day of the strip over the timeline, and how many captures it holds."""

    day: date
    count: int


def _hours(rows: Sequence[Row]) -> list[Hour]:
    groups: list[Hour] = []
    for row in rows:
        moment = local(row.captured_at)
        day, hour = f"{moment:%A %Y-%m-%d}", f"{moment:%H}"
        if not groups or (groups[-1].day, groups[-1].hour) != (day, hour):
            groups.append(Hour(day, hour, []))
        groups[-1].rows.append(row)
    return groups


def ocr_words(status: Status, chosen: str) -> str:
    """The OCR engine in use, as `noru status` says it, and the one
    config.toml chooses where that is another (the running app switches at
    its next recognition) or the app is not running to say."""
    app = status.app
    if app is None:
        return f"OCR engine: {chosen}, as chosen (used once the Noru app runs)"
    if app.ocr.engine != chosen:
        return f"OCR engine: {app.ocr} ({chosen} chosen: used from the app's next recognition)"
    return f"OCR engine: {app.ocr}"


def state_words(status: Status, pending: int, ocr_chosen: str) -> list[tuple[str, str]]:
    """The state bar: (class, words), each line as `noru status` says it
    (``status.person_lines``), so the two never disagree; ``ocr_chosen``:
    config.toml's OCR engine."""
    allowed, why = status.live_now
    history = status.history_access
    app = status.app
    mode = "not allowed yet" if (now := access.mode(status.state)) == "unset" else now
    waiting = f"Waiting for their text: {pending}"
    if pending and app is None:
        waiting += " (read once the Noru app runs)"
    elif pending and app is not None and not app.ocr.available:
        waiting += f" (the Noru app cannot recognise text: {app.ocr.problem})"
    return [
        (f"mode mode-{mode.split()[0]}", f"Agents: {mode}"),
        (
            "" if allowed else "refused",
            "Live requests now: " + ("allowed" if allowed else f"refused ({why})"),
        ),
        (
            "" if history.allowed else "refused",
            "History now: " + ("readable" if history.allowed else f"blocked ({history.reason})"),
        ),
        ("", f"App running: {'yes' if app else 'no (live targets need `noru app`)'}"),
        ("", ocr_words(status, ocr_chosen)),
        ("", waiting),
    ]


@dataclass(frozen=True)
class HourBar:
    """One hour of the scrubber: its link, its count, how tall its bar is
    (0 to 4: classes, since the page's policy allows no inline style)."""

    hour: int
    count: int
    link: str
    level: int
    current: bool


def _scrubber(
    scrubbed: tuple[date, Sequence[int]], others: dict[str, str], chosen: str
) -> tuple[date, list[HourBar]]:
    """The hours of a day as bars: each leads to the timeline from the end
    of that hour back (the rest of the day below it, older)."""
    day, counts = scrubbed
    most = max(counts) or 1
    bars = []
    for hour, count in enumerate(counts):
        link = "/?" + urlencode({**others, "day": day.isoformat(), "hour": f"{hour:02d}"})
        level = 0 if not count else 1 + (3 * count) // most if count < most else 4
        bars.append(HourBar(hour, count, link, min(level, 4), chosen == f"{hour:02d}"))
    return day, bars


def _any_of(values: Iterable[str]) -> list[tuple[str, str]]:
    return [("", "any"), *((v, v) for v in values)]


def filter_choices(choices: dict[str, list[str]]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The filters' selects: (name, label, [(value, shown)]), from what history holds."""
    displays = [(d.split(" ", 1)[0], d) for d in choices.get("displays", ())]
    return [
        ("app", "App", _any_of(choices.get("apps", ()))),
        ("workspace", "Workspace", _any_of(choices.get("workspaces", ()))),
        ("display", "Display", [("", "any"), *displays]),
        ("origin", "By", [("", "anyone"), ("user", "you"), ("agent", "agents")]),
    ]


def timeline_page(
    rows: Sequence[Row],
    *,
    status: Status,
    pending: int,
    ocr_chosen: str,
    filters: dict[str, str],
    next_cursor: str | None,
    choices: dict[str, list[str]],
    days: Sequence[Day] = (),
    scrubbed: tuple[date, Sequence[int]] | None = None,
    notice: str | None = None,
) -> str:
    """Newest first, grouped by day and hour; ``choices``: the apps,
    workspaces and displays history holds, for the filters; ``days``: the
    strip of days with captures, newest first."""
    more = None
    if next_cursor:
        more = "/?" + urlencode({**{k: v for k, v in filters.items() if v}, "cursor": next_cursor})
    others = {k: v for k, v in filters.items() if v and k not in ("day", "hour")}
    return render(
        "timeline.html",
        title="Timeline",
        here="/",
        hours=_hours(rows),
        words=state_words(status, pending, ocr_chosen),
        paused=status.state.paused,
        back="/",
        filters=filters,
        selects=filter_choices(choices),
        days=[(d, "/?" + urlencode({**others, "day": d.day.isoformat()})) for d in days],
        every_day="/?" + urlencode(others),
        scrubber=_scrubber(scrubbed, others, filters.get("hour", "")) if scrubbed else None,
        scrub_filters=urlencode(others),
        more=more,
        notice=notice,
    )


def search_page(
    query: str,
    hits: Sequence[SearchHit],
    *,
    next_cursor: str | None,
    total: str = "",
    filters: dict[str, str] | None = None,
    choices: dict[str, list[str]] | None = None,
) -> str:
    """One page of matches; ``total``: how many match, in words; ``filters``
    and ``choices``: the timeline's filters, kept with the query."""
    filters = filters or {}
    kept = {k: v for k, v in filters.items() if v}
    more = (
        "/search?" + urlencode({"q": query, **kept, "cursor": next_cursor}) if next_cursor else None
    )
    return render(
        "search.html",
        title=f"Search: {query}",
        query=query,
        hits=hits,
        more=more,
        total=total,
        filters=filters,
        selects=filter_choices(choices or {}),
    )
