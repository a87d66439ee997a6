"""The person's changes from the console: a note, a delete (one capture or a
time range, the count confirmed) and the access controls. Each goes through
the same code as the CLI's command (``Store``, ``access.set_control``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from noru import access, edits
from noru.console import pages
from noru.console.routes.context import back, capture_id, done, held, html, moment, not_found
from noru.errors import EditRefused
from noru.store import CaptureRecord, Filters, Reader, Row, Store
from noru.store.files import check_id

__all__ = [
    "CONTROLS",
    "control",
    "delete",
    "delete_range",
    "delete_range_now",
    "delete_selected",
    "note",
]

CONTROLS = ("allow", "pause", "resume", "revoke")
LAST = {"15m": timedelta(minutes=15), "1h": timedelta(hours=1), "1d": timedelta(days=1)}
PREVIEW = 24  # thumbnails shown before a delete
SELECTED = 500  # captures deleted at once by selection


async def note(request: Request) -> Response:
    home = held(request).home
    wanted = capture_id(request)
    form = await request.form()
    text = form.get("note")
    if wanted is None or not isinstance(text, str):
        return not_found()

    def save() -> bool:
        with Store.open(home) as store:
            return edits.set_note(store, wanted, text)

    try:
        saved = await run_in_threadpool(save)
    except EditRefused as exc:
        return html(pages.message_page("Note not saved", str(exc)), 400)
    if not saved:
        return not_found()
    return done(f"/capture/{wanted}", "note")


async def delete(request: Request) -> Response:
    home = held(request).home
    wanted = capture_id(request)
    form = await request.form()
    if wanted is None:
        return not_found()
    if form.get("confirm") != "yes":
        return html(pages.message_page("Not deleted", "Tick the box to confirm."), 400)

    def remove() -> bool:
        with Store.open(home) as store:
            return store.delete(wanted)

    if not await run_in_threadpool(remove):
        return not_found()
    held(request).thumbs.forget(wanted)
    return done("/", "deleted", 1)


async def control(request: Request) -> Response:
    form = await request.form()
    action = form.get("action")
    if action not in CONTROLS:
        return html(pages.message_page("Unknown control", "Use the buttons."), 400)
    assert isinstance(action, str)
    state = await run_in_threadpool(access.set_control, held(request).home, action)
    # What the press did, said plainly where it leaves something still refused.
    said = action
    if action == "allow" and state.paused:
        said = "allow-paused"
    elif action == "resume" and not state.authorized:
        said = "resume-unallowed"
    return done(back(form.get("back")), said)


def _range(since: str, before: str) -> tuple[datetime, datetime] | None:
    start, end = moment(since), moment(before)
    return (start, end) if start and end and start < end else None


def delete_range(request: Request) -> Response:
    """Count (and show) the captures of a range before deleting them: one the
    person gave, or the last 15 minutes, hour or day (``last``)."""
    since = request.query_params.get("since", "")
    before = request.query_params.get("before", "")
    last = LAST.get(request.query_params.get("last", ""))
    if last is not None:
        now = datetime.now().replace(microsecond=0)
        since = (now - last).isoformat(timespec="seconds")
        before = (now + timedelta(seconds=1)).isoformat(timespec="seconds")
    count: int | None = None
    preview: list[Row] = []
    chosen = _range(since, before) if since and before else None
    if chosen is not None:
        window = Filters(since=chosen[0], before=chosen[1])
        with Reader.open(held(request).home) as reader:
            count = reader.count_matching(window)
            preview, _ = reader.list_rows(window, limit=PREVIEW)
    return html(pages.delete_range_page(since=since, before=before, count=count, preview=preview))


async def delete_range_now(request: Request) -> Response:
    home, thumbs = held(request).home, held(request).thumbs
    form = await request.form()
    since, before, confirm = form.get("since"), form.get("before"), form.get("confirm")
    chosen = _range(str(since or ""), str(before or ""))
    if chosen is None:
        return html(pages.message_page("Not deleted", "Give a range, earliest first."), 400)
    window = Filters(since=chosen[0], before=chosen[1])

    def remove() -> int | None:
        if not isinstance(confirm, str) or not confirm.isdigit():
            return None
        with Store.open(home) as store:
            # The count the person confirmed must still be the count.
            gone = store.delete_matching(window, expected=int(confirm))
        for gone_id in gone or ():
            thumbs.forget(gone_id)
        return None if gone is None else len(gone)

    done_count = await run_in_threadpool(remove)
    if done_count is None:
        return html(
            pages.message_page("Not deleted", "The range changed since you counted it."), 409
        )
    return done("/", "deleted", done_count)


async def delete_selected(request: Request) -> Response:
    """The captures ticked on the timeline: shown first with their count;
    deleted when the person confirms that count (``confirm``)."""
    home, thumbs = held(request).home, held(request).thumbs
    form = await request.form()
    ids: list[str] = []
    for value in form.getlist("id")[:SELECTED]:
        try:
            ids.append(check_id(str(value)))
        except ValueError:
            continue
    ids = list(dict.fromkeys(ids))
    if not ids:
        return html(
            pages.message_page("Nothing selected", "Tick the captures to delete first."), 400
        )

    def found() -> list[CaptureRecord]:
        with Reader.open(home) as reader:
            return [r for r in map(reader.get, ids) if r is not None]

    if form.get("confirm") != str(len(ids)):
        shown = await run_in_threadpool(found)
        return html(pages.delete_selected_page(shown, ids=[r.id for r in shown]))

    def remove() -> int:
        gone = 0
        with Store.open(home) as store:
            for capture in ids:
                if store.delete(capture):
                    thumbs.forget(capture)
                    gone += 1
        return gone

    return done("/", "deleted", await run_in_threadpool(remove))
