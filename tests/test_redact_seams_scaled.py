"""Secrets in a real terminal across two displays of different scales never
reach an agent.

Two outputs side by side whose scales differ: headless sway's "HEADLESS-1"
(2560x1600 at scale 1) and "HEADLESS-2" (1920x1080 pixels at scale 2,
960x540 in the layout) beside it. A foot terminal sits across the seam and
prints planted secrets (made up, in real formats) whose values the seam
cuts in two, beside ordinary lines it cuts too. Noru's capturer grabs
``all_displays`` as the app does (one image per output at the output's own
scale: a layout unit is one pixel on the left, two on the right), the
store's writer keeps it, ``noru.recognition`` reads it with the real
engine as the app's OCR child does, and it is served as agents get it
(``for_agent``, ``noru.present.pixels.fill``).

No 8 characters in a row of any secret are in the served text of either
display, the ordinary lines are served as read, and no pixel of a
secret's row near the seam, on either side, is left as drawn (the rows
are the terminal's own: foot's window in the layout, its lines one a row,
not the boxes the engine found).

And stacked: HEADLESS-1 above a 1920x1080 output at scale 2 whose top edge
is its bottom one, a token wrapped over three rows of a foot terminal with
the edge after its label's row, across its middle row's glyphs, or before
its last row: no 8 characters of it in either display's text. (Its
label's row cut across its glyphs, the label unread on either side, is not
covered: nothing says a secret is there.) And each display grabbed at its
own moment, the upper one before the terminal was drawn there: the token's
last row under the edge is not served either.

Why sway and not Xvfb, as the other seams' tests: X11 has one pixel grid
for its whole screen. RandR monitors of different physical sizes (DPI)
still show one root pixel per pixel of each monitor, so an X capture's
images are all at scale 1 whatever the monitors' DPI; images of different
scales side by side come from a Wayland compositor's outputs of different
scales (or a capture scaled on purpose), and headless sway makes them real
here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from noru.capture import Capturer, Grab
from noru.geometry import Rect
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL
from tests.redaction_cases import ALNUM, env_secrets, leaked, pick
from tests.served_terminal import served_grabs
from tests.sway import Sway, enter_session, running_sway

SEAM = 2560  # HEADLESS-1's right edge, HEADLESS-2's left edge (layout)
# Grabs of every display taken until two in a row are the same, at most.
SETTLE_TRIES = 20
X, Y, WIDTH, HEIGHT = SEAM - 240, 60, 620, 420  # foot's outer box, across the seam


def _screen(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """The lines, the secrets among them, and the ordinary lines."""
    token, aws, password, stripe = env_secrets(rng)
    ordinary = [
        "the quick brown fox jumps over the lazy dog again",
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "drwxr-xr-x  2 alice staff  4096 Mar  3 Documents",
    ]
    lines = [
        "$ cat .env",
        f"GITHUB_TOKEN={token}",
        f"AWS_ACCESS_KEY_ID={aws}",
        f"DB_PASSWORD={password}",
        f"STRIPE_KEY={stripe}",
        *ordinary,
        "$ ",
    ]
    return lines, [token, aws, password, stripe], ordinary


def _grabbed(sway: Sway, lines: list[str], **foot: Any) -> tuple[list[Grab], Rect]:
    """Every display of ``sway`` grabbed as the app grabs them, with a foot
    terminal showing ``lines`` (``foot``: its title, app id and place) in
    focus, once two grabs in a row are the same; and where the terminal
    was. Each display is grabbed at its own moment: while sway still draws
    the window (on a loaded host), a grab can show it on one display and
    not the other (that case is a test of its own, below)."""
    with sway.open_foot(lines, **foot) as terminal, Capturer() as capturer:
        terminal.focus()
        grabs = capturer.grab_all_displays()
        for _ in range(SETTLE_TRIES):
            again = capturer.grab_all_displays()
            if [g.image.tobytes() for g in again] == [g.image.tobytes() for g in grabs]:
                return again, terminal.rect
            grabs = again
        raise RuntimeError(f"the displays still changed after {SETTLE_TRIES} grabs")


def _none_leaked(secrets: list[str], texts: list[str]) -> None:
    for secret in secrets:
        for text in texts:
            assert leaked(text, secret) is None, (secret, texts)


def test_a_secret_the_seam_between_displays_of_different_scales_cuts_is_redacted(
    sway_two_outputs: Sway, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, engine: TesseractEngine
) -> None:
    enter_session(monkeypatch, sway_two_outputs.env)
    lines, secrets, ordinary = _screen(random.Random(37))
    grabs, rect = _grabbed(
        sway_two_outputs, lines, title="Secrets across scales", app_id="noru.scaled",
        x=X, y=Y, width=WIDTH, height=HEIGHT,
    )  # fmt: skip
    assert [g.geometry for g in grabs] == [(0, 0, 2560, 1600), (2560, 0, 960, 540)]
    assert [g.image.size for g in grabs] == [(2560, 1600), (1920, 1080)]  # scales 1 and 2
    assert rect[0] < SEAM < rect[0] + rect[2]
    screens, texts, served = served_grabs(tmp_path, engine, grabs)
    assert screens == [(0, 0, 2560, 1600), (2560, 0, 960, 540)]
    _none_leaked(secrets, texts)
    # the ordinary lines the seam cuts: each display serves its part as read
    left, right = texts
    for line in ordinary:
        head, tail = line[:12], line[-8:]
        assert head in left and tail in right, (line, texts)
    _assert_filled_near_seam(grabs[0].image, grabs[1].image, served, rect, lines, secrets)


def _assert_filled_near_seam(
    left: Image.Image,
    right: Image.Image,
    served: list[Image.Image],
    rect: tuple[int, int, int, int],
    lines: list[str],
    secrets: list[str],
) -> None:
    """On each secret's row, the ink within 40 layout units of the seam on
    either side is fill in what is served (its pixels at each display's own
    scale): the rows are found from foot's window and the lines' count,
    the ink from the pixels as drawn."""
    x, y, _, h = rect
    rows = len(lines) + 1
    # foot's rows: the ink rows of its content on the left display, grouped
    inked = [
        py
        for py in range(y, y + h)
        if any(left.getpixel((px, py))[0] < 128 for px in range(x, SEAM))
    ]
    bands: list[list[int]] = []
    for py in inked:
        if bands and py - bands[-1][-1] <= 2:
            bands[-1].append(py)
        else:
            bands.append([py])
    assert len(bands) >= rows - 2, bands
    for n, line in enumerate(lines):
        if not any(s in line for s in secrets):
            continue
        top, bottom = bands[n][0], bands[n][-1]
        for image, origin, scale, shown in (
            (left, 0, 1, served[0]),
            (right, SEAM, 2, served[1]),
        ):
            for lx in range(SEAM - 40, SEAM + 40):
                if not (origin <= lx < origin + image.width // scale):
                    continue
                for ly in range(top, bottom + 1):
                    px, py = (lx - origin) * scale, ly * scale
                    if image.getpixel((px, py))[0] < 128:  # ink as drawn
                        assert shown.getpixel((px, py)) == FILL, (line, lx, ly)


@pytest.fixture(scope="module")
def sway_stacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sway]:
    """HEADLESS-1 (2560x1600 at scale 1) above a 1920x1080 output at scale 2
    (960x540 in the layout) whose top edge is HEADLESS-1's bottom one."""
    with running_sway(tmp_path_factory.mktemp("sway-stacked")) as sway:
        sway.create_output(1920, 1080, scale=2, x=0, y=EDGE)
        yield sway


EDGE = 1600  # HEADLESS-1's bottom edge, the scaled output's top edge (layout)


def _wrapped(offset: int) -> tuple[list[str], list[str]]:
    """The lines of a ``.env`` whose Anthropic key wraps over three rows of
    49 columns, and its secrets (made up per ``offset``)."""
    rng = random.Random(f"stacked-scaled-{offset}")
    anthropic = "sk-ant-api03-" + pick(rng, ALNUM + "_-", 93) + "AA"
    github = "ghp_" + pick(rng, ALNUM, 36)
    lines = [
        "$ cat .env",
        "APP_ENV=production",
        f"ANTHROPIC_API_KEY={anthropic}",
        f"GITHUB_TOKEN={github}",
        "LOG_LEVEL=info",
        "FEATURE_FLAGS=search,export",
        "$ ",
    ]
    return lines, [anthropic, github]


@pytest.mark.parametrize("font", ["Noto Sans Mono", "DejaVu Sans Mono"])
@pytest.mark.parametrize("offset", [-8, -17, -22, -26, -30])
def test_a_token_wrapped_over_the_edge_of_displays_of_different_scales_is_redacted(
    sway_stacked: Sway,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    engine: TesseractEngine,
    offset: int,
    font: str,
) -> None:
    """A token wrapped over three rows of a foot terminal (49 columns), the
    edge between them: after its label's row, across the glyphs of its
    middle row (near its top or its bottom), before its last row, or across
    its last row (``offset``: where the window is put, foot's rows being
    about 18 layout units); in fontconfig's first monospace family and in
    the one before it, whose glyphs the engine reads otherwise there."""
    enter_session(monkeypatch, sway_stacked.env)
    lines, (anthropic, github) = _wrapped(offset)
    grabs, rect = _grabbed(
        sway_stacked, lines, title="Stacked scales", font=f"{font}:size=10",
        app_id=f"noru.stacked{offset}{font.split()[0]}",
        x=200, y=EDGE - 80 + offset, width=400, height=260,
    )  # fmt: skip
    assert [g.geometry for g in grabs] == [(0, 0, 2560, 1600), (0, EDGE, 960, 540)]
    assert rect[1] < EDGE < rect[1] + rect[3]
    _, texts, _ = served_grabs(tmp_path, engine, grabs)
    _none_leaked([anthropic, github], texts)
    # the ordinary lines are served as read (not redacted), on their sides
    assert "$ cat .env" in texts[0] and "=search,export" in texts[1], texts


@pytest.mark.parametrize("font", ["Noto Sans Mono", "DejaVu Sans Mono"])
def test_a_wrapped_token_below_the_edge_is_redacted_when_the_upper_display_shows_none_of_it(
    sway_stacked: Sway,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    engine: TesseractEngine,
    font: str,
) -> None:
    """Each display is grabbed at its own moment: the upper one before the
    terminal was drawn there, the lower one after (as when the window maps
    or moves between the two grabs). The edge cuts the token's middle row;
    the label and the token's first rows are on no image, the lower display
    shows the middle row's lower half (read as nothing a rule knows) and the
    token's last row under it: none of it may be served."""
    enter_session(monkeypatch, sway_stacked.env)
    lines, secrets = _wrapped(-17)
    with Capturer() as capturer:
        before = capturer.grab_all_displays()
    assert before[0].windows == (), before[0].windows  # nothing on the upper display yet
    grabs, rect = _grabbed(
        sway_stacked, lines, title="Stacked scales", font=f"{font}:size=10",
        app_id=f"noru.stacked.late{font.split()[0]}",
        x=200, y=EDGE - 80 - 17, width=400, height=260,
    )  # fmt: skip
    assert rect[1] < EDGE < rect[1] + rect[3]
    _, texts, _ = served_grabs(tmp_path, engine, [before[0], grabs[1]])
    assert texts[0] == "", texts  # the upper display holds nothing of it
    _none_leaked(secrets, texts)
    assert "=search,export" in texts[1], texts  # the ordinary lines are served as read
