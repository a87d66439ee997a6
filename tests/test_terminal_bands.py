"""A big terminal is read in bands, one grid: real terminals on a real X
server, read by the real engine with two threads (``noru.ocr.band_grids``)."""

from __future__ import annotations

import random

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    as_drawn,
    engine,
    window,
)
from tests.terminal_texts.code import tsc_error
from tests.terminal_texts.probes import tree
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

WORDS = ["ledger", "batch", "cursor", "shard", "tenant", "offset", "replica", "window", "digest"]


def _page() -> list[str]:
    """A man page's shape: headings at the first column above, then a long
    body indented by seven, nothing at the first column."""
    head = ["TAR(1)", "", "NAME", "       tar - an archiving utility", "", "DESCRIPTION"]
    body = [
        "       " + " ".join(WORDS[(n + k) % len(WORDS)] for k in range(8 + n % 9)) + f" {n}."
        for n in range(56)
    ]
    return head + body


# Kitty draws its cells from the window's first pixel: in Noto Sans Mono at
# 12 pt the gaps between glyphs put the cells' edges a pixel before it, so a
# band with nothing in the first column saw its grid start a cell late.
@pytest.mark.parametrize(("family", "size"), [("Noto Sans Mono", 12), ("DejaVu Sans Mono", 12)])
def test_rows_of_a_band_with_nothing_in_the_first_column_keep_their_indent(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
    family: str, size: int,
) -> None:  # fmt: skip
    """The window is big enough to be read in two bands; the lower one shows
    no ink in the first column, so on its own it cannot tell where the
    terminal's first column starts: its rows keep their seven spaces."""
    real_terminals.need("kitty")
    shown = _page()
    with real_terminals.open_terminal(
        desktop, "kitty", shown, columns=200, rows=64, size=size, font=family, x=20, y=20
    ) as client:
        image = window(capturer, client)
    assert image.width * image.height >= 2 * 1_000_000  # read in bands
    read = [line for line in as_drawn(list(engine.recognise(image).lines)) if line.strip()]
    wanted = [line for line in shown if line.strip()]
    indented = [line for line in read if line.startswith(" ")]
    assert len(indented) >= 40
    assert all(line.startswith("       ") and line[7] != " " for line in indented), [
        line for line in indented if not line.startswith("       ") or line[7] == " "
    ][:5]
    assert sum(line in wanted for line in read) >= len(wanted) - 2


def test_a_band_of_compiler_errors_keeps_the_rows_of_the_whole(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """tsc's errors come in blocks (the message, a blank row, the source
    line, its `~~~~` on a row of their own, a blank row): the lines repeat
    at several pitches, and a band of them, at 192 dpi, was once read on
    rows 25 pixels apart (its lines of marks taken for how tall a line is),
    every row below cut through two lines of text."""
    real_terminals.need("st")
    shown = tsc_error(random.Random(253), 140, 36)
    with real_terminals.open_terminal(
        desktop, "st", shown, columns=140, rows=36, size=11, dpi=192, theme="light", x=20, y=20
    ) as client:
        image = window(capturer, client)
    assert image.width * image.height >= 2 * 1_000_000  # read in bands
    read = [line for line in as_drawn(list(engine.recognise(image).lines)) if line.strip()]
    wanted = [s.plain for s in shown[-36:] if s.plain.strip()]
    assert sum(line in wanted for line in read) >= len(wanted) - 1, [
        line for line in read if line not in wanted
    ]


def test_box_drawing_is_joined_across_the_edge_between_two_bands(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Liberation Mono draws no box drawing: rxvt-unicode takes it from a
    fallback face, whose ``├`` the cell alone may read as ``└`` (its line
    down stops short of the cell's bottom); the ``│`` under it says it is
    ``├``. The window is read in bands, and the band's edge fell between
    the two: a band's last row is joined to the next band's first as to
    any row below it. (``tree -L 3`` of a project, from the generator of a
    dev set's screen that showed it.)"""
    real_terminals.need("urxvt")
    shown = tree(random.Random("41-295:tree:text"), 198, 59)
    with real_terminals.open_terminal(
        desktop, "urxvt", shown, columns=199, rows=60, size=12, font="Liberation Mono", x=20,
        y=20,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    assert image.width * image.height >= 2 * 1_000_000  # read in bands
    read = [line for line in as_drawn(list(engine.recognise(image).lines)) if line.strip()]
    assert read == [line.plain for line in shown if line.plain], read
