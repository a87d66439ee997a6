"""Trees drawn with box drawing (`tree`, `lsblk`, `npm ls`, `cargo tree`,
`pstree`) and the marks beside them (systemd's `●`) come back as the lines
the terminal shows: real terminals on a real X server, read by the real
engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.ocr_scoring import chrome
from tests.parts import require_family
from tests.terminal_shown import Shown
from tests.test_terminal_text import (  # noqa: F401  (fixtures)
    as_drawn,
    capturer,
    engine,
    read_on,
    window,
)
from tests.xserver import XServer, running_xserver

pytestmark = pytest.mark.usefixtures("desktop")

CARGO_TREE = [
    "$ cargo tree --depth 2",
    "ledger v0.4.2 (/home/me/ledger)",
    "├── anyhow v1.0.86",
    "├── clap v4.5.9",
    "│   ├── clap_builder v4.5.9",
    "│   └── clap_derive v4.5.8 (*)",
    "├── memchr v2.7.4",
    "├── serde v1.0.204",
    "│   └── serde_derive v1.0.204",
    "└── tokio v1.38.0",
    "    ├── bytes v1.6.1",
    "    └── pin-project-lite v0.2.14",
]

LSBLK = [
    "$ lsblk",
    "NAME        MAJ:MIN RM   SIZE RO TYPE MOUNTPOINTS",
    "vda         254:0    0   320G  0 disk",
    "├─vda1      254:1    0     1G  0 part /boot/efi",
    "├─vda2      254:2    0    31G  0 part [SWAP]",
    "└─vda3      254:3    0   288G  0 part /",
    "nvme0n1     259:0    0   1.8T  0 disk",
    "├─nvme0n1p1 259:1    0   512M  0 part /boot",
    "└─nvme0n1p2 259:2    0   1.8T  0 part /home",
]


def test_a_tree_s_lines_drawn_by_the_terminal_are_lines(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Alacritty draws box drawing itself: its thin `─` is nearest
    Cousine's `—`, and each line of the tree came back `├—— memchr` at
    0.9999. A dash whose stroke runs on through lines into a joint is a
    line."""
    require_family("Cousine", "fonts-croscore")
    read = read_on(
        desktop, capturer, engine, "alacritty", CARGO_TREE, columns=60, rows=14, size=13,
        font="Cousine", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == CARGO_TREE


def test_one_cell_of_line_after_a_joint_is_a_line(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """kitty draws `├─vda1`'s line two pixels thick, from the joint to the
    letter: one cell of line beside a joint was taken for half of a wide
    letter (`ー`), and read as what the engine saw there (`├Fvda2`)."""
    require_family("mononoki", "fonts-mononoki")
    read = read_on(
        desktop, capturer, engine, "kitty", LSBLK, columns=60, rows=11, size=9,
        font="mononoki", theme="light",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == LSBLK


# The inside of a tree: every row's first cell but the command's is a line
# down it.
SUBTREE = [
    "$ tree src | tail -n 24",
    "│   ├── cache.rs",
    "│   └── store",
    "│       ├── flush.ts",
    "│       ├── flush.py",
    "│       └── lookup.md",
    "├── sync.rs",
    "├── register",
    "│   ├── close.json",
    "│   └── read.yaml",
    "├── spawn.toml",
    "│   └── retry.rs",
    "├── ledger",
    "│   ├── batch.rs",
    "│   ├── entry.rs",
    "│   └── settle",
    "│       ├── apply.rs",
    "│       └── undo.rs",
    "├── config.toml",
    "├── worker",
    "│   ├── pool.rs",
    "│   └── queue.rs",
    "├── lib.rs",
    "├── error.rs",
    "└── main.rs",
]


def test_a_line_down_every_row_is_text_not_a_scrollbar(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Alacritty runs a tree's `│` unbroken from row to row: down the whole
    window, it was taken for a scrollbar, and the grid started after it, so
    every line lost its first cell (`├── sync.rs` came back `—— sync.rs`)."""
    require_family("Cousine", "fonts-croscore")
    read = read_on(
        desktop, capturer, engine, "alacritty", SUBTREE, columns=40, rows=len(SUBTREE) + 1,
        size=16, font="Cousine", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == SUBTREE


NPM_LS = [
    "$ npm ls --depth=1",
    "ledger-web@2.4.1 /srv/ledger-web",
    "├─┬ eslint@8.57.0",
    "│ ├── debug@4.3.5 deduped",
    "│ └── semver@7.6.2",
    "├─┬ vite@5.3.1",
    "│ ├── picocolors@1.0.1",
    "│ └── rollup@4.18.0",
    "├── dotenv@16.4.5",
    "└── zod@3.23.8",
]


def test_a_joint_whose_line_stops_a_pixel_short_is_that_joint(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """st draws DejaVu Sans Mono's own `├`, which at 8 pt and 192 dpi stops a
    pixel under its cell's top: its shape was taken for `┌` over the font's
    glyph (as where a terminal draws box drawing its own way), served at
    0.9999 (`┌─┬ eslint@8.57.0`)."""
    require_family("DejaVu Sans Mono", "fonts-dejavu-core")
    read = read_on(
        desktop, capturer, engine, "st", NPM_LS, columns=50, rows=12, size=8, dpi=192,
        font="DejaVu Sans Mono", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == NPM_LS


BAT_PAGE = [
    "───────┬──────────────────────────────────────────────",
    "       │ File: src/sync_request.ts",
    "───────┼──────────────────────────────────────────────",
    "   1   │ export function sync(xs: number[]): number {",
    "   2   │   return xs.reduce((a, b) => a + b, 0);",
    "   3   │ }",
    "───────┴──────────────────────────────────────────────",
]


def test_a_scrollbar_left_of_the_grid_is_no_column_of_it(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """rxvt-unicode's scrollbar stands left of its first column: a line
    drawn across the rows from that column (bat's frame) set the grid
    looking for a column left of its first, and the scrollbar's ink made
    one: every line came back a space to the right, at 0.9995 and more."""
    require_family("Noto Mono", "fonts-noto-mono")
    read = read_on(
        desktop, capturer, engine, "urxvt", BAT_PAGE, columns=60, rows=9, size=9,
        font="Noto Mono", theme="solarized-dark", chrome="default", dpi=192,
    )  # fmt: skip
    assert [line for line in read if line.strip()] == BAT_PAGE


PSTREE = [
    "$ pstree -p",
    "systemd(1)─┬─containerd(42328)",
    "           ├─postgres(62497)───ModemManager(47329)",
    "           ├─NetworkManager(83593)─┬─postgres(4349)",
    "           │                       └─{NetworkManager}(50971)",
    "           ├─python3(26278)─┬─dbus-daemon(94312)",
    "           │                └─{python3}(98805)",
    "           └─cron(67433)",
]


def test_a_line_drawn_into_the_next_cell_leaves_the_letter_there_whole(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """rxvt-unicode draws pstree's `─` from a fallback face wider than
    Anonymous Pro's cells: its end runs two pixels into the next cell and
    joins the letter there (`├─oostgres`, `├─ etworkManager`, at 0.9999)."""
    require_family("Anonymous Pro", "fonts-anonymous-pro")
    read = read_on(
        desktop, capturer, engine, "urxvt", PSTREE, columns=70, rows=len(PSTREE) + 1,
        size=12, font="Anonymous Pro", theme="solarized-dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == PSTREE


RED, OFF = "\x1b[1;31m", "\x1b[0m"
FAILED_UNITS = [
    Shown.text("$ systemctl list-units --failed --no-pager"),
    Shown.text("  UNIT               LOAD   ACTIVE SUB    DESCRIPTION"),
    Shown(
        "● ledger-api.service loaded failed failed Ledger API",
        f"{RED}●{OFF} ledger-api.service loaded {RED}failed failed{OFF} Ledger API",
    ),
    Shown(
        "● backup.timer       loaded failed failed Nightly backup",
        f"{RED}●{OFF} backup.timer       loaded {RED}failed failed{OFF} Nightly backup",
    ),
]


def test_a_unit_s_mark_is_read_as_that_mark(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """systemd marks a failed unit with a red `●`, which no glyph the grid's
    font was compared with drew: it came back `e`, `@` or `®`, at 0.9945."""
    require_family("DejaVu Sans Mono", "fonts-dejavu-core")
    read = read_on(
        desktop, capturer, engine, "alacritty", FAILED_UNITS, columns=70, rows=6, size=11,
        font="DejaVu Sans Mono", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == [shown.plain for shown in FAILED_UNITS]


@pytest.mark.parametrize(("char", "shape"), [("l", None), ("└", "└"), ("├", "├")])
def test_an_l_on_its_foot_is_a_letter_not_a_corner(char: str, shape: str | None) -> None:
    """Cousine's `l` at 9 pt (12 px) is a stem on a foot that reaches its
    cell's right edge: its shape was taken for a `└` wherever its glyph left
    it unsure (kitty's dimmed `tslib`, read `ts└ib`). A joint's line across
    lies about the cell's middle, a foot on the baseline. Drawn here by
    FreeType from the installed face, as the reader's glyphs are."""
    import subprocess

    from PIL import Image, ImageDraw, ImageFont

    from noru.ocr.terminal_votes import junction

    require_family("Cousine", "fonts-croscore")
    path = subprocess.run(
        ["fc-match", "-f", "%{file}", "Cousine"], capture_output=True, text=True, check=True
    ).stdout
    font = ImageFont.truetype(path, 12)
    ascent, descent = font.getmetrics()
    cell = Image.new("L", (round(font.getlength("M")), ascent + descent), 0)
    ImageDraw.Draw(cell).text((0, 0), char, font=font, fill=255)
    assert junction(cell.point(lambda v: 255 if v > 100 else 0)) == shape


BLUE = "\x1b[1;34m"
SHORT_TREE = [
    Shown.text("$ tree -L 3 app"),
    Shown("app", f"{BLUE}app{OFF}"),
    Shown.text("├── Makefile"),
    Shown("├── item", f"├── {BLUE}item{OFF}"),
    Shown.text("│   ├── entry_row.py"),
    Shown.text("│   └── conftest.py"),
    Shown.text("1 directories, 3 files"),
]


def test_a_short_tree_whose_lines_run_together_is_read_on_its_grid(
    tmp_path: Path, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Noto Mono at 10 pt in Konsole, on a screen of 96 dpi: a descender
    meets the next line, and the tree's `│` runs down through the gaps
    between the others (its folders in bold blue, as tree draws them); the
    seven lines were two runs of ink, placed as rows 68 pixels tall, and
    not one line was served. The rows are placed without the lines drawn
    down."""
    require_family("Noto Mono", "fonts-noto-mono")
    real_terminals.need("konsole")
    with (
        running_xserver(tmp_path, width=2560, height=1600, dpi=96) as server,
        Capturer(display=server.display) as capturer,  # noqa: F811
        real_terminals.open_terminal(
            server, "konsole", SHORT_TREE, columns=100, rows=30, size=10, font="Noto Mono",
            theme="solarized-dark", chrome="default", x=20, y=20,
        ) as client,
    ):  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    read = [line for line in read if line.strip() and not chrome(line, client.chrome)]
    assert read == [shown.plain for shown in SHORT_TREE]


NPM_SHORT = [
    Shown.text("$ npm ls --depth=1"),
    Shown.text("juniper@1.16.7 /home/dev/juniper"),
    Shown.text("├─┬ body-parser@4.15.19"),
    Shown.text("│ ├── vite@2.26.11"),
    Shown.text("│ └── debug@4.3.1"),
    Shown.text("├─┬ eslint@0.10.9"),
    Shown("│ └── react-dom@0.13.13 deduped", "│ └── \x1b[2mreact-dom@0.13.13 deduped\x1b[0m"),
    Shown.text("├─┬ ms@3.6.8"),
]


def test_a_joint_after_a_line_keeps_its_arm(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """kitty draws `─┬` two pixels thick, the `┬`'s vertical stopping a pixel
    above its cell's bottom: the `┬`'s arm was taken for the end of the `─`
    before it drawn into its cell, and cut (`├─┌ ms`). A line that goes on
    across the cell is the cell's own."""
    require_family("Noto Mono", "fonts-noto-mono")
    read = read_on(
        desktop, capturer, engine, "kitty", NPM_SHORT, columns=100, rows=9, size=11,
        font="Noto Mono", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == [shown.plain for shown in NPM_SHORT]
