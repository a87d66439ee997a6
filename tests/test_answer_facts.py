"""The access log records what an answer carried from the answer's own facts,
not from its words: text on a screen that looks like a capture id is screen
content, never a served capture. An answer is made once: a redacted
capture is planned once, as the agent may see it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from noru import accesslog
from noru.access import set_control
from noru.present import Projection, agent
from noru.present.plan import Plan, plan
from noru.redact import Policy
from noru.store import CaptureRecord, NewImage, OcrLine, Reader, Store
from tests.history_data import NOW, bulk, png, redaction_off, source
from tests.redaction_cases import planted
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


def test_a_redacted_capture_is_planned_once(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line, secret, _ = planted()[0]
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(800, 600), 800, 600, source("XTerm", "env - xterm"), "800x600")],
            origin="user",
            captured_at=NOW,
        )
        store.set_ocr(
            record.id,
            engine="tesseract",
            lines_per_image=[[OcrLine(line, (10, 40, 600, 20), 0.95)]],
        )
    planned: list[str] = []

    def counted(seen: CaptureRecord, projection: Projection, *, max_edge: int) -> Plan:
        planned.append(seen.ocr_text)
        return plan(seen, projection, max_edge=max_edge)

    monkeypatch.setattr(agent, "plan", counted)
    with Reader.open(home) as reader:
        stored = reader.get(record.id)
        assert stored is not None
        view = agent.present_capture(
            reader, stored, Projection(), max_edge=1568, policy=Policy.of(["secrets"])
        )
    assert view.redacted is not None and view.images
    # One plan, of the capture as the agent may see it: the secret is not in it.
    assert len(planned) == 1 and secret not in planned[0]
