"""One check of `noru doctor`: what it looked at, whether it passed, what
was found, and the fix. The CLI prints them; tests read them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Check"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    fix: str | None = None
