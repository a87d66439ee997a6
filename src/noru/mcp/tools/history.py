"""History tools: list_captures, search_captures, get_capture.

Every call first checks the persisted revoke (``access.history_decision``);
history is never served around it. The store is opened read-only per call,
so a running `noru mcp` sees new captures and never holds the database open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

from noru import access, status
from noru.contract import Answer, capture_answer, text_answer
from noru.errors import DataDirError, InvalidParams, NoMatch
from noru.mcp.tools.context import ToolContext
from noru.present import (
    QUEUED,
    BadRegion,
    Projection,
    TextWait,
    empty_history,
    fit,
    locator_text,
    no_match,
    present_capture,
)
from noru.redact import Policy, facts, index
from noru.store import CaptureRecord, Filters, Reader, Row, SearchHit
from noru.times import parse_moment

__all__ = [
    "addressing",
    "check_history_access",
    "filters_from",
    "get_capture",
    "list_captures",
    "open_history",
    "search_captures",
    "text_wait",
]

SOURCE_FILTERS = ("app", "workspace", "display", "since", "before", "origin")


def check_history_access(context: ToolContext) -> None:
    access.history_decision(context.access).enforce()


@contextmanager
def open_history(context: ToolContext, policy: Policy) -> Iterator[Reader]:
    """The read-only store, after the revoke check; 'history is empty' without
    one. Its source facts are read as ``policy`` lets an agent see them (in
    rows, filters and the values a no-match names: ``noru.redact.facts``),
    from agents' index where it was made under ``policy``."""
    check_history_access(context)
    made = index.fingerprint(policy) if policy.on and not policy.problem else None
    # One snapshot for the call: agents' index, checked to be made under
    # ``policy``, cannot be made again under another before it is read.
    with Reader.open(context.home) as reader, reader.snapshot():
        reader.show_sources_as(facts.view(policy), indexed=made)
        yield reader


def filters_from(args: dict[str, Any], now: datetime) -> Filters:
    """The source filters of a call; -32602 naming a bad time argument."""
    moments: dict[str, datetime] = {}
    for name in ("since", "before"):
        if name in args:
            try:
                moments[name] = parse_moment(args[name], now)
            except ValueError as exc:
                raise InvalidParams(f"Invalid arguments: `{name}` {exc}") from None
    if "since" in moments and "before" in moments and moments["since"] >= moments["before"]:
        raise InvalidParams("Invalid arguments: `since` must be earlier than `before`")
    return Filters(
        app=args.get("app"),
        workspace=args.get("workspace"),
        display=args.get("display"),
        since=moments.get("since"),
        before=moments.get("before"),
        origin=args.get("origin"),
    )


def text_wait(context: ToolContext, record: CaptureRecord) -> TextWait:
    """For a capture still waiting for its text: is a running app reading it?
    (Asked of the app only then: every other capture needs no socket.)"""
    if record.ocr_state != "pending":
        return QUEUED
    queued, reason = status.text_wait(context.home)
    return TextWait(queued, reason)


def addressing(args: dict[str, Any]) -> str:
    """Which one of get_capture's addressing modes the call uses: id, index or filter."""
    modes: list[str] = [name for name in ("id", "index") if name in args]
    if any(name in args for name in SOURCE_FILTERS) and "index" not in args:
        modes.append("filter")
    if len(modes) != 1:
        raise InvalidParams(
            "Invalid arguments: address exactly one capture with one of `id`, `index`, "
            "or source filters (app, workspace, display, since, before, origin); "
            + ("none was given" if not modes else f"got {' and '.join(modes)}")
        )
    return modes[0]


def _cursor_error(exc: ValueError) -> InvalidParams:
    return InvalidParams(f"Invalid arguments: `cursor` {exc}")


T = TypeVar("T", Row, SearchHit)


def _page(
    context: ToolContext,
    *,
    fetch: Callable[[int], tuple[list[T], str | None]],
    title: Callable[[list[T]], str],
    limit: int,
    now: datetime,
) -> tuple[list[T], str]:
    """One locator page: its rows (``fetch(n)``: n rows and the next cursor)
    and its text; of ``limit`` rows, or of fewer where the client passes on
    less text than that would be (``fit.rows``), its cursor going on."""

    def page(size: int) -> tuple[list[T], str]:
        try:
            rows, next_cursor = fetch(size)
        except ValueError as exc:
            raise _cursor_error(exc) from None
        shortened = None
        if size < limit and context.product is not None:
            shortened = (
                f"This page holds {size} of the {limit} rows asked: {context.product} passes "
                "on only so much of one answer. The rest follow with the cursor."
            )
        return rows, locator_text(
            rows, now=now, title=title(rows), next_cursor=next_cursor, shortened=shortened
        )

    budget = context.fit
    if budget is None:
        return page(limit)
    found, text = fit.rows(page, limit=limit, budget=budget)
    return list(found), text


def list_captures(context: ToolContext, args: dict[str, Any]) -> Answer:
    now = context.now()
    filters = filters_from(args, now)
    order = args.get("order", "newest_first")
    limit = args.get("limit", 20)
    policy = context.policy
    with open_history(context, policy) as reader:
        # The header counts what the filters match, as `noru list` does; a
        # page holding fewer says how many it holds.
        matching = reader.count_matching(filters)
        rows, text = _page(
            context,
            fetch=lambda size: reader.list_rows(
                filters, order=order, limit=size, cursor=args.get("cursor")
            ),
            title=lambda rows: (
                f"Noru history: {matching} capture{'s' if matching != 1 else ''}, "
                f"{order.replace('_', ' ')}; filters: {filters.describe()}."
                + (f" This page shows {len(rows)}." if len(rows) < matching else "")
            ),
            limit=limit,
            now=now,
        )
        if not rows:
            if "cursor" in args:
                return text_answer("Noru history: no more captures.")
            raise no_match(reader, filters, what="no capture matches the filters")
        return text_answer(text, listed=(row.id for row in rows))


def search_captures(context: ToolContext, args: dict[str, Any]) -> Answer:
    now = context.now()
    filters = filters_from(args, now)
    query: str = args["query"]
    limit = args.get("limit", 20)
    policy = context.policy
    if policy.problem:
        raise DataDirError(policy.problem)  # fail closed: nothing unredacted is searched
    # With redaction on, the text agents get is searched: in agents' index
    # where it is up to date, so that the time a search takes does not tell
    # what redaction hides (noru.redact.index).
    seen, indexed = index.view(policy) if policy.on else (None, None)
    with open_history(context, policy) as reader:
        hits, text = _page(
            context,
            fetch=lambda size: reader.search(
                query,
                filters,
                now=now,
                limit=size,
                cursor=args.get("cursor"),
                seen=seen,
                indexed=indexed,
            ),
            title=lambda hits: (
                f"Noru search for {query!r}: {len(hits)} match{'es' if len(hits) != 1 else ''}, "
                f"{'newest' if seen else 'best'} first; filters: {filters.describe()}."
            ),
            limit=limit,
            now=now,
        )
        if not hits:
            if "cursor" in args:
                return text_answer("Noru search: no more matches.")
            refusal = no_match(reader, filters, what=f"no capture contains {query!r}")
            raise NoMatch(
                refusal.summary,
                details=refusal.details,
                next_action=(
                    "Try fewer or different words, relax the filters, or browse with list_captures."
                ),
            )
        return text_answer(text, listed=(hit.row.id for hit in hits))


def _resolve(reader: Reader, args: dict[str, Any], filters: Filters) -> CaptureRecord:
    mode = addressing(args)
    if mode == "id":
        record = reader.get(args["id"])
        if record is None and reader.count() == 0:
            raise empty_history()
        if record is None:
            raise NoMatch(
                f"no capture {args['id']}",
                details=("It may have been deleted, or the id is mistyped.",),
                next_action="List or search history for the capture, then use the id shown.",
            )
        return record
    index = args.get("index", 1)
    record = reader.nth(index, filters)
    if record is None:
        what = (
            f"no capture at index {index}" if mode == "index" else "no capture matches the filters"
        )
        raise no_match(reader, filters, what=what)
    return record


def get_capture(context: ToolContext, args: dict[str, Any]) -> Answer:
    addressing(args)
    now = context.now()
    filters = filters_from(args, now)
    config = context.config
    projection = Projection(
        layers=tuple(args["layers"]) if "layers" in args else None,
        fields=tuple(args["fields"]) if "fields" in args else None,
        text_only=bool(args.get("text_only", False)),
        region=tuple(args["region"]) if "region" in args else None,
    )
    policy = context.policy
    with open_history(context, policy) as reader:
        record = _resolve(reader, args, filters)
        try:
            view = present_capture(
                reader,
                record,
                projection,
                max_edge=config.max_edge,
                wait=text_wait(context, record),
                budget=context.fit_capture,
                policy=policy,
            )
        except BadRegion as exc:
            raise InvalidParams(f"Invalid arguments: {exc}") from None
    return capture_answer(view, now=now, with_sources=True, fields=projection.fields)
