"""`noru mcp` over real pipes: a raw driver for what no client sends, and the
official MCP Python SDK client for what real clients do."""

from __future__ import annotations

import json
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.sdk import initialize_at, sdk_params, validate_log
from tests.wire import StdioProcess

INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":%s}'


def init(proc: StdioProcess, params: bytes) -> dict[str, Any]:
    answer: dict[str, Any] = proc.exchange(INIT % params, "initialize")
    proc.revision = answer["result"]["protocolVersion"]
    return answer


class TestRawPipes:
    def test_absent_protocol_version_negotiates_the_oldest(self, stdio: StdioProcess) -> None:
        answer = init(stdio, b'{"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}')
        assert answer["result"]["protocolVersion"] == "2024-11-05"

    def test_an_unknown_protocol_version_negotiates_the_newest(self, stdio: StdioProcess) -> None:
        answer = init(stdio, b'{"protocolVersion":"2026-07-28","capabilities":{}}')
        assert answer["result"]["protocolVersion"] == "2025-06-18"

    def test_requests_before_initialize_are_refused_but_ping_works(
        self, stdio: StdioProcess
    ) -> None:
        refused = stdio.exchange(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
        assert refused["error"]["code"] == -32600
        pong = stdio.exchange(b'{"jsonrpc":"2.0","id":2,"method":"ping"}', "ping")
        assert pong == {"jsonrpc": "2.0", "id": 2, "result": {}}

    def test_parse_errors_and_invalid_utf8_get_an_error_and_the_server_goes_on(
        self, stdio: StdioProcess
    ) -> None:
        for raw in (b"{nope", b"\xc3\x28\xff", b'{"jsonrpc":"2.0","id":1,"method":"ping"'):
            answer = stdio.exchange(raw)
            assert answer["error"]["code"] == -32700 and answer["id"] is None
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":9,"method":"ping"}')["id"] == 9

    def test_blank_lines_are_ignored(self, stdio: StdioProcess) -> None:
        stdio.write(b"\n\r\n   \n")
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":3,"method":"ping"}')["id"] == 3

    def test_a_batch_on_a_2025_03_26_session_gets_a_batch_answer(self, stdio: StdioProcess) -> None:
        init(stdio, b'{"protocolVersion":"2025-03-26","capabilities":{}}')
        batch = json.dumps(
            [
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "get_latest_capture"},
                },
            ]
        ).encode()
        answer = stdio.exchange(batch)
        assert [a["id"] for a in answer] == [2, 3]
        text = answer[1]["result"]["content"][0]["text"]
        assert text.startswith("Noru app not running")

    def test_a_batch_on_a_2025_06_18_session_is_an_invalid_request(
        self, stdio: StdioProcess
    ) -> None:
        init(stdio, b'{"protocolVersion":"2025-06-18","capabilities":{}}')
        answer = stdio.exchange(b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]')
        assert answer["error"]["code"] == -32600

    def test_an_oversized_line_is_refused_without_killing_the_server(
        self, stdio: StdioProcess
    ) -> None:
        from noru.mcp.transports.stdio import MAX_LINE

        huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * MAX_LINE
        answer = stdio.exchange(huge + b'"}}')
        assert answer["error"]["code"] == -32600 and "larger than" in answer["error"]["message"]
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":2,"method":"ping"}')["id"] == 2

    def test_a_10_mb_line_is_answered_and_the_server_goes_on(self, stdio: StdioProcess) -> None:
        big = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"' + b"y" * 10_000_000
        assert stdio.exchange(big + b'"}}', "ping") == {"jsonrpc": "2.0", "id": 7, "result": {}}
        garbage = b"{" + b"z" * 10_000_000
        assert stdio.exchange(garbage)["error"]["code"] == -32700
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":8,"method":"ping"}')["id"] == 8

    def test_eof_ends_the_server_cleanly(self, stdio: StdioProcess) -> None:
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')["id"] == 1
        assert stdio.close() == 0

    def test_sigterm_ends_the_server_cleanly(self, stdio: StdioProcess, tmp_path: Path) -> None:
        assert stdio.exchange(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')["id"] == 1
        stdio.proc.send_signal(signal.SIGTERM)
        assert stdio.proc.wait(timeout=10) == 0
        assert b"Traceback" not in (tmp_path / "mcp.stderr").read_bytes()

    def test_stdout_carries_protocol_only(self, stdio: StdioProcess) -> None:
        init(stdio, b'{"protocolVersion":"2025-06-18","capabilities":{}}')
        for line in (
            b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
            b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_status"}}',
        ):
            stdio.write(line + b"\n")
        stdio.write(b'{"jsonrpc":"2.0","method":"notifications/cancelled"}\n')
        assert stdio.proc.stdin is not None
        stdio.proc.stdin.close()
        assert stdio.proc.stdout is not None
        rest = stdio.proc.stdout.read().splitlines()
        assert [json.loads(line)["id"] for line in rest] == [2, 3]


# --- the official MCP Python SDK client -----------------------------------


def run(body: Callable[[], Awaitable[None]]) -> None:
    anyio.run(body)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_connects_lists_and_calls(home: Path, tmp_path: Path, mode: str) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            transport = stdio_client(sdk_params(home, tmp_path / "wire.log"), errlog=errlog)
            async with Client(transport, mode=mode, read_timeout_seconds=30) as client:
                # The SDK asks for 2025-11-25, which this contract answers with the newest
                # revision it implements.
                assert client.protocol_version == "2025-06-18"
                assert client.server_info.name == "noru"
                tools = await client.list_tools()
                assert [t.name for t in tools.tools] == [
                    "get_latest_capture",
                    "observe_screen",
                    "list_captures",
                    "search_captures",
                    "get_capture",
                    "get_status",
                ]
                assert all(t.output_schema is None for t in tools.tools)
                assert all(t.annotations and t.annotations.read_only_hint for t in tools.tools)
                status = await client.call_tool("get_status", {})
                assert status.is_error is False
                assert status.meta == {"noru.contract": 4}
                live = await client.call_tool("get_latest_capture", {})
                assert live.content[0].text.startswith("Noru app not running")  # type: ignore[union-attr]
                retired = await client.call_tool("observe_window", {})
                assert retired.content[0].text.startswith("Noru app not running")  # type: ignore[union-attr]

    run(body)
    assert validate_log(tmp_path / "wire.log") >= 3


def test_the_sdk_client_pinned_to_2024_11_05(home: Path, tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            async with (
                stdio_client(sdk_params(home, tmp_path / "wire.log"), errlog=errlog) as (
                    read,
                    write,
                ),
                ClientSession(read, write, read_timeout_seconds=30) as session,
            ):
                await initialize_at(session, "2024-11-05")
                tools = await session.list_tools()
                assert len(tools.tools) == 6
                assert all(t.annotations is None and t.title is None for t in tools.tools)
                answer = await session.call_tool("get_capture", {"index": 1})
                assert answer.content[0].text.startswith("Noru no match")  # type: ignore[union-attr]
                assert answer.structured_content is None

    run(body)
    assert validate_log(tmp_path / "wire.log") >= 3


def test_the_sdk_client_sees_invalid_arguments_as_an_error(home: Path, tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            transport = stdio_client(sdk_params(home, tmp_path / "wire.log"), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=30) as client:
                await client.list_tools()
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("list_captures", {"limit": 999})
                assert caught.value.error.code == -32602
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("no_such_tool", {})
                assert caught.value.error.message == "Unknown tool: no_such_tool"

    run(body)
    assert validate_log(tmp_path / "wire.log") >= 3
