"""get_status: what the agent may do now, in plain text, with no capture content."""

from __future__ import annotations

from typing import Any

from noru import status
from noru.contract import text_result
from noru.mcp.tools import ToolContext

__all__ = ["get_status"]


def get_status(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    gathered = status.gather(context.home, settings=context.settings)
    return text_result("\n".join(status.agent_lines(gathered)))
