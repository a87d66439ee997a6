"""The access log: every agent read is recorded once, by real `noru mcp`
processes at once, and only the person's `noru log` shows it."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path
from typing import Any

from noru import accesslog
from noru.access import set_control
from tests.history_data import seed
from tests.http_process import HttpServer, Raw
from tests.noru_cli import invoke
from tests.wire import MemoryClient, StdioProcess


def entries(home: Path) -> list[dict[str, Any]]:
    return list(accesslog.read(home))


def initialize(client: Any, name: str) -> None:
    """``initialize`` as the client ``name`` (version 7.1) would send it."""
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": name, "version": "7.1"},
    }
    answer = client.request("initialize", params)
    client.revision = answer["result"]["protocolVersion"]
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_each_read_is_recorded_with_what_left_and_how_it_ended(home: Path) -> None:
    data = seed(home)
    set_control(home, "allow")
    client = MemoryClient(home)
    try:
        initialize(client, "claude-desktop")
        client.call("get_capture", {"id": data.editor.id})
        client.call("get_capture", {"id": data.editor.id, "text_only": True})
        client.call("search_captures", {"query": "main"})
        client.call("get_capture", {"id": "capture_2020-01-01_000000"})  # no such capture
        client.call("get_capture", {"id": 7})  # wrong type: a JSON-RPC error
        client.request("resources/read", {"uri": f"noru-capture://{data.editor.id}"})
        client.request("tools/list")  # not a read: not recorded
    finally:
        client.close()
    log = entries(home)
    assert [e["target"] for e in log] == [
        "get_capture", "get_capture", "search_captures", "get_capture", "get_capture",
        f"noru-capture://{data.editor.id}",
    ]  # fmt: skip
    assert {(e["client"], e["client_version"], e["transport"]) for e in log} == {
        ("claude-desktop", "7.1", "memory")
    }
    pixels, text, search, missing, wrong, resource = log
    assert pixels["captures"] == [{"id": data.editor.id, "how": "pixels"}]
    assert pixels["outcome"] == "served" and pixels["bytes"] > 10_000
    assert text["captures"] == [{"id": data.editor.id, "how": "text"}]
    assert text["bytes"] < pixels["bytes"] and text["arguments"]["text_only"] == "true"
    assert search["arguments"] == {"query": "main"}
    assert {"id": data.editor.id, "how": "listed"} in search["captures"]
    assert missing["outcome"] == "Noru no match" and missing["captures"] == []
    assert wrong["outcome"] == "error -32602"
    assert resource["method"] == "resources/read" and resource["captures"][0]["how"] == "pixels"
    assert stat.S_IMODE((home / accesslog.FILE).stat().st_mode) == 0o600


def test_a_revoke_s_refusals_are_recorded_too(home: Path) -> None:
    seed(home)
    set_control(home, "revoke")
    client = MemoryClient(home)
    try:
        initialize(client, "cursor")
        client.call("list_captures")
    finally:
        client.close()
    (entry,) = entries(home)
    assert entry["outcome"] == "Noru history revoked" and entry["captures"] == []


def test_a_read_that_cannot_be_recorded_is_not_served(home: Path) -> None:
    data = seed(home)
    (home / accesslog.FILE).mkdir()  # the log cannot be opened for writing
    client = MemoryClient(home)
    try:
        initialize(client, "claude-code")
        answer = client.call("get_capture", {"id": data.editor.id})
    finally:
        client.close()
    assert "result" not in answer
    assert answer["error"]["code"] == -32603
    assert "cannot record this read in the person's access log" in answer["error"]["message"]


def test_long_arguments_are_kept_short() -> None:
    short = accesslog.short_arguments({"query": "x" * 500, "limit": 5})
    assert len(short["query"]) == accesslog.ARG_CHARS and short["limit"] == "5"


def test_several_real_servers_at_once_record_every_read_once(home: Path, tmp_path: Path) -> None:
    data = seed(home)
    set_control(home, "allow")
    reads = 15
    servers = [StdioProcess(home, stderr_path=tmp_path / f"mcp{n}.err") for n in range(3)]
    http = HttpServer(home, tmp_path)
    try:
        for n, proc in enumerate(servers):
            request = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": f"agent-{n}", "version": "1"}}}  # fmt: skip
            proc.exchange(json.dumps(request).encode(), "initialize")
        raw = Raw(http.url(), http.token())
        params = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "clientInfo": {"name": "agent-http", "version": "1"}}  # fmt: skip
        body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        response = raw.post(json.dumps(body).encode(), session=None)
        raw.session_id = response.headers["mcp-session-id"]
        raw.revision = "2025-06-18"

        def stdio_reads(proc: StdioProcess) -> None:
            for i in range(reads):
                arguments = {"id": data.editor.id}
                params = {"name": "get_capture", "arguments": arguments}
                call = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": params}
                proc.exchange(json.dumps(call).encode(), "tools/call")

        threads = [threading.Thread(target=stdio_reads, args=(p,)) for p in servers]
        for thread in threads:
            thread.start()
        for _ in range(reads):
            raw.call("get_capture", {"id": data.editor.id, "text_only": True})
        for thread in threads:
            thread.join()
        raw.close()
    finally:
        for proc in servers:
            proc.close()
        http.stop()
    log = entries(home)
    by_client = {name: [e for e in log if e["client"] == name]
                 for name in ("agent-0", "agent-1", "agent-2", "agent-http")}  # fmt: skip
    assert len(log) == 4 * reads
    assert all(len(found) == reads for found in by_client.values()), {
        k: len(v) for k, v in by_client.items()
    }
    assert {e["transport"] for e in by_client["agent-http"]} == {"http"}
    assert {e["transport"] for e in by_client["agent-0"]} == {"stdio"}


def test_the_log_rotates_past_its_bound_and_reads_oldest_first(tmp_path: Path) -> None:
    def entry(n: int) -> accesslog.Entry:
        return accesslog.Entry(
            at=f"2026-12-01T10:00:{n:02d}Z", client="c", client_version=None,
            transport="stdio", method="tools/call", target="list_captures",
            arguments={"pad": "x" * 70},
        )  # fmt: skip

    bound = accesslog.MAX_BYTES
    try:
        accesslog.MAX_BYTES = 2_000
        for n in range(40):
            accesslog.record(tmp_path, entry(n))
    finally:
        accesslog.MAX_BYTES = bound
    assert (tmp_path / (accesslog.FILE + ".1")).exists()
    assert (tmp_path / accesslog.FILE).stat().st_size <= 2_000 + 400
    ats = [e["at"] for e in accesslog.read(tmp_path)]
    assert ats == sorted(ats) and ats[-1] == "2026-12-01T10:00:39Z"


def test_noru_log_shows_who_read_a_capture_and_agents_cannot_reach_it(home: Path) -> None:
    data = seed(home)
    set_control(home, "allow")
    for name, capture_id in (("claude-code", data.editor.id), ("cursor", data.terminal.id)):
        client = MemoryClient(home)
        try:
            initialize(client, name)
            client.call("get_capture", {"id": capture_id})
            # No path trick reaches the log through a tool or a resource.
            tricked = client.call("get_capture", {"id": "../access.log"})
            assert "error" in tricked or "access.log" not in json.dumps(tricked["result"])
            read = client.request("resources/read", {"uri": "noru-capture://../access.log"})
            assert "error" in read
        finally:
            client.close()
    who = invoke("log", "--capture", data.editor.id)
    assert who.exit_code == 0, who.output
    assert "claude-code 7.1 (memory)  get_capture" in who.output and "cursor" not in who.output
    assert f"{data.editor.id} (pixels)" in who.output
    as_json = invoke("log", "--client", "CURSOR", "--nl").output.splitlines()
    assert as_json and all(json.loads(line)["client"] == "cursor" for line in as_json)
    assert invoke("log", "--since", "1m").output.count("\n") == len(entries(home))
