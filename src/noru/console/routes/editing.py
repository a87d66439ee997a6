"""The person's changes from the console: a note, a delete (one capture or a
time range, the count confirmed) and the access controls. Each goes through
the same code as the CLI's command (``Store``, ``access.set_control``)."""

from __future__ import annotations

from datetime import datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from noru import access
from noru.config import load_config
from noru.console import pages
from noru.console.routes.context import back, capture_id, held, html, moment, not_found
from noru.redact import index
from noru.store import Filters, Reader, Store

__all__ = ["CONTROLS", "control", "delete", "delete_range", "delete_range_now", "note"]

CONTROLS = ("allow", "pause", "resume", "revoke")


async def note(request: Request) -> Response:
    home = held(request).home
    wanted = capture_id(request)
    form = await request.form()
    text = form.get("note")
    if wanted is None or not isinstance(text, str):
        return not_found()

    def save() -> bool:
        with Store.open(home) as store:
            if not store.set_note(wanted, text.strip()[:10_000] or None):
                return False
            # Agents' search index given the note (noru.redact.index).
            index.refresh(store, load_config(home).redact, ids=[wanted])
            return True

    if not await run_in_threadpool(save):
        return not_found()
    return RedirectResponse(f"/capture/{wanted}", status_code=303)


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
    return RedirectResponse("/", status_code=303)


async def control(request: Request) -> Response:
    form = await request.form()
    action = form.get("action")
    if action not in CONTROLS:
        return html(pages.message_page("Unknown control", "Use the buttons."), 400)
    assert isinstance(action, str)
    await run_in_threadpool(access.set_control, held(request).home, action)
    return RedirectResponse(back(form.get("back")), status_code=303)


def _range(since: str, before: str) -> tuple[datetime, datetime] | None:
    start, end = moment(since), moment(before)
    return (start, end) if start and end and start < end else None


def delete_range(request: Request) -> Response:
    since = request.query_params.get("since", "")
    before = request.query_params.get("before", "")
    count = None
    chosen = _range(since, before) if since and before else None
    if chosen is not None:
        with Reader.open(held(request).home) as reader:
            count = reader.count_matching(Filters(since=chosen[0], before=chosen[1]))
    return html(pages.delete_range_page(since=since, before=before, count=count))


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

    done = await run_in_threadpool(remove)
    if done is None:
        return html(
            pages.message_page("Not deleted", "The range changed since you counted it."), 409
        )
    return RedirectResponse("/", status_code=303)
