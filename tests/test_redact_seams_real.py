"""Secrets in a real terminal that straddles two displays never reach an agent.

An xterm on Xvfb with two RandR monitors ("LEFT" 2560x1440, "RIGHT"
1920x1080 beside it) sits across the seam, and prints planted secrets (made
up, in real formats) whose values the seam cuts in two, beside ordinary
lines it cuts too. Noru's capturer grabs ``all_displays`` (one image per
display, each with its place on the screen), the store's writer keeps it,
``noru.recognition`` reads it with the real engine as the app's OCR child
does, and it is served as agents get it (``for_agent``,
``noru.present.pixels.fill``).

No 8 characters in a row of any secret are in the served text of either
display; every pixel of every cell a secret was drawn in is solid fill in
the image of the display it lies on (the cells are the terminal's own:
its window's place and the cell size and padding it gives the window
manager, not the boxes the engine found); the ordinary lines are served
as read.
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image

from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL
from tests import real_terminals
from tests.parts import require
from tests.redaction_cases import ALNUM, env_secrets, leaked, pick
from tests.served_terminal import served_terminal
from tests.xserver import XServer

pytest_plugins = ["tests.xserver"]

SEAM = 2560  # LEFT's right edge, RIGHT's left edge
COLUMNS, ROWS = 64, 14
# The seam falls in column 24 of the terminal, 2 of its pixels in (its
# cells are 8 pixels wide in DejaVu Sans Mono 9, its padding 2).
X = SEAM - 200


def _screen(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """The lines, the secrets among them, and the ordinary lines the seam cuts."""
    token, aws, password, stripe = env_secrets(rng)
    ordinary = [
        "the quick brown fox jumps over the lazy dog again and again",
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "drwxr-xr-x  2 alice staff  4096 Mar  3 12:01 Documents",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
    ]
    lines = [
        "$ cat .env",
        f"GITHUB_TOKEN={token}",
        f"AWS_ACCESS_KEY_ID={aws}",
        f"DB_PASSWORD={password}",
        f"$ curl -u {stripe}: https://api.stripe.com/v1/charges",
        *ordinary,
        "$ ",
    ]
    return lines, [token, aws, password, stripe], ordinary


def _served(
    two_monitors: XServer, home: Path, engine: TesseractEngine, lines: list[str]
) -> tuple[list[str], tuple[int, int, int, int], tuple[int, int], list[str], list[Image.Image]]:
    """The terminal's rows, its cells (width, height, and where its first
    cell is on the screen), and what agents get of each display: its text
    and its pixels."""
    shown = served_terminal(
        two_monitors, home, engine, lines, columns=COLUMNS, rows=ROWS, x=X, y=100
    )
    assert shown.screens == [(0, 0, 2560, 1440), (2560, 0, 1920, 1080)]
    return shown.rows, shown.cell, shown.origin, shown.texts, shown.served


def _unfilled(
    served: list[Image.Image], cell: tuple[int, int, int, int], origin: tuple[int, int], row: int,
    column: int,
) -> list[tuple[int, int]]:  # fmt: skip
    """The pixels of the terminal's cell at ``row``, ``column`` (its edges
    aside: anti-aliasing) that are not fill, on the whole screen."""
    width, height, _, _ = cell
    x, y = origin[0] + column * width, origin[1] + row * height
    left, right = served
    out = []
    for px in range(x + 1, x + width - 1):
        image, ix = (left, px) if px < SEAM else (right, px - SEAM)
        for py in range(y + 1, y + height - 1):
            if image.getpixel((ix, py)) != FILL:
                out.append((px, py))
    return out


def _assert_redacted(
    rows: list[str], cell: tuple[int, int, int, int], origin: tuple[int, int], texts: list[str],
    served: list[Image.Image], secrets: dict[str, tuple[int, int]],
) -> None:  # fmt: skip
    """Each secret, which the seam cuts between its characters ``secrets[secret]``,
    is in no display's text and every cell of it is filled."""
    seam_column = (SEAM - origin[0]) / cell[0]
    everything = "\n".join(texts)
    for secret, (first, last) in secrets.items():
        row = next(r for r, text in enumerate(rows) if secret in text)
        start = rows[row].index(secret)
        assert start + first < seam_column < start + last, (secret, seam_column)
        assert leaked(everything, secret) is None, (secret[:12], leaked(everything, secret))
        for column in range(start, start + len(secret)):
            assert not _unfilled(served, cell, origin, row, column), (secret[:12], column)


def test_secrets_the_seam_of_two_displays_cuts_are_redacted_on_both(
    two_monitors: XServer, home: Path, engine: TesseractEngine
) -> None:
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    lines, secrets, ordinary = _screen(random.Random("seams-real"))
    rows, cell, origin, texts, served = _served(two_monitors, home, engine, lines)
    # The seam cuts each value: part of it on each display.
    _assert_redacted(rows, cell, origin, texts, served, {s: (2, len(s) - 2) for s in secrets})
    everything = "\n".join(texts)
    # The ordinary lines the seam cuts are served as read on both displays.
    left, right = texts
    for line in ordinary:
        assert line[:10] in left and line[-10:] in right, (line, texts)
    beside = [
        text
        for text in everything.splitlines()
        if any(line[:10] in text or line[-10:] in text for line in ordinary)
    ]
    assert len(beside) >= 2 * len(ordinary) and not any("[redacted:" in t for t in beside)


def test_tokens_the_seam_cuts_inside_their_fixed_part_are_redacted_on_both(
    two_monitors: XServer, home: Path, engine: TesseractEngine
) -> None:
    """The seam (column 24) cuts ``ghp_`` at its ``h``, ``glpat-`` at its
    ``p`` and a Telegram bot token at its ``:``: each display's half lacks
    the format's fixed part, and the engine reads the cut cell as it will."""
    require(real_terminals.missing("xterm") is None, real_terminals.missing("xterm") or "")
    rng = random.Random("seams-real-prefix")
    github = "ghp_" + pick(rng, ALNUM, 36)
    gitlab = "glpat-" + pick(rng, ALNUM, 20)
    telegram = pick(rng, "0123456789", 10) + ":AA" + pick(rng, ALNUM, 33)
    lines = [
        "$ history | tail -4",
        f"{'Copied':<23}{github}",
        f"{'  using':<22}{gitlab}",
        f"{'bot':<14}{telegram}",
        "$ ",
    ]
    rows, cell, origin, texts, served = _served(two_monitors, home, engine, lines)
    prefixes = {github: (1, 2), gitlab: (2, 3), telegram: (10, 11)}
    _assert_redacted(rows, cell, origin, texts, served, prefixes)
