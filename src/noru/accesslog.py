"""The access log: every agent read, for the person to see and never an agent.

``noru mcp`` appends one JSON line per ``tools/call`` and ``resources/read``
it answers to ``access.log`` in the data dir (mode 0600): when, which client
(its ``clientInfo`` from ``initialize``), the transport, the tool or
resource, the arguments in short, the captures served (each with whether
pixels left or text only, or only listed as a locator row, and how many
spans of which kinds redaction took out of it), the bytes
served, the outcome (``served``, a steering tag, or a JSON-RPC error
code), and for a tool call the shape its result was served in (``contract``,
or ``content``: without ``structuredContent``, for a client measured to
pass its model nothing else; ``noru.mcp.clients``). It is not the store
and not the access state: ``noru mcp`` still never writes either.

Many ``noru mcp`` processes append at once (several agents): each entry is
one ``write`` on a file opened with ``O_APPEND``, under an exclusive
``flock`` that also guards rotation. Past ``MAX_BYTES`` the log is renamed
``access.log.1`` (the one before is dropped), so it stays bounded. A read
that cannot be recorded is not served (``LogUnwritable``).

Only the person's ``noru log`` reads it; no tool or resource does.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from noru.errors import NoruError

__all__ = ["FILE", "MAX_BYTES", "Entry", "LogUnwritable", "Served", "read", "record"]

FILE = "access.log"
MAX_BYTES = 8 * 1024 * 1024
# Arguments are kept this short: a query is the person's business only in brief.
ARG_CHARS = 80


class LogUnwritable(NoruError):
    """The access log cannot be appended to: the read is not served."""


@dataclass(frozen=True)
class Served:
    """One capture in an answer: ``how`` is "pixels", "text" or "listed";
    ``redacted``, what redaction took out of it, as its provenance line
    says (``3: aws-key, password``: the count and the kinds, never a value)."""

    id: str
    how: str
    redacted: str | None = None


@dataclass(frozen=True)
class Entry:
    at: str  # RFC 3339 UTC
    client: str | None
    client_version: str | None
    transport: str
    method: str  # "tools/call" or "resources/read"
    target: str | None  # the tool's name or the resource's URI
    arguments: dict[str, str] = field(default_factory=dict)
    captures: tuple[Served, ...] = ()
    bytes: int = 0
    outcome: str = "served"  # or the steering tag, or "error -32602"
    shape: str | None = None  # a tool call's result shape: "contract" or "content"


def short_arguments(arguments: object) -> dict[str, str]:
    """The arguments as the log keeps them: each value as text, cut short."""
    if not isinstance(arguments, dict):
        return {} if arguments is None else {"(arguments)": _short(arguments)}
    return {str(k)[:40]: _short(v) for k, v in list(arguments.items())[:20]}


def _short(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= ARG_CHARS else text[: ARG_CHARS - 1] + "…"


def record(home: Path, entry: Entry) -> None:
    """Append ``entry``; ``LogUnwritable`` when it cannot be."""
    fields = asdict(entry)
    # A capture nothing was redacted from is logged without the field.
    fields["captures"] = [{k: v for k, v in c.items() if v is not None} for c in fields["captures"]]
    line = json.dumps(fields, ensure_ascii=False, separators=(",", ":")) + "\n"
    path = home / FILE
    try:
        # An agent may read before the person's first capture made the data dir.
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as exc:
        raise LogUnwritable(f"the access log cannot be opened ({exc.strerror})") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_size > MAX_BYTES:
            # Rotate under the lock; a writer that opened the old file before
            # the rename re-checks: its next entry goes to the new file.
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                os.replace(path, path.with_name(FILE + ".1"))
            os.close(fd)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        data = line.encode()
        if os.write(fd, data) != len(data):
            raise LogUnwritable("the access log took only part of an entry (disk full?)")
    except OSError as exc:
        raise LogUnwritable(f"the access log cannot be written ({exc.strerror})") from exc
    finally:
        os.close(fd)  # closing releases the lock


def read(home: Path) -> Iterator[dict[str, Any]]:
    """Every entry, oldest first (the rotated file, then the current one); a
    line that does not parse (a torn write) is skipped."""
    for name in (FILE + ".1", FILE):
        try:
            with open(home / name, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(entry, dict):
                        yield entry
        except FileNotFoundError:
            continue
