"""The tools and resources agents call, dispatched by name.

``call_tool`` resolves the name (retired names mapped), checks the arguments
against the tool's schema, and runs the handler with the settings of the
request (``ToolContext.for_request``). Handlers return a ``contract.Answer``
(the contract-4 result and the facts of the captures it carries, which the
session logs) or raise ``Refusal`` / ``ProtocolError``; the session turns
those into the wire shape. A refusal that the person lifts in the Noru menu (not
authorized, paused, history revoked) says, where no panel shows that menu,
that the same control is in the Noru console: the running app says whether
its menu is shown (``appwire.MenuState`` in its status); no app, no menu.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from noru.contract import Answer
from noru.mcp.tools.catalog import TOOLS, resolve
from noru.mcp.tools.context import ToolContext
from noru.mcp.tools.schema import check_arguments

__all__ = ["ToolContext", "call_tool", "list_tools"]


Handler = Callable[[ToolContext, dict[str, Any]], Answer]


def list_tools(*, annotations: bool, title: bool) -> list[dict[str, Any]]:
    return [spec.listing(annotations=annotations, title=title) for spec in TOOLS.values()]


def _handlers() -> dict[str, Handler]:
    # Imported on first call so that `initialize` and `tools/list` stay light.
    from noru.mcp.tools import history, live, status

    return {
        "get_latest_capture": live.get_latest_capture,
        "observe_screen": live.observe_screen,
        "list_captures": history.list_captures,
        "search_captures": history.search_captures,
        "get_capture": history.get_capture,
        "get_status": status.get_status,
    }


# How long a refusal waits for the app to say whether its menu is shown.
MENU_ASK = 2.0


def menu_shown(home: Path) -> bool:
    """Whether a panel shows the Noru menu of the app running for ``home``
    (false with no app, or one that does not answer)."""
    from noru import appwire
    from noru.errors import NoruError

    try:
        status = appwire.AppClient(home, timeout=MENU_ASK).expect(
            appwire.GetStatus(), appwire.AppStatus
        )
    except NoruError:
        return False
    return status.menu.shown


def call_tool(context: ToolContext, name: Any, arguments: Any) -> Answer:
    from noru.errors import Refusal

    spec, arguments = resolve(name, arguments)
    checked = check_arguments(arguments, spec.input_schema)
    context = context.for_request()
    try:
        return _handlers()[spec.name](context, checked)
    except Refusal as refusal:
        if refusal.gesture is not None and not menu_shown(context.home):
            refusal.in_console_too()
        raise
