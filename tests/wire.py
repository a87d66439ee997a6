"""Test-side protocol helpers: schema validation of every response, and drivers.

- ``validate_response`` checks a JSON-RPC response against the official MCP
  schema of the negotiated revision (``../shared/mcp-schema/<rev>.json``), once
  as published and once strictly: objects the schema describes may carry only
  the fields that revision defines (so "fields a revision does not know are
  not sent" is checked, not assumed).
- ``MemoryClient`` drives a session over the in-memory stream.
- ``StdioProcess`` drives a real `noru mcp` over pipes, raw bytes in and out.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from noru.mcp.session import Session, serve
from noru.mcp.streams import MemoryStream

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "shared" / "mcp-schema"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18")

RESULT_TYPES = {
    "initialize": "InitializeResult",
    "ping": "Result",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
}

# A traceback, a source file or an absolute path must never reach the agent.
LEAK = re.compile(r"Traceback|\.py\b|(^|[\s'\"(])/[\w.-]+/")

# Schema parts that are themselves open-ended by design.
_OPEN = {"inputSchema", "outputSchema", "_meta", "structuredContent", "experimental"}


def schema_dir() -> Path:
    if not SCHEMA_DIR.is_dir():
        raise RuntimeError(f"the official MCP schemas are missing: {SCHEMA_DIR}")
    return SCHEMA_DIR


@functools.cache
def definitions(revision: str) -> dict[str, Any]:
    doc = json.loads((schema_dir() / f"{revision}.json").read_text())
    defs: dict[str, Any] = doc["definitions"]
    return defs


def _strict(node: Any, key: str | None = None) -> Any:
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    if key in _OPEN:
        return node
    out = {}
    for k, v in node.items():
        if k == "properties" and isinstance(v, dict):
            out[k] = {name: _strict(sub, name) for name, sub in v.items()}
        else:
            out[k] = _strict(v, None)
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@functools.cache
def _validator(revision: str, name: str, strict: bool) -> jsonschema.Draft7Validator:
    defs = definitions(revision)
    if strict:
        defs = {k: _strict(v) for k, v in copy.deepcopy(defs).items()}
    schema = {"$ref": f"#/definitions/{name}", "definitions": defs}
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def validate(instance: Any, revision: str, name: str) -> None:
    for strict in (False, True):
        errors = sorted(_validator(revision, name, strict).iter_errors(instance), key=str)
        if errors:
            label = "strictly " if strict else ""
            raise AssertionError(
                f"not {label}a valid {name} for {revision}: {errors[0].message} "
                f"at {list(errors[0].absolute_path)}\n{json.dumps(instance)[:2000]}"
            )


def validate_response(response: Any, revision: str, method: str | None) -> None:
    """One JSON-RPC response (not a batch) against the revision's schema."""
    assert isinstance(response, dict), response
    if "error" in response:
        if response.get("id") is None:
            # JSON-RPC 2.0 answers an unreadable request with id null; MCP's
            # schema types ids as string|integer, so only here we widen it.
            response = {**response, "id": 0}
        validate(response, revision, "JSONRPCError")
        message = response["error"]["message"]
        assert not LEAK.search(message), f"error message leaks internals: {message!r}"
        return
    validate(response, revision, "JSONRPCResponse")
    if method in RESULT_TYPES:
        validate(response["result"], revision, RESULT_TYPES[method])


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

    def initialize(self, version: Any = "2025-06-18", *, omit: bool = False) -> dict[str, Any]:
        params: dict[str, Any] = {
            "capabilities": {},
            "clientInfo": {"name": "noru-tests", "version": "0"},
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


def noru_command() -> list[str]:
    exe = Path(sys.executable).parent / "noru"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "noru"]


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
