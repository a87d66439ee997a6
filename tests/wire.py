"""Test-side protocol helpers: validation of every response, and drivers.

- ``validate_response`` checks one JSON-RPC response for the negotiated
  revision, in up to three ways:

  1. the official MCP Python SDK's own types (``mcp.types``), strictly: no
     type coercion (``"false"`` is not a boolean), wire names only (the
     models also accept their Python names, ``input_schema``, which no peer
     would read), and no member the SDK does not know. The SDK models the
     newest revisions, so this is the structural check;
  2. Noru's per-revision rules (``tests.mcp_rules``): the members each
     object may carry in that revision, so "fields a revision does not know
     are not sent" is checked, not assumed;
  3. when this machine has the official MCP JSON Schemas
     (``tests.official_schemas``), the revision's schema as published and
     strictly.

  1 and 2 always run; a clone with nothing beside it validates with them.
- ``answer_text``, ``first_text``, ``first_line`` read a tool call's answer.
- ``MemoryClient`` drives a session over the in-memory stream.
- ``StdioProcess`` drives a real `noru mcp` over pipes, raw bytes in and out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp.types as sdk
import pydantic

from noru.mcp.session import Session, serve
from noru.mcp.streams import MemoryStream
from tests import mcp_rules, official_schemas
from tests.mcp_rules import RESULT_KINDS, REVISIONS
from tests.noru_cli import noru_command

__all__ = [
    "LEAK",
    "OFFICIAL",
    "REVISIONS",
    "MemoryClient",
    "StdioProcess",
    "noru_command",
    "sdk_check",
    "validate_response",
]

# Where the official schemas are, found once per run (None without them).
OFFICIAL = official_schemas.locate()

# The schema definition of each method's result (ping's is the bare Result).
RESULT_TYPES = {**RESULT_KINDS, "ping": "Result"}

SDK_RESULTS: dict[str, type[pydantic.BaseModel]] = {
    "initialize": sdk.InitializeResult,
    "ping": sdk.EmptyResult,
    "tools/list": sdk.ListToolsResult,
    "tools/call": sdk.CallToolResult,
    "resources/list": sdk.ListResourcesResult,
    "resources/templates/list": sdk.ListResourceTemplatesResult,
    "resources/read": sdk.ReadResourceResult,
}

# A traceback, a source file or an absolute path must never reach the agent.
LEAK = re.compile(r"Traceback|\.py\b|(^|[\s'\"(])/[\w.-]+/")


def sdk_check(model: type[pydantic.BaseModel], instance: Any) -> None:
    """``instance`` as the SDK's ``model``, with none of pydantic's leniencies.

    By default the SDK's models coerce ("1" passes as an integer), accept
    each member under its Python name as well as its wire name, and ignore
    members they do not know; each of those would let a wrong shape pass.
    """
    try:
        model.model_validate(instance, strict=True, extra="forbid", by_alias=True, by_name=False)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top"
        raise AssertionError(
            f"not a valid {model.__name__} by mcp.types: {first['msg']} at {where}\n"
            f"{json.dumps(instance)[:2000]}"
        ) from None


def validate_response(
    response: Any,
    revision: str,
    method: str | None,
    *,
    directory: Path | None = OFFICIAL.directory,
) -> None:
    """One JSON-RPC response (not a batch) for ``revision``, as the answer to
    ``method`` (None: the envelope only). ``directory`` is the official schemas'
    directory (default: this run's), None to go without them."""
    assert isinstance(response, dict), response
    if "error" in response:
        mcp_rules.check(response, revision, "JSONRPCError")
        sdk_check(sdk.jsonrpc.JSONRPCError, response)
        if directory is not None:
            # JSON-RPC 2.0 answers an unreadable request with id null; MCP's
            # schema types ids as string|integer, so only here we widen it.
            widened = {**response, "id": 0} if response.get("id") is None else response
            official_schemas.validate(directory, widened, revision, "JSONRPCError")
        message = response["error"]["message"]
        assert not LEAK.search(message), f"error message leaks internals: {message!r}"
        return
    mcp_rules.check(response, revision, "JSONRPCResponse")
    sdk_check(sdk.jsonrpc.JSONRPCResponse, response)
    if directory is not None:
        official_schemas.validate(directory, response, revision, "JSONRPCResponse")
    if method in RESULT_KINDS:
        result = response["result"]
        mcp_rules.check(result, revision, RESULT_KINDS[method])
        sdk_check(SDK_RESULTS[method], result)
        if directory is not None:
            official_schemas.validate(directory, result, revision, RESULT_TYPES[method])


def answer_text(answer: dict[str, Any]) -> str:
    """Every text block of a tool call's answer, one after another."""
    return "\n".join(b["text"] for b in answer["result"]["content"] if b["type"] == "text")


def first_text(answer: dict[str, Any]) -> str:
    """The text of a tool call's answer's first block (its header)."""
    text: str = answer["result"]["content"][0]["text"]
    return text


def first_line(answer: dict[str, Any]) -> str:
    """The first line of a tool call's answer."""
    return first_text(answer).splitlines()[0]


class MemoryClient:
    """A session served over the in-memory stream, as a transport would."""

    def __init__(self, home: Path) -> None:
        self.stream = MemoryStream()
        self.session = Session(home=home)
        self.revision: str | None = None
        self._next_id = 0
        self._thread = threading.Thread(target=serve, args=(self.session, self.stream))
        self._thread.start()

    def close(self) -> None:
        self.stream.close()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive()

    def send_raw(self, data: bytes) -> Any:
        """Send bytes; the decoded answer, or None when none comes."""
        self.stream.incoming.put(data)
        # A marker request tells "no answer" from "slow answer" without timing.
        self.stream.incoming.put(b'{"jsonrpc":"2.0","id":"__marker__","method":"ping"}')
        first = json.loads(self.stream.outgoing.get(timeout=30))
        if isinstance(first, dict) and first.get("id") == "__marker__":
            return None
        marker = json.loads(self.stream.outgoing.get(timeout=30))
        assert marker.get("id") == "__marker__"
        return first

    def send(self, message: Any, *, method: str | None = None) -> Any:
        answer = self.send_raw(json.dumps(message).encode())
        sent = message if isinstance(message, list) else [message]
        methods = {json.dumps(m.get("id")): m.get("method") for m in sent if isinstance(m, dict)}
        revisions = [self.revision] if self.revision else list(REVISIONS)
        for revision in revisions:
            for item in answer if isinstance(answer, list) else [answer]:
                if item is not None:
                    validate_response(
                        item, revision, method or methods.get(json.dumps(item.get("id")))
                    )
        return answer

    def request(self, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        message.update(extra)
        answer: dict[str, Any] = self.send(message)
        return answer

    def initialize(
        self, version: Any = "2025-06-18", *, omit: bool = False, name: str = "noru-tests"
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "capabilities": {},
            "clientInfo": {"name": name, "version": "0"},
        }
        if not omit:
            params["protocolVersion"] = version
        answer = self.request("initialize", params)
        self.revision = answer["result"]["protocolVersion"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params)


def agent_looks(home: Path) -> dict[str, Any]:
    """An agent's one look (``observe_screen`` at the display, text only)
    over an in-memory session on ``home``; its answer, checked to be one."""
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        answer = client.call("observe_screen", {"target": "display", "text_only": True})
    finally:
        client.close()
    assert "error" not in answer and not answer["result"].get("isError"), answer
    return answer


class StdioProcess:
    """A real `noru mcp` over pipes; the test stops it by its pid."""

    def __init__(self, home: Path, *, stderr_path: Path, wrapper: Sequence[str] = ()) -> None:
        env = {**os.environ, "NORU_HOME": str(home)}
        self.stderr = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            [*wrapper, *noru_command(), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
        )
        self.revision: str | None = None

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.endswith(b"\n"), f"no answer line (got {line!r})"
        return json.loads(line)

    def exchange(self, data: bytes, method: str | None = None) -> Any:
        self.write(data + b"\n")
        answer = self.read()
        revisions = [self.revision] if self.revision else list(REVISIONS)
        for revision in revisions:
            for item in answer if isinstance(answer, list) else [answer]:
                validate_response(item, revision, method)
        return answer

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stdout:
                self.proc.stdout.close()
            self.stderr.close()
        return code


class StdioSession:
    """`noru mcp` over its real stdio, as a client named ``client`` speaks to it."""

    def __init__(self, proc: subprocess.Popen[str], *, client: str) -> None:
        self.proc, self.next = proc, 1
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": client, "version": "1"}})  # fmt: skip
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        self.next += 1
        assert self.proc.stdout is not None
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert "error" not in answer, answer
        return answer

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = self.ask("tools/call", {"name": tool, "arguments": args})
        assert not answer["result"].get("isError"), answer
        return answer
