"""`noru mcp --http` over real sockets: a raw HTTP driver for every transport rule,
and the official MCP SDK client over Streamable HTTP for what real clients do.

Every server here is a real `noru mcp --http 127.0.0.1:0` process, stopped by its
pid; every JSON-RPC body it answers is checked against the official schema.
"""

from __future__ import annotations

import base64
import json
import re
import signal
import socket
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest

from noru import appwire
from noru.access import set_control
from noru.errors import NothingNew
from noru.mcp.session import Session
from noru.mcp.transports.http import (
    MAX_BODY,
    MAX_SESSIONS,
    SessionTable,
    _Entry,
    is_loopback_authority,
    parse_listen,
)
from noru.paths import socket_path
from tests.history_data import decode, seed
from tests.http_process import HttpServer, Raw, answers, check
from tests.wire import REVISIONS, first_text, validate_response

TOOLS = [
    "get_latest_capture",
    "observe_screen",
    "list_captures",
    "search_captures",
    "get_capture",
    "get_status",
]


def raw_exchange(url: str, head: bytes, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One request over a plain socket: what httpx2 will not send (no Host, a length
    it does not mean to send). Reads until the server closes or the body is complete."""
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1" and parts.port
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed before a response: {data!r}"
            data += chunk
        header_block, _, rest = data.partition(b"\r\n\r\n")
        status_line, *lines = header_block.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (li.split(":", 1) for li in lines)}
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
    return int(status_line.split()[1]), headers, rest


# --- listening ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8765", ("127.0.0.1", 8765)),
        ("0", ("127.0.0.1", 0)),
        (":8765", ("127.0.0.1", 8765)),
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("127.8.9.10:1", ("127.8.9.10", 1)),
        ("localhost:8765", ("localhost", 8765)),
        ("[::1]:8765", ("::1", 8765)),
    ],
)
def test_listen_addresses_default_to_127_0_0_1(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


@pytest.mark.parametrize(
    "text",
    ["0.0.0.0:8765", "192.168.1.20:80", "[::]:8765", "example.com:80", "localhost.evil:80"],
)
def test_a_non_loopback_listen_address_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="only loopback addresses"):
        parse_listen(text)


@pytest.mark.parametrize("text", ["", "localhost", "::1:80", "[::1]", "127.0.0.1:99999", "1:2:3"])
def test_a_malformed_listen_address_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_listen(text)


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "192.168.1.20:0", "example.com:0"])
def test_noru_mcp_refuses_a_non_loopback_host_before_binding(
    home: Path, tmp_path: Path, listen: str
) -> None:
    proc = HttpServer(home, tmp_path, listen)
    try:
        code = proc.proc.wait(timeout=30)
    finally:
        proc.stop(signal.SIGKILL)
    assert code != 0
    err = proc.stderr()
    assert "refusing to listen" in err and "only loopback addresses" in err
    assert "Streamable HTTP on" not in err and "Traceback" not in err


def test_sigterm_and_sigint_stop_the_server_cleanly(home: Path, tmp_path: Path) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        proc = HttpServer(home, tmp_path)
        client = Raw(proc.url(), proc.token())
        try:
            client.initialize()
            assert client.request("ping")["result"] == {}
        finally:
            client.close()
            assert proc.stop(sig) == 0
        assert "Traceback" not in proc.stderr()
        assert proc.stdout_path.read_bytes() == b""


# --- sessions ----------------------------------------------------------------


def test_initialize_issues_a_random_visible_ascii_session_id(raw: Raw) -> None:
    first = raw.initialize()
    other = Raw(raw.url, raw.token)
    try:
        second = other.initialize()
    finally:
        other.close()
    ids = [r.headers["mcp-session-id"] for r in (first, second)]
    assert ids[0] != ids[1]
    assert all(re.fullmatch(r"[\x21-\x7e]{32,}", i) for i in ids)
    assert raw.revision == "2025-06-18"


def test_requests_after_initialize_must_carry_the_session_id(raw: Raw) -> None:
    raw.initialize()
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    missing = raw.http.post(raw.url, content=body, headers={"Content-Type": "application/json"})
    check(missing, body, raw.revision)
    assert missing.status_code == 400
    assert answers(missing)[0]["error"]["code"] == -32600
    assert "Mcp-Session-Id" in answers(missing)[0]["error"]["message"]
    assert len(raw.request("tools/list")["result"]["tools"]) == 6


def test_ping_and_notifications_without_a_session_are_400(raw: Raw) -> None:
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}],
    ):
        assert raw.send(message).status_code == 400


def test_an_unknown_session_is_404(raw: Raw) -> None:
    response = raw.send({"jsonrpc": "2.0", "id": 1, "method": "ping"}, session="no-such-id")
    assert response.status_code == 404
    assert answers(response)[0]["error"]["code"] == -32600


def test_delete_ends_the_session_and_it_then_answers_404(raw: Raw) -> None:
    raw.initialize()
    headers = {"Mcp-Session-Id": raw.session_id or ""}
    assert raw.http.delete(raw.url, headers=headers).status_code == 204
    after = raw.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert after.status_code == 404
    assert raw.http.delete(raw.url, headers=headers).status_code == 404
    assert raw.http.delete(raw.url).status_code == 400


def test_a_failed_initialize_opens_no_session(raw: Raw) -> None:
    response = raw.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": "x"})
    assert response.status_code == 200
    assert answers(response)[0]["error"]["code"] == -32602
    assert "mcp-session-id" not in response.headers


def test_initialize_on_an_open_session_is_refused_by_the_session(raw: Raw) -> None:
    raw.initialize("2025-03-26")
    again = raw.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
    assert again["error"]["code"] == -32600
    tools = raw.request("tools/list")["result"]["tools"]
    assert all("title" not in t for t in tools)  # still the first revision


def test_sessions_are_independent_each_with_its_own_revision(raw: Raw) -> None:
    raw.initialize("2024-11-05")
    newer = Raw(raw.url, raw.token)
    try:
        newer.initialize("2025-06-18")
        old_tools = raw.request("tools/list")["result"]["tools"]
        new_tools = newer.request("tools/list")["result"]["tools"]
    finally:
        newer.close()
    assert all("annotations" not in t for t in old_tools)
    assert all(t["annotations"]["readOnlyHint"] is True and t["title"] for t in new_tools)


def test_the_least_recently_used_idle_session_is_ended_at_the_cap(raw: Raw) -> None:
    oldest, kept = Raw(raw.url, raw.token), Raw(raw.url, raw.token)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    try:
        oldest.initialize()
        kept.initialize()
        raw.initialize()
        first_filler = raw.session_id
        for _ in range(MAX_SESSIONS - 4):
            raw.initialize()
        assert kept.request("ping")["result"] == {}  # used: no longer second in line
        raw.initialize()  # MAX_SESSIONS live: nothing ends yet
        raw.initialize()  # one over: the least recently used, `oldest`, ends
        assert raw.send(ping, session=oldest.session_id).status_code == 404
        assert kept.request("ping")["result"] == {}
        raw.initialize()  # next in line is the first filler, not `kept` (created before it)
        assert raw.send(ping, session=first_filler).status_code == 404
        assert kept.request("ping")["result"] == {}
        assert raw.request("ping")["result"] == {}
    finally:
        oldest.close()
        kept.close()


def test_a_busy_session_is_never_ended_to_make_room() -> None:
    table = SessionTable(limit=2)
    entries = [_Entry(Session(home=Path("/nonexistent"))) for _ in range(3)]
    first, second = table.add(entries[0]), table.add(entries[1])
    assert first and second
    entries[0].busy = entries[1].busy = 1
    assert not table.has_room() and table.add(entries[2]) is None
    entries[1].busy = 0
    assert table.add(entries[2]) is not None
    assert table.get(first) is entries[0] and table.get(second) is None


# --- headers -----------------------------------------------------------------


def test_an_unsupported_protocol_version_header_is_400(raw: Raw) -> None:
    raw.initialize()
    response = raw.send(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"MCP-Protocol-Version": "2099-01-01"},
    )
    assert response.status_code == 400
    assert "2099-01-01" in answers(response)[0]["error"]["message"]
    for version in REVISIONS:
        headers = {"MCP-Protocol-Version": version}
        assert raw.request("ping", headers=headers)["result"] == {}


def test_without_a_protocol_version_header_the_negotiated_revision_applies(raw: Raw) -> None:
    raw.initialize("2024-11-05")
    tools = raw.request("tools/list")["result"]["tools"]
    assert all("annotations" not in t and "title" not in t for t in tools)


def test_the_protocol_version_header_is_not_checked_on_initialize(raw: Raw) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    response = raw.send(body, headers={"MCP-Protocol-Version": "2099-01-01"})
    assert response.status_code == 200 and "mcp-session-id" in response.headers


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example"},
        {"Host": "evil.example:8080"},
        {"Host": "127.0.0.1.evil.example"},
        {"Host": "localhost.evil.example"},
        {"Origin": "http://evil.example"},
        {"Origin": "https://evil.example:443"},
        {"Origin": "http://127.0.0.1.evil.example"},
        {"Origin": "null"},
    ],
)
def test_a_foreign_host_or_origin_is_403(raw: Raw, headers: dict[str, str]) -> None:
    raw.initialize()
    for method, body in (
        ("initialize", b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'),
        ("ping", b'{"jsonrpc":"2.0","id":1,"method":"ping"}'),
    ):
        session = None if method == "initialize" else raw.session_id
        response = raw.post(body, headers=headers, session=session)
        assert response.status_code == 403, method
        assert "mcp-session-id" not in response.headers
    assert raw.http.get(raw.url, headers=headers).status_code == 403  # before the 405


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "localhost"},
        {"Host": "127.0.0.1:1"},
        {"Host": "127.9.9.9:65535"},
        {"Host": "[::1]:8080"},
        {"Origin": "http://localhost:3000"},
        {"Origin": "https://127.0.0.1"},
        {"Origin": "http://[::1]:8080"},
    ],
)
def test_loopback_hosts_and_origins_are_accepted(raw: Raw, headers: dict[str, str]) -> None:
    raw.initialize()
    assert raw.request("ping", headers=headers)["result"] == {}


def test_a_request_with_no_host_is_403(server: HttpServer) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    head = b"POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    status, _, answer = raw_exchange(server.url(), head % len(body), body)
    assert status == 403
    validate_response(json.loads(answer), "2025-06-18", None)


def test_the_loopback_authority_rule() -> None:
    assert is_loopback_authority("127.0.0.1:8080") and is_loopback_authority("LOCALHOST")
    for bad in ("", "127.0.0.1:", "127.0.0.1:80:80", "[::1", "::1", "[::1]x", "127.1", "0x7f.1"):
        assert not is_loopback_authority(bad), bad


# --- bodies and methods ------------------------------------------------------


def test_a_body_over_the_cap_is_413_without_reading_the_rest(server: HttpServer) -> None:
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n"
        % (server.token().encode(), MAX_BODY + 1)
    )
    # Only a first kilobyte is ever sent: the answer cannot wait for the rest.
    status, _, body = raw_exchange(server.url(), head, b'{"x":"' + b"a" * 1024)
    assert status == 413
    answer = json.loads(body)
    validate_response(answer, "2025-06-18", None)
    assert answer["error"]["code"] == -32600 and answer["id"] is None


def test_a_chunked_body_over_the_cap_is_413(server: HttpServer) -> None:
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer %s\r\nTransfer-Encoding: chunked\r\n\r\n" % server.token().encode()
    )
    piece = b"a" * 65536
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(MAX_BODY // 65536))
    status, _, body = raw_exchange(server.url(), head, chunks + b"1\r\na\r\n")
    assert status == 413
    validate_response(json.loads(body), "2025-06-18", None)


def test_a_body_just_under_the_cap_is_served(raw: Raw) -> None:
    raw.initialize()
    message = {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"_meta": {"pad": ""}}}
    message["params"]["_meta"]["pad"] = "a" * (MAX_BODY - len(json.dumps(message)))
    body = json.dumps(message).encode()
    assert len(body) == MAX_BODY
    response = raw.post(body)
    assert response.status_code == 200 and answers(response)[0]["id"] == 7


@pytest.mark.parametrize("body", [b"{nope", b"\xc3\x28\xff", b'{"a":NaN}', b""])
def test_malformed_json_is_400_with_a_parse_error(raw: Raw, body: bytes) -> None:
    raw.initialize()
    response = raw.post(body)
    assert response.status_code == 400
    (answer,) = answers(response)
    assert answer["error"]["code"] == -32700 and answer["id"] is None


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_body_that_is_not_application_json_is_415(raw: Raw, content_type: str) -> None:
    raw.initialize()
    response = raw.post(
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}', headers={"Content-Type": content_type}
    )
    assert response.status_code == 415


def test_application_json_with_a_charset_is_accepted(raw: Raw) -> None:
    raw.initialize()
    headers = {"Content-Type": "application/json; charset=utf-8"}
    assert raw.request("ping", headers=headers)["result"] == {}


def test_an_accept_header_without_json_is_406(raw: Raw) -> None:
    raw.initialize()
    for accept in ("text/event-stream", "application/json;q=0, text/event-stream"):
        response = raw.send(
            {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Accept": accept}
        )
        assert response.status_code == 406
    for accept in ("application/json", "*/*", "application/*;q=0.5"):
        assert raw.request("ping", headers={"Accept": accept})["result"] == {}


def test_get_is_405_with_an_allow_header(raw: Raw) -> None:
    raw.initialize()
    for method in ("GET", "PUT", "PATCH", "OPTIONS"):
        response = raw.http.request(
            method, raw.url, headers={"Mcp-Session-Id": raw.session_id or ""}
        )
        assert response.status_code == 405
        assert response.headers["allow"] == "POST, DELETE"


def test_notifications_and_client_responses_get_202_with_no_body(raw: Raw) -> None:
    raw.initialize()
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 5, "result": {}},
    ):
        response = raw.send(message)
        assert response.status_code == 202 and response.content == b""


def test_a_message_that_is_not_json_rpc_is_400(raw: Raw) -> None:
    raw.initialize()
    for body in (b"5", b'{"jsonrpc":"1.0","method":"ping"}', b'{"jsonrpc":"2.0","params":{}}'):
        response = raw.post(body)
        assert response.status_code == 400
        assert answers(response)[0]["error"]["code"] == -32600


def test_batches_are_served_on_a_2025_03_26_session(raw: Raw) -> None:
    raw.initialize("2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_status"}},
    ]
    response = raw.send(batch)
    assert response.status_code == 200
    assert [a["id"] for a in answers(response)] == [2, 3]
    only_notifications = raw.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert only_notifications.status_code == 202 and only_notifications.content == b""


def test_batches_are_refused_on_a_2025_06_18_session(raw: Raw) -> None:
    raw.initialize("2025-06-18")
    response = raw.send([{"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    assert response.status_code == 400
    (answer,) = answers(response)
    assert answer["error"]["code"] == -32600 and "2025-03-26" in answer["error"]["message"]


def test_other_paths_are_404(raw: Raw) -> None:
    for path in ("/", "/mcp/", "/mcp/x", "/sse"):
        response = raw.http.post(raw.url.replace("/mcp", path), content=b"{}")
        assert response.status_code == 404


# --- tools over raw HTTP -----------------------------------------------------


def test_tool_calls_and_invalid_arguments_over_raw_http(raw: Raw) -> None:
    raw.initialize()
    assert first_text(raw.call("get_latest_capture")).startswith("Noru app not running")
    bad = raw.call("list_captures", {"limit": 999})
    assert bad["error"]["code"] == -32602


def test_a_revoke_reaches_the_running_http_server_on_its_next_request(raw: Raw, home: Path) -> None:
    seeded = seed(home)
    raw.initialize()
    assert seeded.editor.id in first_text(raw.call("list_captures", {}))
    set_control(home, "revoke")
    assert first_text(raw.call("list_captures", {})).startswith("Noru history revoked")
    read = raw.request("resources/read", {"uri": f"noru-capture://{seeded.editor.id}"})
    assert read["error"]["code"] == -32001
    assert raw.request("resources/list")["result"]["resources"] == []
    set_control(home, "allow")
    assert seeded.editor.id in first_text(raw.call("list_captures", {}))


class StalledApp:
    """A fake app on the live socket that holds each `latest` request until released."""

    def __init__(self, path: Path) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(8)
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.threads = [threading.Thread(target=self._accept)]
        self.threads[0].start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # closed
            thread = threading.Thread(target=self._answer, args=(conn,))
            self.threads.append(thread)
            thread.start()

    def _answer(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            line = reader.readline()
            if not line:
                return  # a connection that asks nothing (no op): nothing to answer
            assert isinstance(appwire.decode_request(line), appwire.Latest)
            self.arrived.set()
            self.release.wait(timeout=60)
            conn.sendall(appwire.encode(appwire.Refused.of(NothingNew())))

    def close(self) -> None:
        self.release.set()
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=30)


def test_a_tool_call_waiting_on_the_app_does_not_hold_up_other_sessions(
    raw: Raw, home: Path
) -> None:
    set_control(home, "allow")
    app = StalledApp(socket_path(home))
    waiting, other = Raw(raw.url, raw.token), Raw(raw.url, raw.token)
    result: dict[str, Any] = {}
    try:
        waiting.initialize()
        other.initialize()
        caller = threading.Thread(target=lambda: result.update(waiting.call("get_latest_capture")))
        caller.start()
        assert app.arrived.wait(timeout=60)  # the call is in the app's hands now
        assert other.request("ping")["result"] == {}
        assert len(other.request("tools/list")["result"]["tools"]) == 6
        assert first_text(other.call("list_captures", {})).startswith("Noru no match")
        assert caller.is_alive() and not result  # still waiting on the app
        app.release.set()
        caller.join(timeout=60)
        assert first_text(result).startswith("Noru nothing new")
    finally:
        app.close()
        waiting.close()
        other.close()


# --- the official MCP Python SDK client ----------------------------------------


class WireLog:
    """Every HTTP exchange the SDK client made, for schema validation afterwards."""

    def __init__(self) -> None:
        self.exchanges: list[tuple[str, bytes, int, str, bytes]] = []

    async def on_response(self, response: httpx2.Response) -> None:
        await response.aread()
        request = response.request
        self.exchanges.append(
            (
                request.method,
                request.content if request.method == "POST" else b"",
                response.status_code,
                response.headers.get("content-type", ""),
                response.content,
            )
        )

    def validate(self) -> int:
        """Validate every JSON-RPC answer; return how many there were."""
        methods: dict[str, str] = {}
        revision: str | None = None
        count = 0
        for method, sent, _, content_type, body in self.exchanges:
            if method == "POST":
                message = json.loads(sent)
                if "id" in message and "method" in message:
                    methods[json.dumps(message["id"])] = message["method"]
            if not (content_type.startswith("application/json") and body):
                continue
            answer = json.loads(body)
            name = methods.get(json.dumps(answer.get("id")))
            for rev in [revision] if revision else list(REVISIONS):
                validate_response(answer, rev, name)
            if name == "initialize" and "result" in answer:
                revision = answer["result"]["protocolVersion"]
            count += 1
        return count

    def statuses(self, method: str) -> list[int]:
        return [status for m, _, status, _, _ in self.exchanges if m == method]


def sdk_client(url: str, token: str, log: WireLog, mode: str) -> Any:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30),
        headers={"Authorization": f"Bearer {token}"},
        event_hooks={"response": [log.on_response]},
    )
    return http, Client(
        streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=30
    )


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_connects_lists_and_calls_over_http(server: HttpServer, mode: str) -> None:
    from mcp.shared.exceptions import MCPError

    log = WireLog()

    async def body() -> None:
        http, connecting = sdk_client(server.url(), server.token(), log, mode)
        async with http, connecting as client:
            # The SDK asks for a newer revision, answered with the newest Noru has.
            assert client.protocol_version == "2025-06-18"
            assert client.server_info.name == "noru"
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == TOOLS
            assert all(t.output_schema is None for t in tools.tools)
            assert all(t.annotations and t.annotations.read_only_hint for t in tools.tools)
            status = await client.call_tool("get_status", {})
            assert status.is_error is False
            assert status.meta == {"noru.contract": 4}
            live = await client.call_tool("get_latest_capture", {})
            assert live.content[0].text.startswith("Noru app not running")  # type: ignore[union-attr]
            with pytest.raises(MCPError) as caught:
                await client.call_tool("list_captures", {"limit": 999})
            assert caught.value.error.code == -32602
            with pytest.raises(MCPError) as caught:
                await client.call_tool("no_such_tool", {})
            assert caught.value.error.message == "Unknown tool: no_such_tool"

    anyio.run(body)
    assert log.validate() >= 6
    # Only the auto mode's `server/discover` probe (no session yet) is refused,
    # and the client ends its session on the way out.
    posts = log.statuses("POST")
    assert posts.count(400) == (1 if mode == "auto" else 0)
    assert set(posts) <= {200, 202, 400}
    assert log.statuses("DELETE") == [204]
    assert set(log.statuses("GET")) <= {405}


def test_the_sdk_client_reads_history_and_resources_over_http(
    server: HttpServer, home: Path
) -> None:
    seeded = seed(home)
    log = WireLog()

    async def body() -> None:
        http, connecting = sdk_client(server.url(), server.token(), log, "legacy")
        async with http, connecting as client:
            listed = await client.call_tool("list_captures", {"app": "code"})
            assert seeded.editor.id in listed.content[0].text  # type: ignore[union-attr]
            result = await client.call_tool("get_capture", {"id": seeded.editor.id})
            assert result.structured_content is not None
            assert result.structured_content["images"][0]["downscaled_from"] == [2560, 1600]
            image = next(c for c in result.content if c.type == "image")
            assert decode(base64.b64decode(image.data)).size == (1568, 980)
            resources = await client.list_resources()
            assert len(resources.resources) == 3
            read = await client.read_resource(f"noru-capture://{seeded.terminal.id}")
            assert read.contents[0].text.splitlines()[-1].startswith("prov: ")  # type: ignore[union-attr]

    anyio.run(body)
    assert log.validate() >= 5
