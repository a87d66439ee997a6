"""The token `noru mcp --http` asks of every request, over real sockets.

Every server is a real `noru mcp --http 127.0.0.1:0` stopped by its pid; the
person's commands (`noru token`, `noru log`, `noru doctor`, `noru config`)
run as the person runs them. Another user is a real other uid (``nobody``,
through ``setpriv``), which can open the loopback port but read no file of
the person's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import stat
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from noru import accesslog, httptoken
from noru.access import set_control
from noru.mcp.transports.auth import RefusalLog
from tests.history_data import seed
from tests.http_process import HttpServer, Raw, answers, as_another_user
from tests.noru_cli import noru
from tests.parts import require

HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
}


def refused_entries(home: Path) -> list[dict[str, Any]]:
    return [e for e in accesslog.read(home) if e.get("method") == "refused"]


def refused_count(home: Path) -> int:
    return sum(int(e["refused"]["count"]) for e in refused_entries(home))


def assert_refused(response: Any, *, challenge: str = "Bearer") -> None:
    """401, a Bearer challenge, a JSON-RPC error body, and no session."""
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith(challenge)
    assert "mcp-session-id" not in response.headers
    (answer,) = answers(response)
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "noru token show" in answer["error"]["message"]


# --- the token file ----------------------------------------------------------------


def test_noru_token_show_makes_a_256_bit_token_in_a_0600_file_once(home: Path) -> None:
    first = noru("token", "show", home=home)
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip()
    assert re.fullmatch(r"noru_[A-Za-z0-9_-]{43}", token)  # 32 bytes of secrets
    path = home / "http-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == token + "\n"
    assert noru("token", "show", home=home).stdout.strip() == token  # made once
    assert token not in first.stderr


def test_noru_token_rotate_replaces_it_atomically(home: Path) -> None:
    old = noru("token", "show", home=home).stdout.strip()
    before = (home / "http-token").stat().st_ino
    rotated = noru("token", "rotate", home=home)
    assert rotated.returncode == 0, rotated.stderr
    assert "refuse the old one" in rotated.stderr and rotated.stdout == ""
    new = noru("token", "show", home=home).stdout.strip()
    assert new != old and httptoken.PATTERN.fullmatch(new)
    path = home / "http-token"
    assert path.stat().st_ino != before  # a new file renamed over, never rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in home.iterdir()) == ["http-token"]  # no temp file left


def test_a_reader_never_sees_half_a_token_while_it_is_rotated(home: Path) -> None:
    httptoken.ensure(home)
    seen: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.append((home / "http-token").read_text())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        made = {httptoken.rotate(home) for _ in range(200)}
    finally:
        stop.set()
        reader.join()
    assert len(made) == 200
    assert seen and all(httptoken.PATTERN.fullmatch(text.strip()) for text in seen)


def test_two_of_the_person_s_commands_making_it_at_once_make_one(home: Path) -> None:
    shown: list[str] = []
    threads = [
        threading.Thread(target=lambda: shown.append(httptoken.ensure(home))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(shown)) == 1 and shown[0] == httptoken.load(home).value


@pytest.mark.parametrize("damage", ["open to others", "damaged", "a folder"])
def test_an_unusable_token_file_is_never_used_and_never_silently_replaced(
    home: Path, damage: str
) -> None:
    path = home / "http-token"
    if damage == "open to others":
        httptoken.ensure(home)
        path.chmod(0o644)
    elif damage == "damaged":
        path.write_text("not a token\n")
        path.chmod(0o600)
    else:
        path.mkdir()
    assert httptoken.load(home).value is None
    shown = noru("token", "show", home=home)
    assert shown.returncode == 1 and "noru token rotate" in shown.stderr
    assert "Traceback" not in shown.stderr
    if damage != "a folder":
        assert noru("token", "rotate", home=home).returncode == 0
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert httptoken.load(home).value == noru("token", "show", home=home).stdout.strip()


# --- every request carries it --------------------------------------------------------


def test_noru_mcp_http_makes_the_token_before_it_listens(
    home: Path, server: HttpServer, tmp_path: Path
) -> None:
    assert "Streamable HTTP on" in server.stderr()
    assert httptoken.load(home).value == server.token()
    assert server.token() not in server.stderr()


def test_the_stdio_server_never_makes_a_token(home: Path, stdio: Any) -> None:
    stdio.exchange(json.dumps(HELLO).encode(), "initialize")
    assert not (home / "http-token").exists()


def test_without_the_token_nothing_is_answered_and_no_session_opens(
    home: Path, server: HttpServer
) -> None:
    seeded = seed(home)
    stranger = Raw(server.url(), None)
    try:
        response = stranger.send(HELLO)
        assert_refused(response)
        assert seeded.editor.id not in response.text
    finally:
        stranger.close()


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer noru_" + "A" * 43,  # the right shape, not this install's
        "Bearer",
        "Bearer {token} {token}",
        "Basic bm9ydTpub3J1",
        "Token {token}",
        "Bearer {token}x",
        "Bearer {prefix}",  # most of it
    ],
)
def test_a_wrong_token_is_refused(server: HttpServer, authorization: str) -> None:
    token = server.token()
    header = authorization.format(token=token, prefix=token[:-1])
    stranger = Raw(server.url(), None)
    try:
        response = stranger.send(HELLO, headers={"Authorization": header})
        assert_refused(response)
    finally:
        stranger.close()


def test_another_install_s_token_is_refused(server: HttpServer, tmp_path: Path) -> None:
    other_home = tmp_path / "other"
    other = httptoken.ensure(other_home)
    stranger = Raw(server.url(), other)
    try:
        response = stranger.send(HELLO)
        assert_refused(response, challenge='Bearer realm="noru", error="invalid_token"')
    finally:
        stranger.close()


def test_the_scheme_is_case_insensitive_and_the_token_is_not(server: HttpServer) -> None:
    token = server.token()
    client = Raw(server.url(), None)
    try:
        ok = client.send(HELLO, headers={"Authorization": f"bearer {token}"})
        assert ok.status_code == 200 and "mcp-session-id" in ok.headers
        assert_refused(client.send(HELLO, headers={"Authorization": f"Bearer {token.upper()}"}))
    finally:
        client.close()


def test_the_token_is_checked_before_the_body_or_the_session_is_read(
    server: HttpServer,
) -> None:
    url = server.url()
    person = Raw(url, server.token())
    stranger = Raw(url, None)
    try:
        person.initialize()
        # A live session's id, a GET, another path: 401, not the 200, 405 or 404
        # the endpoint would have answered.
        assert_refused(
            stranger.send({"jsonrpc": "2.0", "id": 2, "method": "ping"}, session=person.session_id)
        )
        for method in ("GET", "DELETE", "PUT"):
            response = stranger.http.request(
                method, url, headers={"Mcp-Session-Id": person.session_id or ""}
            )
            assert response.status_code == 401, method
        assert stranger.http.post(url.replace("/mcp", "/other"), content=b"{}").status_code == 401
        # The person's session was not touched by any of it.
        assert person.request("ping")["result"] == {}
    finally:
        person.close()
        stranger.close()
    # A body announced over the cap is refused for the token, not read: the
    # answer comes without one byte of it sent.
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (64 * 1024 * 1024)
        )
        head = sock.recv(65536)
    assert head.startswith(b"HTTP/1.1 401 "), head[:200]


def test_host_and_origin_are_checked_before_the_token(server: HttpServer) -> None:
    stranger = Raw(server.url(), None)
    try:
        for headers in ({"Host": "evil.example"}, {"Origin": "http://evil.example"}):
            assert stranger.send(HELLO, headers=headers).status_code == 403
    finally:
        stranger.close()


def test_a_rotated_token_is_refused_at_the_next_request_and_its_sessions_end(
    home: Path, server: HttpServer
) -> None:
    seeded = seed(home)
    old = server.token()
    client = Raw(server.url(), old)
    try:
        client.initialize()
        assert seeded.editor.id in client.call("list_captures", {})["result"]["content"][0]["text"]
        assert noru("token", "rotate", home=home).returncode == 0
        new = httptoken.load(home).value
        assert new is not None and new != old
        # The old token: refused, mid-session.
        assert_refused(client.send({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        # The new token on the session opened with the old one: that session is over.
        renewed = Raw(server.url(), new)
        renewed.session_id, renewed.revision = client.session_id, client.revision
        ended = renewed.send({"jsonrpc": "2.0", "id": 10, "method": "ping"})
        assert ended.status_code == 404
        # A new session with the new token is served.
        renewed.initialize()
        listed = renewed.call("list_captures", {})["result"]["content"][0]["text"]
        assert seeded.editor.id in listed
        renewed.close()
    finally:
        client.close()


def test_a_token_file_gone_bad_under_a_running_server_refuses_everything(
    home: Path, server: HttpServer
) -> None:
    token = server.token()
    client = Raw(server.url(), token)
    try:
        client.initialize()
        (home / "http-token").chmod(0o640)  # someone else may have read it
        assert_refused(client.send({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        assert_refused(client.send(HELLO, session=None))
        assert noru("token", "rotate", home=home).returncode == 0
        fresh = Raw(server.url(), httptoken.load(home).value)
        fresh.initialize()
        assert fresh.request("ping")["result"] == {}
        fresh.close()
    finally:
        client.close()
    assert "every request is refused: http-token is open to others" in server.stderr()
    assert token not in server.stderr()


# --- another user on this machine ----------------------------------------------------


def test_another_user_who_cannot_read_the_token_file_is_refused_before_any_session(
    home: Path, server: HttpServer
) -> None:
    require(os.geteuid() == 0, "switching to another uid (setpriv) needs root, as in CI")
    require(shutil.which("setpriv") is not None, "setpriv (util-linux) is needed")
    require(Path("/usr/bin/python3").exists(), "the system's python3 plays the other user")
    seeded = seed(home)
    set_control(home, "allow")
    person = Raw(server.url(), server.token())
    try:
        person.initialize()
        found = as_another_user(
            server.url(),
            home / "http-token",
            guess=httptoken.new_token(),
            session_id=person.session_id or "",
        )
        # The person's session is still theirs.
        assert person.request("ping")["result"] == {}
    finally:
        person.close()
    assert found["token_read"] is False and found["token_error"] == "PermissionError"
    assert [a["status"] for a in found["answers"]] == [401, 401, 401, 401]
    for answer in found["answers"]:
        assert "mcp-session-id" not in answer["headers"]
        assert answer["headers"]["www-authenticate"].startswith("Bearer")
        body = json.loads(answer["body"])
        assert body["id"] is None and body["error"]["code"] == -32600
        assert seeded.editor.id not in answer["body"] and "result" not in body
    # What the stranger did is in the person's log (the server writes the
    # last of a burst when it stops).
    server.stop()
    assert refused_count(home) == 4
    # Its tool call naming the person's session was not served (it would be logged).
    assert [e for e in accesslog.read(home) if e.get("method") == "tools/call"] == []


# --- the person sees the refusals ----------------------------------------------------


def test_refusals_are_in_noru_log_and_noru_doctor_with_how_many_and_when(
    home: Path, server: HttpServer
) -> None:
    url = server.url()
    stranger = Raw(url, None)
    wrong = Raw(url, httptoken.new_token())
    try:
        for _ in range(5):
            assert stranger.send(HELLO).status_code == 401
        for _ in range(3):
            assert wrong.send(HELLO).status_code == 401
    finally:
        stranger.close()
        wrong.close()
    token = server.token()
    assert server.stop() == 0  # writes what the last burst counted
    entries = refused_entries(home)
    assert sum(e["refused"]["missing"] for e in entries) == 5
    assert sum(e["refused"]["wrong"] for e in entries) == 3
    assert all(e["transport"] == "http" and e["client"] is None for e in entries)
    shown = noru("log", home=home)
    assert shown.returncode == 0, shown.stderr
    lines = [line for line in shown.stdout.splitlines() if "refused (401)" in line]
    assert len(lines) == len(entries)
    counts = [re.search(r"  (\d+) HTTP requests? refused", line) for line in lines]
    assert sum(int(m[1]) for m in counts if m) == 8
    assert any("without the token" in line for line in lines)
    assert any("with a wrong token" in line for line in lines)
    doctor = noru("doctor", home=home)
    (line,) = [li for li in doctor.stdout.splitlines() if "http refusals" in li]
    # The guard worked; who asked deserves a look: a warning, not a failure.
    assert line.startswith("WARN") and "8 requests refused for want of the token" in line
    assert "the last at 20" in line and "(8 in the last 24 hours" in line
    for output in (shown.stdout, shown.stderr, doctor.stdout, doctor.stderr):
        assert token not in output


def test_a_burst_of_refusals_is_one_entry_with_its_count(home: Path) -> None:
    """The first refusal after a quiet window is written at once; the rest of
    a burst is counted and written as one entry when the window ends or the
    server stops, so a flood cannot push the reads out of the log."""
    refusals = RefusalLog(home, window=3600)
    refusals.note("missing")
    for _ in range(200):
        if refused_entries(home):
            break
        threading.Event().wait(0.05)  # the first entry's writer thread (a guard)
    assert [e["refused"]["count"] for e in refused_entries(home)] == [1]
    for _ in range(499):
        refusals.note("wrong")
    assert [e["refused"]["count"] for e in refused_entries(home)] == [1]
    refusals.close()
    entries = refused_entries(home)
    assert [e["refused"]["count"] for e in entries] == [1, 499]
    assert entries[1]["refused"]["wrong"] == 499 and entries[1]["refused"]["missing"] == 0
    assert entries[1]["refused"]["first"] <= entries[1]["refused"]["last"]


def test_doctor_says_when_no_request_was_refused_and_where_the_token_is(
    home: Path,
) -> None:
    before = noru("doctor", home=home)
    assert "ok   http token: not made yet" in before.stdout
    httptoken.ensure(home)
    after = noru("doctor", home=home)
    assert f"ok   http token: {home / 'http-token'} (0600)" in after.stdout
    assert "ok   http refusals: no request refused for want of the token" in after.stdout
    (home / "http-token").chmod(0o644)
    exposed = noru("doctor", home=home)
    assert "FAIL http token: http-token is open to others" in exposed.stdout
    assert "noru token rotate" in exposed.stdout


# --- the token never leaves --------------------------------------------------------


def test_the_token_is_never_in_an_answer_a_log_or_stderr(home: Path, server: HttpServer) -> None:
    seeded = seed(home)
    set_control(home, "allow")
    token = server.token()
    bodies: list[str] = []
    client = Raw(server.url(), token)
    try:
        bodies.append(client.initialize().text)
        for method, params in (
            ("tools/list", None),
            ("resources/list", None),
            ("tools/call", {"name": "get_status", "arguments": {}}),
            ("tools/call", {"name": "list_captures", "arguments": {}}),
            ("tools/call", {"name": "get_capture", "arguments": {"id": seeded.editor.id}}),
            ("tools/call", {"name": "search_captures", "arguments": {"query": "editor"}}),
        ):
            bodies.append(json.dumps(client.request(method, params)))
        bodies.append(client.send(HELLO, headers={"Authorization": f"Bearer {token}x"}).text)
    finally:
        client.close()
    assert server.stop() == 0
    shown = [
        noru("log", home=home),
        noru("log", "--json", home=home),
        noru("doctor", home=home),
        noru("config", "claude-code", "--http", "8765", home=home),
    ]
    texts = [
        *bodies,
        server.stderr(),
        server.stdout_path.read_text(),
        (home / accesslog.FILE).read_text(),
        *(done.stdout + done.stderr for done in shown),
    ]
    assert all(token not in text for text in texts)
    assert any("search_captures" in text for text in texts)  # the log was read


# --- nor from the screen -----------------------------------------------------------


def test_the_token_on_screen_is_redacted_in_what_an_agent_gets(home: Path) -> None:
    """The person ran `noru token show` in a terminal and took a capture: an
    agent's answer carries the token's kind, never the token."""
    from noru.redact import find
    from noru.store import NewImage, OcrLine, Store
    from tests.history_data import NOW, png, source
    from tests.wire import MemoryClient

    token = httptoken.ensure(home)
    misread = token.replace("noru_", "n0ru_", 1)
    assert [(f.kind, misread[f.start : f.end]) for f in find(misread)] == [("noru-token", misread)]
    lines = ["$ noru token show", token, f"$ export NORU_TOKEN={token}"]
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(800, 100), 800, 100, source("XTerm", "xterm"), "800x100")],
            origin="user",
            captured_at=NOW,
        )
        store.set_ocr(
            record.id,
            engine="tesseract",
            lines_per_image=[[OcrLine(t, (0, 20 * n, 600, 18), 0.95) for n, t in enumerate(lines)]],
            version="5",
        )
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        answer = client.call("get_capture", {"id": record.id, "layers": ["ocr"]})
    finally:
        client.close()
    served = json.dumps(answer)
    assert token not in served and token[5:20] not in served
    assert "[redacted: noru-token]" in served
