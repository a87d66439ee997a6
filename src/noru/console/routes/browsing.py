"""Reading the history: the timeline, search, one capture, its image and
thumbnail, and signing in (which leads to one of them)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from noru import accesslog, status
from noru.console import pages
from noru.console.guard import COOKIE, Keys
from noru.console.pages.browse import Day
from noru.console.pages.frame import alt, source_words
from noru.console.routes.context import capture_id, held, html, not_found, said, settings
from noru.redact.apply import agents_get
from noru.store import CaptureRecord, Filters, Reader, Row
from noru.store.files import check_id

__all__ = [
    "PAGE",
    "capture",
    "favicon",
    "image",
    "scrub",
    "search",
    "signin",
    "thumb",
    "timeline",
]

PAGE = 60  # captures per timeline page
SEARCH_PAGE = 20
COUNTED = 500  # a search counts its matches up to this many
DAYS = 14  # days with captures in the strip over the timeline
FILTERS = ("app", "workspace", "display", "origin", "day", "hour")
FAVICON = Path(__file__).parent.parent / "static" / "favicon.svg"


def _filters(request: Request) -> tuple[dict[str, str], Filters]:
    """The timeline's filters as the person gave them (a day it cannot read
    dropped), and as the store takes them."""
    query = request.query_params
    given = {k: query.get(k, "")[:200] for k in FILTERS}
    since = before = None
    hour = int(given["hour"]) if given["hour"].isdigit() and int(given["hour"]) < 24 else None
    given["hour"] = ""
    if given["day"]:
        try:
            start = datetime.strptime(given["day"], "%Y-%m-%d").astimezone()
        except ValueError:
            given["day"] = ""
        else:
            end = start + timedelta(days=1)
            if hour is not None:  # the day up to the end of that hour, newest first
                given["hour"] = f"{hour:02d}"
                end = (start + timedelta(hours=hour + 1)).astimezone()
            since, before = start.astimezone(UTC), end.astimezone(UTC)
    chosen = Filters(
        app=given["app"] or None,
        workspace=given["workspace"] or None,
        display=given["display"] or None,
        origin=given["origin"] if given["origin"] in ("user", "agent") else None,
        since=since,
        before=before,
    )
    return given, chosen


def _day_of(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _days(reader: Reader, chosen: Filters) -> list[Day]:
    """The latest days that hold captures the filters (but the day) match,
    newest first, each with its count: two indexed reads a day."""
    every = replace(chosen, since=None, before=None)
    days: list[Day] = []
    limit = every
    while len(days) < DAYS:
        rows, _ = reader.list_rows(limit, limit=1)
        if not rows:
            break
        day = rows[0].captured_at.astimezone().date()
        start = datetime(day.year, day.month, day.day).astimezone()
        end = start + timedelta(days=1)
        window = replace(every, since=start, before=end)
        days.append(Day(day, reader.count_matching(window)))
        limit = replace(every, before=start)
    return days


def _hours(reader: Reader, chosen: Filters, day: date) -> list[int]:
    """How many captures each hour of ``day`` holds (local time), for the
    scrubber; the filters but the day apply."""
    start = datetime(day.year, day.month, day.day).astimezone()
    counts = []
    for hour in range(24):
        since = (start + timedelta(hours=hour)).astimezone()
        window = replace(chosen, since=since, before=since + timedelta(hours=1))
        counts.append(reader.count_matching(window))
    return counts


def _nearest(
    reader: Reader, chosen: Filters, day: tuple[datetime, datetime], at: datetime, toward: str
) -> Row | None:
    """The capture the filters match within ``day`` (its start and end)
    nearest ``at``: ``toward`` "later" (the first after it), "earlier" (the
    last before it) or "near" (the closer of the two; the earlier on a tie)."""
    start, end = day
    earlier = later = None
    if toward != "later":
        before = at if toward == "earlier" else at + timedelta(seconds=1)
        window = replace(chosen, since=start, before=min(before, end))
        rows, _ = reader.list_rows(window, limit=1)
        earlier = rows[0] if rows else None
    if toward != "earlier":
        since = at + timedelta(seconds=1) if toward == "later" else at
        window = replace(chosen, since=max(since, start), before=end)
        rows, _ = reader.list_rows(window, order="oldest_first", limit=1)
        later = rows[0] if rows else None
    if earlier is None or later is None:
        return earlier or later
    return earlier if at - earlier.captured_at <= later.captured_at - at else later


def scrub(request: Request) -> Response:
    """The capture nearest a moment of a day, for the scrubber's preview
    while it is dragged or stepped with the keys: ``day``, ``second`` (of
    the day, local time), ``toward`` (``near``, ``later``, ``earlier``) and
    the timeline's filters. JSON: its id, time, the second of the day it was
    taken at, what it is and its alternative text; ``{"id": null}`` when the
    day holds none there."""
    query = request.query_params
    filters, chosen = _filters(request)
    raw = query.get("second", "")
    toward = query.get("toward", "near")
    known = toward in ("near", "later", "earlier")
    if not filters["day"] or not raw.isdigit() or int(raw) >= 86400 or not known:
        return JSONResponse({"error": "give day=YYYY-MM-DD and second=0..86399"}, 400)
    start = datetime.strptime(filters["day"], "%Y-%m-%d").astimezone()
    at = (start + timedelta(seconds=int(raw))).astimezone()
    day = (start.astimezone(UTC), (start + timedelta(days=1)).astimezone().astimezone(UTC))
    with Reader.open(held(request).home) as reader:
        row = _nearest(reader, chosen, day, at.astimezone(UTC), toward)
    if row is None:
        return JSONResponse({"id": None})
    taken = row.captured_at.astimezone()
    return JSONResponse(
        {
            "id": row.id,
            "time": f"{taken:%H:%M:%S}",
            "second": taken.hour * 3600 + taken.minute * 60 + taken.second,
            "words": source_words(row),
            "alt": alt(row),
        }
    )


def signin(request: Request) -> Response:
    keys: Keys = request.app.state.keys
    session = keys.exchange(request.query_params.get("token", ""))
    if session is None:
        return html(
            pages.message_page(
                "This link no longer works",
                "A sign-in link works once. Run `noru console` again for a new one.",
            ),
            403,
        )
    # Where the link leads after signing in: one capture's page (`noru open
    # --console ID`), never another site.
    wanted = request.query_params.get("capture", "")
    try:
        landing = f"/capture/{check_id(wanted)}" if wanted else "/"
    except ValueError:
        landing = "/"
    response = RedirectResponse(landing, status_code=303)
    response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
    return response


def timeline(request: Request) -> Response:
    home, choices = held(request).home, held(request).choices
    seen = settings(request)
    filters, chosen = _filters(request)
    with Reader.open(home) as reader:
        try:
            rows, next_cursor = reader.list_rows(
                chosen, limit=PAGE, cursor=request.query_params.get("cursor") or None
            )
        except ValueError:
            rows, next_cursor = reader.list_rows(chosen, limit=PAGE)
        offered = choices.get(reader)
        pending = reader.pending_count()
        # The strip and the scrubber top the first page only (the later ones
        # are fetched for their captures as the page scrolls).
        first = not request.query_params.get("cursor")
        days = _days(reader, chosen) if first else []
        shown_day = _day_of(filters["day"]) or (days[0].day if days else None)
        hours = _hours(reader, chosen, shown_day) if shown_day and first else []
    return html(
        pages.timeline_page(
            rows,
            status=status.gather(home, settings=seen),
            pending=pending,
            ocr_chosen=seen.config.ocr_engine,
            filters=filters,
            next_cursor=next_cursor,
            choices=offered,
            days=days,
            scrubbed=(shown_day, hours) if shown_day and hours else None,
            notice=said(request),
        )
    )


def search(request: Request) -> Response:
    home = held(request).home
    words = request.query_params.get("q", "").strip()[:500]
    if not words:
        return RedirectResponse("/", status_code=303)
    filters, chosen = _filters(request)
    now = datetime.now(UTC)
    with Reader.open(home) as reader:
        try:
            hits, next_cursor = reader.search(
                words,
                chosen,
                now=now,
                limit=SEARCH_PAGE,
                cursor=request.query_params.get("cursor") or None,
            )
        except ValueError:
            hits, next_cursor = reader.search(words, chosen, now=now, limit=SEARCH_PAGE)
        counted = reader.search_count(words, chosen, most=COUNTED) if next_cursor else len(hits)
        offered = held(request).choices.get(reader)
    if counted > COUNTED:
        total = f"More than {COUNTED} captures match"
    else:
        total = f"{pages.plural(counted, 'capture')} match{'es' if counted == 1 else ''}"
    return html(
        pages.search_page(
            words,
            hits,
            next_cursor=next_cursor,
            total=total,
            filters=filters,
            choices=offered,
        )
    )


def _beside(reader: Reader, record: CaptureRecord) -> tuple[str | None, str | None]:
    """The captures just newer and just older than ``record`` in the whole
    history (``captured_at`` is to the second: the captures of its second
    are ordered as the timeline orders them)."""
    second = record.captured_at
    same, _ = reader.list_rows(
        Filters(since=second, before=second + timedelta(seconds=1)), limit=1000
    )
    ids = [row.id for row in same]
    at = ids.index(record.id) if record.id in ids else -1
    newer = ids[at - 1] if at > 0 else None
    older = ids[at + 1] if 0 <= at < len(ids) - 1 else None
    if newer is None:
        after = Filters(since=second + timedelta(seconds=1))
        rows, _ = reader.list_rows(after, order="oldest_first", limit=1)
        newer = rows[0].id if rows else None
    if older is None:
        rows, _ = reader.list_rows(Filters(before=second), limit=1)
        older = rows[0].id if rows else None
    return newer, older


def capture(request: Request) -> Response:
    home = held(request).home
    wanted = capture_id(request)
    if wanted is None:
        return not_found()
    with Reader.open(home) as reader:
        record = reader.get(wanted)
        if record is None:
            return not_found()
        newer, older = _beside(reader, record)
    readers = [
        f"{e.get('at')}: {e.get('client') or 'unknown client'} ({e.get('transport')}),"
        f" {c.get('how')}"
        for e in accesslog.read(home)
        for c in e.get("captures") or ()
        if c.get("id") == wanted
    ]
    query = request.query_params.get("q", "")[:500]
    seen = agents_get(record, settings(request).policy)
    return html(
        pages.capture_page(
            record,
            readers=readers,
            query=query,
            agents_get=seen,
            newer=newer,
            older=older,
            notice=said(request),
        )
    )


def image(request: Request) -> Response:
    wanted = capture_id(request)
    position = request.path_params.get("position", 0)
    if wanted is None:
        return Response(status_code=404)
    with Reader.open(held(request).home) as reader:
        record = reader.get(wanted)
        if record is None or not 1 <= position <= len(record.images):
            return Response(status_code=404)
        data = reader.image_file(record.images[position - 1]).read_bytes()
    return Response(data, media_type="image/png", headers={"cache-control": "no-store"})


def thumb(request: Request) -> Response:
    wanted = capture_id(request)
    data = None if wanted is None else held(request).thumbs.get(held(request).home, wanted)
    if data is None:
        return Response(status_code=404)
    return Response(data, media_type="image/jpeg")


def favicon(request: Request) -> Response:
    """The icon browsers ask for at /favicon.ico whatever the page says."""
    return Response(FAVICON.read_bytes(), media_type="image/svg+xml")
