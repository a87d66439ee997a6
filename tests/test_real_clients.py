"""Real X clients (xterm, Tk, GTK, Firefox) show the text we give them, and Noru reads it.

The programs come from tests/real_clients.py, which bench/ocr_real.py also
uses; these tests hold it to what the benchmark relies on: each program
starts on the session's Xvfb, shows exactly the text its ``lines`` say (a
capture through ``noru.capture`` reads, with the default OCR engine, a long
word from them, and not text that scrolled away or did not fit), names the
right app and title, and is stopped by the test. Recall is the benchmark's
business: a word that reads well in any engine is what is asserted here.
A missing program skips on a developer machine and fails under CI=true.
"""

from __future__ import annotations

import subprocess
import time
from typing import TYPE_CHECKING

import pytest

from noru.capture import Capturer, Grab
from noru.geometry import contains
from noru.ocr import Engine
from noru.ocr.base import OcrLine
from tests import real_clients, real_terminals
from tests.real_clients import Client
from tests.real_terminals import LOG, xterm_screen

if TYPE_CHECKING:
    # Types only: pytest imports tests.xserver itself, as a plugin.
    from tests.xserver import XServer


def read_words(engine: Engine, grab: Grab) -> set[str]:
    """Every token the engine reads in the grab, as the app reads it."""
    result = engine.recognise(grab.image, regions=grab.windows or None)
    return {token.strip(".,;:()\"'") for line in result.lines for token in line.text.split()}


def stopped(client: Client) -> bool:
    """Closed: its processes are gone, and so is its window."""
    client.close()
    if client.alive():
        return False
    # The server drops a client's windows once it has seen the connection
    # close, a moment after the process is gone; xwininfo fails on an id
    # that no longer exists.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        window = subprocess.run(
            ["xwininfo", "-id", client.window_id],
            env=client.server.env,
            capture_output=True,
            timeout=30,
            check=False,
        )
        if window.returncode != 0:
            return True
        time.sleep(0.05)
    return False


# --- what an xterm shows ---------------------------------------------------------------


def test_a_long_line_wraps_at_the_last_column_and_cuts_words_as_xterm_does() -> None:
    shown = xterm_screen(["abcdefghij klmnop", "", "exactly10!"], columns=10, rows=24)

    # A line of exactly ten columns takes one row; an empty line takes one.
    assert shown == ["abcdefghij", " klmnop", "", "exactly10!"]


def test_once_the_rows_are_full_the_first_lines_scroll_away_above_the_cursor_s_row() -> None:
    lines = [f"line {n}" for n in range(1, 11)]

    # Five rows: four of text, and the empty row where the cursor waits.
    assert xterm_screen(lines, columns=80, rows=5) == ["line 7", "line 8", "line 9", "line 10"]
    assert xterm_screen(lines[:3], columns=80, rows=5) == ["line 1", "line 2", "line 3"]


def test_text_xterm_could_not_show_as_given_is_refused(desktop: XServer) -> None:
    with pytest.raises(ValueError, match="no tabs"):
        real_terminals.open_xterm(desktop, ["a\tb"])


# --- the programs ------------------------------------------------------------------------


def test_xterm_in_its_default_bitmap_font_shows_the_text_and_is_read(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("xterm")
    lines = ["The quarterly reconciliation of warehouse inventory finished cleanly"] * 3
    client = real_terminals.open_xterm(desktop, lines, columns=100, rows=20, x=60, y=60)
    try:
        assert client.lines == tuple(lines)
        grab = client.grab(capturer)

        assert grab.source.app_name == "XTerm" == client.app_class
        assert grab.source.window_title == client.title
        assert grab.geometry == client.rect
        assert "reconciliation" in read_words(engine, grab)
    finally:
        assert stopped(client)


def test_xterm_in_an_xft_font_shows_only_the_rows_that_did_not_scroll_away(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("xterm")
    lines = ["Firstline disappearing offscreen", *(["filler words"] * 30), "Lastline Hippopotamus"]
    client = real_terminals.open_xterm(
        desktop, lines, columns=90, rows=12, font="DejaVu Sans Mono", size=10, theme="dark"
    )
    try:
        assert client.lines[-1] == "Lastline Hippopotamus"
        assert len(client.lines) == 11  # the twelfth row is the (hidden) cursor's
        words = read_words(engine, client.grab(capturer))

        assert "Hippopotamus" in words
        assert "disappearing" not in words
    finally:
        assert stopped(client)


def test_a_tk_text_widget_shows_the_lines_that_fit_and_nothing_cut_in_half(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("tk")
    lines = ["Meridian shipment reconciliation report", *(["more text"] * 80), "Overflowing"]
    client = real_clients.open_tk_text(desktop, lines, size=11, x=80, y=80, width=700, height=400)
    try:
        assert client.lines[0] == lines[0]
        assert 5 < len(client.lines) < len(lines)
        grab = client.grab(capturer)

        assert grab.source.window_title == client.title
        assert grab.source.app_name == "Noru-text"
        words = read_words(engine, grab)
        assert "reconciliation" in words
        assert "Overflowing" not in words
    finally:
        assert stopped(client)


def test_gtk_labels_and_a_text_view_show_their_text_and_are_read(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("gtk")
    client = real_clients.open_gtk(
        desktop,
        ["Account: Castellan Logistics"],
        ["The consignment was acknowledged by the harbourmaster on Tuesday."],
        size=12,
        x=100,
        y=100,
        width=800,
        height=300,
    )
    try:
        assert client.lines[0] == "Account: Castellan Logistics"
        assert "harbourmaster" in " ".join(client.lines)
        grab = client.grab(capturer)

        assert grab.source.app_name == "Noru-gtk" == client.app_class
        assert grab.source.window_title == client.title
        words = read_words(engine, grab)
        assert {"Castellan", "harbourmaster"} <= words
    finally:
        assert stopped(client)


def test_a_page_in_firefox_shows_its_text_and_firefox_is_stopped_with_all_its_processes(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("firefox")
    client = real_clients.open_firefox(
        desktop,
        "Quarterly reconciliation",
        ["The warehouse inventory was reconciled against 4,812 invoices."],
        x=120,
        y=120,
        width=1000,
        height=700,
    )
    try:
        # The tab's title, the address, then the page.
        assert client.title == f"{client.lines[0]} — Mozilla Firefox"
        assert client.lines[1].startswith("file:///")
        grab = client.grab(capturer)

        assert grab.source.app_name == client.app_class
        assert client.app_class.lower().startswith("firefox")
        assert grab.source.window_title == client.title
        assert {"reconciliation", "inventory"} <= read_words(engine, grab)
    finally:
        assert stopped(client)


def test_a_display_capture_of_two_clients_reads_each_in_its_own_window(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("xterm")
    real_terminals.need("tk")
    with (
        real_terminals.open_xterm(
            desktop, ["Consignment harbourmaster"], columns=60, rows=10, x=40, y=40
        ) as xterm,
        real_clients.open_tk_text(
            desktop, ["Kowalczyk reconciliation"], x=900, y=40, width=600, height=300
        ) as tk,
    ):
        xterm.activate()
        (grab,) = capturer.grab_display(1)

        # Both windows' frames go to OCR as regions, each holding its client area.
        for client in (xterm, tk):
            x, y, w, h = client.rect
            assert any(
                contains(region, (x, y)) and contains(region, (x + w - 1, y + h - 1))
                for region in grab.windows
            )
        assert grab.source.window_title == xterm.title
        assert {"harbourmaster", "reconciliation"} <= read_words(engine, grab)
    assert not xterm.alive() and not tk.alive()


# --- a monospace grid's alike cells, read alike -------------------------------------------


def _plain_read(grab: Grab) -> tuple[object, list[object]]:
    """The job of the whole window and the engine's lines for it, as read
    with the monospace agreement off (what the engine alone makes of it)."""
    from noru.ocr.regions import Job
    from noru.ocr.tesseract import TesseractEngine, TesseractSettings

    whole = (0, 0, *grab.image.size)
    plain = TesseractEngine(settings=TesseractSettings(monospace=False))
    try:
        lines = list(plain.recognise(grab.image).lines)
    finally:
        plain.close()
    return Job(grab.image, whole, 0, whole), lines


def _misread(lines: list[OcrLine], every: int) -> tuple[list[OcrLine], set[int]]:
    """Every ``every``-th line with each ``0`` read as ``6``, as engines misread it."""
    out, changed = [], set()
    for i, line in enumerate(lines):
        if i % every == 0 and "0" in line.text:
            out.append(OcrLine(line.text.replace("0", "6"), line.box, line.confidence))
            changed.add(i)
        else:
            out.append(line)
    return out, changed


def test_in_an_antialiased_terminal_a_minority_misreading_is_outvoted_by_alike_cells(
    desktop: XServer, capturer: Capturer
) -> None:
    from noru.ocr.monospace import agree_job

    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, LOG, columns=90, rows=30, font="DejaVu Sans Mono", size=8
    ) as client:
        grab = client.grab(capturer)
        truth = [" ".join(row.split()) for row in client.lines if row.strip()]
    job, lines = _plain_read(grab)
    agreed = agree_job(job, lines)  # type: ignore[arg-type]
    misread, changed = _misread(lines, 7)  # type: ignore[arg-type]
    assert len(changed) >= 4
    outvoted = agree_job(job, misread)  # type: ignore[arg-type]
    # Every 0 read as 6 in a seventh of the lines is read as the other copies of
    # its cell were: the same lines as from the engine's own reading.
    assert [line.text for line in outvoted] == [line.text for line in agreed]
    assert all("0" in outvoted[i].text for i in changed)
    # Boxes and confidences are the engine's.
    assert [(ln.box, ln.confidence) for ln in outvoted] == [
        (ln.box, ln.confidence) for ln in misread
    ]

    # And agreeing never reads fewer of the rows' words than the engine did.
    def hits(read: list[OcrLine]) -> int:
        words = {token for line in read for token in line.text.split()}
        return sum(token in words for row in truth for token in row.split())

    assert hits(agreed) >= hits(lines)  # type: ignore[arg-type]


def test_proportional_type_is_no_grid_and_its_lines_are_left_as_the_engine_read_them(
    desktop: XServer, capturer: Capturer
) -> None:
    from noru.ocr.monospace import agree_job

    real_terminals.need("tk")
    prose = [
        f"Invoice {n} for the consignment of {n * 7} crates was settled on 2026-10-{n:02d}."
        for n in range(1, 25)
    ]
    with real_clients.open_tk_text(
        desktop, prose, family="DejaVu Sans", size=11, width=1100, height=700
    ) as client:
        grab = client.grab(capturer)
    job, lines = _plain_read(grab)
    misread, changed = _misread(lines, 3)  # type: ignore[arg-type]
    assert changed
    assert agree_job(job, misread) == misread  # type: ignore[arg-type]
