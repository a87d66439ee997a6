"""The console's routes, one module per job, each a plain function of the
request (the console's state is on ``request.app.state``):

- ``browsing``: signing in, the timeline, search, a capture, its image and thumbnail;
- ``editing``: the person's changes (a note, deletes, the access controls);
- ``oversight``: the access log, exclusions, redaction, retention and the OCR engine;
- ``context``: what they share.
"""

from __future__ import annotations

from starlette.routing import Route

from noru.console.routes import browsing, editing, oversight

__all__ = ["ROUTES"]

ROUTES = [
    Route("/signin", browsing.signin),
    Route("/", browsing.timeline),
    Route("/search", browsing.search),
    Route("/scrub", browsing.scrub),
    Route("/capture/{capture_id}", browsing.capture),
    Route("/capture/{capture_id}/note", editing.note, methods=["POST"]),
    Route("/capture/{capture_id}/delete", editing.delete, methods=["POST"]),
    Route("/image/{capture_id}/{position:int}", browsing.image),
    Route("/thumb/{capture_id}", browsing.thumb),
    Route("/control", editing.control, methods=["POST"]),
    Route("/log", oversight.log),
    Route("/privacy", oversight.privacy),
    Route("/exclusions/add", oversight.exclude_add, methods=["POST"]),
    Route("/exclusions/remove", oversight.exclude_remove, methods=["POST"]),
    Route("/retention", oversight.retention, methods=["POST"]),
    Route("/prune", oversight.prune, methods=["POST"]),
    Route("/redaction", oversight.redaction, methods=["POST"]),
    Route("/ocr-engine", oversight.ocr_engine, methods=["POST"]),
    Route("/delete-range", editing.delete_range),
    Route("/delete-range", editing.delete_range_now, methods=["POST"]),
    Route("/delete-selected", editing.delete_selected, methods=["POST"]),
    Route("/favicon.ico", browsing.favicon),
]
