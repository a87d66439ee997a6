"""History through a real `noru mcp` process: SDK client, revoke, read-only data dir."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import anyio

from noru.access import set_control
from tests.history_data import decode, seed
from tests.parts import require
from tests.sdk import initialize_at, sdk_params, validate_log
from tests.wire import StdioProcess, first_text

INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'


def call(proc: StdioProcess, n: int, name: str, arguments: dict[str, object]) -> dict[str, object]:
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer: dict[str, object] = proc.exchange(json.dumps(message).encode(), "tools/call")
    return answer


def test_the_sdk_client_reads_history_and_resources(home: Path, tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    seeded = seed(home)
    log = tmp_path / "wire.log"

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            transport = stdio_client(sdk_params(home, log), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=30) as client:
                await client.list_tools()
                result = await client.call_tool("get_capture", {"id": seeded.editor.id})
                assert result.structured_content is not None
                assert result.structured_content["images"][0]["downscaled_from"] == [2560, 1600]
                image = next(c for c in result.content if c.type == "image")
                assert decode(base64.b64decode(image.data)).size == (1568, 980)
                listed = await client.call_tool("list_captures", {"app": "code"})
                assert seeded.editor.id in listed.content[0].text  # type: ignore[union-attr]
                resources = await client.list_resources()
                assert len(resources.resources) == 3
                read = await client.read_resource(f"noru-capture://{seeded.terminal.id}")
                assert read.contents[0].text.splitlines()[-1].startswith("prov: ")  # type: ignore[union-attr]

    anyio.run(body)
    assert validate_log(log) >= 5


def test_the_sdk_client_on_2024_11_05_gets_structured_content_of_a_resolved_capture(
    home: Path, tmp_path: Path
) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    seeded = seed(home)
    log = tmp_path / "wire.log"

    async def body() -> None:
        with (tmp_path / "sdk.stderr").open("w") as errlog:
            async with (
                stdio_client(sdk_params(home, log), errlog=errlog) as (read, write),
                ClientSession(read, write, read_timeout_seconds=30) as session,
            ):
                await initialize_at(session, "2024-11-05")
                answer = await session.call_tool("get_capture", {"id": seeded.editor.id})
                assert answer.structured_content is not None
                assert answer.structured_content["id"] == seeded.editor.id
                listed = await session.call_tool("list_captures", {})
                assert listed.structured_content is None  # locator rows are text only

    anyio.run(body)
    assert validate_log(log) >= 3


def test_a_revoke_reaches_a_running_server_on_its_next_request_with_the_app_closed(
    stdio: StdioProcess, home: Path
) -> None:
    seeded = seed(home)
    stdio.exchange(INIT, "initialize")
    stdio.revision = "2025-06-18"
    assert seeded.editor.id in first_text(call(stdio, 2, "list_captures", {}))
    set_control(home, "revoke")
    assert first_text(call(stdio, 3, "list_captures", {})).startswith("Noru history revoked")
    assert first_text(call(stdio, 4, "get_capture", {"id": seeded.editor.id})).startswith(
        "Noru history revoked"
    )
    assert len(list((home / "images").rglob("*.png"))) == 4  # files are kept
    set_control(home, "allow")
    assert seeded.editor.id in first_text(call(stdio, 5, "list_captures", {}))


def test_on_a_read_only_data_dir_noru_mcp_serves_no_read_it_cannot_log(
    home: Path, tmp_path: Path
) -> None:
    """Root ignores permission bits, so the data dir is a read-only bind mount in a
    private mount namespace: nothing at all can be written there, not even the
    access log, so no history leaves (and nothing is written)."""
    require(shutil.which("unshare") is not None, "unshare (util-linux) is needed")
    seeded = seed(home)
    set_control(home, "allow")
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime) for p in home.rglob("*"))
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            f"mount --bind {home} {home} && mount -o remount,bind,ro {home} && touch {home}/x",
        ],
        capture_output=True,
        text=True,
    )
    require(
        "Read-only file system" in probe.stderr, f"no read-only bind mount here: {probe.stderr}"
    )
    wrapper = [
        "unshare",
        "-m",
        "sh",
        "-c",
        'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
        str(home),
    ]
    proc = StdioProcess(home, stderr_path=tmp_path / "ro.stderr", wrapper=wrapper)
    try:
        proc.exchange(INIT, "initialize")
        proc.revision = "2025-06-18"
        for n, (tool, arguments) in enumerate(
            [("list_captures", {}), ("get_capture", {"id": seeded.editor.id}),
             ("search_captures", {"query": "frobnicate"})], 2
        ):  # fmt: skip
            answer = call(proc, n, tool, arguments)
            assert "result" not in answer, answer
            assert answer["error"]["code"] == -32603  # type: ignore[index]
            assert "access log" in answer["error"]["message"]  # type: ignore[index]
    finally:
        assert proc.close() == 0
    after = sorted((p.name, p.stat().st_size, p.stat().st_mtime) for p in home.rglob("*"))
    assert after == before
