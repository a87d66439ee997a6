"""A real `noru mcp --http` process, and a raw HTTP driver for it.

- ``HttpServer``: `noru mcp --http 127.0.0.1:0`, started with its own
  ``NORU_HOME`` and stopped by its pid; ``token()`` is the install's token it
  made at its start (read from the data dir, as the person's clients get it).
- ``Raw``: raw HTTP to it (what no well-behaved client sends), with the token
  given (``Authorization: Bearer``) or without (``token=None``); every
  JSON-RPC body it gets back is validated (``check``) as every response in the
  suite is.
- the fixtures ``server`` (an ``HttpServer`` on the test's ``home``,
  listening when the test gets it, which must then stop cleanly: status 0
  at SIGTERM) and ``raw`` (a ``Raw`` to it with the token).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.noru_cli import noru_command
from tests.wire import REVISIONS, validate_response

__all__ = ["CURRENT", "HttpServer", "Raw", "answers", "check", "raw", "server"]

URL_LINE = re.compile(rb"^noru mcp: Streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)$", re.M)


class HttpServer:
    """A real `noru mcp --http` process; the test stops it by its pid."""

    def __init__(self, home: Path, tmp_path: Path, listen: str = "127.0.0.1:0") -> None:
        self.home = home
        self.stderr_path = tmp_path / "http.stderr"
        self.stdout_path = tmp_path / "http.stdout"
        with self.stderr_path.open("wb") as err, self.stdout_path.open("wb") as out:
            self.proc = subprocess.Popen(
                [*noru_command(), "mcp", "--http", listen],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env={**os.environ, "NORU_HOME": str(home)},
            )

    def url(self) -> str:
        """The URL the server printed; waits for it (a guard, not a measurement)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = URL_LINE.search(self.stderr_path.read_bytes())
            if found:
                return found.group(1).decode()
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no URL from the server: {self.stderr_path.read_bytes()!r}")

    def token(self) -> str:
        """The install's token, which the server made before it listened."""
        self.url()
        return (self.home / "http-token").read_text().strip()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def answers(response: httpx2.Response) -> list[Any]:
    """The JSON-RPC messages in a response body (none for an empty body)."""
    if not response.content:
        return []
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = json.loads(response.content)
    return body if isinstance(body, list) else [body]


def check(response: httpx2.Response, sent: bytes, revision: str | None) -> None:
    """Validate every JSON-RPC message in ``response`` against the official schema."""
    try:
        request = json.loads(sent)
    except (ValueError, RecursionError):  # what was sent need not be readable JSON
        request = None
    requests = request if isinstance(request, list) else [request]
    methods = {json.dumps(m.get("id")): m.get("method") for m in requests if isinstance(m, dict)}
    for item in answers(response):
        for rev in [revision] if revision else list(REVISIONS):
            validate_response(item, rev, methods.get(json.dumps(item.get("id"))))


CURRENT = "<the current session>"


class Raw:
    """Raw HTTP to the server: what no well-behaved client sends, checked byte by byte."""

    def __init__(self, url: str, token: str | None) -> None:
        self.url = url
        self.token = token
        # Every request of this client carries the token, raw ones included.
        auth = {"Authorization": f"Bearer {token}"} if token is not None else {}
        self.http = httpx2.Client(timeout=30, headers=auth)
        self.session_id: str | None = None
        self.revision: str | None = None
        self._next_id = 0

    def close(self) -> None:
        self.http.close()

    def post(
        self,
        body: bytes,
        *,
        headers: dict[str, str] | None = None,
        session: str | None = CURRENT,
    ) -> httpx2.Response:
        """POST ``body``; ``session`` None sends no Mcp-Session-Id."""
        sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        session_id = self.session_id if session == CURRENT else session
        if session_id:
            sent["Mcp-Session-Id"] = session_id
        sent.update(headers or {})
        response = self.http.post(self.url, content=body, headers=sent)
        check(response, body, self.revision)
        return response

    def send(self, message: Any, **kwargs: Any) -> httpx2.Response:
        return self.post(json.dumps(message).encode(), **kwargs)

    def request(self, method: str, params: Any = None, **kwargs: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        response = self.send(message, **kwargs)
        assert response.status_code == 200, (response.status_code, response.text)
        (answer,) = answers(response)
        assert answer["id"] == self._next_id
        result: dict[str, Any] = answer
        return result

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params)

    def initialize(self, version: str = "2025-06-18") -> httpx2.Response:
        params = {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "noru-tests", "version": "0"},
        }
        body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        self.session_id = self.revision = None
        response = self.post(json.dumps(body).encode())
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        self.revision = answers(response)[0]["result"]["protocolVersion"]
        notified = self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert notified.status_code == 202
        return response


# What another user on this machine runs: the system's Python, stdlib only.
_STRANGER = r"""
import json, sys, urllib.error, urllib.request
url, token_file = sys.argv[1], sys.argv[2]
found = {}
try:
    with open(token_file) as f:
        found["token_read"] = bool(f.read())
except OSError as exc:
    found["token_read"] = False
    found["token_error"] = type(exc).__name__
hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "stranger", "version": "0"}}}
call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_captures", "arguments": {}}}
tries = [
    (hello, {}),
    (hello, {"Authorization": "Bearer noru_" + "A" * 43}),
    (hello, {"Authorization": "Bearer " + sys.argv[3]}),
    (call, {"Mcp-Session-Id": sys.argv[4]}),
]
found["answers"] = []
for message, headers in tries:
    request = urllib.request.Request(
        url, data=json.dumps(message).encode(), method="POST",
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            status, got, body = r.status, r.headers, r.read()
    except urllib.error.HTTPError as exc:
        status, got, body = exc.code, exc.headers, exc.read()
    found["answers"].append({"status": status, "body": body.decode(errors="replace"),
                             "headers": {k.lower(): v for k, v in got.items()}})
print(json.dumps(found))
"""

STRANGER_USER = ("nobody", "nogroup")


def as_another_user(url: str, token_file: Path, *, guess: str, session_id: str) -> dict[str, Any]:
    """What a process of another user (``nobody``: it reads no file of the
    person's) gets from the server at ``url``: whether it could read the
    token file, and the answers to an initialize without a token, with a
    made-up one, with ``guess``, and a tool call naming ``session_id``."""
    user, group = STRANGER_USER
    done = subprocess.run(
        ["setpriv", f"--reuid={user}", f"--regid={group}", "--clear-groups",
         "/usr/bin/python3", "-c", _STRANGER, url, str(token_file), guess, session_id],
        capture_output=True, text=True, timeout=120, cwd="/",
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.fixture
def server(home: Path, tmp_path: Path) -> Iterator[HttpServer]:
    proc = HttpServer(home, tmp_path)
    try:
        proc.url()
        yield proc
    finally:
        status = proc.stop()
    assert status == 0, f"noru mcp --http exited {status} at SIGTERM: {proc.stderr()}"


@pytest.fixture
def raw(server: HttpServer) -> Iterator[Raw]:
    client = Raw(server.url(), server.token())
    try:
        yield client
    finally:
        client.close()
