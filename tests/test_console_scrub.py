"""The scrubber's live preview (issue 39, item 5; Recall's timeline does
this): dragging through a day's hours previews the capture nearest the
pointer's time, and the slider under the bars does the same from the
keyboard; in Debian's Chromium against a real `noru console`, with
axe-core's check of the page while the preview shows."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.console_process import Console, add, axe_page, axe_script, serious_violations
from tests.history_data import NOW, png
from tests.test_console import (
    browser,  # noqa: F401 (a fixture)
    console,  # noqa: F401 (a fixture)
    seeded,  # noqa: F401 (a fixture)
)

# (hour, minute) of the captures of the day scrubbed, three days ago.
TAKEN = ((9, 10), (9, 20), (14, 0), (14, 10), (14, 20))


@pytest.fixture
def day(home: Path, console: Console) -> tuple[str, dict[str, str]]:  # noqa: F811
    """The day's date, and its captures' ids by their time."""
    when = (NOW - timedelta(days=3)).astimezone().date()
    start = datetime(when.year, when.month, when.day).astimezone()
    ids = {}
    for hour, minute in TAKEN:
        at = start + timedelta(hours=hour, minutes=minute)
        ids[f"{hour:02d}:{minute:02d}:00"] = add(
            home, png(64, 48), (64, 48), at, title=f"at {hour:02d}:{minute:02d}"
        )
    return when.isoformat(), ids


def test_the_nearest_capture_is_found_for_a_moment_of_the_day(
    console: Console,  # noqa: F811
    day: tuple[str, dict[str, str]],
) -> None:
    date, ids = day
    cookie = console.sign_in()

    def nearest(second: int, toward: str = "near", **filters: str) -> dict[str, Any]:
        query = "&".join(f"{k}={v}" for k, v in filters.items())
        status, headers, body = console.request(
            "GET", f"/scrub?day={date}&second={second}&toward={toward}&{query}", cookie=cookie
        )
        assert status == 200 and headers["content-type"] == "application/json"
        found: dict[str, Any] = json.loads(body)
        return found

    at = 9 * 3600 + 16 * 60  # 09:16: 09:20 is nearer than 09:10
    assert nearest(at)["id"] == ids["09:20:00"]
    assert nearest(at)["time"] == "09:20:00" and nearest(at)["second"] == 9 * 3600 + 20 * 60
    assert "at 09:20" in nearest(at)["alt"]
    assert nearest(9 * 3600 + 15 * 60)["id"] == ids["09:10:00"]  # a tie: the earlier
    assert nearest(0)["id"] == ids["09:10:00"] and nearest(86399)["id"] == ids["14:20:00"]
    ten = 14 * 3600 + 10 * 60
    assert nearest(ten, "later")["id"] == ids["14:20:00"]
    assert nearest(ten, "earlier")["id"] == ids["14:00:00"]
    assert nearest(14 * 3600 + 20 * 60, "later") == {"id": None}  # the day's last
    assert nearest(at, app="Nothing")["id"] is None  # the timeline's filters apply
    for wrong in ("second=86400", "second=-1", "second=x", "second=5&toward=up", ""):
        status, _, body = console.request("GET", f"/scrub?day={date}&{wrong}", cookie=cookie)
        assert status == 400 and b"give day=YYYY-MM-DD" in body, wrong
    assert console.request("GET", "/scrub?second=5")[0] == 403  # signed in only


def _x(page: Any, hour: int, minute: float) -> tuple[float, float]:
    """Where the pointer is at ``hour``:``minute`` over the scrubber's bars."""
    box = page.locator("nav.scrubber a").nth(hour).bounding_box()
    return box["x"] + box["width"] * minute / 60, box["y"] + box["height"] / 2


def test_in_a_browser_dragging_the_scrubber_previews_the_nearest_capture(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    day: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    date, ids = day
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    page.goto(f"http://{console.host}/?day={date}")
    shown = page.url
    peek = page.locator(".scrub a.peek")
    assert peek.is_hidden()
    page.mouse.move(*_x(page, 9, 5))
    page.mouse.down()
    page.mouse.move(*_x(page, 9, 19), steps=5)  # still held: the preview follows
    expect(peek.locator(".when")).to_have_text("09:20:00")
    assert peek.get_attribute("href") == f"/capture/{ids['09:20:00']}"
    assert peek.locator("img").get_attribute("src") == f"/thumb/{ids['09:20:00']}"
    assert "at 09:20" in (peek.locator("img").get_attribute("alt") or "")
    page.mouse.move(*_x(page, 14, 12), steps=10)
    expect(peek.locator(".when")).to_have_text("14:10:00")
    page.mouse.up()
    assert page.url == shown  # a drag is not a click on the hour it ends over
    assert peek.is_visible()
    shots = Path(os.environ.get("NORU_CONSOLE_SHOTS", tmp_path))
    top = {"x": 0, "y": 0, "width": 1280, "height": 720}  # docs/console.md's
    page.screenshot(path=str(shots / "scrub.png"), clip=top)
    slider = page.locator(".scrub [role=slider]")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "slider"
    assert slider.get_attribute("aria-valuenow") == str(14 * 3600 + 10 * 60)
    assert (slider.get_attribute("aria-valuetext") or "").startswith("14:10:00, ")

    def after(key: str, time: str) -> None:
        page.keyboard.press(key)
        expect(slider).to_have_attribute("aria-valuetext", re.compile(f"^{time}, "))

    # From the keyboard: capture to capture, the day's first and last, an hour.
    after("ArrowRight", "14:20:00")
    after("ArrowLeft", "14:10:00")
    after("ArrowLeft", "14:00:00")
    after("Home", "09:10:00")
    after("ArrowRight", "09:20:00")
    after("PageUp", "09:20:00")  # 10:20: 09:20 is nearer than 14:00
    after("End", "14:20:00")
    after("PageDown", "14:00:00")  # 13:20: 14:00 is the nearest
    assert peek.locator(".when").inner_text() == "14:00:00"
    page.keyboard.press("Escape")
    assert peek.is_hidden()
    page.keyboard.press("End")
    expect(peek).to_be_visible()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(f"/capture/{ids['14:20:00']}$"))
    # Without a drag, a bar is still a link into its hour.
    page.goto(f"http://{console.host}/?day={date}")
    page.mouse.click(*_x(page, 9, 30))
    page.wait_for_url(re.compile(r"hour=09"))


def test_in_a_browser_axe_finds_no_serious_violation_while_the_preview_shows(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    day: tuple[str, dict[str, str]],
) -> None:
    from playwright.sync_api import expect

    date, _ = day
    axe = axe_script()
    with axe_page(browser, console, width=420) as page:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.goto(f"http://{console.host}/?day={date}")
            page.focus(".scrub [role=slider]")
            page.keyboard.press("End")
            expect(page.locator(".scrub .peek")).to_be_visible()
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 420, (scheme, wide)  # the preview stays in the window
            serious = serious_violations(page, axe)
            assert serious == [], (scheme, json.dumps(serious)[:2000])
