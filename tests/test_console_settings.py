"""The console's settings (issue 39, item 5) and how its requests read them
(issue 38): the OCR engine chosen among those `noru doctor` finds here,
through ``noru.edits.set_ocr_engine`` (bad values and a damaged config.toml
refused with why, nothing lost), in Debian's Chromium against a real `noru
console`; and each request reading config.toml through one settings snapshot."""

from __future__ import annotations

import asyncio
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from noru import edits, ocr
from noru.config import load_config
from noru.errors import DataDirError, EditRefused
from noru.ocr import EngineStatus
from tests.console_process import SAME, Console
from tests.history_data import Seeded
from tests.parts import require
from tests.test_console import (
    browser,  # noqa: F401 (a fixture)
    console,  # noqa: F401 (a fixture)
    seeded,  # noqa: F401 (a fixture)
)

# A config.toml as a person writes one: comments, blank lines, other keys, a table.
WRITTEN = """\
# my Noru settings
keep_days = 30          # a month is enough

ocr_engine = "tesseract"  # the default, for now
redact = ["secrets", "cards"]

[notes]
# a table Noru does not read; its lines stay
ocr_engine = "not this one"
"""


def _usable(name: str) -> None:
    found = ocr.describe(name)
    require(found.available, f"the {name} OCR engine cannot run here: {found.problem}")


# --- the edit ------------------------------------------------------------------------------


def test_setting_the_engine_changes_its_line_only_and_keeps_the_file_whole(home: Path) -> None:
    _usable("rapidocr")
    path = home / "config.toml"
    path.write_text(WRITTEN)
    path.chmod(0o640)
    inode = path.stat().st_ino
    found = edits.set_ocr_engine(home, " RapidOCR ")
    assert found.name == "rapidocr" and found.available
    assert path.read_text() == WRITTEN.replace(
        'ocr_engine = "tesseract"  # the default', 'ocr_engine = "rapidocr"  # the default'
    )
    assert load_config(home).ocr_engine == "rapidocr"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # its mode kept
    assert path.stat().st_ino != inode  # replaced whole (atomically), never written in place
    assert not [p for p in home.iterdir() if p.name != "config.toml" and "config" in p.name]


def test_setting_the_engine_without_a_config_file_writes_one_line(home: Path) -> None:
    _usable("tesseract")
    edits.set_ocr_engine(home, "tesseract")
    assert (home / "config.toml").read_text() == 'ocr_engine = "tesseract"\n'
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("paddle", "no OCR engine is called 'paddle'; known: tesseract, rapidocr"),
        ("", "no OCR engine is called ''"),
        ('tesseract"\nkeep_days = 0', "no OCR engine is called"),
    ],
)
def test_an_unknown_engine_is_refused_with_the_known_ones(home: Path, name: str, said: str) -> None:
    path = home / "config.toml"
    path.write_text(WRITTEN)
    with pytest.raises(EditRefused) as refused:
        edits.set_ocr_engine(home, name)
    assert said in str(refused.value) and "nothing changed" in str(refused.value)
    assert refused.value.what == "ocr_engine"
    assert path.read_text() == WRITTEN


def test_an_engine_that_cannot_run_here_is_refused_with_why(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An engine registered as any optional engine registers, whose probe finds
    # it cannot run (its package missing): the registry is this process's own.
    monkeypatch.setattr(ocr, "_REGISTRY", dict(ocr._REGISTRY))

    def missing(tessdata: Path | None) -> EngineStatus:
        return EngineStatus("easyocr", False, problem="easyocr is not installed: pip install x")

    ocr.register_engine("easyocr", factory=lambda *_: None, probe=missing)  # type: ignore[arg-type]
    path = home / "config.toml"
    path.write_text(WRITTEN)
    with pytest.raises(EditRefused) as refused:
        edits.set_ocr_engine(home, "easyocr")
    assert str(refused.value).startswith(
        "the OCR engine easyocr cannot run on this machine: easyocr is not installed"
    )
    assert path.read_text() == WRITTEN
    # The page lists it, with why, and cannot choose it.
    shown = {found.name: found for found in edits.ocr_engines("tesseract")}
    assert not shown["easyocr"].available and shown["tesseract"].available


def test_a_config_file_that_does_not_parse_is_left_as_it_is(home: Path) -> None:
    _usable("tesseract")
    damaged = WRITTEN.replace("keep_days = 30", "keep_days = = 30")
    path = home / "config.toml"
    path.write_text(damaged)
    with pytest.raises(DataDirError) as refused:
        edits.set_ocr_engine(home, "tesseract")
    assert "does not parse" in str(refused.value) and "fix it" in str(refused.value)
    assert path.read_text() == damaged


@pytest.mark.parametrize(
    ("running", "said"),
    [
        (None, "OCR engine: rapidocr, as chosen (used once the Noru app runs)"),
        ("rapidocr", "OCR engine: rapidocr 3.10.0"),
        (
            "tesseract",
            "OCR engine: tesseract 5.5.4 (rapidocr chosen: used from the app's next recognition)",
        ),
    ],
)
def test_the_state_bar_says_the_engine_in_use_and_the_one_chosen(
    home: Path, running: str | None, said: str
) -> None:
    """The running app's engine in `noru status`'s words, and config.toml's
    choice where the app has not taken it up yet (or does not run)."""
    from noru import access, appwire
    from noru.console.pages.browse import ocr_words
    from noru.status import Status

    app = None
    if running is not None:
        version = {"rapidocr": "3.10.0", "tesseract": "5.5.4"}[running]
        screen = appwire.ScreenAccess(appwire.ScreenState.GRANTED, "display :1 reachable")
        app = appwire.AppStatus(
            "0", screen, appwire.OcrState(True, running, version),
            appwire.HotkeyState("ctrl+alt+n", True), appwire.MenuState(False, "no panel"),
        )  # fmt: skip
    allowed = access.Decision(True, "allowed")
    status = Status(
        home, access.AccessState(), allowed, allowed, app, None if app else "not running",
        0, None, 600.0, (), "secrets, cards",
    )  # fmt: skip
    assert ocr_words(status, "rapidocr") == said


# --- the same edit from the CLI --------------------------------------------------------------


def test_noru_ocr_lists_the_engines_and_chooses_one_as_the_console_does(home: Path) -> None:
    from click.testing import CliRunner

    from noru.cli import main

    _usable("tesseract")
    _usable("rapidocr")
    path = home / "config.toml"
    path.write_text(WRITTEN)
    shown = CliRunner().invoke(main, ["ocr"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert f"* tesseract  tesseract {ocr.describe('tesseract').version}" in lines
    assert f"  rapidocr   rapidocr {ocr.describe('rapidocr').version}" in lines
    chosen = CliRunner().invoke(main, ["ocr", "rapidocr"])
    assert chosen.exit_code == 0, chosen.output
    assert "ocr_engine = rapidocr" in chosen.output and "next recognition" in chosen.output
    assert path.read_text() == WRITTEN.replace('"tesseract"  #', '"rapidocr"  #')
    refused = CliRunner().invoke(main, ["ocr", "paddle"])
    assert refused.exit_code == 2
    assert "no OCR engine is called 'paddle'" in refused.output
    damaged = WRITTEN.replace("keep_days = 30", "keep_days = = 30")
    path.write_text(damaged)
    broken = CliRunner().invoke(main, ["ocr", "tesseract"])
    assert broken.exit_code == 1 and "does not parse" in broken.output
    assert path.read_text() == damaged


# --- each request reads the settings once --------------------------------------------------


def _request(app: Any, path: str, cookie: str) -> tuple[int, bytes]:
    """One GET through the console's ASGI app, in this process."""
    target, _, query = path.partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": target, "raw_path": target.encode(),
        "query_string": query.encode(), "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8765"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8765),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


OPENED: list[str] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    watched = event == "open" and OPENED and isinstance(args[0], (str, Path))
    if watched and str(args[0]).endswith(OPENED[0]):
        OPENED.append(str(args[0]))


sys.addaudithook(_audit)  # Python's own record of every file opened; idle unless watching


def test_the_console_reads_config_toml_through_one_snapshot(
    home: Path,
    seeded: Seeded,  # noqa: F811
) -> None:
    """A page reads config.toml through the request's settings snapshot, so
    an unchanged file is parsed once for every request, never once per
    place that wants it; an edit is seen by the next request."""
    from noru.console.app import create_app
    from noru.console.guard import COOKIE, Keys

    path = home / "config.toml"
    path.write_text(WRITTEN)
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))  # long unchanged: its parse can be trusted
    keys = Keys()
    app = create_app(home, keys)
    cookie = f"{COOKIE}={keys.exchange(keys.token)}"
    pages = ["/", "/privacy", f"/capture/{seeded.editor.id}", "/search?q=frobnicate"]
    OPENED[:] = [str(path.resolve())]
    try:
        for page in pages * 2:
            status, body = _request(app, page, cookie)
            assert status == 200, (page, body[:300])
        opened = OPENED[1:]
    finally:
        OPENED.clear()
    assert len(opened) <= 1, opened  # parsed once at most, whatever the pages asked of it
    path.write_text(WRITTEN.replace('"tesseract"', '"rapidocr"'))  # edited by hand, in place
    status, body = _request(app, "/", cookie)
    assert status == 200 and "OCR engine: rapidocr, as chosen" in body.decode()


# --- in the browser ------------------------------------------------------------------------


def test_in_a_browser_the_ocr_engine_is_chosen_among_those_that_run_here(
    console: Console,  # noqa: F811
    browser: Any,  # noqa: F811
    home: Path,
) -> None:
    _usable("tesseract")
    _usable("rapidocr")
    path = home / "config.toml"
    path.write_text(WRITTEN)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"http://{console.host}/signin?token={console.token}")
    # The state bar says which engine reads the text (no app runs: the chosen one).
    assert "OCR engine: tesseract, as chosen (used once the Noru app runs)" in page.inner_text(
        ".state"
    )
    page.goto(f"http://{console.host}/privacy")
    engines = page.locator("input[name=engine]")
    assert sorted(engines.evaluate_all("els => els.map(e => e.value)")) == [
        "rapidocr",
        "tesseract",
    ]
    assert page.is_checked("input[name=engine][value=tesseract]")
    version = ocr.describe("rapidocr").version
    assert f"rapidocr {version}" in page.inner_text("form[action='/ocr-engine']")
    # From the keyboard: the radio group, then Save.
    page.focus("input[name=engine][value=tesseract]")
    page.keyboard.press("ArrowDown" if _after(page, "tesseract", "rapidocr") else "ArrowUp")
    assert page.is_checked("input[name=engine][value=rapidocr]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Save"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/privacy\?done=ocr"))
    assert "OCR engine saved in config.toml" in page.inner_text("p.notice")
    assert page.is_checked("input[name=engine][value=rapidocr]")
    assert "rapidocr" in page.inner_text("form[action='/ocr-engine']")
    # Its line changed; every other line, comment and table stayed.
    assert path.read_text() == WRITTEN.replace('"tesseract"  #', '"rapidocr"  #')
    page.goto(f"http://{console.host}/")
    assert "OCR engine: rapidocr, as chosen" in page.inner_text(".state")


def _after(page: Any, first: str, then: str) -> bool:
    order = page.locator("input[name=engine]").evaluate_all("els => els.map(e => e.value)")
    return bool(order.index(then) > order.index(first))


def test_an_unknown_engine_or_a_damaged_file_is_refused_on_the_page(
    console: Console,  # noqa: F811
    home: Path,
) -> None:
    path = home / "config.toml"
    path.write_text(WRITTEN)
    cookie = console.sign_in()
    status, _, body = console.request(
        "POST", "/ocr-engine", body={"engine": "paddle"}, headers=SAME, cookie=cookie
    )
    assert status == 400
    assert "no OCR engine is called &#39;paddle&#39;; known: tesseract" in body.decode()
    assert path.read_text() == WRITTEN
    status, _, body = console.request("POST", "/ocr-engine", body={}, headers=SAME, cookie=cookie)
    assert status == 400 and b"choose an OCR engine" in body
    damaged = WRITTEN.replace("keep_days = 30", "keep_days = = 30")
    path.write_text(damaged)
    _usable("tesseract")
    status, _, body = console.request(
        "POST", "/ocr-engine", body={"engine": "tesseract"}, headers=SAME, cookie=cookie
    )
    assert status == 409 and b"does not parse" in body
    assert path.read_text() == damaged
    # A change from another site is refused before it is read.
    status, _, _ = console.request(
        "POST", "/ocr-engine", body={"engine": "tesseract"},
        headers={"Sec-Fetch-Site": "cross-site"}, cookie=cookie,
    )  # fmt: skip
    assert status == 403 and path.read_text() == damaged
