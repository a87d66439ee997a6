"""One table of history cases, run through the in-memory stream and through the
official MCP SDK client over a real `noru mcp` (one session for the whole table)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from noru.access import set_control
from tests.history_data import Seeded
from tests.sdk import sdk_params, validate_log
from tests.wire import MemoryClient


@dataclass(frozen=True)
class Case:
    name: str
    arguments: dict[str, Any]
    first_line: str | None = None  # a normal result whose first line starts so
    error: int | None = None  # a JSON-RPC error code
    structured_id: str | None = None  # "editor" / "terminal" / "browser"


def cases(s: Seeded) -> list[Case]:
    return [
        Case("list_captures", {}, first_line="Noru history: 3 captures"),
        Case("list_captures", {"app": "Figma"}, first_line="Noru no match"),
        Case("list_captures", {"workspace": "repob"}, first_line="Noru history: 1 capture"),
        Case(
            "list_captures", {"display": 2, "origin": "user"}, first_line="Noru history: 1 capture"
        ),
        Case(
            "list_captures",
            {"since": "1h", "order": "oldest_first", "limit": 5},
            first_line="Noru history: 2 captures",
        ),
        Case("list_captures", {"before": "2026-01-01T00:00:00Z"}, first_line="Noru no match"),
        Case("list_captures", {"limit": 0}, error=-32602),
        Case("list_captures", {"since": "someday"}, error=-32602),
        Case("list_captures", {"cursor": "forged"}, error=-32602),
        Case("search_captures", {"query": "frobnicate"}, first_line="Noru search for 'frobnicate'"),
        Case("search_captures", {"query": 'NEAR("x" *'}, first_line="Noru no match"),
        Case("search_captures", {"query": "passed", "app": "code"}, first_line="Noru no match"),
        Case("search_captures", {}, error=-32602),
        Case("search_history", {"query": "failing build"}, first_line="Noru search for"),
        Case("get_capture", {"id": s.editor.id}, structured_id="editor"),
        Case("get_capture", {"index": 2}, structured_id="terminal"),
        Case("get_capture", {"index": 1, "origin": "user"}, structured_id="terminal"),
        Case("get_capture", {"app": "code"}, structured_id="editor"),
        Case("get_capture", {"display": "HDMI", "since": "2h"}, structured_id="browser"),
        Case(
            "get_capture",
            {"id": s.editor.id, "text_only": True, "layers": ["ocr", "regions"]},
            structured_id="editor",
        ),
        Case("get_capture", {"id": s.editor.id, "fields": ["id"]}, structured_id="editor"),
        Case("get_capture", {"id": s.editor.id, "region": [0, 0, 100, 50]}, structured_id="editor"),
        Case("get_capture_text", {"id": s.terminal.id}, structured_id="terminal"),
        Case("get_capture", {"id": s.editor.id, "layers": ["ax"]}, first_line="Noru layer absent"),
        Case("get_capture", {"index": 9}, first_line="Noru no match"),
        Case("get_capture", {"id": "capture_2001-01-01_000000"}, first_line="Noru no match"),
        Case("get_capture", {}, error=-32602),
        Case("get_capture", {"id": s.editor.id, "index": 1}, error=-32602),
        Case("get_capture", {"id": "capture_../../etc/passwd"}, error=-32602),
        Case("get_capture", {"id": s.editor.id, "region": [1500, 0, 100, 10]}, error=-32602),
        Case("get_capture", {"id": s.editor.id, "layers": ["pixels"]}, error=-32602),
        Case("get_status", {}, first_line="Noru status"),
    ]


def check(
    case: Case,
    seeded: Seeded,
    *,
    first: str | None,
    error: int | None,
    structured: dict[str, Any] | None,
) -> None:
    if case.error is not None:
        assert error == case.error, (case, first)
        return
    assert error is None, (case, error)
    assert first is not None
    if case.first_line is not None:
        assert first.startswith(case.first_line), (case, first)
    if case.structured_id is not None:
        assert (
            structured is not None
            and structured.get("id") == getattr(seeded, case.structured_id).id
        ), (case, structured)


def test_every_case_through_the_in_memory_stream(session: MemoryClient, seeded: Seeded) -> None:
    for case in cases(seeded):
        answer = session.call(case.name, case.arguments)
        error = answer.get("error", {}).get("code")
        result = answer.get("result") or {}
        first = result["content"][0]["text"] if result else None
        check(case, seeded, first=first, error=error, structured=result.get("structuredContent"))


def test_every_case_through_the_sdk_client_over_stdio(
    home: Path, tmp_path: Path, seeded: Seeded
) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    log = tmp_path / "wire.log"

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            transport = stdio_client(sdk_params(home, log), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=30) as client:
                await client.list_tools()
                for case in cases(seeded):
                    try:
                        result = await client.call_tool(case.name, case.arguments)
                    except MCPError as exc:
                        check(case, seeded, first=None, error=exc.error.code, structured=None)
                        continue
                    first = result.content[0].text  # type: ignore[union-attr]
                    check(
                        case, seeded, first=first, error=None, structured=result.structured_content
                    )
                # Access transitions reach the running server on its next request.
                set_control(home, "revoke")
                revoked = await client.call_tool("list_captures", {})
                assert revoked.content[0].text.startswith("Noru history revoked")  # type: ignore[union-attr]
                assert (await client.list_resources()).resources == []
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(f"noru-capture://{seeded.editor.id}")
                assert caught.value.error.code == -32001
                set_control(home, "allow")
                assert len((await client.list_resources()).resources) == 3
                for uri, code in (
                    ("noru-capture://capture_2001-01-01_000000", -32602),
                    ("noru-capture://../../x", -32602),
                    ("http://x", -32602),
                ):
                    with pytest.raises(MCPError) as caught:
                        await client.read_resource(uri)
                    assert caught.value.error.code == code

    anyio.run(body)
    assert validate_log(log) >= len(cases(seeded))
