"""What the token check adds to each `noru mcp --http` request.

Three figures, each the median and p95 of many rounds, in microseconds:

- ``check``: ``httptoken.Watch.check`` alone, as every request runs it (a
  stat of the token file, its bytes compared in constant time);
- ``middleware``: one request through the real ``TokenRequired`` in front
  of an app that answers nothing, minus the same request straight to that
  app: the whole cost the check adds in the server (headers read, the
  check, the session's token noted), measured in process so that nothing
  else moves the figure;
- ``round trip``: a `ping` with the token to a real `noru mcp --http`, for
  scale (what a request costs end to end on loopback).

Goal (issue 36): the check adds under 0.1 ms (100 us) per request.

    .venv/bin/python bench/http_token.py [--rounds 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from noru import httptoken
from noru.mcp.transports.auth import RefusalLog, TokenRequired


def spread(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95)]
    return f"median {statistics.median(ordered):.2f} us, p95 {p95:.2f} us"


def bench_check(home: Path, rounds: int) -> list[float]:
    watch = httptoken.Watch(home)
    header = [f"Bearer {httptoken.ensure(home)}".encode()]
    assert watch.check(header).refused is None
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        watch.check(header)
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


async def _nothing(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def bench_middleware(home: Path, rounds: int) -> list[float]:
    token = httptoken.ensure(home)
    guarded = TokenRequired(_nothing, watch=httptoken.Watch(home), refusals=RefusalLog(home))
    headers = [
        (b"host", b"127.0.0.1:8765"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"authorization", f"Bearer {token}".encode()),
        (b"mcp-session-id", b"x" * 43),
    ]

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 204, message

    async def run() -> list[float]:
        samples = []
        for _ in range(rounds):
            bare: dict[str, Any] = {"type": "http", "headers": headers}
            checked: dict[str, Any] = {"type": "http", "headers": headers}
            start = time.perf_counter_ns()
            await _nothing(bare, receive, send)
            middle = time.perf_counter_ns()
            await guarded(checked, receive, send)
            end = time.perf_counter_ns()
            samples.append(((end - middle) - (middle - start)) / 1000)
        return samples

    return asyncio.run(run())


def bench_round_trip(home: Path, rounds: int) -> list[float]:
    exe = Path(sys.executable).parent / "noru"
    err = home / "server.err"
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [str(exe), "mcp", "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, "NORU_HOME": str(home)},
        )
    try:
        url = ""
        for _ in range(600):
            for line in err.read_text().splitlines():
                if "Streamable HTTP on " in line:
                    url = line.split("Streamable HTTP on ", 1)[1]
            if url or proc.poll() is not None:
                break
            time.sleep(0.05)
        if not url:
            raise SystemExit(f"the server did not start: {err.read_text()}")
        token = httptoken.load(home).value
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        with httpx2.Client(timeout=30, headers=headers) as http:
            hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}
            session = http.post(url, content=json.dumps(hello)).headers["mcp-session-id"]
            ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
            samples = []
            for _ in range(rounds):
                start = time.perf_counter_ns()
                answer = http.post(url, content=ping, headers={"Mcp-Session-Id": session})
                samples.append((time.perf_counter_ns() - start) / 1000)
                assert answer.status_code == 200, answer.text
        return samples
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="noru-bench-token-") as folder:
        home = Path(folder)
        home.chmod(0o700)
        check = bench_check(home, args.rounds)
        middleware = bench_middleware(home, args.rounds)
        trip = bench_round_trip(home, min(args.rounds, 2000))
    print(f"token check alone ({args.rounds} rounds): {spread(check)}")
    print(f"added by the middleware per request ({args.rounds} rounds): {spread(middleware)}")
    print(f"a ping round trip with the token, for scale: {spread(trip)}")
    goal = statistics.median(middleware) < 100
    print(f"goal: under 100 us added per request: {'met' if goal else 'NOT met'}")


if __name__ == "__main__":
    main()
