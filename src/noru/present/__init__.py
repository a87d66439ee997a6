"""Presentation: what to show of a capture, its pixels, and how it reads.

- ``plan``: the pure step from a request (``Projection``) to what is shown
  (layers, images, crop), raising ``LayerAbsent`` / ``BadRegion``;
- ``pixels``: the served images, read from the originals or as the app made them;
- ``agent``: contract-4 views, locator text and no-match steering for agents;
- ``person``: the same facts for the person's terminal;
- ``rows``: the locator row both of them list;
- ``fit``: an answer's text fitted within what the client passes on.

No renderer builds a wire dict and no caller parses one back:
``noru.contract`` turns a view into the MCP result.
"""

from noru.present.agent import (
    MAX_TEXT,
    QUEUED,
    TextWait,
    capture_view,
    empty_history,
    locator_text,
    no_match,
    present_capture,
    provenance,
)
from noru.present.fit import Budget
from noru.present.plan import MAX_IMAGES, BadRegion, Plan, Projection, plan

__all__ = [
    "MAX_IMAGES",
    "MAX_TEXT",
    "QUEUED",
    "BadRegion",
    "Budget",
    "Plan",
    "Projection",
    "TextWait",
    "capture_view",
    "empty_history",
    "locator_text",
    "no_match",
    "plan",
    "present_capture",
    "provenance",
]
