"""The web console's pages, timed over real sockets against a real server.

Builds a store with ``bench/store_100k.py``'s builder (N captures, default
100,000, 97 s apart: about 890 a day), serves it with the console's own app
under uvicorn on 127.0.0.1, signs in with its one-time link, and times with
``http.client`` (p50/p95 over repeated requests, after a warm-up):

- the timeline of one full day (the day filter; a page of 60 captures), and
  the whole day: every page, following the "Older captures" cursors as the
  page's scrolling does (the sum of the requests);
- the timeline's first page with no filter;
- a search's first page for a medium term (~2 % of captures) and for a term
  in every capture;
- a capture's viewer page;
- the scrubber's preview while it is dragged: the capture nearest a moment
  of the day (``/scrub``, asked at each pointer move, one at a time).

Goals (issue 14): a day's timeline <= 300 ms, a search's first page at
100,000 captures <= 100 ms. The times are the whole request as a browser's
would be (connection, the guard, reading the store, rendering), without the
thumbnails, which the browser fetches after the page.

    .venv/bin/python bench/console.py [--captures 100000] [--runs 50]
"""

from __future__ import annotations

import argparse
import html
import http.client
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import uvicorn

from noru.console.app import create_app
from noru.console.guard import Keys
from noru.loopback import listen
from noru.store import Filters, Reader
from store_100k import COMMON, MEDIUM, build


def request(port: int, path: str, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        headers = {"Host": f"127.0.0.1:{port}"}
        if cookie:
            headers["Cookie"] = cookie
        conn.request("GET", path, headers=headers)
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        conn.close()


def timed(port: int, path: str, cookie: str, runs: int) -> tuple[float, float, int]:
    status, _, body = request(port, path, cookie)
    assert status == 200, (path, status)
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        request(port, path, cookie)
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[round(0.95 * (len(samples) - 1))], len(body)


def whole_day(port: int, path: str, cookie: str, runs: int) -> tuple[float, float, int]:
    """Every page of a day's timeline, each cursor taken from the page before."""
    link = re.compile(r'<a href="(/\?[^"]+)" rel="next">')
    samples, pages = [], 0
    for _ in range(runs):
        t, here, pages = time.perf_counter(), path, 0
        while here:
            status, _, body = request(port, here, cookie)
            assert status == 200, (here, status)
            pages += 1
            found = link.search(body.decode())
            here = html.unescape(found.group(1)) if found else ""
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[round(0.95 * (len(samples) - 1))], pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--captures", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["NORU_HOME"] = str(home)
        t = time.perf_counter()
        build(home, args.captures)
        print(f"built {args.captures} captures in {time.perf_counter() - t:.1f} s")
        with Reader.open(home) as reader:
            rows, _ = reader.list_rows(Filters(), limit=1)
            newest = rows[0]
        # The last whole local day before the newest capture.
        day = (newest.captured_at.astimezone() - timedelta(days=1)).date()
        start = datetime.combine(day, datetime.min.time()).astimezone()
        with Reader.open(home) as reader:
            end = start + timedelta(days=1)
            in_day = reader.count_matching(
                Filters(since=start.astimezone(UTC), before=end.astimezone(UTC))
            )
        keys = Keys()
        sock = listen("127.0.0.1", 0)
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            create_app(home, keys), http="h11", lifespan="off", log_config=None, access_log=False
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            status, headers, _ = request(port, f"/signin?token={keys.token}")
            assert status == 303
            cookie = headers["set-cookie"].split(";")[0]
            print(f"{'page':52} {'p50 ms':>8} {'p95 ms':>8} {'bytes':>8}  goal (p95)")
            for label, path, goal in (
                (f"timeline of {day} ({in_day} captures, first 60)", f"/?day={day}", "<= 300 ms"),
                ("timeline, newest 60", "/", ""),
                (f"search {MEDIUM!r}, first page", f"/search?q={MEDIUM}", "<= 100 ms"),
                (f"search {COMMON!r} (in every capture)", f"/search?q={COMMON}", "<= 100 ms"),
                ("viewer of the newest capture", f"/capture/{newest.id}", ""),
                ("scrubber's preview, nearest noon", f"/scrub?day={day}&second=43200", "<= 50 ms"),
            ):
                p50, p95, size = timed(port, path, cookie, args.runs)
                print(f"{label:52} {p50:8.2f} {p95:8.2f} {size:8}  {goal}")
            p50, p95, pages = whole_day(port, f"/?day={day}", cookie, max(5, args.runs // 5))
            label = f"the whole day: {pages} pages, one after another"
            print(f"{label:52} {p50:8.2f} {p95:8.2f} {'':8}  (sum of the pages)")
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            sock.close()


if __name__ == "__main__":
    main()
