"""The six tools as agents see them: names, titles, descriptions, input schemas.

Retired compatibility names resolve here too (``resolve``), with their
arguments mapped; they are never listed.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Literal

from noru.contract import CAPTURE_ID_PATTERN, LAYERS, STRUCTURED_FIELDS
from noru.errors import InvalidParams

__all__ = ["RETIRED", "TOOLS", "ToolSpec", "resolve"]

Kind = Literal["live", "history", "status"]

_TIME = (
    "Relative age like `30m`, `1h`, `2d`, `1w`, or an RFC 3339 / ISO 8601 date-time "
    "(`2026-08-12T14:00:00Z`, `2026-08-12`; no zone means local time)."
)

FILTERS: dict[str, dict[str, Any]] = {
    # One type per branch: a type list with both kinds of bounds draws a
    # portability warning from the MCP Inspector, and some clients flatten it
    # to `number`, so that a display name could not be sent at all.
    "display": {
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 64},
            {"type": "string", "minLength": 1, "maxLength": 200},
        ],
        "description": "Display index (1 = first monitor) or part of a display name.",
    },
    "app": {
        "type": "string",
        "minLength": 1,
        "maxLength": 200,
        "description": "App name or app id; case-insensitive substring match.",
    },
    "workspace": {
        "type": "string",
        "minLength": 1,
        "maxLength": 200,
        "description": "Workspace / project / repository hint; case-insensitive substring match.",
    },
    "since": {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "description": "Only captures at or after this moment. " + _TIME,
    },
    "before": {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "description": "Only captures before this moment. " + _TIME,
    },
    "origin": {
        "type": "string",
        "enum": ["user", "agent"],
        "description": "`user`: taken by the person; `agent`: an earlier observe_screen.",
    },
}

PAGING: dict[str, dict[str, Any]] = {
    "order": {
        "type": "string",
        "enum": ["newest_first", "oldest_first"],
        "default": "newest_first",
        "description": "Row order.",
    },
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": 200,
        "default": 20,
        "description": "Rows per page (default 20, at most 200).",
    },
    "cursor": {
        "type": "string",
        "minLength": 1,
        "maxLength": 512,
        "description": "The `cursor` printed at the end of the previous page.",
    },
}

TEXT_ONLY = {
    "type": "boolean",
    "default": False,
    "description": "Send no image blocks: text layers and facts only.",
}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


# Where a client defers tools behind a search of its own, the words a person
# uses for what a tool does find it (Claude Code ranks by whole words of
# this hint, its name's parts and its description).
SEARCH_HINT = "anthropic/searchHint"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    kind: Kind
    description: str
    input_schema: dict[str, Any]
    hint: str = ""  # the words people use for it, for a client's tool search

    def listing(self, *, annotations: bool, title: bool) -> dict[str, Any]:
        """The tools/list entry; older revisions get only the fields they know
        (``title`` and a tool's ``_meta`` are 2025-06-18's)."""
        entry: dict[str, Any] = {"name": self.name}
        if title:
            entry["title"] = self.title
        entry["description"] = self.description
        entry["inputSchema"] = copy.deepcopy(self.input_schema)
        if title and self.hint:
            entry["_meta"] = {SEARCH_HINT: self.hint}
        if annotations:
            entry["annotations"] = {
                "title": self.title,
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": self.kind != "live",
                "openWorldHint": False,
            }
        return entry


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            name="get_latest_capture",
            title="Get the capture the person just took",
            kind="live",
            description=(
                "Use when the person says 'this', 'here', 'look at my screen' or refers to "
                "something they just captured. Returns the newest capture the person took "
                "(shortcut or `noru capture`) within the handoff window, with its image, "
                "on-screen text and source. Delivered once: a second call answers "
                "'Noru nothing new'; then find older captures with search_captures or "
                "list_captures and fetch them with get_capture. Needs the Noru app running "
                "and the person's permission."
            ),
            hint=(
                "what is on my screen, look at this, what I just captured, my screenshot, "
                "this window here"
            ),
            input_schema=_object({"text_only": TEXT_ONLY}),
        ),
        ToolSpec(
            name="observe_screen",
            title="Look at the screen now",
            kind="live",
            description=(
                "Take a fresh capture of the screen as it is now (the active window by "
                "default, or a display, or all displays) and return it. Use only when "
                "current state is needed and the person has not just taken a capture "
                "(then prefer get_latest_capture). The capture is kept in history with "
                "origin 'agent'. Needs the Noru app running and the person's permission; "
                "paused or unauthorized requests are refused with the next step."
            ),
            hint=(
                "what is on my screen now, look at my screen, see the screen, take a "
                "screenshot, current window or display"
            ),
            input_schema=_object(
                {
                    "target": {
                        "type": "string",
                        "enum": ["window", "display", "all_displays"],
                        "default": "window",
                        "description": (
                            "`window`: the active window; `display`: one display (the one "
                            "under the pointer unless `display` is given); `all_displays`: "
                            "one image per display."
                        ),
                    },
                    "display": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 64,
                        "description": "Display index for target=display (1 = first).",
                    },
                    "text_only": TEXT_ONLY,
                }
            ),
        ),
        ToolSpec(
            name="list_captures",
            title="List captures in history",
            kind="history",
            description=(
                "List captures in the person's local history, newest first: one locator "
                "row each (id, age, what it holds, app, workspace, display, note preview). "
                "Filter by app, workspace, display, origin and time. Use to find a capture "
                "by when or where it was taken; then fetch it with get_capture. Returns no "
                "images and marks nothing as delivered."
            ),
            hint="my recent screenshots, screen history, earlier captures of my screen",
            input_schema=_object({**FILTERS, **PAGING}),
        ),
        ToolSpec(
            name="search_captures",
            title="Search capture history",
            kind="history",
            description=(
                "Full-text search over the on-screen text (OCR), accessibility text and "
                "notes of past captures. Use when the person describes a capture by what "
                "was on screen ('the error about the missing module'). Returns ranked "
                "locator rows with a snippet and the layer that matched; fetch one with "
                "get_capture. The query is taken literally (no operators). Same filters "
                "as list_captures."
            ),
            hint="find a screenshot, search what was on my screen, screen history text",
            input_schema=_object(
                {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 500,
                        "description": "Words to find; all must appear (any order).",
                    },
                    **FILTERS,
                    **PAGING,
                },
                ["query"],
            ),
        ),
        ToolSpec(
            name="get_capture",
            title="Get one capture from history",
            kind="history",
            description=(
                "Fetch one capture from history with its images, on-screen text, source "
                "and note. Address it by exactly one of: `id` (from list/search rows); "
                "`index` (1 = most recent, counted after any filters); or filters alone "
                "(`app`, `workspace`, `display`, `since`, `before`, `origin`), meaning the "
                "newest match. Use `region` to read small text at full resolution, "
                "`layers` / `fields` / `text_only` to send less."
            ),
            hint="an earlier screenshot of my screen, a past capture, zoom into a screen region",
            input_schema=_object(
                {
                    "id": {
                        "type": "string",
                        "pattern": CAPTURE_ID_PATTERN,
                        "maxLength": 64,
                        "description": "A capture id such as capture_2026-08-12_141502.",
                    },
                    "index": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 1000000,
                        "description": "1 = most recent capture (after filters).",
                    },
                    **FILTERS,
                    "text_only": TEXT_ONLY,
                    "layers": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(LAYERS)},
                        "minItems": 1,
                        "uniqueItems": True,
                        "description": (
                            "Layers to return (default image, ocr, ax, note). `regions` "
                            "adds OCR line boxes in served-image pixels."
                        ),
                    },
                    "fields": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(STRUCTURED_FIELDS)},
                        "minItems": 1,
                        "uniqueItems": True,
                        "description": (
                            "Structured fields to return; sends no pixels unless `layers` "
                            "includes image."
                        ),
                    },
                    "region": {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 0, "maximum": 1000000},
                        "minItems": 4,
                        "maxItems": 4,
                        "description": (
                            "[x, y, width, height] in served-image pixels of image 1: that "
                            "area is cut from the original pixels at native resolution."
                        ),
                    },
                }
            ),
        ),
        ToolSpec(
            name="get_status",
            title="What Noru allows now",
            kind="status",
            description=(
                "Say what the agent may do right now: whether the Noru app runs, whether "
                "the person allowed, paused or revoked agent access, screen access, the "
                "OCR engine, how many captures history holds, and the handoff window. "
                "Returns no capture content. Call it when a live request was refused and "
                "you need to tell the person why."
            ),
            hint="is screen access allowed, why the screen cannot be seen, paused or revoked",
            input_schema=_object({}),
        ),
    )
}

# Unknown names of this shape are echoed in the error; others are not.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")

# retired name -> (current name, arguments forced onto the call)
RETIRED: dict[str, tuple[str, dict[str, Any]]] = {
    "get_latest_capture_text": ("get_latest_capture", {"text_only": True}),
    "get_capture_text": ("get_capture", {"text_only": True}),
    "observe_window": ("observe_screen", {"target": "window"}),
    "search_history": ("search_captures", {}),
}


def resolve(name: Any, arguments: Any) -> tuple[ToolSpec, Any]:
    """The current tool for ``name`` (retired names mapped) and its arguments."""
    if not isinstance(name, str):
        raise InvalidParams("Invalid params: `name` must be a string")
    if name in TOOLS:
        return TOOLS[name], arguments
    if name in RETIRED:
        current, forced = RETIRED[name]
        if isinstance(arguments, dict) or arguments is None:
            arguments = {**(arguments or {}), **forced}
        return TOOLS[current], arguments
    if _TOOL_NAME.fullmatch(name):
        raise InvalidParams(f"Unknown tool: {name}")
    # Anything else is not echoed: an error message never carries a path or
    # an unbounded string, even one the client sent.
    raise InvalidParams("Unknown tool (name not shown: not letters, digits, _ . - up to 64)")
