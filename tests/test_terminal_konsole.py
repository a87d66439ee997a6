"""Konsole draws as Qt does: a face of PostScript outlines with its stems
darkened, and at 192 dpi a scrollbar whose edge, a line a pixel wide with
its arrows beyond it, stands inside the columns a narrow face's grid
reaches. Real Konsole on a real X server, read by the real engine."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.parts import require_family
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    engine,
    read_on,
    window,
)
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

DEPLOY_ENV = [
    "$ cat deploy.env",
    "APP_NAME=ledger-api",
    "APP_ENV=staging",
    "DATABASE_URL=postgresql://ledger:<redacted>@db-1.internal:5432/ledger",
    "REDIS_URL=redis://cache-1.internal:6379/4",
    "LOG_LEVEL=info",
    "QUEUE_NAMES=invoices,payments,refunds,webhooks",
    "WORKERS=8",
    "FEATURE_FLAGS=new-checkout,tax-v2,async-exports",
]


def test_what_stands_past_a_scrollbar_s_edge_is_the_scrollbar_s(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """mononoki at 8 pt, 192 dpi: the grid's columns reach past Konsole's
    scrollbar edge, and its up and down arrows were read as text after the
    first and the last rows (`-~`, `Vv`)."""
    require_family("mononoki", "fonts-mononoki")
    read = read_on(
        desktop, capturer, engine, "konsole", DEPLOY_ENV, columns=80, rows=24, size=8,
        font="mononoki", theme="light", chrome="default", dpi=192, highlight=6,
    )  # fmt: skip
    # The menu bar and the toolbar come first (the terminal's chrome, read
    # word by word); the arrows stood after the first row and the last.
    text = [line for line in read if line.strip()]
    assert text[-len(DEPLOY_ENV) :] == DEPLOY_ENV


TRACEBACK = [
    "$ python -m ledger.cli sync --since 2024-03-01",
    "Traceback (most recent call last):",
    '  File "src/ledger/sync.py", line 88, in run',
    '    rows = fetch_rows(conn)["items"]',
    "           ~~~~~~~~~~~~~~~~^^^^^^^^^",
    "KeyError: 'items'",
]


@pytest.mark.parametrize("size", [9, 11])
def test_a_face_of_postscript_outlines_is_found_as_qt_draws_it(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, size: int,  # noqa: F811
) -> None:  # fmt: skip
    """Hermit's faces are CFF: Qt draws them with FreeType's stem darkening,
    thicker than any drawing of the face here matched, so no font was found
    and the engine alone read `Traceback Cmost recent call last):`. Found,
    each line is read by the face's glyphs, exactly and sure."""
    require_family("Hermit", "fonts-hermit")
    real_terminals.need("konsole")
    with real_terminals.open_terminal(
        desktop, "konsole", TRACEBACK, x=60, y=60, columns=80, rows=10, size=size,
        font="Hermit", theme="dark",
    ) as client:  # fmt: skip
        image = window(capturer, client)
    lines = [line for line in engine.recognise(image).lines if line.text.strip()]
    text = [line for line in lines if line.text.rstrip() not in client.chrome]
    read = "\n".join(f"{line.confidence:.4f} {line.text.rstrip()}" for line in text)
    assert [line.text.rstrip() for line in text][-len(TRACEBACK) :] == TRACEBACK, read
    assert all(line.confidence >= 0.99 for line in text[-len(TRACEBACK) :]), read


JOURNAL = [
    "$ journalctl -u sshd --since today",
    "Dec 14 09:35:27 api-7 sshd[812]: Accepted publickey for deploy from 10.1.50.51 port 6410",
    "Dec 14 09:35:29 api-7 sshd[812]: Started Session 4.",
    "Dec 14 09:41:02 api-7 sshd[812]: pam_unix(sshd:session): opened for deploy(uid=1001)",
    "Dec 14 09:41:03 api-7 systemd[1]: Started Timer.",
    "Dec 14 09:52:17 api-7 kernel: [UFW BLOCK] IN=eth0 OUT= SRC=192.168.38.176 PROTO=TCP DPT=5398",
    "Dec 14 09:52:18 api-7 kernel: ok",
    "Dec 14 10:02:44 api-7 postgres[2231]: ERROR:  duplicate key value violates unique constraint",
    "Done.",
]


# Hermit in Konsole, whose rows are as tall as the face: at 9 pt the last
# pixel row of a `p`, `g` or `y` falls, faint, into the row below, and where
# that row was empty (a short line under a long one) each tip was read as a
# `;` past the line's end; at 10 pt a `p`'s tail meets the `[` or `(` of the
# line below, no row of paper parts a short screen's lines, and rows two
# lines tall were taken, every line read garbled.
@pytest.mark.parametrize("size", [9, 10], ids=["a-tip-in-the-row-below", "lines-that-touch"])
def test_hermit_s_tight_rows_in_konsole_are_read_as_drawn(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, size: int,  # noqa: F811
) -> None:  # fmt: skip
    require_family("Hermit", "fonts-hermit")
    read = read_on(
        desktop, capturer, engine, "konsole", JOURNAL, columns=110, rows=14, size=size,
        font="Hermit", theme="solarized-dark", dpi=96,
    )  # fmt: skip
    text = [line for line in read if line.strip()]
    assert text[-len(JOURNAL) :] == JOURNAL, "\n".join(read)
