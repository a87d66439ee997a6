"""ToolContext: what a tool handler knows of the session and the request.

The session makes one per connection (the data directory, the clock, the
client's name and measured limits); ``call_tool`` gives each request its own
copy with the person's settings read once (``for_request``). It lives apart
from the dispatcher so that the tool modules import it without importing the
package that imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from noru.present.fit import Budget
from noru.settings import Settings, snapshot

if TYPE_CHECKING:
    from noru.access import AccessState
    from noru.config import Config
    from noru.redact import Policy

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    home: Path
    now: Callable[[], datetime]
    client: str | None = None  # the client's name from initialize, as it gave it
    # Bytes of text one result may carry for this client (noru.mcp.clients), and
    # the client's name to say so in; None: no measured limit.
    budget: int | None = None
    captures_whole: bool = False  # the client cuts only one-block answers
    product: str | None = None
    # The person's settings for the request being answered (``for_request``).
    settings: Settings | None = None

    def for_request(self) -> ToolContext:
        """This context with the settings of a new request: the person's
        configuration, redaction policy and access state, read at most once
        for the whole request (``noru.settings``)."""
        return replace(self, settings=snapshot(self.home))

    @property
    def _settings(self) -> Settings:
        # Outside a request (``for_request`` not called): read now, kept by no one.
        return self.settings if self.settings is not None else snapshot(self.home)

    @property
    def config(self) -> Config:
        return self._settings.config

    @property
    def access(self) -> AccessState:
        return self._settings.access

    @property
    def fit(self) -> Budget | None:
        """What one answer of one text block (locator rows) may weigh for this
        client, if measured."""
        if self.budget is None:
            return None
        return Budget(self.budget, self.product or "this client")

    @property
    def fit_capture(self) -> Budget | None:
        """What a capture's answer (several text blocks) may weigh."""
        return None if self.captures_whole else self.fit

    @property
    def policy(self) -> Policy:
        """What is redacted for this agent now: the person's setting and
        patterns as this request reads them (they may change between calls)."""
        return self._settings.policy
