"""Many agents at once: one delivery, no corruption, revoke honoured at once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from noru.access import set_control
from noru.appwire import AppClient, Capture, Captured
from noru.mcp.session import Session
from tests.app_process import running_app
from tests.history_data import seed
from tests.parts import FIGURES
from tests.store_checks import check_store
from tests.wire import StdioProcess, first_line

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'


def agents(home: Path, tmp_path: Path, count: int) -> list[StdioProcess]:
    started = []
    for i in range(count):
        agent = StdioProcess(home, stderr_path=tmp_path / f"agent{i}.err")
        agent.exchange(INIT, "initialize")
        agent.revision = "2025-06-18"
        started.append(agent)
    return started


def test_sixteen_agents_pulling_after_one_capture_get_exactly_one_delivery(
    home: Path, desktop: XServer, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(desktop, "Handoff", x=100, y=100, width=500, height=300)
    window.bring_under_pointer()
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        AppClient(home).expect(Capture(mode="window", which="pointer"), Captured)
        pool = agents(home, tmp_path, 16)
        try:
            ask = (
                b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
                b'{"name":"get_latest_capture","arguments":{"text_only":true}}}\n'
            )
            for agent in pool:
                agent.write(ask)
            lines = [first_line(agent.read()) for agent in pool]
        finally:
            for agent in pool:
                agent.close()
    assert sum(line.startswith("Noru capture") for line in lines) == 1, lines
    assert sum(line.startswith("Noru nothing new") for line in lines) == 15, lines
    FIGURES.append("load: 16 concurrent agents pulled one capture: exactly 1 delivery")


def test_concurrent_observations_serialize_or_answer_busy_and_never_corrupt(
    home: Path, desktop: XServer, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(desktop, "Observed", x=100, y=100, width=800, height=500)
    window.bring_under_pointer()
    set_control(home, "allow")
    outcomes: list[str] = []
    ids: set[str] = set()
    lock = threading.Lock()
    with running_app(home, desktop.env, tmp_path / "app.log"):

        def observe(n: int) -> None:
            session = Session(home=home)
            session.handle(INIT)
            for i in range(3):
                raw = session.handle(
                    b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
                    b'{"name":"observe_screen","arguments":{"target":"display"}}}' % (i + 1)
                )
                answer = json.loads(raw or b"{}")
                line = first_line(answer)
                with lock:
                    outcomes.append(line.split(":")[0].split(" capture_")[0])
                    if line.startswith("Noru capture"):
                        ids.add(answer["result"]["structuredContent"]["id"])

        threads = [threading.Thread(target=observe, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert set(outcomes) <= {"Noru capture", "Noru busy"}, outcomes
    assert outcomes.count("Noru capture") >= 1
    assert check_store(home, ids) >= len(ids)
    FIGURES.append(
        f"load: 6 agents x 3 concurrent observe_screen: {outcomes.count('Noru capture')} "
        f"captures, {outcomes.count('Noru busy')} busy, store intact"
    )


def test_a_revoke_applies_to_every_request_that_starts_after_it_completes(
    home: Path, tmp_path: Path
) -> None:
    seed(home)
    pool = agents(home, tmp_path, 4)
    revoked_at: list[float] = []
    results: list[tuple[float, bool]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def stream(agent: StdioProcess) -> None:
        n = 1
        while not stop.is_set():
            n += 1
            started = time.monotonic()
            agent.write(
                b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
                b'{"name":"list_captures","arguments":{"limit":2}}}\n' % n
            )
            line = first_line(agent.read())
            with lock:
                results.append((started, line.startswith("Noru history revoked")))

    threads = [threading.Thread(target=stream, args=(agent,)) for agent in pool]
    try:
        for thread in threads:
            thread.start()
        while len(results) < 40:
            time.sleep(0.01)
        set_control(home, "revoke")
        revoked_at.append(time.monotonic())
        while len([r for r in results if r[0] > revoked_at[0]]) < 40:
            time.sleep(0.01)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        for agent in pool:
            agent.close()
    after = [revoked for started, revoked in results if started > revoked_at[0]]
    before = [revoked for started, revoked in results if started < revoked_at[0] - 1]
    assert after and all(after), "a request that started after the revoke was served"
    assert not any(before)
    FIGURES.append(
        f"load: 4 agents streaming history across a revoke: {len(after)} requests "
        "after it, all refused"
    )
