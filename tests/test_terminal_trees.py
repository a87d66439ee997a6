"""Trees drawn with box drawing (`tree`, `lsblk`, `npm ls`, `cargo tree`,
`pstree`) and the marks beside them (systemd's `●`) come back as the lines
the terminal shows: real terminals on a real X server, read by the real
engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from noru.capture import Capturer
from noru.ocr import OcrLine
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.ocr_scoring import chrome
from tests.parts import require_family
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    as_drawn,
    engine,
    read_on,
    window,
)
from tests.terminal_shown import Shown
from tests.xserver import XServer, running_xserver

pytestmark = pytest.mark.usefixtures("desktop")

# A line served at this confidence or more is sure (docs/text.md).
SURE = 0.99


def _read_at_96_dpi(
    tmp_path: Path,
    engine: TesseractEngine,  # noqa: F811
    term: real_terminals.Terminal,
    shown: list[Shown] | list[str],
    **drawn: Any,
) -> list[OcrLine]:
    """The lines ``engine`` reads of ``term`` showing ``shown`` on a screen
    of 96 dpi of its own, as the corpus and the dev sets draw them (the
    desktop's differs); ``drawn``: ``open_terminal``'s columns, rows, font,
    size, theme, chrome, x and y."""
    real_terminals.need(term)
    where = {"x": 60, "y": 60, **drawn}
    with (
        running_xserver(tmp_path, width=2560, height=1600, dpi=96) as server,
        Capturer(display=server.display) as capturer,
        real_terminals.open_terminal(server, term, shown, **where) as client,
    ):
        image = window(capturer, client)
    return [line for line in engine.recognise(image).lines if line.text.strip()]


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


TRACE = [
    "$ php artisan queue:work",
    "PHP Fatal error:  Uncaught Error in /var/www/app/Job.php:42",
] + [
    f"#{n} /var/www/app/src/Queue/Worker{n}.php({7 * n + 3}): App\\Queue\\Job->handle(Array)"
    for n in range(36)
]


def test_a_scrollbar_s_arrow_beside_a_band_s_grid_is_no_column_of_it(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """A big rxvt-unicode is read in bands. In the band holding a
    highlighted row, the rows joined to it looked for a column left of
    the first, and the scrollbar's down arrow beside the bar (its shading
    a pixel right of it) made one: every line of every band came back a
    space to the right, at 0.99 and more. No column crosses a bar."""
    require_family("Cousine", "fonts-croscore")
    read = read_on(
        desktop, capturer, engine, "urxvt", TRACE, columns=123, rows=39, size=10,
        font="Cousine", theme="dark", chrome="default", dpi=192, highlight=36,
    )  # fmt: skip
    assert [line for line in read if line.strip()] == TRACE


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
        Capturer(display=server.display) as capturer,
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


# A longer pstree: the lines down run from one joint to the next over one
# row and over many.
PSTREE_LONG = [
    "$ pstree -p",
    "systemd(1)─┬─containerd(3647)",
    "           ├─rsyslogd(39480)",
    "           ├─NetworkManager(23313)─┬─NetworkManager(18437)",
    "           │                       └─{NetworkManager}(73519)",
    "           ├─NetworkManager(24811)─┬─NetworkManager(5186)─┬─python3(76757)",
    "           │                       │                      └─{NetworkManager}(84278)",
    "           │                       └─tmux(32696)",
    "           ├─python3(97173)",
    "           ├─bash(52009)─┬─{bash}(54962)",
    "           │             ├─node(36798)",
    "           │             └─{bash}(15785)",
    "           ├─postgres(18968)",
    "           ├─dbus-daemon(3941)───{dbus-daemon}(18652)",
    "           ├─dbus-daemon(45796)",
    "           ├─NetworkManager(71823)───{NetworkManager}(80992)",
    "           ├─containerd(45502)",
    "           ├─ModemManager(77363)",
    "           ├─sshd(87767)───{sshd}(68674)",
    "           ├─rsyslogd(57224)",
    "           ├─cron(87185)",
    "           ├─nginx(82260)",
    "           ├─dockerd(28064)─┬─{dockerd}(3307)",
    "           │                ├─{dockerd}(9932)",
    "           │                └─{dockerd}(60133)",
    "           └─dbus-daemon(70622)",
]


def test_a_tree_drawn_from_a_fallback_face_is_read_on_the_terminal_s_rows(
    tmp_path: Path, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Hermit has no box drawing, and st draws pstree's lines from
    fontconfig's fallback for it (at 96 dpi): its `├`'s line across is a
    pixel thicker where it meets the line down, and the joint was read as
    half of `上`. Its lines down run whole rows from one joint's middle to
    another's, and where letters' tips reached a cell's edge they were
    taken for a badge's colour placing the rows, or a `p` touching the `b`
    below it for a line down: the rows moved and no line was read. The
    first tree line's `─` under `-p` holds a pixel of the `p` (Hermit's
    rows touch, and the grid starts a pixel high): it may be read as `—`,
    never surely."""
    require_family("Hermit", "fonts-hermit")
    lines = _read_at_96_dpi(
        tmp_path, engine, "st", PSTREE_LONG, columns=90, rows=len(PSTREE_LONG) + 1, size=12,
        font="Hermit", theme="solarized-light",
    )  # fmt: skip
    assert as_drawn(lines)[2:] == PSTREE_LONG[2:]
    assert min(line.confidence for line in lines[2:]) >= SURE
    first = lines[1]
    assert first.text.rstrip() == PSTREE_LONG[1] or first.confidence < SURE, first


def test_a_joint_read_as_a_capital_does_not_size_the_font() -> None:
    """The engine reads npm's `├` as `F` and `└` as `L`, and capitals' height
    sizes the faces tried: a `├` runs the whole row, so Cousine at 12 px,
    drawn here by FreeType as kitty draws it with its own lines, was looked
    for at 13.5 px an em and taken for Hack. No letter or digit is inked
    from its cell's top row to its bottom one."""
    import numpy as np

    from noru.ocr import font
    from noru.ocr.faces import draw, monospace_faces
    from noru.ocr.glyphs import Canvas

    require_family("Cousine", "fonts-croscore")
    width, height = 7, 14
    face = next(f for f in monospace_faces() if (f.family, f.style) == ("Cousine", "Regular"))
    chars = [c for c in "npm ls depth 1 meridian 1 6 17 axios 2 11 2 debug 4 31 17" if c != " "]
    drawn = draw(face, 12.0, "light", tuple(sorted(set(chars))))
    assert drawn is not None
    canvas = Canvas(drawn, width, height)
    glyphs = canvas.cells(0, 10)
    cells = [glyphs[canvas.index[c]].reshape(height, width) for c in chars]
    tee, ell = np.zeros((2, height, width), np.float32)
    tee[:, 2:4] = ell[:8, 2:4] = 1.0  # the line down, two pixels thick
    tee[6:8, 2:] = ell[6:8, 2:] = 1.0  # the line across
    found = font.identify([*cells, tee, ell], [*chars, "F", "L"], width=width, height=height)
    assert found is not None
    assert (found.face.family, found.size) == ("Cousine", 12.0)


NPM_DENSE = [
    "$ npm ls --depth=1",
    "meridian@1.6.17 /home/dev/meridian",
    "├─┬ axios@2.11.2",
    "│ ├── debug@4.31.17 deduped",
    "│ └── dotenv@1.19.1 deduped",
    "├── eslint@0.25.17",
    "├─┬ express@2.27.17",
    "│ └── jest@0.28.16 deduped",
    "├─┬ semver@0.14.4",
    "│ ├── tslib@4.10.19 deduped",
    "│ └── debug@0.25.0",
    "└─┬ uuid@3.9.13",
    "  ├── tslib@1.26.0 deduped",
    "  └── chalk@4.27.7",
]


def test_a_line_down_across_a_highlighted_row_is_kept(
    tmp_path: Path, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """The `│` down npm's first column crosses a highlighted row in the
    paper's colour (kitty, Cousine 9 pt, 96 dpi), a thin run between two
    stretches of the row's own: it was taken for where the highlight ends
    and dropped (`  └── jest`, at 0.9998). A highlight's end runs to the
    row's edge or is wider than a stroke."""
    require_family("Cousine", "fonts-croscore")
    lines = _read_at_96_dpi(
        tmp_path, engine, "kitty", NPM_DENSE, columns=80, rows=len(NPM_DENSE) + 1, size=9,
        font="Cousine", theme="dark", highlight=7,
    )  # fmt: skip
    assert as_drawn(lines) == NPM_DENSE


PSTREE_SHORT = [
    "$ pstree -p",
    "systemd(1)─┬─dockerd(16269)───{dockerd}(6913)",
    "           ├─sshd(32990)───dockerd(77834)─┬─{dockerd}(95466)",
]


def test_three_lines_of_a_tree_are_read_on_their_grid_by_their_font(
    tmp_path: Path, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Three lines of pstree in kitty (Fira Code 10 pt, 96 dpi): the `│`
    from `┬` to `├` joins the last two lines into one run of ink twice as
    tall as the first line, and that run, the median of two, was taken for
    one line's height, so the `│` was no line down and the rows came out
    57 pixels tall. On the grid, the engine read each `───` as a dash or
    two over several cells, and those were taken for wide letters read as
    Latin ones: no cell of the two lines was a sample for the font, which
    was not found (`—7—dockerd( 16269 )`, `“Pessha(32990)`)."""
    require_family("Fira Code", "fonts-firacode")
    lines = _read_at_96_dpi(
        tmp_path, engine, "kitty", PSTREE_SHORT, columns=80, rows=12, size=10,
        font="Fira Code", theme="light",
    )  # fmt: skip
    assert as_drawn(lines) == PSTREE_SHORT
