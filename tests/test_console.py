"""The web console, a real `noru console` over real sockets: signing in once,
the guard against other sites and other hosts, the pages over a seeded
history, and the person's controls with the same effect as the CLI's."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from noru import access
from noru.store import Filters, NewImage, OcrLine, Reader, Store
from tests.console_process import SAME, Console, chromium, running_console
from tests.history_data import Seeded, png, seed, source
from tests.parts import require
from tests.wire import noru_command

__all__ = ["SAME", "Console", "browser", "console", "running_console", "seeded"]


@pytest.fixture
def seeded(home: Path) -> Seeded:
    return seed(home)


@pytest.fixture
def console(home: Path, seeded: Seeded) -> Iterator[Console]:
    with running_console(home) as started:
        yield started


# --- signing in -----------------------------------------------------------------------


def test_the_link_signs_in_once_with_a_strict_http_only_cookie(console: Console) -> None:
    status, _, _ = console.request("GET", "/")
    assert status == 403  # no cookie
    status, headers, _ = console.request("GET", f"/signin?token={console.token}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    again, _, body = console.request("GET", f"/signin?token={console.token}")
    assert again == 403 and b"works once" in body
    status, _, page = console.request("GET", "/", cookie=cookie.split(";")[0])
    assert status == 200 and b"Timeline" in page
    assert console.request("GET", "/", cookie="noru_console=guessed")[0] == 403


def test_a_wrong_token_signs_nobody_in(console: Console) -> None:
    status, headers, _ = console.request("GET", "/signin?token=not-the-token")
    assert status == 403 and "set-cookie" not in headers
    assert console.request("GET", f"/signin?token={console.token}")[0] == 303  # still unused


# --- the guard ------------------------------------------------------------------------


def test_another_host_name_is_refused_even_with_the_cookie(console: Console) -> None:
    cookie = console.sign_in()
    for host in (f"evil.example:{console.port}", "attacker.test", ""):
        status, _, _ = console.request("GET", "/", headers={"Host": host}, cookie=cookie)
        assert status in (400, 421), host


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"},
        {},  # a client that says nothing of where it comes from
        {"Origin": "null"},  # an opaque origin, with no site to vouch for it
    ],
)
def test_a_change_from_anywhere_but_its_own_pages_is_refused_and_changes_nothing(
    console: Console, home: Path, headers: dict[str, str]
) -> None:
    cookie = console.sign_in()
    before = (home / "access.json").read_bytes() if (home / "access.json").exists() else None
    status, _, _ = console.request(
        "POST", "/control", body={"action": "allow"}, headers=headers, cookie=cookie
    )
    assert status == 403
    after = (home / "access.json").read_bytes() if (home / "access.json").exists() else None
    assert after == before


def test_a_change_without_the_cookie_is_refused(console: Console, home: Path) -> None:
    status, _, _ = console.request("POST", "/control", body={"action": "allow"}, headers=SAME)
    assert status == 403 and not access.load(home).authorized


def test_pages_carry_the_policy_headers_and_no_cors(console: Console) -> None:
    cookie = console.sign_in()
    status, headers, _ = console.request(
        "GET", "/", headers={"Origin": "http://evil.example"}, cookie=cookie
    )
    assert status == 200
    assert "default-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-store"
    assert not [k for k in headers if k.startswith("access-control-")]


@pytest.mark.parametrize(
    "path",
    [
        "/image/..%2F..%2Fnoru.sqlite3/1",
        "/image/capture_..%2F..%2Fx/1",
        "/image/%2E%2E/1",
        "/thumb/..%2Fnoru.sqlite3",
        "/thumb/capture_2026-01-01_000000",
        "/capture/capture_..%2Faccess.json",
        "/static/..%2F..%2Fguard.py",
    ],
)
def test_paths_in_image_and_page_addresses_reach_nothing(console: Console, path: str) -> None:
    cookie = console.sign_in()
    status, _, body = console.request("GET", path, cookie=cookie)
    assert status == 404, (path, status)
    assert b"SQLite" not in body and b"import" not in body


# --- the pages ------------------------------------------------------------------------


def test_the_timeline_shows_the_history_newest_first_with_thumbnails(
    console: Console, seeded: Seeded
) -> None:
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/", cookie=cookie)
    text = page.decode()
    order = [
        text.index(f'href="/capture/{c.id}"')
        for c in (seeded.browser, seeded.terminal, seeded.editor)
    ]
    assert order == sorted(order)  # newest first
    assert "Agents: not allowed yet" in text
    status, headers, thumb = console.request("GET", f"/thumb/{seeded.editor.id}", cookie=cookie)
    assert status == 200 and headers["content-type"] == "image/jpeg"
    assert 500 < len(thumb) < 20_000  # a few kB


def test_search_highlights_the_hit_and_the_viewer_shows_text_and_original(
    console: Console, seeded: Seeded, home: Path
) -> None:
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/search?q=frobnicate", cookie=cookie)
    assert f"/capture/{seeded.editor.id}" in page.decode()
    assert re.search(rb"<mark>frobnicate</mark>", page, re.I)
    _, _, viewer = console.request("GET", f"/capture/{seeded.editor.id}", cookie=cookie)
    assert "the failing build" in viewer.decode() and "<rect " in viewer.decode()
    # Where it came from: measured facts, and the inferred one said to be so.
    facts = dict(re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", viewer.decode()))
    assert facts["App"] == "Code, as the window says"
    assert facts["Display"] == "display 1 (DP-1), 2560x1600"
    assert facts["Workspace"] == "repoB, inferred from the title; may be wrong"
    assert facts["Text"].startswith("read by tesseract")
    _, _, failed = console.request("GET", f"/capture/{seeded.browser.id}", cookie=cookie)
    facts = dict(re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", failed.decode()))
    assert facts["Taken"].startswith("by an agent")
    assert facts["Text"] == "could not be read: engine crashed"
    assert "Display (image 2)" in facts and "App" not in facts  # nothing said, nothing shown
    status, headers, original = console.request(
        "GET", f"/image/{seeded.editor.id}/1", cookie=cookie
    )
    assert status == 200 and headers["content-type"] == "image/png"
    with Reader.open(home) as reader:
        record = reader.get(seeded.editor.id)
        assert record is not None
        assert original == reader.image_file(record.images[0]).read_bytes()


def test_the_viewer_opened_from_a_search_boxes_the_lines_with_its_words(
    console: Console, seeded: Seeded
) -> None:
    cookie = console.sign_in()
    hits = re.compile(r'<rect [^>]*class="hit"><title>([^<]*)</title>')
    for query in ("frobnicate", "FROBNICATE", "frobnicaté"):  # case and accents folded
        path = f"/capture/{seeded.editor.id}?{urlencode({'q': query})}"
        _, _, page = console.request("GET", path, cookie=cookie)
        text = page.decode()
        # The line's text, escaped (an apostrophe as &#39; or &#x27;: the same character).
        assert [unescape(t) for t in hits.findall(text)] == [
            "ModuleNotFoundError: No module named 'frobnicate'"
        ]
        assert "1 line with" in text
    _, _, plain = console.request("GET", f"/capture/{seeded.editor.id}", cookie=cookie)
    assert hits.findall(plain.decode()) == [] and plain.decode().count("<rect ") == 2
    _, _, missing = console.request("GET", f"/capture/{seeded.editor.id}?q=zebra", cookie=cookie)
    assert "is not in a line of this image" in missing.decode()
    # No OCR yet: the accessibility lines' boxes are shown and searched.
    _, _, ax = console.request("GET", f"/capture/{seeded.terminal.id}?q=passed", cookie=cookie)
    assert hits.findall(ax.decode()) == ["3 passed"]


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("workspace=repoB", {"editor"}),
        ("workspace=noru", {"terminal"}),
        ("display=2", {"terminal", "browser"}),
        ("display=1", {"editor", "browser"}),
        ("origin=agent", {"browser"}),
        ("app=XTerm", {"terminal"}),
        ("app=XTerm&origin=agent", set()),
    ],
)
def test_the_timeline_filters_by_app_workspace_display_and_origin(
    console: Console, seeded: Seeded, query: str, shown: set[str]
) -> None:
    cookie = console.sign_in()
    status, _, page = console.request("GET", f"/?{query}", cookie=cookie)
    assert status == 200
    found = {
        name
        for name in ("editor", "terminal", "browser")
        if f'href="/capture/{getattr(seeded, name).id}"' in page.decode()
    }
    assert found == shown
    # The choices offered are the ones history holds, the chosen one selected.
    key, _, value = query.partition("&")[0].partition("=")
    assert re.search(rf'<select name="{key}">.*?<option value="{value}" selected>', page.decode())


def test_the_filters_offer_what_history_holds_after_a_capture_or_a_delete(
    console: Console, seeded: Seeded, home: Path
) -> None:
    from noru.store import NewImage, Store
    from tests.history_data import png, source

    cookie = console.sign_in()

    def apps() -> list[str]:
        _, _, page = console.request("GET", "/", cookie=cookie)
        offered = re.search(r'<select name="app">(.*?)</select>', page.decode())
        assert offered is not None
        return re.findall(r'<option value="([^"]+)"', offered.group(1))

    assert apps() == ["Code", "XTerm"]
    with Store.open(home) as store:
        added = store.add_capture(
            [NewImage(png(320, 200), 320, 200, source("Gimp", "untitled"), "320x200")],
            origin="user",
        )
    assert apps() == ["Code", "Gimp", "XTerm"]  # a new capture's app is offered
    with Store.open(home) as store:
        assert store.delete(seeded.terminal.id)
    assert apps() == ["Code", "Gimp"]  # and a deleted one's is not
    assert added.id


def test_a_note_is_saved_and_a_delete_needs_its_confirmation(
    console: Console, seeded: Seeded, home: Path
) -> None:
    cookie = console.sign_in()
    capture_id = seeded.terminal.id
    status, _, _ = console.request(
        "POST", f"/capture/{capture_id}/note", body={"note": "from the console <b>"},
        headers=SAME, cookie=cookie,
    )  # fmt: skip
    assert status == 303
    _, _, viewer = console.request("GET", f"/capture/{capture_id}", cookie=cookie)
    assert "from the console &lt;b&gt;" in viewer.decode()  # kept, and escaped
    status, _, _ = console.request(
        "POST", f"/capture/{capture_id}/delete", body={}, headers=SAME, cookie=cookie
    )
    assert status == 400
    status, _, _ = console.request(
        "POST", f"/capture/{capture_id}/delete", body={"confirm": "yes"}, headers=SAME,
        cookie=cookie,
    )  # fmt: skip
    assert status == 303
    with Reader.open(home) as reader:
        assert reader.get(capture_id) is None and reader.count() == 2


def test_the_controls_write_the_same_access_state_as_the_cli(
    console: Console, home: Path, tmp_path: Path
) -> None:
    cookie = console.sign_in()
    other = tmp_path / "cli-home"
    other.mkdir(mode=0o700)
    for action in ("allow", "pause", "resume", "revoke", "allow"):
        status, headers, _ = console.request(
            "POST", "/control", body={"action": action, "back": "/"}, headers=SAME,
            cookie=cookie,
        )  # fmt: skip
        assert status == 303 and urlsplit(headers["location"]).path == "/"
        done = subprocess.run(
            [*noru_command(), action], env={**os.environ, "NORU_HOME": str(other)},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        mine, theirs = access.load(home), access.load(other)
        assert (mine.authorized, mine.paused, mine.revoked) == (
            theirs.authorized,
            theirs.paused,
            theirs.revoked,
        ), action
    status, headers, _ = console.request(
        "POST", "/control", body={"action": "pause", "back": "//evil.example/"}, headers=SAME,
        cookie=cookie,
    )  # fmt: skip
    assert status == 303 and urlsplit(headers["location"]).path == "/"  # the console only
    assert headers["location"].startswith("/?")


# --- in a real browser -------------------------------------------------------------------


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium() as started:
        yield started


def test_in_a_browser_sign_in_browse_search_view_note_delete_and_control(
    console: Console, seeded: Seeded, home: Path, browser: Any, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    assert page.url == f"http://{console.host}/"  # the token left the address bar
    assert page.locator(f'a[href="/capture/{seeded.editor.id}"]').count() == 1
    assert "Agents: not allowed yet" in page.inner_text(".state")
    # The keyboard moves through the captures.
    page.keyboard.press("ArrowRight")
    first = page.evaluate("document.activeElement.dataset.capture")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.capture") not in (None, first)

    page.fill("input[name=q]", "frobnicate")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=frobnicate")
    assert page.inner_text("mark").lower() == "frobnicate"

    page.click(f'a[href^="/capture/{seeded.editor.id}"]')
    page.wait_for_selector("figure.shot img")
    assert page.evaluate("document.querySelector('figure.shot img').naturalWidth") == 2560
    assert "the failing build" in page.input_value("textarea[name=note]")
    page.fill("textarea[name=note]", "seen in the browser")
    with page.expect_navigation():
        page.click("text=Save note")
    with Reader.open(home) as reader:
        record = reader.get(seeded.editor.id)
        assert record is not None and record.note == "seen in the browser"

    page.goto(f"http://{console.host}/capture/{seeded.terminal.id}")
    page.check("input[name=confirm]")
    page.click("button:text('Delete')")
    page.wait_for_url(f"http://{console.host}/?done=deleted&n=1")
    assert page.inner_text(".notice") == "Deleted 1 capture, with their text and files."
    with Reader.open(home) as reader:
        assert reader.get(seeded.terminal.id) is None

    for button, expect in (
        ("Allow Agent Observations", (True, False, False)),
        ("Pause Agent Perception", (True, True, False)),
        ("Resume Agent Perception", (True, False, False)),
        ("Revoke Agent Access", (False, False, True)),
        ("Allow Agent Observations", (True, False, False)),
    ):
        with page.expect_navigation():
            page.click(f"button:text('{button}')")
        state = access.load(home)
        assert (state.authorized, state.paused, state.revoked) == expect, button
    assert "Agents: allowed" in page.inner_text(".state")


# --- the privacy pages --------------------------------------------------------------------


def test_the_access_log_page_shows_who_read_a_capture(
    console: Console, seeded: Seeded, home: Path
) -> None:
    from tests.wire import MemoryClient

    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18")
        client.call("get_capture", {"id": seeded.editor.id, "text_only": True})
    finally:
        client.close()
    cookie = console.sign_in()
    _, _, page = console.request("GET", f"/log?capture={seeded.editor.id}", cookie=cookie)
    text = page.decode()
    assert "get_capture" in text and f"/capture/{seeded.editor.id}" in text and "text" in text
    _, _, viewer = console.request("GET", f"/capture/{seeded.editor.id}", cookie=cookie)
    assert "No agent has read this capture" not in viewer.decode()
    _, _, other = console.request("GET", "/log?client=nobody-by-this-name", cookie=cookie)
    assert "get_capture" not in other.decode()
    # By time, as the browser's date-time fields send it (local, to the minute).
    now = datetime.now().replace(second=0, microsecond=0)
    for since, before, found in (
        (now - timedelta(minutes=5), now + timedelta(minutes=5), True),
        (now + timedelta(minutes=5), now + timedelta(minutes=10), False),
        (now - timedelta(minutes=10), now - timedelta(minutes=5), False),
    ):
        span = urlencode({"since": since.isoformat(timespec="minutes"),
                          "before": before.isoformat(timespec="minutes")})  # fmt: skip
        _, _, timed = console.request("GET", f"/log?{span}", cookie=cookie)
        assert ("get_capture" in timed.decode()) is found, (since, before)
    _, _, nonsense = console.request("GET", "/log?since=yesterday-ish", cookie=cookie)
    assert "get_capture" in nonsense.decode()  # a moment it cannot read filters nothing


def test_the_access_log_page_shows_the_http_requests_refused_for_want_of_the_token(
    console: Console, home: Path
) -> None:
    from noru import accesslog

    refused = accesslog.RefusedRequests("2026-12-05T10:00:00Z", "2026-12-05T10:00:41Z", 5, 3, 0)
    accesslog.record_refused(home, refused)
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/log", cookie=cookie)
    text = page.decode()
    assert "refused (http)" in text
    assert (
        "8 HTTP requests refused (401): 5 without the token, 3 with a wrong token"
        " until 2026-12-05T10:00:41Z"
    ) in text


def test_exclusions_are_added_tested_and_removed_as_with_the_cli(
    console: Console, home: Path
) -> None:
    from noru import exclusions

    cookie = console.sign_in()
    status, _, _ = console.request(
        "POST", "/exclusions/add", body={"kind": "title", "pattern": "*Ledger*"},
        headers=SAME, cookie=cookie,
    )  # fmt: skip
    assert status == 303
    assert exclusions.load(home).excludes(None, None, "My Ledger - Vault")
    _, _, page = console.request("GET", "/privacy?title=My+Ledger+-+Vault", cookie=cookie)
    assert "<strong>is excluded</strong>" in page.decode()
    _, _, page = console.request("GET", "/privacy?title=Inbox", cookie=cookie)
    assert "is not excluded" in page.decode() and "History on disk:" in page.decode()
    bad, _, body = console.request(
        "POST", "/exclusions/add", body={"kind": "title", "pattern": "re:("},
        headers=SAME, cookie=cookie,
    )  # fmt: skip
    assert bad == 400 and b"not a regular expression" in body
    console.request(
        "POST", "/exclusions/remove", body={"rule": "title:*Ledger*"}, headers=SAME, cookie=cookie
    )
    console.request(
        "POST", "/exclusions/remove", body={"rule": "builtin:keepassxc"}, headers=SAME,
        cookie=cookie,
    )  # fmt: skip
    current = exclusions.load(home)
    assert current.rules == () and "keepassxc" in current.builtin_off


def test_retention_settings_are_saved_as_noru_retention_saves_them(
    console: Console, home: Path, tmp_path: Path
) -> None:
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/privacy", cookie=cookie)
    assert re.search(r'name="min_free" value="1.0 GB"', page.decode())
    form = {"keep_days": "30", "max_disk": "5gb", "min_free": "1.0 GB"}  # min_free as shown
    status, _, _ = console.request("POST", "/retention", body=form, headers=SAME, cookie=cookie)
    assert status == 303
    other = tmp_path / "cli-home"
    other.mkdir(mode=0o700)
    done = subprocess.run(
        [*noru_command(), "retention", "--keep-days", "30", "--max-disk", "5gb"],
        env={**os.environ, "NORU_HOME": str(other)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    saved = (home / "config.toml").read_bytes()
    assert saved == (other / "config.toml").read_bytes()  # the same file, byte for byte
    assert b"min_free" not in saved  # left as shown: still the default
    _, _, page = console.request("GET", "/privacy", cookie=cookie)
    assert 'name="max_disk" value="5.0 GB"' in page.decode()
    # A value it cannot use: refused with the reason, nothing written.
    bad, _, body = console.request(
        "POST", "/retention", body={**form, "max_disk": "lots"}, headers=SAME, cookie=cookie
    )
    assert bad == 400 and b"max_disk" in body and b"not a size" in body
    assert (home / "config.toml").read_bytes() == saved
    # A config.toml that does not parse is left as it is.
    (home / "config.toml").write_text("keep_days = [\n")
    damaged, _, body = console.request(
        "POST", "/retention", body={**form, "keep_days": "7"}, headers=SAME, cookie=cookie
    )
    assert damaged == 409 and b"does not parse" in body
    assert (home / "config.toml").read_text() == "keep_days = [\n"


def test_a_time_range_is_counted_then_deleted_only_with_that_count(
    console: Console, seeded: Seeded, home: Path
) -> None:
    cookie = console.sign_in()
    # The terminal's capture, 30 minutes old, alone between 31 and 20 minutes ago.
    start = seeded.terminal.captured_at.astimezone().replace(tzinfo=None)
    since = (start - timedelta(minutes=1)).isoformat(timespec="seconds")
    before = (start + timedelta(minutes=10)).isoformat(timespec="seconds")
    query = urlencode({"since": since, "before": before})
    _, _, page = console.request("GET", f"/delete-range?{query}", cookie=cookie)
    assert "1 capture in that range" in page.decode()
    stale, _, _ = console.request(
        "POST", "/delete-range", body={"since": since, "before": before, "confirm": "2"},
        headers=SAME, cookie=cookie,
    )  # fmt: skip
    assert stale == 409
    done, _, _ = console.request(
        "POST", "/delete-range", body={"since": since, "before": before, "confirm": "1"},
        headers=SAME, cookie=cookie,
    )  # fmt: skip
    assert done == 303
    with Reader.open(home) as reader:
        assert reader.get(seeded.terminal.id) is None and reader.count() == 2


def test_in_a_browser_the_viewer_zooms_boxes_the_hit_and_shows_a_chosen_line(
    console: Console, seeded: Seeded, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    page.goto(f"http://{console.host}/search?q=frobnicate")
    page.click(f'a[href^="/capture/{seeded.editor.id}"]')
    page.wait_for_selector("figure.shot img")
    hit = page.locator(".boxes rect.hit")
    assert hit.count() == 1
    fitted = page.evaluate("document.querySelector('figure.shot img').clientWidth")
    assert fitted < 1280  # fitted to the page
    page.click("button.zoom")
    assert page.evaluate("document.querySelector('figure.shot img').clientWidth") == 2560
    assert page.get_attribute("button.zoom", "aria-pressed") == "true"
    hit.dispatch_event("click")
    assert page.inner_text("output.line") == "ModuleNotFoundError: No module named 'frobnicate'"
    page.click("button.zoom")
    assert page.evaluate("document.querySelector('figure.shot img').clientWidth") == fitted


def test_in_a_browser_older_captures_load_as_the_timeline_scrolls(
    console: Console, seeded: Seeded, home: Path, browser: Any
) -> None:
    from noru.store import NewImage, Store
    from tests.history_data import NOW, png, source

    small = png(320, 200)
    with Store.open(home) as store:
        for n in range(130):  # 20 s apart: pages of 60 end inside an hour
            store.add_capture(
                [NewImage(small, 320, 200, source("Tk", f"window {n}"), "320x200")],
                origin="user",
                captured_at=NOW - timedelta(minutes=40, seconds=20 * n),
            )
    with Reader.open(home) as reader:
        every, _ = reader.list_rows(Filters(), limit=1000)
    assert len(every) == 133
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    assert page.locator("a.card").count() == 60
    for _ in range(40):
        if page.locator("main p.more").count() == 0:
            break
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(100)
    shown = page.eval_on_selector_all("a.card", "cards => cards.map(c => c.dataset.capture)")
    assert shown == [row.id for row in every]  # all of them, once, newest first
    headings = page.eval_on_selector_all("main h2", "hs => hs.map(h => h.textContent)")
    assert len(headings) == len(set(headings))  # an hour split by a page is one group


# --- real captures --------------------------------------------------------------------------

XTERM_LINES = [
    "$ make reconcile",
    "Quartermaster ledger reconciliation finished",
    "  warehouse 7 balanced",
    "  warehouse 9 balanced",
    "  archive rotated",
    "Hippopotamus migration completed without errors",
    "$ ",
]


def _boxes(page: Any) -> list[tuple[str, float]]:
    """The viewer's boxed hits: each line's text and its top (image pixels)."""
    return [
        (text, float(y))
        for text, y in page.eval_on_selector_all(
            ".boxes rect.hit",
            "rs => rs.map(r => [r.querySelector('title').textContent, r.getAttribute('y')])",
        )
    ]


def test_in_a_browser_a_real_xterm_capture_is_found_and_its_lines_boxed_where_they_are(
    home: Path, desktop: Any, browser: Any, tmp_path: Path
) -> None:
    """Real parts end to end: xterm draws known text on Xvfb, `noru app` takes
    the captures `noru capture` asks for and reads them with the real engine;
    the console finds a word and boxes its line where xterm drew it."""
    from tests import real_clients, real_terminals
    from tests.app_process import running_app, wait_until

    for kind in ("xterm", "tk"):
        problem = real_terminals.missing_any(kind)
        require(problem is None, problem or "")
    rows = 12
    env = {**desktop.env, "NORU_HOME": str(home)}
    with (
        real_terminals.open_xterm(desktop, XTERM_LINES, columns=80, rows=rows, x=80, y=80) as xterm,
        real_clients.open_tk_text(
            desktop,
            ["Meridian shipment report", "All crates counted and sealed."],
            size=12,
            x=900,
            y=80,
            width=700,
            height=300,
        ) as tk,  # fmt: skip
        running_app(home, desktop.env, tmp_path / "app.log"),
    ):
        taken = []
        for client, args in ((tk, []), (xterm, ["--display", "1"]), (xterm, [])):
            client.bring_under_pointer()
            done = subprocess.run(
                [*noru_command(), "capture", *args], env=env, capture_output=True, text=True,
                timeout=60,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            taken.append(done.stdout.split()[-1])

        def read() -> bool:
            with Reader.open(home) as reader:
                return all((r := reader.get(i)) and r.ocr_state == "done" for i in taken)

        wait_until(read, "the captures' text")
    window = taken[-1]
    shots = Path(os.environ.get("NORU_CONSOLE_SHOTS", tmp_path))
    with running_console(home) as console:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"http://{console.host}/signin?token={console.token}")
        assert page.locator("a.card").count() == 3
        for _ in range(100):  # the thumbnails drawn (the page's policy forbids eval)
            if page.evaluate("Array.from(document.images).every(i => i.complete)"):
                break
            page.wait_for_timeout(100)
        page.screenshot(path=str(shots / "timeline.png"))
        page.goto(f"http://{console.host}/search?q=hippopotamus")
        assert {"Hippopotamus"} <= set(page.locator("mark").all_inner_texts())
        assert page.locator(f'a[href^="/capture/{window}"]').count() == 1
        page.screenshot(path=str(shots / "search.png"))
        page.click(f'a[href^="/capture/{window}"]')
        page.wait_for_selector("figure.shot img")
        ((late_text, late),) = _boxes(page)
        assert "Hippopotamus" in late_text
        page.screenshot(path=str(shots / "viewer.png"))
        page.goto(f"http://{console.host}/capture/{window}?q=quartermaster")
        ((early_text, early),) = _boxes(page)
        assert "Quartermaster" in early_text
    # xterm drew the two lines four rows apart; the boxes say the same.
    row = xterm.rect[3] / rows
    assert abs((late - early) - 4 * row) < row / 2, (early, late, row)


def test_the_viewer_marks_what_agents_get_redacted(
    console: Console, seeded: Seeded, home: Path
) -> None:
    key = "AKIA" + "QX7ZL2M4N6P8R3T5"
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(800, 200), 800, 200, source("XTerm", "env - xterm"))], origin="user"
        )
        line = OcrLine(f"AWS_ACCESS_KEY_ID={key}", (10, 20, 380, 20), 0.95)
        store.set_ocr(record.id, engine="tesseract", lines_per_image=[[line]])
    cookie = console.sign_in()
    _, _, page = console.request("GET", f"/capture/{record.id}", cookie=cookie)
    text = page.decode()
    assert key in text  # the person's copy, as taken
    assert "Redacted for agents (1: aws-key)" in text
    assert "AWS_ACCESS_KEY_ID=[redacted: aws-key]" in text
    assert re.search(r'<rect x="\d+" y="20" width="\d+" height="20" class="redacted">', text)
    _, _, held = console.request("GET", f"/capture/{seeded.terminal.id}", cookie=cookie)
    assert "Agents get none of this capture's pixels or text yet" in held.decode()
