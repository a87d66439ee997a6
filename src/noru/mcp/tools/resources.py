"""Captures as MCP resources: ``noru-capture://<id>``.

While history is revoked the list is empty (it reveals nothing) and a read is
refused with -32001.
"""

from __future__ import annotations

import re
from typing import Any

from noru import access
from noru.contract import (
    CAPTURE_ID_PATTERN,
    URI_SCHEME,
    Answer,
    Base64,
    capture_blocks,
    capture_uri,
    shown_capture,
)
from noru.errors import HistoryBlocked, InvalidParams
from noru.mcp.tools.context import ToolContext
from noru.mcp.tools.history import text_wait
from noru.present import Budget, Projection, present_capture
from noru.redact.facts import source_for_agent
from noru.store import Reader, decode_cursor, encode_cursor
from noru.times import format_utc

__all__ = ["PAGE", "list_resources", "list_templates", "parse_uri", "read_resource"]

PAGE = 50
_ID = re.compile(CAPTURE_ID_PATTERN)


def parse_uri(uri: Any) -> str:
    """The capture id a resource URI addresses; -32602 for anything else."""
    if not isinstance(uri, str):
        raise InvalidParams("Invalid params: `uri` must be a string")
    if not uri.startswith(URI_SCHEME):
        raise InvalidParams("Invalid params: not a noru-capture:// URI")
    capture_id = uri[len(URI_SCHEME) :]
    if not _ID.match(capture_id):
        raise InvalidParams("Invalid params: not a capture_* address")
    return capture_id


def _revoked(context: ToolContext) -> bool:
    return not access.history_decision(context.access).allowed


def list_resources(context: ToolContext, cursor: Any, *, titles: bool) -> dict[str, Any]:
    context = context.for_request()
    if _revoked(context):
        return {"resources": []}
    after = None
    if cursor is not None:
        try:
            if not isinstance(cursor, str):
                raise ValueError("must be a string")
            after = decode_cursor(cursor, "resources").get("seq")
            if not isinstance(after, int):
                raise ValueError("not a cursor from this server")
        except ValueError as exc:
            raise InvalidParams(f"Invalid params: `cursor` {exc}") from None
    with Reader.open(context.home) as reader:
        page = reader.ids_page(after=after, limit=PAGE + 1)
    policy = context.policy
    resources = []
    for record in page[:PAGE]:
        first = record.images[0].source
        if policy.on:  # a secret in a window title is taken out here too
            first = source_for_agent(first, policy)[0]
        app = first.app_name or first.app_id
        if first.whole:  # a display or region first, then the window active on it
            active = f"active: {first.window_title}" if first.window_title else None
            facts = [first.subject, active, app, first.workspace_hint]
        else:
            facts = [app, first.window_title, first.workspace_hint]
        where = " · ".join(fact for fact in facts if fact)
        entry: dict[str, Any] = {
            "uri": capture_uri(record.id),
            "name": record.id,
            # A listing's short label: the bare facts, unlike a result's description.
            "description": (
                f"Noru capture taken {format_utc(record.captured_at)} by the {record.origin}, "
                f"{len(record.images)} image(s)" + (f", {where}" if where else "")
            ),
            "mimeType": "image/png",
        }
        if titles:
            entry["title"] = f"Capture {format_utc(record.captured_at)}"
        resources.append(entry)
    result: dict[str, Any] = {"resources": resources}
    if len(page) > PAGE:
        result["nextCursor"] = encode_cursor({"k": "resources", "seq": page[PAGE - 1].seq})
    return result


def list_templates(*, titles: bool) -> dict[str, Any]:
    template: dict[str, Any] = {
        "uriTemplate": URI_SCHEME + "{id}",
        "name": "capture",
        "description": "A capture in Noru's history by id (capture_YYYY-MM-DD_HHMMSS).",
        "mimeType": "image/png",
    }
    if titles:
        template["title"] = "Noru capture"
    return {"resourceTemplates": [template]}


def read_resource(context: ToolContext, uri: Any) -> Answer:
    capture_id = parse_uri(uri)
    context = context.for_request()
    if _revoked(context):
        raise HistoryBlocked("History access is revoked by the person")
    with Reader.open(context.home) as reader:
        record = reader.get(capture_id)
        if record is None:
            raise InvalidParams(f"Invalid params: no capture {capture_id}")
        config = context.config
        view = present_capture(
            reader,
            record,
            Projection(),
            max_edge=config.max_edge,
            wait=text_wait(context, record),
            budget=_resource_budget(context),
            policy=context.policy,
        )
    # The text first: a client that passes a resource on as one text (its
    # blobs as base64 in it) and cuts it keeps the head.
    blocks = capture_blocks(view, now=context.now())
    text = "\n\n".join(block for block in blocks if isinstance(block, str))
    contents: list[dict[str, Any]] = [{"uri": uri, "mimeType": "text/plain", "text": text}]
    contents += [
        {"uri": uri, "mimeType": "image/png", "blob": Base64.of(image.png)} for image in view.images
    ]
    return Answer({"contents": contents}, (shown_capture(view),))


def _resource_budget(context: ToolContext) -> Budget | None:
    """A resource reaches the model inside one tool result of the client's
    own, its blobs as base64 text beside it (Codex CLI): half of the client's
    budget, so that what it keeps of the head holds the whole text."""
    budget = context.fit
    return Budget(budget.bytes // 2, budget.product) if budget is not None else None
