"""Hostile JSON-RPC: every input gets a JSON-RPC error or a valid result, the
server never dies, and no message carries a traceback or a file path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noru.mcp.session import Session
from noru.store import NewImage, OcrLine, Store
from tests.history_data import png, source
from tests.http_process import HttpServer, Raw
from tests.parts import FIGURES
from tests.wire import LEAK, REVISIONS, StdioProcess, validate_response

METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "server/discover",
    "notifications/initialized",
    "",
    "tools/list/../../x",
    "\u0000",
    "a" * 300,
]
TOOLS = [
    "get_latest_capture",
    "observe_screen",
    "list_captures",
    "search_captures",
    "get_capture",
    "get_status",
    "get_capture_text",
    "search_history",
    "observe_window",
    "../../etc/passwd",
    "",
    "x" * 500,
]
TRICKS = [
    "capture_../../etc/passwd",
    "capture_2026-08-12_141502/../../x",
    "/etc/passwd",
    "noru-capture://capture_../../x",
    "noru-capture://%2e%2e%2f",
    "file:///etc/passwd",
    "noru-capture://capture_2026-08-12_141502?x=1#y",
    "\udcff",
    "\u202e",
    "%00",
    "$(rm -rf /)",
    "noru-capture://capture_2026-08-12_141502\n",
    "http://127.0.0.1:1/",
    "C:\\Windows",
]

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(TRICKS)
)
json_value = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=10) | st.sampled_from(["id", "uri", "name"]), children, max_size=4
        )
    ),
    max_leaves=12,
)
arguments = st.dictionaries(
    st.sampled_from(
        [
            "id",
            "index",
            "app",
            "workspace",
            "display",
            "since",
            "before",
            "origin",
            "limit",
            "cursor",
            "query",
            "order",
            "layers",
            "fields",
            "region",
            "text_only",
            "target",
            "extra",
        ]
    ),
    json_value,
    max_size=5,
)
params = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {"name": st.sampled_from(TOOLS) | json_value, "arguments": arguments | json_value}
    ),
    st.fixed_dictionaries({"uri": st.sampled_from(TRICKS) | json_value}),
    st.fixed_dictionaries({"cursor": json_value}),
    st.fixed_dictionaries(
        {"protocolVersion": st.sampled_from([*REVISIONS, "2099-01-01"]) | json_value}
    ),
)
message = st.fixed_dictionaries(
    {
        "jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]) | json_value,
        "method": st.sampled_from(METHODS) | json_value,
    },
    optional={
        "id": st.integers(-5, 2**70) | st.text(max_size=20) | json_value,
        "params": params,
        "extra": json_value,
    },
)
raw_input = st.one_of(
    message.map(lambda m: json.dumps(m).encode()),
    st.lists(message, max_size=4).map(lambda ms: json.dumps(ms).encode()),
    json_value.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.integers(1, 5000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 5000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.just(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + b"9" * 5000 + b"}}"),
)

TRIED = {"engine": 0, "stdio": 0, "http": 0}


def small_history(home: Path) -> None:
    """Three small captures: the fuzz is about protocol handling, not imaging."""
    with Store.open(home) as store:
        for n, app in enumerate(("Code", "XTerm", None)):
            capture = store.add_capture(
                [NewImage(png(64, 40), 64, 40, source(app, f"f{n}.py - repo{n} - {app}"))],
                origin="user" if n else "agent",
                note=f"note {n}",
            )
            store.set_ocr(
                capture.id,
                engine="tesseract",
                lines_per_image=[[OcrLine(f"line {n}", (1, 1, 30, 8), 0.9)]],
            )


def check_answer(data: bytes, answer: bytes | None, revision: str | None) -> None:
    if answer is None:
        return
    decoded = json.loads(answer)
    items = decoded if isinstance(decoded, list) else [decoded]
    for item in items:
        assert isinstance(item, dict)
        text = json.dumps(item)
        if "error" in item:
            assert not LEAK.search(item["error"]["message"]), item
        assert "Traceback" not in text
        for rev in [revision] if revision else list(REVISIONS):
            validate_response(item, rev, None)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(inputs=st.lists(raw_input, min_size=1, max_size=6))
def test_the_session_engine_answers_every_input_and_never_dies(
    tmp_path_factory: Any, inputs: list[bytes]
) -> None:
    home = tmp_path_factory.getbasetemp() / "fuzz-home"
    if not home.exists():
        home.mkdir()
        small_history(home)
    session = Session(home=home)
    for data in inputs:
        TRIED["engine"] += 1
        answer = session.handle(data)
        check_answer(data, answer, session.version)
    # Whatever came before, the session still answers.
    pong = session.handle(b'{"jsonrpc":"2.0","id":"alive","method":"ping"}')
    assert pong is not None and json.loads(pong)["result"] == {}


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(raw_input, min_size=150, max_size=150))
def test_the_stdio_server_survives_hostile_lines(tmp_path_factory: Any, lines: list[bytes]) -> None:
    home = tmp_path_factory.getbasetemp() / "fuzz-stdio-home"
    if not home.exists():
        home.mkdir()
        small_history(home)
    lines = [
        *lines,
        b"\xff\xfe\xfd",
        b"\x00" * 100,
        b"[]",
        b"{}",
        b"null",
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}' * 3,
    ]
    stderr = tmp_path_factory.mktemp("fuzz") / "stderr"
    proc = StdioProcess(home, stderr_path=stderr)
    try:
        proc.exchange(
            b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":'
            b'{"protocolVersion":"2025-03-26"}}',
            "initialize",
        )
        for data in lines:
            if b"\n" in data or b"\r" in data or not data.strip():
                continue  # one message per line is the transport's framing
            TRIED["stdio"] += 1
            proc.write(data + b"\n")
            proc.write(b'{"jsonrpc":"2.0","id":"marker","method":"ping"}\n')
            while True:
                answer = proc.read()
                if isinstance(answer, dict) and answer.get("id") == "marker":
                    break
                check_answer(data, json.dumps(answer).encode(), None)
        assert proc.proc.poll() is None
    finally:
        assert proc.close() == 0
    assert b"Traceback" not in stderr.read_bytes()


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: Any) -> Iterator[HttpServer]:
    home = tmp_path_factory.mktemp("fuzz-http-home")
    small_history(home)
    server = HttpServer(home, tmp_path_factory.mktemp("fuzz-http"))
    try:
        server.url()
        yield server
    finally:
        assert server.stop() == 0
        err = server.stderr()
        assert "Traceback" not in err
        assert server.token() not in err  # never logged, whatever came in


HEADER_TRICKS = [
    {},
    {"Origin": "http://evil.example"},
    {"Host": "evil.example"},
    {"MCP-Protocol-Version": "1999-01-01"},
    {"Content-Type": "text/plain"},
    {"Accept": "text/event-stream"},
    {"Mcp-Session-Id": "../../etc/passwd"},
    {"Mcp-Session-Id": "x" * 300},
    {"Authorization": "Bearer noru_" + "A" * 43},
    {"Authorization": "Bearer"},
    {"Authorization": "Basic bm9ydTpub3J1"},
    {"Authorization": "x" * 5000},
]


@pytest.mark.parametrize("carries_token", [True, False], ids=["with-token", "without-token"])
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    inputs=st.lists(
        st.tuples(raw_input, st.sampled_from(HEADER_TRICKS), st.booleans()),
        min_size=1,
        max_size=4,
    )
)
def test_the_http_server_answers_every_input_and_never_dies(
    http_server: HttpServer, carries_token: bool, inputs: list[tuple[bytes, dict[str, str], bool]]
) -> None:
    """With the token, every input gets a transport refusal or the engine's
    answer; without it (or with a wrong one), only 401 (403 for a foreign
    Host or Origin, checked first), with no session and nothing else."""
    url, token = http_server.url(), http_server.token()
    person = Raw(url, token)
    sender = person if carries_token else Raw(url, None)
    try:
        person.initialize("2025-03-26")
        for body, headers, with_session in inputs:
            TRIED["http"] += 1
            response = sender.post(
                body, headers=headers, session=person.session_id if with_session else None
            )  # validates any JSON-RPC body
            assert "Traceback" not in response.text and token not in response.text
            foreign = "Host" in headers or "Origin" in headers
            refused = not carries_token or "Authorization" in headers
            if refused:
                assert response.status_code == (403 if foreign else 401), response
                assert "mcp-session-id" not in response.headers
                assert response.json()["error"]["code"] == -32600
            else:
                assert response.status_code in {200, 202, 400, 403, 404, 406, 413, 415}, response
        alive = person.request("ping")
        assert alive["result"] == {}
    finally:
        person.close()
        sender.close()


def test_zz_report_how_many_inputs_were_fuzzed() -> None:
    FIGURES.append(
        f"fuzz: {TRIED['engine']} inputs into the session engine, "
        f"{TRIED['stdio']} hostile lines into real `noru mcp` processes over stdio, "
        f"{TRIED['http']} hostile requests into a real `noru mcp --http`"
    )
    assert TRIED["engine"] > 0 and TRIED["stdio"] > 0 and TRIED["http"] > 0
