"""get_status: what the agent may do now, in plain text, with no capture content."""

from __future__ import annotations

from typing import Any

from noru import status
from noru.contract import Answer, text_answer
from noru.mcp.tools.context import ToolContext

__all__ = ["get_status"]


def get_status(context: ToolContext, args: dict[str, Any]) -> Answer:
    gathered = status.gather(context.home, settings=context.settings)
    return text_answer("\n".join(status.agent_lines(gathered)))
