"""Answers shaped for the client that reads them: a client measured to pass its
model nothing beside structuredContent gets the same blocks without it; every
other client gets contract 4 exactly; the person's result_shape decides over
the table. What each real client's model then receives is tests/clients/."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from noru import accesslog
from noru.access import set_control
from noru.config import load_config
from noru.mcp.clients import MEASURED, profile
from tests.history_data import seed
from tests.wire import MemoryClient

AGE = re.compile(r"(\d+[smhd] ago|just now)")


def answers(home: Path, name: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The results of ``calls`` in one session of a client called ``name``."""
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18", name=name)
        return [client.call(tool, args)["result"] for tool, args in calls]
    finally:
        client.close()


def same_blocks(result: dict[str, Any]) -> list[Any]:
    """The content blocks with the capture's age (which moves between calls) masked."""
    return [
        {**b, "text": AGE.sub("AGE", b["text"])} if b["type"] == "text" else b
        for b in result["content"]
    ]


@pytest.mark.parametrize("name", sorted(n for n, row in MEASURED.items() if row.drops))
def test_a_client_measured_to_drop_the_text_gets_the_same_blocks_without_structured_content(
    home: Path, name: str
) -> None:
    data = seed(home)
    call = [("get_capture", {"id": data.editor.id})]
    (theirs,) = answers(home, name, call)
    (contract,) = answers(home, "some-other-client", call)
    assert "structuredContent" in contract
    assert "structuredContent" not in theirs
    assert same_blocks(theirs) == same_blocks(contract)
    assert theirs["isError"] is False and theirs["_meta"] == {"noru.contract": 4}
    assert theirs["content"][-1]["text"].splitlines()[-1].startswith("prov: !px")


def test_only_the_exact_client_name_chooses_the_content_shape(home: Path) -> None:
    data = seed(home)
    for near in ("Claude-Code", "claude-code-beta", "claude code", "codex"):
        (result,) = answers(home, near, [("get_capture", {"id": data.editor.id})])
        assert "structuredContent" in result, near


def test_the_person_s_result_shape_decides_over_the_table(home: Path) -> None:
    data = seed(home)
    call = [("get_capture", {"id": data.editor.id})]
    (home / "config.toml").write_text('result_shape = "contract"\n')
    (forced,) = answers(home, "claude-code", call)
    assert "structuredContent" in forced
    (home / "config.toml").write_text('result_shape = "content"\n')
    (other,) = answers(home, "cursor", call)
    assert "structuredContent" not in other
    (home / "config.toml").write_text('result_shape = "auto"\n')
    (auto,) = answers(home, "cursor", call)
    assert "structuredContent" in auto


def test_a_result_shape_noru_does_not_know_is_a_problem_and_keeps_auto(home: Path) -> None:
    (home / "config.toml").write_text('result_shape = "json"\n')
    config = load_config(home)
    assert config.result_shape == "auto"
    assert config.problems == (
        'result_shape = \'json\' ignored: use one of "auto", "contract", "content"',
    )


def test_fields_asked_in_the_content_shape_arrive_as_text_before_the_prov_line(
    home: Path,
) -> None:
    data = seed(home)
    (result,) = answers(
        home, "claude-code", [("get_capture", {"id": data.editor.id, "fields": ["sources"]})]
    )
    assert "structuredContent" not in result
    facts = result["content"][-2]["text"]
    heading, body = facts.split("\n", 1)
    assert heading == "Structured facts asked for (fields):"
    assert json.loads(body) == {"sources": [data.editor.images[0].source.as_dict()]}
    assert result["content"][-1]["text"].splitlines()[-1].startswith("prov: ")


def test_steering_and_locator_rows_are_the_same_in_either_shape(home: Path) -> None:
    data = seed(home)
    set_control(home, "allow")
    calls = [
        ("list_captures", {}),
        ("search_captures", {"query": "main"}),
        ("get_capture", {"id": "capture_2020-01-01_000000"}),  # Noru no match
        ("get_status", {}),
    ]
    theirs = answers(home, "claude-code", calls)
    contract = answers(home, "other", calls)
    assert [same_blocks(r) for r in theirs] == [same_blocks(r) for r in contract]
    assert all("structuredContent" not in r for r in theirs + contract)
    assert data.editor.id in theirs[0]["content"][0]["text"]


def test_the_access_log_records_the_shape_each_answer_had(home: Path) -> None:
    data = seed(home)
    answers(home, "claude-code", [("get_capture", {"id": data.editor.id})])
    answers(home, "cursor", [("get_capture", {"id": data.editor.id})])
    log = list(accesslog.read(home))
    assert [(e["client"], e["shape"]) for e in log] == [
        ("claude-code", "content"),
        ("cursor", "contract"),
    ]
    # The capture served is named whatever the shape.
    assert all(e["captures"] == [{"id": data.editor.id, "how": "pixels"}] for e in log)


def test_instructions_mention_the_prov_line_only_to_a_model_that_receives_it(home: Path) -> None:
    def told(name: str) -> str:
        client = MemoryClient(home)
        try:
            return str(client.initialize("2025-06-18", name=name)["result"]["instructions"])
        finally:
            client.close()

    assert "'prov:' line" in told("claude-code")  # served the content shape: it gets it
    assert "'prov:' line" in told("cursor")
    (home / "config.toml").write_text('result_shape = "contract"\n')
    assert "'prov:' line" not in told("claude-code")  # forced: its model gets no text
    assert "'prov:' line" in told("cursor")


def test_the_table_chooses_by_what_each_client_drops() -> None:
    assert profile("claude-code").shape == "content"
    assert profile("codex-mcp-client").shape == "content"
    assert profile("gemini-cli-mcp-client").shape == "contract"
    assert profile(None) == profile("some-client") == profile("some-client", "auto")
    assert profile(None).shape == "contract" and profile(None).budget is None
    assert not profile("codex-mcp-client", "contract").gets_text
    assert profile("codex-mcp-client", "content").gets_text
    assert all(row.evidence and row.version and row.product for row in MEASURED.values())


def test_arguments_a_client_adds_to_every_tool_are_dropped_for_it_alone(home: Path) -> None:
    data = seed(home)
    call = [("get_capture", {"id": data.editor.id, "wait_for_previous": True})]
    (gemini,) = answers(home, "gemini-cli-mcp-client", call)
    assert gemini["content"][0]["text"].startswith(f"Noru capture {data.editor.id}")
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18", name="cursor")
        refused = client.call(*call[0])
    finally:
        client.close()
    assert refused["error"]["code"] == -32602
    assert "wait_for_previous" in refused["error"]["message"]


def test_a_client_that_glues_text_blocks_together_gets_each_ending_a_line(home: Path) -> None:
    data = seed(home)
    calls = [
        ("get_capture", {"id": data.editor.id}),
        ("get_capture", {"id": "capture_2020-01-01_000000"}),
    ]
    glued, steering = answers(home, "copilot-cli", calls)
    plain, _ = answers(home, "cursor", calls)
    texts = [b["text"] for b in glued["content"] if b["type"] == "text"]
    assert all(text.endswith("\n") for text in texts)
    assert [AGE.sub("AGE", t.removesuffix("\n")) for t in texts] == [
        AGE.sub("AGE", b["text"]) for b in plain["content"] if b["type"] == "text"
    ]
    # Joined as that client joins them, the prov line still starts a line.
    assert "\nprov: !px" in "".join(texts)
    assert steering["content"][0]["text"].endswith("\n")
