"""Secrets in a real terminal across the edge of two displays stacked one
above the other never reach an agent.

An xterm on Xvfb with two RandR monitors ("TOP" 1920x1080 and "BOTTOM"
1920x1080 under it) sits across the edge between them and prints planted
secrets (made up, in real formats): a token wrapped over the edge (its
first row on the top display, its rest on the bottom one), and a token
wrapped over three rows whose middle row the edge cuts across its glyphs
(half of it on each display: neither half is text). Noru's capturer grabs
``all_displays`` (one image per display, each with its place on the
screen), the store's writer keeps it, ``noru.recognition`` reads it with
the real engine as the app's OCR child does, and it is served as agents
get it (``for_agent``, ``noru.present.pixels.fill``).

No 8 characters in a row of any secret are in the served text of either
display, and every pixel of ink of every cell a secret was drawn in is
solid fill on the display it lies on (the cells are the terminal's own:
its window's place and the cell size and padding it gives the window
manager, not the boxes the engine found); the ordinary lines away from
the edge are served as read.

And with each display grabbed at its own moment, one before the terminal
was drawn: an ordinary screen's key-like rows by the edge (a wheel's
RECORD, its rows ending before the terminal's last column) are served as
read on the display that shows them.
"""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from noru.capture import Capturer, Grab
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL
from tests import real_terminals
from tests.parts import require
from tests.real_clients import move_window
from tests.redaction_cases import ALNUM, leaked, pick
from tests.served_terminal import Served, served_grabs, served_terminal, settled
from tests.xserver import Monitor, XServer, running_xserver

EDGE = 1080  # TOP's bottom edge, BOTTOM's top edge
STACKED = [
    Monitor("TOP", 0, 0, 1920, 1080, primary=True),
    Monitor("BOTTOM", 0, EDGE, 1920, 1080),
]
COLUMNS, ROWS = 64, 14
# A pixel this far from the background in a channel is ink; one nearer is
# the faint edge anti-aliasing spreads past a glyph's box.
INK = 80


@pytest.fixture(scope="module")
def stacked_monitors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(
        tmp_path_factory.mktemp("stacked"), width=1920, height=2 * EDGE, monitors=STACKED
    ) as server:
        yield server


def _served(
    server: XServer, home: Path, engine: TesseractEngine, lines: list[str], y: int
) -> Served:
    """``lines`` in an xterm whose window is put at ``y`` (its title bar's
    top), as agents get it."""
    shown = served_terminal(server, home, engine, lines, columns=COLUMNS, rows=ROWS, x=300, y=y)
    assert shown.screens == [(0, 0, 1920, 1080), (0, EDGE, 1920, 1080)]
    return shown


def _rgb(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    r, g, b = image.getpixel((x, y))  # type: ignore[misc]
    return r, g, b


def _unfilled(shown: Served, row: int, column: int) -> list[tuple[int, int]]:
    """The pixels of the terminal's cell at ``row``, ``column`` that were
    ink as taken (``INK`` from the terminal's background) and are not
    fill, on the whole screen. Ink, not the whole cell: a row the engine's
    layout read off the terminal's grid has its ink's box, inside its
    cells."""
    width, height, _, _ = shown.cell
    x, y = shown.origin[0] + column * width, shown.origin[1] + row * height
    background = _rgb(shown.taken[0], shown.origin[0], shown.origin[1] - 1)
    out = []
    for py in range(y, y + height):
        at = 0 if py < EDGE else 1
        iy = py - at * EDGE
        for px in range(x, x + width):
            taken = _rgb(shown.taken[at], px, iy)
            ink = max(abs(a - b) for a, b in zip(taken, background, strict=True)) > INK
            if ink and shown.served[at].getpixel((px, iy)) != FILL:
                out.append((px, py))
    return out


def _assert_redacted(shown: Served, secrets: list[str]) -> None:
    """No secret in either display's text, every pixel of its ink filled."""
    everything = "\n".join(shown.texts)
    screen = "".join(row.ljust(COLUMNS) for row in shown.rows)
    for secret in secrets:
        assert leaked(everything, secret) is None, (secret[:12], leaked(everything, secret))
        start = screen.index(secret)
        for at in range(start, start + len(secret)):
            row, column = divmod(at, COLUMNS)
            assert not _unfilled(shown, row, column), (secret[:12], row, column)


def _row_of(rows: list[str], text: str) -> int:
    screen = "".join(row.ljust(COLUMNS) for row in rows)
    return screen.index(text) // COLUMNS


def test_a_token_wrapped_over_the_edge_of_stacked_displays_is_redacted_on_both(
    stacked_monitors: XServer, home: Path, engine: TesseractEngine
) -> None:
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    rng = random.Random("stacked-wrapped")
    anthropic = "sk-ant-api03-" + pick(rng, ALNUM, 80)
    github = "ghp_" + pick(rng, ALNUM, 36)
    password = pick(rng, ALNUM, 14)
    lines = [
        "$ cat .env",
        "APP_ENV=production",
        f"ANTHROPIC_API_KEY={anthropic}",
        f"GITHUB_TOKEN={github}",
        f"DB_PASSWORD={password}",
        "LOG_LEVEL=info",
        "the quick brown fox jumps over the lazy dog",
        "$ ",
    ]
    shown = _served(stacked_monitors, home, engine, lines, 1011)
    # The key's first row is on the top display (but for a pixel or so), its
    # rest (47 characters: no rule's alone) on the bottom one.
    first = _row_of(shown.rows, anthropic)
    height = shown.cell[1]
    assert shown.origin[1] + first * height < EDGE <= shown.origin[1] + (first + 1) * height + 1
    rest = shown.rows[first + 1]
    assert anthropic.endswith(rest) and len(rest) == 47
    _assert_redacted(shown, [anthropic, github, password])
    top, bottom = shown.texts
    assert "APP_ENV=production" in top and "the quick brown fox jumps" in bottom


def test_a_row_the_edge_of_stacked_displays_cuts_is_filled_beside_a_secret(
    stacked_monitors: XServer, home: Path, engine: TesseractEngine
) -> None:
    """A key wrapped over three rows, the middle one cut across its glyphs
    by the edge: half of it on each display, neither half text. The cut
    row is filled on both displays beside the key, and the key's rest on
    the row under it (no rule's alone) is taken as the rest of a secret."""
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    rng = random.Random("stacked-cut")
    anthropic = "sk-ant-api03-" + pick(rng, ALNUM, 150)
    github = "ghp_" + pick(rng, ALNUM, 36)
    lines = [
        "$ cat .env",
        "APP_ENV=production",
        f"ANTHROPIC_API_KEY={anthropic}",
        f"GITHUB_TOKEN={github}",
        "LOG_LEVEL=info",
        "the quick brown fox jumps over the lazy dog",
        "$ ",
    ]
    shown = _served(stacked_monitors, home, engine, lines, 1004)
    # The edge cuts the key's second row, a third of a row or more each side.
    cut = _row_of(shown.rows, anthropic) + 1
    height = shown.cell[1]
    top = shown.origin[1] + cut * height
    assert top + height / 3 <= EDGE <= top + 2 * height / 3
    _assert_redacted(shown, [anthropic, github])
    top_text, bottom_text = shown.texts
    assert "APP_ENV=production" in top_text and "the quick brown fox jumps" in bottom_text


def _wheel_record(count: int) -> list[str]:
    """A wheel's RECORD as ``cat`` shows it: each file's path, the SHA-256
    of its contents in URL-safe base64 (a key-like word) and its size."""
    lines = []
    for n in range(count):
        path = f"noru/part_{n:02d}/module.py"
        digest = base64.urlsafe_b64encode(hashlib.sha256(path.encode()).digest())
        lines.append(f"{path},sha256={digest.decode().rstrip('=')},{1000 + 37 * n}")
    return lines


def _grabbed_across(server: XServer, lines: list[str]) -> tuple[list[Grab], list[Grab]]:
    """Every display grabbed before an xterm showing ``lines`` (100
    columns: wider than every row) was drawn, and after it was put across
    the edge, the edge between its rows 9 and 10."""
    with Capturer(display=server.display) as capturer:
        before = settled(capturer)
        opened = real_terminals.open_xterm(
            server, lines, columns=100, rows=len(lines) + 1,
            font="DejaVu Sans Mono", size=9, x=300, y=600,
        )  # fmt: skip
        with opened as client:
            _, height, _, pad = client.cell
            move_window(
                server, client.window_id, 300, 600 + EDGE - (client.rect[1] + pad + 10 * height)
            )
            return before, settled(capturer)


@pytest.mark.parametrize("late", ["upper", "lower"])
def test_ordinary_key_like_rows_by_the_edge_are_served_when_the_other_display_shows_none(
    stacked_monitors: XServer, home: Path, engine: TesseractEngine, late: str
) -> None:
    """Each display is grabbed at its own moment: one of them (``late``)
    before a terminal was drawn across the edge, the other after. The
    terminal shows a wheel's RECORD, its rows ending before its last
    column, the edge between two of them: no row runs on over the edge,
    so the rows by it on the display that shows them are served as read
    (nothing across the edge says a token was wrapped there)."""
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    lines = ["$ cat noru-1.0.dist-info/RECORD", *_wheel_record(16), "$ "]
    before, after = _grabbed_across(stacked_monitors, lines)
    shown = 1 if late == "upper" else 0
    grabs = [before[0], after[1]] if late == "upper" else [after[0], before[1]]
    screens, texts, _ = served_grabs(home, engine, grabs)
    assert screens == [(0, 0, 1920, 1080), (0, EDGE, 1920, 1080)]
    assert texts[1 - shown] == "", texts  # the display grabbed before shows none of it
    rows = [row for row in (lines[10:] if late == "upper" else lines[:10]) if "sha256=" in row]
    assert "[redacted" not in texts[shown], texts[shown]
    for row in rows:  # each row's path, as read
        assert row.split(",")[0] in texts[shown], (row, texts[shown])


def _certificate(rng: random.Random, rows: int) -> list[str]:
    """A PEM certificate as ``cat`` shows it: its body's base64 (random
    bytes look as a DER body does) in rows of 64 characters, each ending
    before a wider terminal's last column."""
    body = base64.b64encode(rng.randbytes(48 * rows)).decode()
    return [
        "-----BEGIN CERTIFICATE-----",
        *(body[at : at + 64] for at in range(0, len(body), 64)),
        "-----END CERTIFICATE-----",
    ]


def test_an_ordinary_certificate_across_the_edge_is_served_when_both_displays_show_it(
    stacked_monitors: XServer, home: Path, engine: TesseractEngine
) -> None:
    """Both displays grabbed together, a terminal across the edge showing
    a certificate, the edge between two of its base64 rows. Its rows end
    before the terminal's last column: none runs on over the edge, so the
    key-like rows above it, read on the upper display, are no wrapped
    token's part and are served as read."""
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    rng = random.Random("stacked-certificate")
    lines = ["$ cat /etc/ssl/certs/example.pem", *_certificate(rng, 14), "$ "]
    _, grabs = _grabbed_across(stacked_monitors, lines)  # rows 9 and 10: both base64
    screens, texts, _ = served_grabs(home, engine, grabs)
    assert screens == [(0, 0, 1920, 1080), (0, EDGE, 1920, 1080)]
    assert "BEGIN CERTIFICATE" in texts[0] and "END CERTIFICATE" in texts[1], texts
    assert "[redacted" not in texts[0], texts[0]
    for row in lines[2:10]:  # the base64 rows above the edge, as read (a character's misread aside)
        assert any(_near_same(row, read) for read in texts[0].splitlines()), (row, texts[0])


def _near_same(row: str, read: str) -> bool:
    """Whether ``read`` is ``row`` but for a character or two (the engine's
    misreads)."""
    read = read.strip()
    return len(read) == len(row) and sum(a != b for a, b in zip(row, read, strict=True)) <= 2
