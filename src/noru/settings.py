"""The person's settings as one request sees them: configuration, redaction
policy and access state, read once and shared down the call.

A request (an agent's tool call, a console page, a capture in the app)
takes ``snapshot(home)`` at its start and passes it down; every part of the
request reads the same ``config``, ``policy`` and ``access`` from it, each
read from disk on first use only. A snapshot is never reused by the next
request, so the person's edit is seen by the next request.

The files themselves are parsed once per process while they do not change:
each parsed value is kept with its file's identity (``st_dev``, ``st_ino``,
``st_mtime_ns``, ``st_size``), and a snapshot asks the file system for that
identity (one ``stat``) before it trusts the value. An atomic replace (the
way Noru writes each of them) gives a new inode; an edit in place a new
mtime or size. A file's mtime is as coarse as the kernel's clock tick, so a
file changed within ``RECENT`` of when it was read is read again each time
(the "racy" rule of git's index): an edit in place of the same size in the
same tick cannot then be missed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from noru.access import AccessState
from noru.access import load as load_access
from noru.config import FILE as CONFIG_FILE
from noru.config import Config, load_config
from noru.paths import access_path

if TYPE_CHECKING:
    from noru.redact.policy import Policy

__all__ = ["RECENT", "Settings", "policy", "reads", "snapshot"]

# A file changed this recently (ns) before it was read is read again each time.
RECENT = 2_000_000_000

T = TypeVar("T")

Identity = tuple[int, int, int, int]


def _identity(path: Path) -> Identity | None:
    """The file's identity; None when there is no file (or it cannot be seen)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass
class _Kept:
    identity: Identity | None
    value: object
    trusted: bool  # changed long enough before it was read


_cache: dict[tuple[str, object], _Kept] = {}
_lock = threading.Lock()
# How many times each kind of file was parsed in this process (for tests and benchmarks).
_reads: dict[str, int] = {}


def reads() -> dict[str, int]:
    """How many times this process has parsed each file (``config``,
    ``policy``, ``access``): a copy."""
    with _lock:
        return dict(_reads)


def _cached(kind: str, path: Path, key: object, parse: Callable[[], T]) -> T:
    """``parse()``'s value for ``path``, parsed again only when the file's
    identity changed (or it changed too recently to be trusted)."""
    before = _identity(path)
    slot = (str(path), key)
    with _lock:
        kept = _cache.get(slot)
    if kept is not None and kept.trusted and kept.identity == before:
        return kept.value  # type: ignore[return-value]
    started = time.time_ns()
    value = parse()
    trusted = before is None or before[2] < started - RECENT
    # A file that appears (or is replaced) while it is read is read again next time.
    if _identity(path) != before:
        trusted = False
    with _lock:
        _cache[slot] = _Kept(before, value, trusted)
        _reads[kind] = _reads.get(kind, 0) + 1
    return value


def _config(home: Path) -> Config:
    return _cached("config", home / CONFIG_FILE, None, lambda: load_config(home))


def policy(home: Path, categories: tuple[str, ...]) -> Policy:
    """The redaction policy with ``categories`` on, parsed again only when
    the person's file changed: for a process that keeps a configuration of
    its own (the app, from its start)."""
    from noru.redact import policy as redaction  # only where redaction is asked for

    return _cached(
        "policy", home / redaction.FILE, categories, lambda: redaction.load(home, categories)
    )


def _access(home: Path) -> AccessState:
    return _cached("access", access_path(home), None, lambda: load_access(home))


@dataclass
class Settings:
    """One request's view of the person's settings for data dir ``home``:
    each read on first use, then the same for the rest of the request."""

    home: Path

    @cached_property
    def config(self) -> Config:
        return _config(self.home)

    @cached_property
    def policy(self) -> Policy:
        """What is redacted for agents: the ``redact`` setting and the
        person's own patterns and allowed values."""
        return policy(self.home, tuple(self.config.redact))

    @cached_property
    def access(self) -> AccessState:
        return _access(self.home)


def snapshot(home: Path) -> Settings:
    """A new request's settings for data dir ``home``."""
    return Settings(home)
