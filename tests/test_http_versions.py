"""Versions on `initialize` over Streamable HTTP: the body negotiates, as the
contract says, and an `MCP-Protocol-Version` header on `initialize` never
turns a client away.

``FIRST`` is what each pinned agent client (tests/clients/agents.py) sends
before and at `initialize`, as measured from its requests (docs/http.md,
"What the clients send first"); each is replayed here against a real
`noru mcp --http`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.http_process import Raw, answers

NEWEST = "2025-06-18"


def hello(version: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    if version is not None:
        params["protocolVersion"] = version
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


DISCOVER = {
    "jsonrpc": "2.0",
    "id": "server-discover-probe-1",
    "method": "server/discover",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
}

# client: (a discover probe first, with its header?, the revision its initialize asks for,
# the header on its initialize)
FIRST: dict[str, tuple[bool, str, str | None]] = {
    "claude-code 2.1.332": (True, "2025-11-25", None),
    "copilot-cli 1.0.102": (True, "2025-11-25", None),
    "opencode 1.18.33": (False, "2025-11-25", None),
    "codex-mcp-client 0.171.0": (False, "2025-06-18", None),
    "gemini-cli-mcp-client 0.61.0": (False, "2025-06-18", None),
}


@pytest.mark.parametrize(
    "header", [None, "2025-11-25", "2026-07-28", "2024-11-05", "1999-01-01", "not a version"]
)
@pytest.mark.parametrize(
    ("asked", "negotiated"),
    [("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), (NEWEST, NEWEST),
     ("2025-11-25", NEWEST), ("2026-07-28", NEWEST), (None, "2024-11-05")],
)  # fmt: skip
def test_initialize_is_negotiated_in_its_body_whatever_header_it_carries(
    raw: Raw, header: str | None, asked: str | None, negotiated: str
) -> None:
    headers = {"MCP-Protocol-Version": header} if header is not None else {}
    response = raw.send(hello(asked), session=None, headers=headers)
    assert response.status_code == 200, response.text
    assert "mcp-session-id" in response.headers
    assert answers(response)[0]["result"]["protocolVersion"] == negotiated


@pytest.mark.parametrize("client", sorted(FIRST))
def test_each_pinned_client_s_first_requests_get_what_it_goes_on_from(
    raw: Raw, client: str
) -> None:
    probes, asked, header = FIRST[client]
    if probes:
        # The next revision's discovery: no session yet, so 400 with a JSON-RPC
        # error; the client then sends initialize.
        probe = raw.send(
            DISCOVER,
            session=None,
            headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
        )
        assert probe.status_code == 400 and "mcp-session-id" not in probe.headers
        assert answers(probe)[0]["error"]["code"] == -32600
    headers = {"MCP-Protocol-Version": header} if header else {}
    response = raw.send(hello(asked), session=None, headers=headers)
    assert response.status_code == 200
    revision = answers(response)[0]["result"]["protocolVersion"]
    assert revision == NEWEST
    raw.session_id, raw.revision = response.headers["mcp-session-id"], revision
    # From here on it sends the negotiated revision in the header.
    after = {"MCP-Protocol-Version": revision}
    initialized = raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=after)
    assert initialized.status_code == 202
    assert len(raw.request("tools/list", headers=after)["result"]["tools"]) == 6


def test_after_initialize_an_unsupported_header_is_still_400(raw: Raw) -> None:
    raw.initialize()
    response = raw.send(
        {"jsonrpc": "2.0", "id": 5, "method": "ping"},
        headers={"MCP-Protocol-Version": "2025-11-25"},
    )
    assert response.status_code == 400
    assert "2025-11-25" in answers(response)[0]["error"]["message"]
