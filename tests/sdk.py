"""The official MCP SDK client against a real `noru mcp` over stdio, wire logged.

- ``sdk_params``: how the SDK starts `noru mcp`, behind ``tests.tee``, which
  copies every line each way into a log.
- ``validate_log``: every server answer in that log, validated as every
  response in the suite is (``tests.wire.validate_response``).
- ``initialize_at``: an SDK session initialized at a revision of our choice
  (the SDK's own ``initialize`` always asks for its newest).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.noru_cli import noru_command
from tests.wire import REVISIONS, validate_response

__all__ = ["initialize_at", "sdk_params", "validate_log"]


def sdk_params(home: Path, log: Path) -> Any:
    """The real `noru mcp`, behind a tee that logs the wire for validation."""
    from mcp import StdioServerParameters

    root = Path(__file__).resolve().parents[1]
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.tee", str(log), "--", *noru_command(), "mcp"],
        # This checkout's noru first: the venv's may be installed from another.
        env={"NORU_HOME": str(home), "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])},
    )


def validate_log(log: Path) -> int:
    """Validate every server answer in a tee log; return how many there were."""
    methods: dict[str, str] = {}
    revision: str | None = None
    answers = 0
    for line in log.read_bytes().splitlines():
        direction, raw = line[:1], line[2:]
        message = json.loads(raw)
        if direction == b">":
            if "id" in message and "method" in message:
                methods[json.dumps(message["id"])] = message["method"]
            continue
        method = methods.get(json.dumps(message.get("id")))
        for rev in [revision] if revision else list(REVISIONS):
            validate_response(message, rev, method)
        if method == "initialize" and "result" in message:
            revision = message["result"]["protocolVersion"]
        answers += 1
    return answers


async def initialize_at(session: Any, revision: str) -> None:
    """Initialize the SDK ``ClientSession`` at ``revision`` and check it was granted."""
    from mcp import types

    request = types.InitializeRequest(
        params=types.InitializeRequestParams(
            protocol_version=revision,
            capabilities=types.ClientCapabilities(),
            client_info=types.Implementation(name="noru-tests", version="0"),
        )
    )
    result = await session.send_request(request, types.InitializeResult)
    assert result.protocol_version == revision
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())
