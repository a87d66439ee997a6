"""JSON-RPC framing over the in-memory stream: errors, notifications, batches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from noru.mcp import session as session_module
from tests.wire import MemoryClient


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"{",
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"',
        b"\xff\xfe{}",
        b'{"jsonrpc":"2.0","id":1,"method":"ping","x":NaN}',
        b"[" * 100000,
    ],
)
def test_unparsable_input_is_a_parse_error_with_null_id(client: MemoryClient, raw: bytes) -> None:
    answer = client.send_raw(raw)
    assert answer == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": answer["error"]["message"]},
    }
    assert answer["error"]["code"] == -32700


@pytest.mark.parametrize(
    "message",
    [
        42,
        "ping",
        None,
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
    ],
)
def test_a_non_request_is_an_invalid_request(client: MemoryClient, message: Any) -> None:
    answer = client.send(message)
    assert answer["error"]["code"] == -32600


def test_an_invalid_request_echoes_a_readable_id(client: MemoryClient) -> None:
    answer = client.send({"jsonrpc": "1.0", "id": "abc", "method": "ping"})
    assert answer["id"] == "abc"


def test_ping_works_before_and_after_initialize(client: MemoryClient) -> None:
    assert client.request("ping")["result"] == {}
    client.initialize()
    assert client.request("ping")["result"] == {}


@pytest.mark.parametrize(
    "method",
    ["tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list"],
)
def test_requests_before_initialize_are_refused(client: MemoryClient, method: str) -> None:
    answer = client.request(method, {"name": "get_status"})
    assert answer["error"]["code"] == -32600
    assert "initialize" in answer["error"]["message"]


def test_an_unknown_method_before_initialize_is_method_not_found(client: MemoryClient) -> None:
    assert client.request("server/discover", {})["error"]["code"] == -32601


def test_notifications_never_get_a_response(client: MemoryClient) -> None:
    assert client.send({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    client.initialize()
    for method in ("notifications/cancelled", "tools/list", "no/such", "initialize"):
        assert client.send({"jsonrpc": "2.0", "method": method, "params": {}}) is None


def test_a_client_response_gets_no_answer(session: MemoryClient) -> None:
    assert session.send({"jsonrpc": "2.0", "id": 9, "result": {}}) is None


@pytest.mark.parametrize("method", ["prompts/list", "logging/setLevel", "completion/complete", "x"])
def test_unknown_methods_are_method_not_found(session: MemoryClient, method: str) -> None:
    answer = session.request(method, {})
    assert answer["error"]["code"] == -32601
    assert method in answer["error"]["message"]


@pytest.mark.parametrize("method", ["/0/", "/etc/passwd", "tools/call\nTraceback", "é" * 200])
def test_an_unknown_method_that_is_no_method_name_is_not_said_back(
    session: MemoryClient, method: str
) -> None:
    answer = session.request(method, {})
    assert answer["error"]["code"] == -32601
    assert answer["error"]["message"] == "Method not found (no MCP method has a name like that)"


def test_params_that_are_not_an_object_are_invalid_params(session: MemoryClient) -> None:
    assert session.request("tools/list", [1, 2])["error"]["code"] == -32602


def test_an_internal_error_carries_no_trace_or_path(
    session: MemoryClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("failed at /home/someone/.local/share/noru/secret.py line 3")

    monkeypatch.setattr(session_module, "list_tools", explode)
    answer = session.request("tools/list")
    assert answer["error"] == {"code": -32603, "message": "Internal error"}


class TestBatches:
    def test_a_batch_is_answered_in_order_on_a_2025_03_26_session(
        self, client: MemoryClient
    ) -> None:
        client.initialize("2025-03-26")
        batch = [
            {"jsonrpc": "2.0", "id": "a", "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "b", "method": "tools/list"},
            {"jsonrpc": "2.0", "id": "c", "method": "nope"},
        ]
        answer = client.send(batch)
        assert [a["id"] for a in answer] == ["a", "b", "c"]
        assert answer[0]["result"] == {}
        assert len(answer[1]["result"]["tools"]) == 6
        assert answer[2]["error"]["code"] == -32601

    def test_a_batch_of_notifications_gets_no_answer(self, client: MemoryClient) -> None:
        client.initialize("2025-03-26")
        batch = [{"jsonrpc": "2.0", "method": "notifications/initialized"}] * 2
        assert client.send(batch) is None

    @pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18"])
    def test_a_batch_on_another_revision_is_an_invalid_request(
        self, client: MemoryClient, version: str
    ) -> None:
        client.initialize(version)
        answer = client.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert answer["error"]["code"] == -32600 and answer["id"] is None

    def test_a_batch_before_initialize_is_an_invalid_request(self, client: MemoryClient) -> None:
        answer = client.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert answer["error"]["code"] == -32600

    def test_a_batch_never_contains_initialize(self, client: MemoryClient) -> None:
        client.initialize("2025-03-26")
        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}},
        ]
        answer = client.send(batch)
        assert answer["error"]["code"] == -32600

    def test_an_empty_batch_is_an_invalid_request(self, client: MemoryClient) -> None:
        client.initialize("2025-03-26")
        assert client.send([])["error"]["code"] == -32600

    def test_invalid_members_are_answered_one_by_one(self, client: MemoryClient) -> None:
        client.initialize("2025-03-26")
        answer = client.send([1, {"jsonrpc": "2.0", "id": 5, "method": "ping"}])
        assert answer[0]["error"]["code"] == -32600
        assert answer[1] == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_answers_are_single_line_utf8_json(home: Path) -> None:
    from noru.mcp.session import Session

    s = Session(home=home)
    raw = s.handle(json.dumps({"jsonrpc": "2.0", "id": "é", "method": "ping"}).encode())
    assert raw is not None and b"\n" not in raw
    assert json.loads(raw.decode("utf-8"))["id"] == "é"


def test_a_lone_surrogate_in_an_id_is_echoed_back_as_valid_json(client: MemoryClient) -> None:
    # Found by the fuzzer: "\udcff" is a legal JSON escape with no UTF-8 form.
    answer = client.send_raw(b'{"jsonrpc":"2.0","id":"\\udcff","method":"ping"}')
    assert answer == {"jsonrpc": "2.0", "id": "\udcff", "result": {}}
