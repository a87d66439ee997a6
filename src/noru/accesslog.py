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

``noru mcp --http`` also records the requests it refuses for want of the
token (``noru.httptoken``), as ``RefusedRequests`` entries: counted, one entry per
burst at most once a minute (``noru.mcp.transports.auth``), so that a flood
of them cannot push the reads out of the log. `noru log` and `noru doctor`
show them (``describe_refused``, ``refusals``).

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

__all__ = [
    "FILE",
    "MAX_BYTES",
    "Entry",
    "LogUnwritable",
    "LoggedCapture",
    "Refusals",
    "RefusedRequests",
    "describe_refused",
    "read",
    "record",
    "record_refused",
    "refusals",
]

FILE = "access.log"
MAX_BYTES = 8 * 1024 * 1024
# Arguments are kept this short: a query is the person's business only in brief.
ARG_CHARS = 80


class LogUnwritable(NoruError):
    """The access log cannot be appended to: the read is not served."""


@dataclass(frozen=True)
class LoggedCapture:
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
    captures: tuple[LoggedCapture, ...] = ()
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
    _append(home, fields)


@dataclass(frozen=True)
class RefusedRequests:
    """HTTP requests refused (401) for want of the token, from ``first`` to
    ``last`` (RFC 3339 UTC): ``missing``, without a bearer token; ``wrong``,
    with one that is not this install's; ``unavailable``, while the server
    had no usable token to check against."""

    first: str
    last: str
    missing: int = 0
    wrong: int = 0
    unavailable: int = 0

    @property
    def count(self) -> int:
        return self.missing + self.wrong + self.unavailable


def record_refused(home: Path, refused: RefusedRequests) -> None:
    """Append one entry for ``refused``: the fields every entry has (no
    client, nothing served), and ``refused`` with the counts."""
    entry = Entry(
        at=refused.first, client=None, client_version=None, transport="http",
        method="refused", target=None, outcome="refused 401",
    )  # fmt: skip
    fields = asdict(entry)
    fields["refused"] = {**asdict(refused), "count": refused.count}
    _append(home, fields)


def describe_refused(entry: dict[str, Any]) -> str | None:
    """A refusals entry in words (None for any other entry)."""
    refused = entry.get("refused")
    if entry.get("method") != "refused" or not isinstance(refused, dict):
        return None
    count = int(refused.get("count") or 0)
    why = [
        f"{refused[key]} {words}"
        for key, words in (
            ("missing", "without the token"),
            ("wrong", "with a wrong token"),
            ("unavailable", "while the server had no usable token"),
        )
        if refused.get(key)
    ]
    span = "" if refused.get("last") == refused.get("first") else f" until {refused.get('last')}"
    plural = "request" if count == 1 else "requests"
    return f"{count} HTTP {plural} refused (401): {', '.join(why)}{span}"


@dataclass(frozen=True)
class Refusals:
    """What the log holds of refused HTTP requests: how many, the last one's
    time, and how many since ``since``."""

    count: int = 0
    last: str | None = None
    recent: int = 0


def refusals(home: Path, *, since: str | None = None) -> Refusals:
    """Every refusals entry summed; ``recent`` counts those whose last
    request was at or after ``since`` (RFC 3339 UTC, compared as text)."""
    count = recent = 0
    last: str | None = None
    for entry in read(home):
        refused = entry.get("refused")
        if entry.get("method") != "refused" or not isinstance(refused, dict):
            continue
        n = int(refused.get("count") or 0)
        at = str(refused.get("last") or entry.get("at"))
        count += n
        last = at if last is None or at > last else last
        if since is not None and at >= since:
            recent += n
    return Refusals(count, last, recent)


def _append(home: Path, fields: dict[str, Any]) -> None:
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
