"""The console as a memory browser (issue 39, item 5), against a real `noru
console` over real sockets and in Debian's Chromium: status words that agree
with `noru status`, feedback after every button, a capture's neighbours and
the arrow keys, search with its query, count and filters, thumbnails that
fill their card, the strip of days, bulk select and "delete the last ...",
every page light and dark at two widths, and axe-core's check."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from PIL import Image, ImageDraw, ImageStat

from noru import access
from noru.store import NewImage, Reader, Store
from tests.console_process import (
    CONTRAST,
    SAME,
    Console,
    add,
    agent_read,
    axe_page,
    axe_script,
    read_then_paused,
    serious_violations,
    signed_in,
)
from tests.history_data import NOW, Seeded, png, source
from tests.test_console import (
    browser,  # noqa: F401 (a fixture)
    console,  # noqa: F401 (a fixture)
    seeded,  # noqa: F401 (a fixture)
)
from tests.wire import noru_command


def cookie_of(page: Any) -> str:
    """The session cookie the browser was given (the link signs in once)."""
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "noru_console"]
    return f"noru_console={cookie['value']}"


def png_of(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- the state bar and feedback --------------------------------------------------------------


def test_the_state_bar_says_what_noru_status_says(
    console: Console,  # noqa: F811
    home: Path,
) -> None:
    access.set_control(home, "allow")  # allowed, but no app runs: live requests are refused
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/", cookie=cookie)
    bar = re.search(r'<div class="state" role="status">(.*?)</div>', page.decode())
    assert bar is not None
    said = [re.sub(r"<[^>]+>", "", s) for s in re.findall(r"<span[^>]*>.*?</span>", bar.group(1))]
    shown = [s.replace("&#39;", "'").replace("&#96;", "`") for s in said]
    done = subprocess.run(
        [*noru_command(), "status"], env={**os.environ, "NORU_HOME": str(home)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    for start in ("Live requests now:", "History now:", "App running:"):
        (line,) = [s for s in lines if s.startswith(start)]
        assert line in shown, (line, shown)
    assert any(
        s.startswith("Live requests now: refused (the Noru app is not running") for s in shown
    )
    assert not [s for s in shown if s.startswith("Live looks")]


def test_the_favicon_is_served_and_linked(console: Console) -> None:  # noqa: F811
    status, headers, icon = console.request("GET", "/favicon.ico")  # browsers ask, cookie or not
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    assert icon.startswith(b"<svg")
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/", cookie=cookie)
    assert '<link rel="icon" href="/static/favicon.svg"' in page.decode()
    assert console.request("GET", "/static/favicon.svg")[0] == 200


def test_in_a_browser_every_button_says_what_it_did(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
    browser: Any,  # noqa: F811
) -> None:
    page = signed_in(browser, console)
    assert page.locator(".notice").count() == 0
    for button, words in (
        ("Allow Agent Observations", "Agent observations allowed: agents may look"),
        ("Pause Agent Perception", "Agent perception paused"),
        ("Allow Agent Observations", "still paused"),  # Allow while paused: why nothing changed
        ("Resume Agent Perception", "Agent perception resumed"),
        ("Revoke Agent Access", "Agent access revoked"),
    ):
        with page.expect_navigation():
            page.click(f"button:text('{button}')")
        assert words in page.inner_text(".notice"), button
    page.goto(f"http://{console.host}/capture/{seeded.editor.id}")
    page.fill("textarea[name=note]", "noticed")
    with page.expect_navigation():
        page.click("text=Save note")
    assert page.inner_text(".notice") == "Note saved."
    page.goto(f"http://{console.host}/privacy")
    page.fill("input[name=pattern]", "*Vault*")
    with page.expect_navigation():
        page.click("button:text('Exclude')")
    assert "Exclusion added" in page.inner_text(".notice")
    with page.expect_navigation():
        page.click("button:text('Prune now')")
    assert page.inner_text(".notice") == "Pruned: 0 captures deleted."


# --- moving through history ----------------------------------------------------------------


def test_a_capture_links_its_neighbours_and_the_arrow_keys_follow_them(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
    browser: Any,  # noqa: F811
) -> None:
    # Two captures in one second: ordered as the timeline orders them.
    twin = add(home, png(320, 200), (320, 200), seeded.terminal.captured_at)
    with Reader.open(home) as reader:
        from noru.store import Filters

        order = [row.id for row in reader.list_rows(Filters(), limit=10)[0]]
    assert len(order) == 4
    page = signed_in(browser, console)
    cookie = cookie_of(page)
    for n, capture_id in enumerate(order):
        _, _, body = console.request("GET", f"/capture/{capture_id}", cookie=cookie)
        text = body.decode()
        newer = re.search(r'<a href="/capture/([^"]+)" rel="prev"', text)
        older = re.search(r'<a href="/capture/([^"]+)" rel="next"', text)
        assert (newer.group(1) if newer else None) == (order[n - 1] if n else None)
        assert (older.group(1) if older else None) == (order[n + 1] if n < 3 else None)
    assert twin in order
    page.goto(f"http://{console.host}/capture/{order[1]}")
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    assert page.url.endswith(f"/capture/{order[2]}")
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    assert page.url.endswith(f"/capture/{order[0]}")
    # Typing a note moves the cursor, not the page.
    page.focus("textarea[name=note]")
    page.keyboard.press("ArrowRight")
    assert page.url.endswith(f"/capture/{order[0]}")


def test_search_keeps_its_query_counts_and_takes_the_timeline_filters(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
) -> None:
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/search?q=frobnicate", cookie=cookie)
    text = page.decode()
    assert re.search(r'<input name="q" type="search" value="frobnicate"', text)
    assert "1 capture matches “frobnicate”" in text
    for name in ("app", "workspace", "display", "origin"):
        assert f'<select name="{name}">' in text
    _, _, mine = console.request("GET", "/search?q=frobnicate&origin=user", cookie=cookie)
    assert f"/capture/{seeded.editor.id}" in mine.decode()
    assert '<option value="user" selected>' in mine.decode()
    _, _, theirs = console.request("GET", "/search?q=frobnicate&origin=agent", cookie=cookie)
    assert f"/capture/{seeded.editor.id}" not in theirs.decode()
    assert "Nothing matches “frobnicate” with these filters" in theirs.decode()


def test_search_counts_beyond_a_page(console: Console, home: Path) -> None:  # noqa: F811
    from noru.store import OcrLine

    with Store.open(home) as store:
        for n in range(25):
            record = store.add_capture(
                [NewImage(png(64, 48), 64, 48, source("Tk", f"w{n}"))],
                origin="user",
                captured_at=NOW - timedelta(minutes=n + 1),
            )
            store.set_ocr(
                record.id, engine="tesseract",
                lines_per_image=[[OcrLine("zeppelin report", (1, 1, 30, 10), 0.9)]],
            )  # fmt: skip
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/search?q=zeppelin", cookie=cookie)
    assert "25 captures match “zeppelin”" in page.decode()
    assert page.decode().count('class="hit"') == 20


def test_thumbnails_fill_their_card_with_the_content(
    console: Console,  # noqa: F811
    home: Path,
) -> None:
    tall = add(home, png(400, 1000), (400, 1000), NOW - timedelta(minutes=1))
    margin = Image.new("RGB", (1600, 1000), (250, 250, 250))
    ImageDraw.Draw(margin).rectangle((600, 375, 999, 624), fill=(10, 10, 10))  # a dark window
    lone = add(home, png_of(margin), (1600, 1000), NOW - timedelta(minutes=2))
    line = Image.new("RGB", (700, 300), (255, 255, 255))
    ImageDraw.Draw(line).rectangle((5, 5, 399, 44), fill=(0, 0, 0))  # one line of text, say
    short = add(home, png_of(line), (700, 300), NOW - timedelta(minutes=3))
    cookie = console.sign_in()
    _, _, data = console.request("GET", f"/thumb/{short}", cookie=cookie)
    with Image.open(io.BytesIO(data)) as thumb:
        grey = thumb.convert("L")
        # The whole line, across the top, not magnified into the card.
        assert grey.getpixel((4, 15)) < 60 and grey.getpixel((235, 15)) < 60
        assert grey.getpixel((120, 140)) > 200
    for capture_id in (tall, lone):
        _, _, data = console.request("GET", f"/thumb/{capture_id}", cookie=cookie)
        with Image.open(io.BytesIO(data)) as thumb:
            assert thumb.size == (240, 150), capture_id  # no letterbox
            if capture_id == lone:  # the empty margin cut off: the window fills it
                assert ImageStat.Stat(thumb.convert("L")).mean[0] < 60


def test_the_day_strip_counts_days_and_leads_to_one(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
) -> None:
    today = seeded.browser.captured_at.astimezone().date()
    for days, count in ((2, 3), (5, 1)):
        for n in range(count):
            moment = (NOW - timedelta(days=days)).astimezone().replace(hour=12, minute=n)
            add(home, png(64, 48), (64, 48), moment)
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/", cookie=cookie)
    strip = re.search(r'<nav class="days"[^>]*>(.*?)</nav>', page.decode(), re.S)
    assert strip is not None
    links = re.findall(
        r'<a href="([^"]+)"[^>]*><span>[^<]+</span><span class="count">([^<]+)<', strip.group(1)
    )
    counts = [c for _, c in links]
    assert counts[-2:] == ["3 captures", "1 capture"]  # newest first, no empty day
    seeded_today = sum(
        1 for c in (seeded.editor, seeded.terminal, seeded.browser)
        if c.captured_at.astimezone().date() == today
    )  # fmt: skip
    assert counts[0] == f"{seeded_today} capture{'s' if seeded_today != 1 else ''}"
    day = (NOW - timedelta(days=2)).astimezone().date().isoformat()
    link = next(href for href, _ in links if day in href).replace("&amp;", "&")
    _, _, one = console.request("GET", link, cookie=cookie)
    assert one.decode().count('class="card"') == 3
    assert 'aria-current="date"' in one.decode()


def test_the_scrubber_counts_a_days_hours_and_leads_into_one(
    console: Console,  # noqa: F811
    home: Path,
) -> None:
    day = (NOW - timedelta(days=3)).astimezone().date()
    base = datetime(day.year, day.month, day.day).astimezone()
    for hour, minute in ((9, 10), (9, 20), (14, 0), (14, 10), (14, 20)):
        add(home, png(64, 48), (64, 48), base + timedelta(hours=hour, minutes=minute))
    cookie = console.sign_in()
    _, _, page = console.request("GET", f"/?day={day.isoformat()}", cookie=cookie)
    bar = re.search(r'<nav class="scrubber"[^>]*>(.*?)</nav>', page.decode(), re.S)
    assert bar is not None
    hours = re.findall(r'<a href="([^"]+)" class="level-(\d)"[^>]* title="([^"]+)"', bar.group(1))
    assert len(hours) == 24
    said = {title: int(level) for _, level, title in hours}
    assert said["09:00: 2 captures"] > 0 and said["14:00: 3 captures"] == 4
    assert said["10:00: 0 captures"] == 0
    link = {title: href for href, _, title in hours}
    _, _, nine = console.request(
        "GET", link["09:00: 2 captures"].replace("&amp;", "&"), cookie=cookie
    )
    assert nine.decode().count('class="card"') == 2  # the day up to 10:00, newest first
    assert 'aria-current="time"' in nine.decode()
    _, _, two = console.request(
        "GET", link["14:00: 3 captures"].replace("&amp;", "&"), cookie=cookie
    )
    times = re.findall(r'<span class="when">([^<]+)</span>', two.decode())
    assert times == ["14:20:00", "14:10:00", "14:00:00", "09:20:00", "09:10:00"]


# --- deleting ------------------------------------------------------------------------------


def test_selected_captures_are_shown_then_deleted_with_their_count(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
) -> None:
    cookie = console.sign_in()
    chosen = [seeded.editor.id, seeded.browser.id]
    form = urlencode([("id", i) for i in chosen])

    def post(extra: str) -> tuple[int, dict[str, str], bytes]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", console.port, timeout=30)
        try:
            conn.request(
                "POST", "/delete-selected", body=(form + extra).encode(),
                headers={"Host": console.host, "Cookie": cookie, **SAME,
                         "Content-Type": "application/x-www-form-urlencoded"},
            )  # fmt: skip
            answer = conn.getresponse()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        finally:
            conn.close()

    status, _, preview = post("")
    assert status == 200 and "2 captures selected" in preview.decode()
    assert all(f'src="/thumb/{i}"' in preview.decode() for i in chosen)
    assert post("&confirm=1")[0] == 200  # not the count shown: shown again, nothing deleted
    with Reader.open(home) as reader:
        assert reader.count() == 3
    status, headers, _ = post("&confirm=2")
    assert status == 303 and "done=deleted&n=2" in headers["location"]
    with Reader.open(home) as reader:
        assert [reader.get(i) for i in chosen] == [None, None] and reader.count() == 1


def test_in_a_browser_ticked_cards_are_deleted_after_the_preview(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
    browser: Any,  # noqa: F811
) -> None:
    page = signed_in(browser, console)
    page.check(f'input[form="bulk"][value="{seeded.terminal.id}"]')
    page.check(f'input[form="bulk"][value="{seeded.browser.id}"]')
    assert page.inner_text("#bulk button") == "Delete 2 selected…"
    with page.expect_navigation():
        page.click("#bulk button")
    assert "2 captures selected" in page.inner_text("main")
    page.check("input[name=confirm]")
    with page.expect_navigation():
        page.click("button:text('Delete')")
    assert page.inner_text(".notice").startswith("Deleted 2 captures")
    with Reader.open(home) as reader:
        assert reader.count() == 1 and reader.get(seeded.editor.id) is not None


def test_the_last_fifteen_minutes_are_previewed_then_deleted(
    console: Console,  # noqa: F811
    seeded: Seeded,  # noqa: F811
    home: Path,
    browser: Any,  # noqa: F811
) -> None:
    # The agent's capture is 5 minutes old, the terminal's 30: only the first goes.
    page = signed_in(browser, console)
    with page.expect_navigation():
        page.click("a:text('15 minutes')")
    assert "1 capture in that range" in page.inner_text("main")
    shown = page.eval_on_selector_all("main .grid a.card", "cs => cs.map(c => c.href)")
    assert [s.rsplit("/", 1)[1] for s in shown] == [seeded.browser.id]
    page.check("input[name=confirm]")
    with page.expect_navigation():
        page.click("button:text('Delete')")
    assert page.inner_text(".notice").startswith("Deleted 1 capture")
    with Reader.open(home) as reader:
        assert reader.get(seeded.browser.id) is None and reader.count() == 2
    for last, word in (("1h", "1 capture"), ("1d", "2 captures")):
        page.goto(f"http://{console.host}/delete-range?last={last}")
        assert f"{word} in that range" in page.inner_text("main")
    with Reader.open(home) as reader:
        assert reader.count() == 2  # a preview deletes nothing


# --- every page, light and dark, narrow and wide; axe-core --------------------------------------


@pytest.fixture
def pages(console: Console, seeded: Seeded, home: Path) -> list[str]:  # noqa: F811
    read_then_paused(home, seeded.editor.id)
    return [
        "/",
        "/?done=allow-paused",
        "/search?q=frobnicate",
        f"/capture/{seeded.editor.id}?q=frobnicate",
        f"/capture/{seeded.terminal.id}",
        "/log",
        "/privacy?title=My+Ledger",
        "/delete-range?last=1d",
        "/capture/capture_2026-01-01_000000",
    ]


@pytest.mark.parametrize("width", [1280, 420])
def test_in_a_browser_every_page_light_and_dark_at_two_widths(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    pages: list[str],
    width: int,
    tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("NORU_CONSOLE_SHOTS", tmp_path))
    # docs/console.md's (the timeline, search and capture: tests/test_console.py's real ones)
    shot = {"/log": "log.png", "/privacy?title=My+Ledger": "privacy.png"}
    shot["/delete-range?last=1d"] = "delete-range.png"
    page = signed_in(browser, console, viewport={"width": width, "height": 900})
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for path in pages:
            page.goto(f"http://{console.host}{path}")
            if width == 1280 and scheme == "light" and path in shot:
                page.screenshot(path=str(shots / shot[path]), full_page=True)
            assert not page.title().startswith("Something went wrong"), path
            result = page.evaluate(CONTRAST)
            assert result["checked"] >= 5, (scheme, path)
            assert result["failures"] == [], (scheme, width, path)
            assert result["noAlt"] == [], (scheme, path)
            ground = page.evaluate("getComputedStyle(document.body).backgroundColor")
            dark = sum(int(v) for v in re.findall(r"\d+", ground)[:3]) < 3 * 64
            assert dark is (scheme == "dark"), (scheme, path, ground)
            # Nothing wider than the window but what scrolls in its own box.
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (scheme, width, path, wide)
        if width == 1280 and scheme == "dark":  # docs/console.md's (light: tests/test_console.py)
            page.goto(f"http://{console.host}/")
            page.screenshot(path=str(shots / "timeline-dark.png"))
    # The check sees a failure: pale grey on white is 1.8:1.
    page.emulate_media(color_scheme="light")
    page.evaluate("document.querySelector('h1').style.color = '#c0c0c0'")
    assert [f for f in page.evaluate(CONTRAST)["failures"] if f.startswith("H1")]


def test_in_a_browser_axe_finds_no_serious_violation_on_any_page(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    pages: list[str],
) -> None:
    axe = axe_script()
    with axe_page(browser, console) as page:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for path in pages:
                page.goto(f"http://{console.host}{path}")
                assert not page.title().startswith("Something went wrong"), path
                serious = serious_violations(page, axe)
                assert serious == [], (scheme, path, json.dumps(serious)[:2000])


# What Tab reaches on a page: each element focused in turn, whether it is
# what the page would let a person act on, whether it shows a focus ring,
# and where it lies.
TAB_WALK = """
(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const ring = (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0)
    || style.boxShadow !== "none";
  return {
    at: Array.prototype.indexOf.call(document.querySelectorAll("*"), el),
    tag: el.tagName, name: el.getAttribute("name") || el.textContent.trim().slice(0, 30),
    ring: ring, visible: box.width > 0 && box.height > 0,
    interactive: el.matches("a[href], button, input, select, textarea, summary, [tabindex]"),
  };
})()
"""


def test_from_the_keyboard_tab_reaches_every_control_each_with_a_focus_ring(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    pages: list[str],
) -> None:
    """Keyboard navigation (issue 39, item 5): on every page Tab walks the
    controls one after another, each one a person can see and act on, each
    showing where the focus is; and Tab goes on past the last one rather
    than being held in one place."""
    page = signed_in(browser, console, viewport={"width": 1280, "height": 900})
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for path in pages:
            page.goto(f"http://{console.host}{path}")
            controls = page.evaluate(
                "document.querySelectorAll('a[href], button, input:not([type=hidden]),"
                " select, textarea').length"
            )
            seen = []
            for _ in range(min(controls, 40)):
                page.keyboard.press("Tab")
                focused = page.evaluate(TAB_WALK)
                if focused is None or (seen and focused["at"] == seen[0]["at"]):
                    break  # past the page's last control, or round to its first
                seen.append(focused)
            assert seen, (scheme, path)
            for focused in seen:
                assert focused["interactive"], (scheme, path, focused)
                assert focused["visible"], (scheme, path, focused)
                assert focused["ring"], (scheme, path, focused)
            # Focus moves on at every press: no control holds it, none comes
            # twice before the walk is round.
            # (A date's day, month and year are one input, one press each.)
            places = [f["at"] for n, f in enumerate(seen) if not n or f["at"] != seen[n - 1]["at"]]
            assert len(set(places)) == len(places), (scheme, path, places)


# --- settings ------------------------------------------------------------------------------


def test_redaction_categories_are_set_and_turning_one_off_asks_first(
    console: Console,  # noqa: F811
    home: Path,
) -> None:
    from noru.config import load_config
    from noru.store import OcrLine

    address = "ada.lovelace@example.org"
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(800, 200), 800, 200, source("Thunderbird", "Inbox"))], origin="user"
        )
        store.set_ocr(
            record.id, engine="tesseract",
            lines_per_image=[[OcrLine(f"From: {address}", (10, 20, 380, 20), 0.95)]],
        )  # fmt: skip
    assert address in agent_read(home, record.id)  # emails are not redacted by default
    cookie = console.sign_in()
    _, _, page = console.request("GET", "/privacy", cookie=cookie)
    boxes = re.findall(r'name="category" value="(\w+)"( checked)?', page.decode())
    assert boxes == [("secrets", " checked"), ("cards", " checked"), ("emails", ""), ("phones", "")]

    def save(*categories: str, confirm: str | None = None) -> tuple[int, dict[str, str], bytes]:
        import http.client

        form = [("category", c) for c in categories] + ([("confirm", confirm)] if confirm else [])
        conn = http.client.HTTPConnection("127.0.0.1", console.port, timeout=30)
        try:
            conn.request(
                "POST", "/redaction", body=urlencode(form).encode(),
                headers={"Host": console.host, "Cookie": cookie, **SAME,
                         "Content-Type": "application/x-www-form-urlencoded"},
            )  # fmt: skip
            answer = conn.getresponse()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        finally:
            conn.close()

    status, headers, _ = save("secrets", "cards", "emails")
    assert status == 303 and "done=redaction" in headers["location"]
    assert load_config(home).redact == ("secrets", "cards", "emails")
    assert address not in agent_read(home, record.id)  # the next request is under it
    # Turning redaction off asks first, and changes nothing until confirmed.
    status, _, ask = save()
    assert status == 409 and "Yes, stop redacting secrets, cards, emails" in ask.decode()
    assert "keys, tokens and passwords and payment card numbers and email addresses" in (
        ask.decode()
    )
    assert load_config(home).redact == ("secrets", "cards", "emails")
    assert save(confirm="yes")[0] == 303
    assert load_config(home).redact == ()
    assert b"redact = []" in (home / "config.toml").read_bytes()
    assert address in agent_read(home, record.id)
    # Turning one on asks nothing; an unknown one is refused with the reason.
    assert save("phones")[0] == 303 and load_config(home).redact == ("phones",)
    bad, _, body = save("phones", "passports")
    assert bad == 400 and b"unknown category: passports" in body
    assert load_config(home).redact == ("phones",)
