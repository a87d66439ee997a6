"""Reading the history: the timeline, search, one capture, its image and
thumbnail, and signing in (which leads to one of them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from noru import access, accesslog, appwire
from noru.config import load_config
from noru.console import pages
from noru.console.guard import COOKIE, Keys
from noru.console.routes.context import capture_id, held, html, not_found
from noru.redact import policy
from noru.redact.apply import agents_get
from noru.store import Filters, Reader
from noru.store.files import check_id

__all__ = ["PAGE", "capture", "image", "search", "signin", "thumb", "timeline"]

PAGE = 60  # captures per timeline page
FILTERS = ("app", "workspace", "display", "origin", "day")


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
    query = request.query_params
    filters = {k: query.get(k, "")[:200] for k in FILTERS}
    since = before = None
    if filters["day"]:
        try:
            start = datetime.strptime(filters["day"], "%Y-%m-%d").astimezone()
        except ValueError:
            filters["day"] = ""
        else:
            since, before = start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)
    chosen = Filters(
        app=filters["app"] or None,
        workspace=filters["workspace"] or None,
        display=filters["display"] or None,
        origin=filters["origin"] if filters["origin"] in ("user", "agent") else None,
        since=since,
        before=before,
    )
    with Reader.open(home) as reader:
        try:
            rows, next_cursor = reader.list_rows(
                chosen, limit=PAGE, cursor=query.get("cursor") or None
            )
        except ValueError:
            rows, next_cursor = reader.list_rows(chosen, limit=PAGE)
        offered = choices.get(reader)
        pending = reader.pending_count()
    return html(
        pages.timeline_page(
            rows,
            state=access.load(home),
            app_running=appwire.LiveClient(home, timeout=1).running(),
            pending=pending,
            filters=filters,
            next_cursor=next_cursor,
            choices=offered,
        )
    )


def search(request: Request) -> Response:
    home = held(request).home
    words = request.query_params.get("q", "").strip()[:500]
    if not words:
        return RedirectResponse("/", status_code=303)
    with Reader.open(home) as reader:
        try:
            hits, next_cursor = reader.search(
                words,
                Filters(),
                now=datetime.now(UTC),
                cursor=request.query_params.get("cursor") or None,
            )
        except ValueError:
            hits, next_cursor = reader.search(words, Filters(), now=datetime.now(UTC))
    return html(pages.search_page(words, hits, next_cursor=next_cursor))


def capture(request: Request) -> Response:
    home = held(request).home
    wanted = capture_id(request)
    if wanted is None:
        return not_found()
    with Reader.open(home) as reader:
        record = reader.get(wanted)
    if record is None:
        return not_found()
    readers = [
        f"{e.get('at')}: {e.get('client') or 'unknown client'} ({e.get('transport')}),"
        f" {c.get('how')}"
        for e in accesslog.read(home)
        for c in e.get("captures") or ()
        if c.get("id") == wanted
    ]
    query = request.query_params.get("q", "")[:500]
    seen = agents_get(record, policy.load(home, load_config(home).redact))
    return html(pages.capture_page(record, readers=readers, query=query, agents_get=seen))


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
