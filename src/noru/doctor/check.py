"""One check of `noru doctor`: what it looked at, how it stands, what was
found, and the fix. The CLI prints them; tests read them.

Three levels: ``ok``; a warning (``ok`` and ``warn``): Noru works, but does
less than it could here or something deserves a look (no accessibility bus,
a degraded capture backend, the app not started, requests refused for want
of the token); and a failure (not ``ok``): something Noru needs is broken
(a capture, a read or a guard would fail). Only a failure makes `noru
doctor` exit 1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Check"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    fix: str | None = None
    warn: bool = False

    def __post_init__(self) -> None:
        if self.warn and not self.ok:
            raise ValueError("a failed check is not also a warning")

    @property
    def level(self) -> Literal["ok", "warn", "fail"]:
        return "fail" if not self.ok else "warn" if self.warn else "ok"
