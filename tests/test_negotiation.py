"""Revision negotiation and the initialize result, exactly as contract 4 says."""

from __future__ import annotations

from typing import Any

import pytest

from noru import __version__
from noru.mcp.session import instructions
from tests.wire import MemoryClient


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_a_supported_revision_is_echoed(client: MemoryClient, version: str) -> None:
    assert client.initialize(version)["result"]["protocolVersion"] == version


def test_no_requested_revision_gives_the_oldest(client: MemoryClient) -> None:
    assert client.initialize(omit=True)["result"]["protocolVersion"] == "2024-11-05"


def test_a_null_revision_counts_as_none_requested(client: MemoryClient) -> None:
    assert client.initialize(None)["result"]["protocolVersion"] == "2024-11-05"


@pytest.mark.parametrize(
    "version",
    [
        "2025-11-25",
        "2026-07-28",
        "2099-01-01",
        "2024-10-07",
        "",
        "latest",
        20250618,
        1.5,
        ["2025-06-18"],
        {"v": 1},
        True,
    ],
)
def test_any_other_requested_value_gives_the_newest(client: MemoryClient, version: Any) -> None:
    assert client.initialize(version)["result"]["protocolVersion"] == "2025-06-18"


def test_initialize_with_no_params_at_all_gives_the_oldest(client: MemoryClient) -> None:
    answer = client.request("initialize")
    assert answer["result"]["protocolVersion"] == "2024-11-05"


def test_initialize_result_carries_the_contract_capabilities_and_identity(
    client: MemoryClient,
) -> None:
    result = client.initialize("2025-06-18")["result"]
    assert result["capabilities"] == {
        "tools": {},
        "resources": {},
        "experimental": {"noru.contract": {"version": 4}},
    }
    assert result["serverInfo"] == {"name": "noru", "version": __version__}
    assert result["instructions"] == instructions(gets_text=True)
    assert "'prov:' line" in result["instructions"]


def test_instructions_route_this_to_the_handoff_and_descriptions_to_history() -> None:
    text = instructions(gets_text=True)
    assert "get_latest_capture" in text
    assert text.index("search_captures") < text.index("get_capture with the id")
    assert "nothing new" in text


def test_server_discover_probe_is_an_unknown_method(client: MemoryClient) -> None:
    answer = client.request("server/discover", {})
    assert answer["error"]["code"] == -32601


def test_a_second_initialize_is_refused_and_keeps_the_first_revision(
    client: MemoryClient,
) -> None:
    client.initialize("2024-11-05")
    answer = client.request("initialize", {"protocolVersion": "2025-06-18"})
    assert answer["error"]["code"] == -32600
    tools = client.request("tools/list")["result"]["tools"]
    assert all("annotations" not in tool for tool in tools)
