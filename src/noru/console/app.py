"""The console's routes: pages read the history read-only; the few writes
(a note, a delete, the access controls) go through the same code as the
person's CLI commands (``Store``, ``access.set_control``).
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from noru import access, accesslog, appwire, edits, exclusions
from noru.config import Config, SettingError, load_config, set_values
from noru.console import pages
from noru.console.guard import COOKIE, Guard, Keys
from noru.errors import DataDirError, EditRefused, NoruError, StoreError
from noru.redact import policy
from noru.redact.apply import agents_get
from noru.sizes import format_size
from noru.status import describe_disk
from noru.store import Filters, Reader, Store
from noru.store.files import check_id

__all__ = ["Choices", "Thumbnails", "create_app"]

STATIC = Path(__file__).parent / "static"
THUMB_WIDTH = 240
PAGE = 60  # captures per timeline page
CONTROLS = ("allow", "pause", "resume", "revoke")
FILTERS = ("app", "workspace", "display", "origin", "day")
RETENTION = ("keep_days", "max_disk", "min_free")


def _settings(config: Config) -> list[tuple[str, str, bool]]:
    """The retention settings as the form shows them: key, value, from config.toml."""
    sizes = {"max_disk": config.max_disk, "min_free": config.min_free}
    shown = {"keep_days": f"{config.keep_days:g}"}
    shown |= {key: format_size(value) if value else "0" for key, value in sizes.items()}
    return [(key, shown[key], key in config.from_file) for key in RETENTION]


class Thumbnails:
    """Small JPEG thumbnails, made once per capture and kept in memory (never
    on disk: a deleted or pruned capture leaves no copy behind)."""

    def __init__(self, most: int = 2000) -> None:
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.most = most

    def get(self, home: Path, capture_id: str) -> bytes | None:
        with self._lock:
            if capture_id in self._cache:
                self._cache.move_to_end(capture_id)
                return self._cache[capture_id]
        from PIL import Image

        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            if record is None:
                return None
            with Image.open(reader.image_file(record.images[0])) as image:
                image.draft("RGB", (THUMB_WIDTH * 2, THUMB_WIDTH * 2))
                small = image.convert("RGB")
                small.thumbnail((THUMB_WIDTH, THUMB_WIDTH * 10 // 16))
        out = io.BytesIO()
        small.save(out, format="JPEG", quality=70, optimize=True)
        data = out.getvalue()
        with self._lock:
            self._cache[capture_id] = data
            while len(self._cache) > self.most:
                self._cache.popitem(last=False)
        return data

    def forget(self, capture_id: str) -> None:
        with self._lock:
            self._cache.pop(capture_id, None)


class Choices:
    """The apps, workspaces and displays the timeline's filters offer: a pass
    over every image row (most of a timeline page's time at 100,000
    captures), so kept until a capture is added or deleted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mark: tuple[int, int] | None = None
        self._values: dict[str, list[str]] = {}

    def get(self, reader: Reader) -> dict[str, list[str]]:
        mark = reader.mark()
        with self._lock:
            if mark == self._mark:
                return self._values
        values = reader.present_values(most=50)
        with self._lock:
            self._mark, self._values = mark, values
        return values


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status)


def _capture_id(request: Request) -> str | None:
    raw = request.path_params.get("capture_id", "")
    try:
        return check_id(raw)
    except ValueError:
        return None


def _not_found() -> HTMLResponse:
    return _html(pages.message_page("Not found", "There is no such capture."), 404)


def _moment(text: str) -> datetime | None:
    """A moment the person gave (a browser's local date-time) or the log
    wrote (RFC 3339 UTC), in UTC; None for nothing or nonsense."""
    try:
        return datetime.fromisoformat(text).astimezone(UTC) if text else None
    except ValueError:
        return None


def _back(value: object) -> str:
    """Where a form returns to: a path of this console only."""
    text = value if isinstance(value, str) else "/"
    return text if text.startswith("/") and not text.startswith("//") else "/"


def create_app(home: Path, keys: Keys) -> Starlette:
    thumbs = Thumbnails()
    choices = Choices()

    def signin(request: Request) -> Response:
        session = keys.exchange(request.query_params.get("token", ""))
        if session is None:
            return _html(
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
        return _html(
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
        return _html(pages.search_page(words, hits, next_cursor=next_cursor))

    def capture(request: Request) -> Response:
        capture_id = _capture_id(request)
        if capture_id is None:
            return _not_found()
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
        if record is None:
            return _not_found()
        readers = [
            f"{e.get('at')}: {e.get('client') or 'unknown client'} ({e.get('transport')}),"
            f" {c.get('how')}"
            for e in accesslog.read(home)
            for c in e.get("captures") or ()
            if c.get("id") == capture_id
        ]
        query = request.query_params.get("q", "")[:500]
        seen = agents_get(record, policy.load(home, load_config(home).redact))
        return _html(pages.capture_page(record, readers=readers, query=query, agents_get=seen))

    def image(request: Request) -> Response:
        capture_id = _capture_id(request)
        position = request.path_params.get("position", 0)
        if capture_id is None:
            return Response(status_code=404)
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            if record is None or not 1 <= position <= len(record.images):
                return Response(status_code=404)
            data = reader.image_file(record.images[position - 1]).read_bytes()
        return Response(data, media_type="image/png", headers={"cache-control": "no-store"})

    def thumb(request: Request) -> Response:
        capture_id = _capture_id(request)
        data = None if capture_id is None else thumbs.get(home, capture_id)
        if data is None:
            return Response(status_code=404)
        return Response(data, media_type="image/jpeg")

    async def note(request: Request) -> Response:
        capture_id = _capture_id(request)
        form = await request.form()
        text = form.get("note")
        if capture_id is None or not isinstance(text, str):
            return _not_found()

        def save() -> bool:
            with Store.open(home) as store:
                return edits.set_note(store, capture_id, text)

        try:
            saved = await run_in_threadpool(save)
        except EditRefused as exc:
            return _html(pages.message_page("Note not saved", str(exc)), 400)
        if not saved:
            return _not_found()
        return RedirectResponse(f"/capture/{capture_id}", status_code=303)

    async def delete(request: Request) -> Response:
        capture_id = _capture_id(request)
        form = await request.form()
        if capture_id is None:
            return _not_found()
        if form.get("confirm") != "yes":
            return _html(pages.message_page("Not deleted", "Tick the box to confirm."), 400)

        def remove() -> bool:
            with Store.open(home) as store:
                return store.delete(capture_id)

        if not await run_in_threadpool(remove):
            return _not_found()
        thumbs.forget(capture_id)
        return RedirectResponse("/", status_code=303)

    async def control(request: Request) -> Response:
        form = await request.form()
        action = form.get("action")
        if action not in CONTROLS:
            return _html(pages.message_page("Unknown control", "Use the buttons."), 400)
        assert isinstance(action, str)
        await run_in_threadpool(access.set_control, home, action)
        return RedirectResponse(_back(form.get("back")), status_code=303)

    def log(request: Request) -> Response:
        query = request.query_params
        client = query.get("client", "").strip()[:200]
        wanted = query.get("capture", "").strip()[:200]
        since, before = query.get("since", "")[:40], query.get("before", "")[:40]
        start, end = _moment(since), _moment(before)

        def shown(entry: dict[str, object]) -> bool:
            if client and client.lower() not in str(entry.get("client") or "").lower():
                return False
            served = entry.get("captures")
            if wanted and not any(
                isinstance(c, dict) and c.get("id") == wanted
                for c in (served if isinstance(served, list) else ())
            ):
                return False
            if start or end:
                at = _moment(str(entry.get("at") or ""))
                if at is None or (start and at < start) or (end and at >= end):
                    return False
            return True

        entries = [e for e in accesslog.read(home) if shown(e)]
        return _html(
            pages.log_page(
                entries[::-1][:500],
                filters={"client": client, "capture": wanted, "since": since, "before": before},
            )
        )

    def _privacy(
        title: str | None = None, problem: str | None = None, status: int = 200
    ) -> Response:
        config = load_config(home)
        try:
            current = exclusions.load(home)
        except DataDirError as exc:
            return _html(pages.message_page("Exclusions damaged", str(exc)), 500)
        rules: list[tuple[str, str, str | None]] = [
            (str(rule), "yours", f"{rule.kind}:{rule.pattern}") for rule in current.rules
        ]
        rules += [(f"app {a}", "config.toml", None) for a in config.exclude_apps]
        rules += [(f"title {t}", "config.toml", None) for t in config.exclude_titles]
        rules += [
            (str(rule), f"built in: {name}", f"builtin:{name}")
            for name, rule in exclusions.BUILTIN.items()
            if name not in current.builtin_off
        ]
        tested = None
        if title:
            every = exclusions.load(home, apps=config.exclude_apps, titles=config.exclude_titles)
            tested = (title, every.excludes(None, None, title))
        with Reader.open(home) as reader:
            disk = describe_disk(reader.usage(), config)
        return _html(
            pages.privacy_page(
                rules=rules,
                tested=tested,
                disk=disk,
                settings=_settings(config),
                problem=problem,
            ),
            status,
        )

    def privacy(request: Request) -> Response:
        return _privacy(request.query_params.get("title", "").strip()[:500] or None)

    async def exclude_add(request: Request) -> Response:
        form = await request.form()
        kind, pattern = form.get("kind"), form.get("pattern")
        if not isinstance(kind, str) or not isinstance(pattern, str):
            return _privacy(problem="name a kind and a pattern", status=400)
        try:
            found = await run_in_threadpool(edits.add_exclusion, home, kind, pattern)
        except EditRefused as exc:
            return _privacy(problem=str(exc), status=400)
        if found is not None:
            return _privacy(problem=f"already excluded: {found}; nothing changed", status=400)
        return RedirectResponse("/privacy", status_code=303)

    async def exclude_remove(request: Request) -> Response:
        form = await request.form()
        value = form.get("rule")
        if not isinstance(value, str) or ":" not in value:
            return _privacy(problem="no such exclusion", status=400)
        kind, _, pattern = value.partition(":")

        def remove() -> bool:
            if kind == "builtin":
                return exclusions.turn_off(home, pattern)
            return exclusions.remove(home, exclusions.Rule(kind, pattern))

        if not await run_in_threadpool(remove):
            return _privacy(problem="no such exclusion", status=400)
        return RedirectResponse("/privacy", status_code=303)

    async def retention(request: Request) -> Response:
        form = await request.form()
        given = {key: form.get(key) for key in RETENTION}
        if not all(isinstance(v, str) for v in given.values()):
            return _privacy(problem="give keep_days, max_disk and min_free", status=400)
        # Only what the person changed: a default left as shown stays a default.
        shown = {key: value for key, value, _ in _settings(load_config(home))}
        changes = {k: v for k, v in given.items() if str(v).strip() != shown[k]}
        try:
            await run_in_threadpool(set_values, home, changes)
        except SettingError as exc:
            return _privacy(problem=str(exc), status=400)
        except DataDirError as exc:
            return _privacy(problem=str(exc), status=409)
        return RedirectResponse("/privacy", status_code=303)

    async def prune(request: Request) -> Response:
        config = load_config(home)

        def run() -> int:
            with Store.open(home, min_free=config.min_free) as store:
                plan = store.prune_plan(keep_days=config.keep_days, max_disk=config.max_disk)
                return store.prune(plan)

        await run_in_threadpool(run)
        return RedirectResponse("/privacy", status_code=303)

    def _range(since: str, before: str) -> tuple[datetime, datetime] | None:
        start, end = _moment(since), _moment(before)
        return (start, end) if start and end and start < end else None

    def delete_range(request: Request) -> Response:
        since = request.query_params.get("since", "")
        before = request.query_params.get("before", "")
        count = None
        chosen = _range(since, before) if since and before else None
        if chosen is not None:
            with Reader.open(home) as reader:
                count = reader.count_matching(Filters(since=chosen[0], before=chosen[1]))
        return _html(pages.delete_range_page(since=since, before=before, count=count))

    async def delete_range_now(request: Request) -> Response:
        form = await request.form()
        since, before, confirm = form.get("since"), form.get("before"), form.get("confirm")
        chosen = _range(str(since or ""), str(before or ""))
        if chosen is None:
            return _html(pages.message_page("Not deleted", "Give a range, earliest first."), 400)
        window = Filters(since=chosen[0], before=chosen[1])

        def remove() -> int | None:
            if not isinstance(confirm, str) or not confirm.isdigit():
                return None
            with Store.open(home) as store:
                # The count the person confirmed must still be the count.
                gone = store.delete_matching(window, expected=int(confirm))
            for capture_id in gone or ():
                thumbs.forget(capture_id)
            return None if gone is None else len(gone)

        done = await run_in_threadpool(remove)
        if done is None:
            return _html(
                pages.message_page("Not deleted", "The range changed since you counted it."), 409
            )
        return RedirectResponse("/", status_code=303)

    async def failed(request: Request, exc: Exception) -> Response:
        text = str(exc) if isinstance(exc, NoruError) else "the console failed; see its terminal"
        if isinstance(exc, StoreError):
            text += " (run `noru doctor`)"
        return _html(pages.message_page("Something went wrong", text), 500)

    app = Starlette(
        routes=[
            Route("/signin", signin),
            Route("/", timeline),
            Route("/search", search),
            Route("/capture/{capture_id}", capture),
            Route("/capture/{capture_id}/note", note, methods=["POST"]),
            Route("/capture/{capture_id}/delete", delete, methods=["POST"]),
            Route("/image/{capture_id}/{position:int}", image),
            Route("/thumb/{capture_id}", thumb),
            Route("/control", control, methods=["POST"]),
            Route("/log", log),
            Route("/privacy", privacy),
            Route("/exclusions/add", exclude_add, methods=["POST"]),
            Route("/exclusions/remove", exclude_remove, methods=["POST"]),
            Route("/retention", retention, methods=["POST"]),
            Route("/prune", prune, methods=["POST"]),
            Route("/delete-range", delete_range),
            Route("/delete-range", delete_range_now, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(Guard, keys=keys)],
        exception_handlers={Exception: failed},
    )
    return app
