"""The console as one ASGI app: its routes (``routes``), the guard in front
of them, the static files, and one answer for any failure. Pages read the
history read-only; the few writes go through the same code as the person's
CLI commands.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from noru.console import pages
from noru.console.caches import Choices, Thumbnails
from noru.console.guard import Guard, Keys
from noru.console.routes import ROUTES
from noru.console.routes.context import Held, html
from noru.errors import NoruError, StoreError

__all__ = ["Choices", "Thumbnails", "create_app"]

STATIC = Path(__file__).parent / "static"


async def _failed(request: Request, exc: Exception) -> Response:
    text = str(exc) if isinstance(exc, NoruError) else "the console failed; see its terminal"
    if isinstance(exc, StoreError):
        text += " (run `noru doctor`)"
    return html(pages.message_page("Something went wrong", text), 500)


def create_app(home: Path, keys: Keys) -> Starlette:
    """The console for the history in ``home``, signed in with ``keys``."""
    app = Starlette(
        routes=[*ROUTES, Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(Guard, keys=keys)],
        exception_handlers={Exception: _failed},
    )
    app.state.keys = keys
    app.state.held = Held(home, Thumbnails(), Choices())
    return app
