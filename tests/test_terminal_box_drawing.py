"""Box drawing a terminal draws across its rows is part of its grid: real
terminals on a real X server, read by the real engine."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    engine,
    read_on,
    window,
)
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")


def _pager(width: int) -> list[str]:
    """What ``bat`` shows: a header between lines drawn across the rows, a
    joint where the gutter's line meets them, numbered lines below."""
    code = [
        "fn lookup(input: &str) -> Result<Item, Error> {",
        "    let total: u64 = items.iter().map(|x| x.size).sum();",
        "    match shard { Some(x) => x, None => return Err(e) }",
        "    std::collections::HashMap::<String, Item>::new()",
        "}",
    ]
    return [
        "─" * 7 + "┬" + "─" * (width - 8),
        "       │ File: src/lookup.rs",
        "─" * 7 + "┼" + "─" * (width - 8),
        *(f"{n:>6} │ {line}" for n, line in enumerate(code, start=41)),
        "─" * 7 + "┴" + "─" * (width - 8),
    ]


@pytest.mark.parametrize(
    ("terminal", "family", "size"),
    [("urxvt", "Noto Mono", 12), ("st", "Hack", 11), ("kitty", "DejaVu Sans Mono", 11)],
)
def test_a_pager_s_header_between_lines_across_the_rows_is_read_on_the_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
    terminal: real_terminals.Terminal, family: str, size: int,
) -> None:  # fmt: skip
    """The lines across the rows part the terminal's background into runs:
    the header above them is still the grid's rows, the lines are rows of
    box drawing (their joints told by the edges their strokes reach) and
    the gutter's ``│`` is no letter."""
    shown = _pager(79)
    read = read_on(
        desktop, capturer, engine, terminal, shown, columns=80, rows=12, size=size, font=family
    )
    assert [line for line in read if line.strip()] == shown


@pytest.mark.parametrize(
    ("family", "size"), [("DejaVu Sans Mono", 9), ("Noto Sans Mono", 10), ("Hack", 14)]
)
def test_a_short_screen_of_progress_bars_is_read_on_its_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
    family: str, size: int,
) -> None:  # fmt: skip
    """pip's progress bars are lines drawn across cells: they fill the gaps
    between the cells they cross, and on a screen of a few lines left too
    few for the grid's advance (kitty's screen went to the engine's layout,
    the bars read as ``—ouo@oi i —``)."""
    bar = "━" * 30
    shown = [
        "$ pip install requests",
        f"  {bar} 1.2/1.2 MB",
        f"  {bar} 3.4/3.4 MB",
        f"  {bar} 880.1/880.1 kB",
    ]
    read = read_on(
        desktop, capturer, engine, "kitty", shown, columns=80, rows=6, size=size, font=family
    )
    assert [line for line in read if line.strip()] == shown


def test_a_line_whose_weight_its_thickness_leaves_open_is_served_unsure(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Alacritty draws pip's heavy bar two pixels thick, as kitty and Konsole
    draw a light line: the reader cannot tell ``━`` from ``─`` there, and
    says so in the line's confidence rather than serving a guess as sure."""
    real_terminals.need("alacritty")
    bar = "━" * 30
    shown = [
        "$ pip install requests",
        "Collecting idna",
        f"  {bar} 1.2/1.2 MB",
        "Collecting urllib3",
        f"  {bar} 3.4/3.4 MB",
    ]
    with real_terminals.open_terminal(
        desktop, "alacritty", shown, columns=80, rows=6, size=12, font="DejaVu Sans Mono"
    ) as client:
        image = window(capturer, client)
    lines = [line for line in engine.recognise(image).lines if line.text.strip()]
    assert len(lines) == len(shown)
    for line, wanted in zip(lines, shown, strict=True):
        if bar in wanted:
            assert line.text.rstrip() == wanted or line.confidence <= 0.6, line
        else:
            assert line.text.rstrip() == wanted and line.confidence >= 0.99, line
