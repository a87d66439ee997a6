"""The official MCP SDK client against a real `noru mcp` over stdio, wire logged.

- ``sdk_params``: how the SDK starts `noru mcp`, behind ``tests.tee``, which
  copies every line each way into a log.
- ``validate_log``: every server answer in that log, validated as every
  response in the suite is (``tests.wire.validate_response``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.wire import REVISIONS, noru_command, validate_response

__all__ = ["sdk_params", "validate_log"]


def sdk_params(home: Path, log: Path) -> Any:
    """The real `noru mcp`, behind a tee that logs the wire for validation."""
    from mcp import StdioServerParameters

    root = Path(__file__).resolve().parents[1]
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.tee", str(log), "--", *noru_command(), "mcp"],
        env={"NORU_HOME": str(home), "PYTHONPATH": str(root)},
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
