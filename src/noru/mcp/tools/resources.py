"""Captures as MCP resources: ``noru-capture://<id>``.

While history is revoked the list is empty and a read is refused with -32001.
"""

from __future__ import annotations

import re
from typing import Any

from noru import access
from noru.contract import CAPTURE_ID_PATTERN, URI_SCHEME
from noru.errors import HistoryBlocked, InvalidParams
from noru.mcp.tools import ToolContext

__all__ = ["list_resources", "list_templates", "parse_uri", "read_resource"]

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


def list_resources(context: ToolContext, cursor: Any, *, titles: bool) -> dict[str, Any]:
    if not access.history_decision(access.load(context.home)).allowed:
        return {"resources": []}
    return {"resources": []}


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


def read_resource(context: ToolContext, uri: Any) -> dict[str, Any]:
    capture_id = parse_uri(uri)
    if not access.history_decision(access.load(context.home)).allowed:
        raise HistoryBlocked("History access is revoked by the person")
    raise InvalidParams(f"Invalid params: no capture {capture_id}")
