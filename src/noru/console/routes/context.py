"""What every route shares: the console's state (its data dir and caches),
reading what a request gives, and the plain answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse

from noru.console import pages
from noru.console.caches import Choices, Thumbnails
from noru.store.files import check_id

__all__ = ["Held", "back", "capture_id", "held", "html", "moment", "not_found"]


@dataclass(frozen=True)
class Held:
    """The console's state for its routes: whose history, and its caches."""

    home: Path
    thumbs: Thumbnails
    choices: Choices


def held(request: Request) -> Held:
    state: Held = request.app.state.held
    return state


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
