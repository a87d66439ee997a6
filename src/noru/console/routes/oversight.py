"""The person's oversight: what agents read (the access log), the windows
never captured (exclusions), what agents never get (redaction), how long
history is kept (retention) and which OCR engine reads it.

Each request reads config.toml, the redaction policy and the access state
once, through its settings snapshot (``context.settings``); a page shown
after a refused change is shown from that same snapshot, since nothing was
written."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from noru import accesslog, edits, exclusions
from noru.config import Config, SettingError, set_values
from noru.console import pages
from noru.console.routes.context import done, held, html, moment, said, settings
from noru.errors import DataDirError, EditRefused
from noru.sizes import format_size
from noru.status import describe_disk
from noru.store import Reader, Store

__all__ = [
    "exclude_add",
    "exclude_remove",
    "log",
    "ocr_engine",
    "privacy",
    "prune",
    "redaction",
    "retention",
]

RETENTION = ("keep_days", "max_disk", "min_free")


def _retention_fields(config: Config) -> list[tuple[str, str, bool]]:
    """The retention settings as the form shows them: key, value, from config.toml."""
    sizes = {"max_disk": config.max_disk, "min_free": config.min_free}
    shown = {"keep_days": f"{config.keep_days:g}"}
    shown |= {key: format_size(value) if value else "0" for key, value in sizes.items()}
    return [(key, shown[key], key in config.from_file) for key in RETENTION]


def log(request: Request) -> Response:
    query = request.query_params
    client = query.get("client", "").strip()[:200]
    wanted = query.get("capture", "").strip()[:200]
    since, before = query.get("since", "")[:40], query.get("before", "")[:40]
    start, end = moment(since), moment(before)

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
            at = moment(str(entry.get("at") or ""))
            if at is None or (start and at < start) or (end and at >= end):
                return False
        return True

    entries = [e for e in accesslog.read(held(request).home) if shown(e)]
    return html(
        pages.log_page(
            entries[::-1][:500],
            filters={"client": client, "capture": wanted, "since": since, "before": before},
        )
    )


def _privacy(
    request: Request,
    title: str | None = None,
    problem: str | None = None,
    status: int = 200,
    notice: str | None = None,
    ask_off: tuple[list[str], list[str]] | None = None,
    ocr_problem: str | None = None,
) -> Response:
    home, config = held(request).home, settings(request).config
    try:
        current = exclusions.load(home)
    except DataDirError as exc:
        return html(pages.message_page("Exclusions damaged", str(exc)), 500)
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
    return html(
        pages.privacy_page(
            rules=rules,
            tested=tested,
            disk=disk,
            settings=_retention_fields(config),
            problem=problem,
            notice=notice,
            redacted=config.redact,
            ask_off=ask_off,
            engines=_engines(config.ocr_engine),
            ocr_problem=ocr_problem,
        ),
        status,
    )


def privacy(request: Request) -> Response:
    title = request.query_params.get("title", "").strip()[:500] or None
    return _privacy(request, title, notice=said(request))


async def exclude_add(request: Request) -> Response:
    home = held(request).home
    form = await request.form()
    kind, pattern = form.get("kind"), form.get("pattern")
    if not isinstance(kind, str) or not isinstance(pattern, str):
        return _privacy(request, problem="name a kind and a pattern", status=400)
    try:
        found = await run_in_threadpool(edits.add_exclusion, home, kind, pattern)
    except EditRefused as exc:
        return _privacy(request, problem=str(exc), status=400)
    if found is not None:
        return _privacy(request, problem=f"already excluded: {found}; nothing changed", status=400)
    return done("/privacy", "excluded")


async def exclude_remove(request: Request) -> Response:
    home = held(request).home
    form = await request.form()
    value = form.get("rule")
    if not isinstance(value, str) or ":" not in value:
        return _privacy(request, problem="no such exclusion", status=400)
    kind, _, pattern = value.partition(":")

    def remove() -> bool:
        if kind == "builtin":
            return exclusions.turn_off(home, pattern)
        return exclusions.remove(home, exclusions.Rule(kind, pattern))

    if not await run_in_threadpool(remove):
        return _privacy(request, problem="no such exclusion", status=400)
    return done("/privacy", "unexcluded")


async def retention(request: Request) -> Response:
    home = held(request).home
    form = await request.form()
    given = {key: form.get(key) for key in RETENTION}
    if not all(isinstance(v, str) for v in given.values()):
        return _privacy(request, problem="give keep_days, max_disk and min_free", status=400)
    # Only what the person changed: a default left as shown stays a default.
    shown = {key: value for key, value, _ in _retention_fields(settings(request).config)}
    changes = {k: v for k, v in given.items() if str(v).strip() != shown[k]}
    try:
        await run_in_threadpool(set_values, home, changes)
    except SettingError as exc:
        return _privacy(request, problem=str(exc), status=400)
    except DataDirError as exc:
        return _privacy(request, problem=str(exc), status=409)
    return done("/privacy", "retention")


async def prune(request: Request) -> Response:
    home, config = held(request).home, settings(request).config

    def run() -> int:
        with Store.open(home, min_free=config.min_free) as store:
            plan = store.prune_plan(keep_days=config.keep_days, max_disk=config.max_disk)
            return store.prune(plan)

    return done("/privacy", "pruned", await run_in_threadpool(run))


async def redaction(request: Request) -> Response:
    """The categories redacted in what agents get (``config.toml``'s
    ``redact``). Turning one off asks first; the change reaches `noru mcp`
    and the running app's indexer at their next read of the configuration."""
    from noru.redact.rules import CATEGORIES

    home = held(request).home
    form = await request.form()
    chosen = [str(v) for v in form.getlist("category")]
    unknown = [v for v in chosen if v not in CATEGORIES]
    if unknown:
        return _privacy(request, problem=f"unknown category: {', '.join(unknown)}", status=400)
    chosen = [c for c in CATEGORIES if c in chosen]
    dropped = [c for c in settings(request).config.redact if c not in chosen]
    if dropped and form.get("confirm") != "yes":
        return _privacy(request, ask_off=(chosen, dropped), status=409)
    try:
        await run_in_threadpool(set_values, home, {"redact": chosen})
    except SettingError as exc:
        return _privacy(request, problem=str(exc), status=400)
    except DataDirError as exc:
        return _privacy(request, problem=str(exc), status=409)
    return done("/privacy", "redaction")


def _engines(chosen: str) -> list[tuple[str, str, bool, bool]]:
    """The OCR engines as ``noru doctor`` finds them here: (name, what it is
    or why it cannot run, whether it can, whether config.toml chooses it)."""
    shown = []
    for found in edits.ocr_engines(chosen):
        about = f"{found.name} {found.version}" if found.available else "cannot run here"
        if not found.available:
            about += f": {found.problem}"
        shown.append((found.name, about, found.available, found.name == chosen))
    return shown


async def ocr_engine(request: Request) -> Response:
    """The OCR engine that reads captures' text (``config.toml``'s
    ``ocr_engine``), through ``edits.set_ocr_engine``: an unknown engine, or
    one that cannot run here, is refused with why. The running app picks it
    up at its next recognition."""
    home = held(request).home
    form = await request.form()
    name = form.get("engine")
    if not isinstance(name, str) or not name.strip():
        return _privacy(request, ocr_problem="choose an OCR engine", status=400)
    try:
        await run_in_threadpool(edits.set_ocr_engine, home, name[:100])
    except EditRefused as exc:
        return _privacy(request, ocr_problem=str(exc), status=400)
    except DataDirError as exc:
        return _privacy(request, ocr_problem=str(exc), status=409)
    return done("/privacy", "ocr")
