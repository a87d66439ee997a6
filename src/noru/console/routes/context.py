"""What every route shares: the console's state (its data dir and caches),
reading what a request gives, the plain answers, and the sentence a page
shows after a button did something."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from noru.console import pages
from noru.console.caches import Choices, Thumbnails
from noru.console.pages.frame import plural
from noru.settings import Settings, snapshot
from noru.store.files import check_id

__all__ = [
    "NOTICES",
    "Held",
    "back",
    "capture_id",
    "done",
    "held",
    "html",
    "moment",
    "not_found",
    "said",
    "settings",
]

# What a button did, said on the page it returns to (``done``, ``said``).
# Fixed sentences: nothing the request carries is shown but a count.
NOTICES = {
    "allow": "Agent observations allowed: agents may look at the screen and read your history.",
    "allow-paused": (
        "Agent observations allowed, but agent perception is still paused: live requests"
        " stay refused until you press Resume Agent Perception."
    ),
    "pause": "Agent perception paused: live requests are refused; history stays readable.",
    "resume": "Agent perception resumed: live requests are served again.",
    "resume-unallowed": (
        "Agent perception resumed, but agent observations are not allowed: press"
        " Allow Agent Observations to let agents look."
    ),
    "revoke": (
        "Agent access revoked: agents may neither look at the screen nor read history"
        " until you press Allow Agent Observations."
    ),
    "note": "Note saved.",
    "deleted": "Deleted {n}, with their text and files.",
    "excluded": "Exclusion added: such windows are never captured from now on.",
    "unexcluded": "Exclusion removed.",
    "retention": "Retention settings saved in config.toml.",
    "pruned": "Pruned: {n} deleted.",
    "redaction": "Redaction saved: agents get captures under it from their next request.",
    "ocr": (
        "OCR engine saved in config.toml: the running app reads text with it from its next"
        " recognition."
    ),
}


@dataclass(frozen=True)
class Held:
    """The console's state for its routes: whose history, and its caches."""

    home: Path
    thumbs: Thumbnails
    choices: Choices


def held(request: Request) -> Held:
    state: Held = request.app.state.held
    return state


def settings(request: Request) -> Settings:
    """The person's configuration, redaction policy and access state as this
    request sees them: one snapshot, taken at the request's first use and
    shared by all its parts (``noru.settings``); the next request takes its
    own, so an edit is seen there."""
    taken: Settings | None = getattr(request.state, "settings", None)
    if taken is None:
        taken = request.state.settings = snapshot(held(request).home)
    return taken


def html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status)


def capture_id(request: Request) -> str | None:
    raw = request.path_params.get("capture_id", "")
    try:
        return check_id(raw)
    except ValueError:
        return None


def not_found() -> HTMLResponse:
    return html(pages.message_page("Not found", "There is no such capture."), 404)


def moment(text: str) -> datetime | None:
    """A moment the person gave (a browser's local date-time) or the log
    wrote (RFC 3339 UTC), in UTC; None for nothing or nonsense."""
    try:
        return datetime.fromisoformat(text).astimezone(UTC) if text else None
    except ValueError:
        return None


def back(value: object) -> str:
    """Where a form returns to: a path of this console only."""
    text = value if isinstance(value, str) else "/"
    return text if text.startswith("/") and not text.startswith("//") else "/"


def done(path: str, what: str, count: int | None = None) -> RedirectResponse:
    """Back to ``path`` (a path of this console), saying ``what`` was done."""
    extra = {"done": what} | ({} if count is None else {"n": str(count)})
    joiner = "&" if "?" in path else "?"
    return RedirectResponse(f"{path}{joiner}{urlencode(extra)}", status_code=303)


def said(request: Request) -> str | None:
    """The sentence for ``done``'s mark in the address, or None."""
    text = NOTICES.get(request.query_params.get("done", ""))
    if text is None:
        return None
    raw = request.query_params.get("n", "")
    count = int(raw) if raw.isdigit() and len(raw) < 10 else 0
    return text.format(n=plural(count, "capture"))
