"""The access log records what an answer carried from the answer's own facts,
not from its words: text on a screen that looks like a capture id is screen
content, never a served capture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noru import accesslog
from noru.access import set_control
from tests.history_data import bulk, redaction_off
from tests.wire import MemoryClient

OTHER = "capture_2020-01-01_000000"  # named on screen; not in this history


def _logged(home: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    set_control(home, "allow")
    client = MemoryClient(home)
    try:
        client.initialize()
        answer = client.call(tool, arguments)
    finally:
        client.close()
    assert OTHER in answer["result"]["content"][0]["text"]  # the words are there
    (entry,) = accesslog.read(home)
    return entry


def test_a_search_logs_the_captures_it_found_not_ids_in_their_text(home: Path) -> None:
    redaction_off(home)
    bulk(home, [f"deploy failed, as in {OTHER}", "lunch menu"])
    entry = _logged(home, "search_captures", {"query": "deploy"})
    assert entry["captures"] == [{"id": "capture_2026-01-01_000000", "how": "listed"}]
