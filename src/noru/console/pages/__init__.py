"""The console's pages, rendered on the server as plain HTML.

Every value from history (titles, app names, OCR and accessibility text,
notes) is escaped here and nowhere else. Images and pages are addressed by
capture id only. The layout is one stylesheet and one small script
(keyboard moves through the timeline), both served by Noru itself.

- ``frame``: the frame every page shares, and a message page;
- ``browse``: the timeline and search;
- ``capture``: one capture's page;
- ``oversight``: the access log, privacy and deleting a range.
"""

from __future__ import annotations

from noru.console.pages.browse import search_page, timeline_page
from noru.console.pages.capture import capture_page
from noru.console.pages.frame import message_page
from noru.console.pages.oversight import delete_range_page, log_page, privacy_page

__all__ = [
    "capture_page",
    "delete_range_page",
    "log_page",
    "message_page",
    "privacy_page",
    "search_page",
    "timeline_page",
]
