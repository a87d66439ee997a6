"""A real `noru console` for tests, and Chromium driving it.

- ``running_console``: `noru console` on a data dir, stopped by its pid;
  ``Console``: its port and one-time token, and plain HTTP requests to it;
  ``SAME``: the header a same-origin form sends.
- ``chromium``: Debian's Chromium, driven by Playwright from PyPI (never
  `playwright install`); ``signed_in``: a page signed in with the link.
- The checks every page passes: ``CONTRAST`` (tests/contrast.js: WCAG AA
  contrast of each visible text, images without alt text) and axe-core
  (``axe_script``, ``serious_violations``).
- The history and state every page is shown over: ``add`` (a capture of
  given pixels at a given time), ``agent_read`` (what an agent gets of a
  capture over a real MCP session), ``read_then_paused`` (one agent read,
  so the access log has a row, and agents allowed but paused, so the state
  bar's warning colours are shown too).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from noru import access
from noru.store import NewImage, Store
from tests.history_data import source
from tests.parts import require
from tests.wire import noru_command

__all__ = [
    "AXE",
    "CHROMIUM",
    "CONTRAST",
    "SAME",
    "Console",
    "add",
    "agent_read",
    "axe_page",
    "axe_script",
    "chromium",
    "read_then_paused",
    "running_console",
    "serious_violations",
    "signed_in",
]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# axe-core from the npm registry, pinned as tests/clients pins its clients
# (scripts/node-tools installs it once into the cache).
AXE = "axe-core@4.14.1"
# WCAG AA contrast of every visible text, and images without alt text.
CONTRAST = (Path(__file__).parent / "contrast.js").read_text()
SAME = {"Sec-Fetch-Site": "same-origin"}


@dataclass
class Console:
    proc: subprocess.Popen[str]
    port: int
    token: str

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        cookie: str | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"Host": self.host, **(headers or {})}
            if cookie:
                sent["Cookie"] = cookie
            data = None
            if body is not None:
                data = urlencode(body).encode()
                sent["Content-Type"] = "application/x-www-form-urlencoded"
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()

    def sign_in(self) -> str:
        status, headers, _ = self.request("GET", f"/signin?token={self.token}")
        assert status == 303 and headers["location"] == "/"
        return headers["set-cookie"].split(";")[0]


@contextmanager
def running_console(home: Path) -> Iterator[Console]:
    """`noru console` on ``home``, stopped by its pid at the end."""
    proc = subprocess.Popen(
        [*noru_command(), "console"],
        env={**os.environ, "NORU_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = urlsplit(line.split("open ", 1)[1].strip())
        assert url.hostname == "127.0.0.1" and url.port is not None
        token = url.query.split("token=", 1)[1]
        yield Console(proc, url.port, token)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout:
                proc.stdout.close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, driven by Playwright from PyPI (never `playwright install`)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed (make test installs it)")
    require(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (make test installs it)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def signed_in(browser: Any, console: Console, **options: Any) -> Any:
    """A new page of ``browser``, signed in to ``console`` with its link."""
    page = browser.new_page(**{"viewport": {"width": 1280, "height": 900}, **options})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    return page


@contextmanager
def axe_page(browser: Any, console: Console, width: int = 1280) -> Iterator[Any]:
    """A page signed in to ``console`` whose context lets axe-core's script
    in: the console's policy allows no script but its own, and axe is the
    test's."""
    context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"http://{console.host}/signin?token={console.token}")
        yield page
    finally:
        context.close()


def axe_script() -> Path:
    """axe-core's script, installed once into the cache by scripts/node-tools."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "node-tools"), AXE],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    require(done.returncode == 0, f"axe-core could not be installed: {done.stderr[-500:]}")
    return Path(done.stdout.split()[-1]) / "node_modules" / "axe-core" / "axe.min.js"


def serious_violations(page: Any, script: Path) -> list[dict[str, Any]]:
    """What axe-core finds serious or critical on ``page`` (an ``axe_page``)
    as it is now: WCAG 2.0 and 2.1 A/AA, and its best practices."""
    page.add_script_tag(path=str(script))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa',"
        " 'wcag21a', 'wcag21aa', 'best-practice']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target)}))"
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def add(home: Path, data: bytes, size: tuple[int, int], at: datetime, title: str = "w") -> str:
    """A capture of a Tk window titled ``title``, of PNG ``data``, taken ``at``."""
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(data, *size, source("Tk", title), f"{size[0]}x{size[1]}")],
            origin="user",
            captured_at=at,
        )
    return record.id


def agent_read(home: Path, capture_id: str) -> str:
    """What an agent gets of a capture's text over a real MCP session (agents
    allowed first), as JSON."""
    from tests.wire import MemoryClient

    access.set_control(home, "allow")
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        answer = client.call("get_capture", {"id": capture_id, "text_only": True})
    finally:
        client.close()
    return json.dumps(answer)


def read_then_paused(home: Path, capture_id: str) -> None:
    """One agent read of ``capture_id`` (the access log has a row), then
    agents allowed and paused (the state bar shows its warning colour)."""
    agent_read(home, capture_id)
    access.set_control(home, "allow")
    access.set_control(home, "pause")
