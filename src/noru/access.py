"""The person's access controls: allow, pause/resume, revoke.

The state is a small JSON file in the data dir, written atomically (temp file,
fsync, rename) with mode 0600, and read fresh on every agent request. Only the
person's own commands write it; ``noru mcp`` only reads. Anything unreadable
or malformed fails closed: it is treated as revoked, and ``noru status`` says
why.

Decisions are data with a reason (``Decision``), so the same reason feeds the
steering text and ``noru status``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from noru.atomic import replace_durably
from noru.errors import DataDirError, HistoryRevoked, NotAuthorized, Paused, Refusal
from noru.paths import access_path
from noru.times import format_utc

__all__ = [
    "AccessState",
    "Decision",
    "Mode",
    "history_decision",
    "live_decision",
    "load",
    "mode",
    "set_control",
]

_FLAGS = ("authorized", "paused", "revoked")


@dataclass(frozen=True)
class Change:
    at: str
    by: str


@dataclass(frozen=True)
class AccessState:
    authorized: bool = False
    paused: bool = False
    revoked: bool = False
    changes: dict[str, Change] = field(default_factory=dict)
    damaged: str | None = None  # why the file could not be trusted (then revoked)


Mode = Literal["allowed", "paused", "revoked", "unset"]


def mode(state: AccessState) -> Mode:
    """The one word for the access mode: revoked over paused over allowed;
    ``unset`` until the person first allows agents. The menu names its icon
    and marks its items by it; the console words it for people."""
    if state.revoked:
        return "revoked"
    if state.paused:
        return "paused"
    return "allowed" if state.authorized else "unset"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    refusal: type[Refusal] | None = None

    def enforce(self) -> None:
        """Raise the refusal, carrying the reason, unless the decision allows."""
        if not self.allowed:
            assert self.refusal is not None
            raise self.refusal(self.reason)


def load(home: Path) -> AccessState:
    path = access_path(home)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return AccessState()
    except OSError as exc:
        return AccessState(revoked=True, damaged=f"cannot read {path.name}: {exc.strerror}")
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError("unknown format")
        flags = {name: data[name] for name in _FLAGS}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise ValueError("flags are not true/false")
        changes = {
            name: Change(at=str(c["at"]), by=str(c["by"]))
            for name, c in (data.get("changes") or {}).items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return AccessState(revoked=True, damaged=f"{path.name} is damaged ({exc})")
    return AccessState(**flags, changes=changes)


def live_decision(state: AccessState) -> Decision:
    if state.damaged:
        return Decision(False, f"access state unreadable: {state.damaged}", NotAuthorized)
    if state.revoked:
        return Decision(False, "agent access was revoked by the person", NotAuthorized)
    if not state.authorized:
        return Decision(False, "the person has not allowed agent observations", NotAuthorized)
    if state.paused:
        return Decision(False, "the person paused agent perception", Paused)
    return Decision(True, "allowed by the person")


def history_decision(state: AccessState) -> Decision:
    if state.damaged:
        return Decision(False, f"access state unreadable: {state.damaged}", HistoryRevoked)
    if state.revoked:
        return Decision(False, "agent access was revoked by the person", HistoryRevoked)
    return Decision(True, "history readable")


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    replace_durably(path, json.dumps(data, indent=2, sort_keys=True) + "\n", mode=0o600)


def set_control(home: Path, command: str, *, now: datetime | None = None) -> AccessState:
    """Apply one of the person's commands: allow, pause, resume, revoke.

    A damaged state is replaced by a fresh one: the person's explicit command
    is the authority. ``DataDirError`` when the file cannot be written.
    """
    state = load(home)
    if state.damaged:
        state = AccessState(revoked=True)
    flags = {"authorized": state.authorized, "paused": state.paused, "revoked": state.revoked}
    if command == "allow":
        flags.update(authorized=True, revoked=False)
    elif command == "pause":
        flags["paused"] = True
    elif command == "resume":
        flags["paused"] = False
    elif command == "revoke":
        flags.update(authorized=False, revoked=True)
    else:
        raise ValueError(f"unknown access command {command!r}")
    stamp = format_utc(now or datetime.now(UTC))
    changes = {name: {"at": c.at, "by": c.by} for name, c in state.changes.items()}
    for name in _FLAGS:
        if flags[name] != getattr(state, name) or name not in changes:
            changes[name] = {"at": stamp, "by": f"noru {command}"}
    try:
        _write_atomic(access_path(home), {"version": 1, **flags, "changes": changes})
    except OSError as exc:
        raise DataDirError(f"cannot write the access state in {home}: {exc.strerror}") from exc
    return load(home)
