"""The person's settings are read once a request and seen the next request after an edit.

What the process opens is watched with an audit hook (``sys.addaudithook``:
every ``open`` of a file), so the tests count the real reads of
``config.toml``, ``redactions.json`` and ``access.json``, whatever reads them.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from noru import access
from tests.history_data import seed
from tests.wire import MemoryClient

FILES = ("config.toml", "redactions.json", "access.json")


class Opens:
    """The settings files of one data dir opened while it listens."""

    watching: Opens | None = None

    def __init__(self, home: Path) -> None:
        self.home = str(home)
        self.seen: Counter[str] = Counter()

    def __enter__(self) -> Opens:
        Opens.watching = self
        return self

    def __exit__(self, *exc: object) -> None:
        Opens.watching = None


def _hook(event: str, args: tuple[Any, ...]) -> None:
    watching = Opens.watching
    if watching is None or event != "open" or not isinstance(args[0], str | Path):
        return
    path = str(args[0])
    name = os.path.basename(path)
    if name in FILES and path.startswith(watching.home):
        watching.seen[name] += 1


sys.addaudithook(_hook)  # an audit hook cannot be removed: it does nothing unless watching


def _age(path: Path) -> None:
    """Make ``path`` look edited a minute ago (older than ``noru.settings.RECENT``)."""
    then = time.time() - 60
    os.utime(path, (then, then))


@pytest.fixture
def looking(home: Path) -> Iterator[MemoryClient]:
    seed(home)
    access.set_control(home, "allow")
    (home / "config.toml").write_text("max_edge = 640\n")
    (home / "redactions.json").write_text('{"patterns": [], "allowed": []}\n')
    for name in FILES:
        _age(home / name)
    client = MemoryClient(home)
    try:
        client.initialize()
        yield client
    finally:
        client.close()


def _served_width(answer: dict[str, Any]) -> int:
    width: int = answer["result"]["structuredContent"]["images"][0]["served_width"]
    return width


def test_one_call_reads_each_settings_file_at_most_once(looking: MemoryClient, home: Path) -> None:
    looking.call("get_capture", {"index": 1})  # the first call of the process may read them
    (home / "config.toml").write_text("max_edge = 512\n")
    _age(home / "config.toml")
    with Opens(home) as opens:
        answer = looking.call("get_capture", {"index": 3})
    assert _served_width(answer) == 512
    assert opens.seen == {"config.toml": 1}


def test_a_call_with_the_settings_unchanged_reads_none_of_them(
    looking: MemoryClient, home: Path
) -> None:
    looking.call("get_capture", {"index": 3})
    with Opens(home) as opens:
        for _ in range(3):
            looking.call("get_capture", {"index": 3})
            looking.call("list_captures", {})
            looking.call("get_status", {})
            looking.request("resources/list")
    assert opens.seen == {}


def test_an_edit_in_place_of_the_same_size_is_seen_by_the_next_call(
    looking: MemoryClient, home: Path
) -> None:
    config = home / "config.toml"
    assert _served_width(looking.call("get_capture", {"index": 3})) == 640
    before = config.stat()
    # Same size, same inode, within the same tick of the file system's clock.
    with config.open("r+") as file:
        file.write("max_edge = 320\n")
    after = config.stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)
    assert _served_width(looking.call("get_capture", {"index": 3})) == 320


def test_a_pause_is_seen_by_the_next_call(looking: MemoryClient, home: Path) -> None:
    assert "error" not in looking.call("list_captures", {})
    access.set_control(home, "revoke")
    text = looking.call("list_captures", {})["result"]["content"][0]["text"]
    assert text.startswith("Noru history revoked")
