"""A terminal window's own chrome is not text of its grid: real terminals
on a real X server, read by the real engine."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.ocr_scoring import chrome
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    as_drawn,
    engine,
    window,
)
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

NODE_ERROR = [
    "$ node dist/account.js",
    "/home/dev/willow/node_modules/file-table/lib/index.js:286",
    "    throw new RangeError(`Invalid tenant: ${payload}`);",
    "    ^",
    "",
    "RangeError: Invalid tenant: undefined",
    "    at tenantRow (/home/dev/willow/src/tenant.ts:41:13)",
]


def test_a_menu_bar_as_tall_as_a_row_is_no_row_of_the_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """xfce4-terminal's menu bar is as tall as a row of its grid at 16 pt:
    on a dark terminal it was taken for a highlighted first row, and its
    words, in a proportional face, were read by the grid font's glyphs
    (`FleEdt iewTemia Tbs elp`)."""
    real_terminals.need("xfce4-terminal")
    with real_terminals.open_terminal(
        desktop, "xfce4-terminal", NODE_ERROR, columns=80, rows=10, size=16,
        theme="solarized-dark", chrome="default", x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = [line for line in as_drawn(list(engine.recognise(image).lines)) if line.strip()]
    wanted = [line for line in NODE_ERROR if line]
    # The menu bar is the window's, read as sparse text (word by word).
    assert [line for line in read if not chrome(line, client.chrome)] == wanted, read
