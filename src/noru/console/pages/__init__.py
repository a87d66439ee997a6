"""The console's pages: the facts each shows, rendered on the server from
the Jinja2 templates in ``templates/`` (autoescaped).

Every value from history (titles, app names, OCR and accessibility text,
notes) is escaped by the template engine. Images and pages are addressed by
capture id only. The layout is one stylesheet and one small script (arrow
keys through the timeline and between captures), both served by Noru itself.

- ``frame``: the frame every page shares, and a message page;
- ``browse``: the timeline and search;
- ``capture``: one capture's page;
- ``oversight``: the access log, privacy and deleting a range.
"""

from __future__ import annotations

from noru.console.pages.browse import search_page, timeline_page
from noru.console.pages.capture import capture_page
from noru.console.pages.frame import message_page, plural
from noru.console.pages.oversight import (
    delete_range_page,
    delete_selected_page,
    log_page,
    privacy_page,
)

__all__ = [
    "capture_page",
    "delete_range_page",
    "delete_selected_page",
    "log_page",
    "message_page",
    "plural",
    "privacy_page",
    "search_page",
    "timeline_page",
]
