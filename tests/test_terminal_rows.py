"""Where a terminal's rows and cells lie, read by the real engine on real
terminals: a row in reverse video or highlighted (alone on the screen, at
the window's top, above a tall empty screen, with one line under it), a
short screen's sparse lines, a pager's prompt across most of a row, lines
of marks and a dump's column of dots, a first line at the window's very
top, a selection across the rows (noru.ocr.terminal_span,
terminal_grid, terminal_baselines, terminal_pitch).
"""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals, terminal_reading
from tests.parts import require_family
from tests.terminal_reading import ALIGNED, MONO, as_drawn, read_on, window
from tests.terminal_shown import Shown
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

engine = terminal_reading.engine  # the fixture: a cold engine each test


def test_a_line_in_reverse_video_is_a_row_of_the_grid_like_the_others(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    real_terminals.need("urxvt")
    with real_terminals.open_terminal(
        desktop, "urxvt", ALIGNED, columns=100, rows=len(ALIGNED) + 3, theme="dark",
        highlight=4, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert len(read) == len(ALIGNED)
    # The highlighted row, and the rows below it, are read as rows.
    same = sum(a == b for a, b in zip(read[4], ALIGNED[4], strict=False))
    assert len(read[4]) == len(ALIGNED[4]) and same >= len(ALIGNED[4]) - 2, read[4]
    assert sum(got == want for got, want in zip(read[5:], ALIGNED[5:], strict=True)) >= 8


@pytest.mark.parametrize("highlight", [7, 8])
def test_a_highlighted_row_above_a_tall_empty_screen_leaves_its_text_on_the_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, highlight: int
) -> None:
    """The paper's longest stretch is the empty screen below a selected row,
    holding one line (or, the last line selected, none: no grid at all);
    the text above the row is where the grid repeats."""
    real_terminals.need("urxvt")
    shown = ALIGNED[:9]
    with real_terminals.open_terminal(
        desktop, "urxvt", shown, columns=100, rows=30, theme="light",
        highlight=highlight, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert [line for line in read if line[:4].isdigit()] == shown, read


@pytest.mark.parametrize("term", ["alacritty", "xterm"])
def test_a_highlighted_first_row_at_the_window_s_top_is_a_row_of_the_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, term: real_terminals.Terminal
) -> None:
    """alacritty and xterm draw their first row at the window's very top:
    highlighted, it had no row of the paper above it to bound it, was left
    off the grid and read by the engine alone (`/vi/` for `/v1/`, `| jq .`
    a line of its own)."""
    real_terminals.need(term)
    shown = [
        "$ curl -s https://api.example.io/v1/items/42 | jq .",
        "{",
        '  "name": "table-3wAE9F",',
        '  "size": 1024',
        "}",
    ]
    with real_terminals.open_terminal(
        desktop, term, shown, columns=80, rows=7, font="Liberation Mono", size=12,
        theme="solarized-dark", highlight=0, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert [line for line in read if line.strip()] == shown, read


@pytest.mark.parametrize(
    ("term", "chrome", "theme", "size", "below"),
    [
        ("kitty", "none", "dark", 10, []),
        ("xfce4-terminal", "default", "light", 16, []),
        ("xterm", "none", "dark", 12, ["+-------+--------------+---------+"]),
    ],
)
def test_a_highlighted_line_alone_on_the_screen_is_read(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    chrome: real_terminals.Chrome,
    theme: str,
    size: int,
    below: list[str],
) -> None:
    """One line, selected or in reverse video, on an otherwise empty screen
    (or above a table's border, no grid on its own): the paper shows no grid
    and the engine read nothing of the line (light letters on a block, taken
    for a bar above the terminal). The block's own letters give the grid."""
    shown = ["mysql> SELECT id, retry_queue, user FROM users LIMIT 4;", *below]
    read = read_on(
        desktop, capturer, engine, term, shown, columns=100, rows=30, size=size,
        theme=theme, chrome=chrome, highlight=0,
    )  # fmt: skip
    assert read[-len(shown) :] == shown, read


@pytest.mark.parametrize(
    ("term", "family", "size"), [("st", "DejaVu Sans Mono", 12), ("alacritty", "Noto Mono", 11)]
)
def test_a_short_screen_with_blank_rows_between_its_lines_is_read_on_its_rows(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    family: str,
    size: int,
) -> None:
    # A man page's first screen: a title, a blank row, a heading and its
    # line, a blank row, a heading, the pager's prompt in reverse video. Its
    # lines repeat best two rows apart, though two of them are one row apart.
    real_terminals.need(term)
    page = [
        f"{'TAR(1)':<32}{'GNU TAR Manual':^24}{'TAR(1)':>32}",
        "",
        "NAME",
        "       tar - an archiving utility",
        "",
        "SYNOPSIS",
        " Manual page tar(1) line 1 (press h for help or q to quit)",
    ]
    with real_terminals.open_terminal(
        desktop, term, page, columns=90, rows=len(page) + 1, font=family, size=size,
        theme="dark", highlight=len(page) - 1, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert read == [line for line in page if line], read


PAGES = {
    "git-rebase": "git-rebase - Reapply commits on top of another base tip",
    "ssh": "ssh - OpenSSH remote login client",
}


@pytest.mark.parametrize(
    ("family", "size", "theme", "columns", "chrome", "page", "synopsis"),
    [
        ("Anonymous Pro", 15, "solarized-dark", 90, "none", "git-rebase", True),
        ("Hermit", 10, "solarized-dark", 80, "default", "ssh", False),
        ("Cousine", 14, "light", 110, "none", "ssh", False),
        ("Hack", 14, "solarized-light", 80, "default", "git-rebase", False),
    ],
)
def test_a_pager_s_prompt_across_most_of_a_short_screen_s_row_is_read_on_its_rows(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    family: str,
    size: int,
    theme: str,
    columns: int,
    chrome: real_terminals.Chrome,
    page: str,
    synopsis: bool,
) -> None:
    """A man page's first lines in less, its prompt in reverse video over
    more than half the row and less than all of it. The prompt's rows
    showed the paper past its end and between its letters, and were read as
    the paper's rows: a block of ink taller than any line (the rows placed a
    pixel off their pitch, or none found) or, cut by its letters, a few rows
    of text and two lines drawn across. Its sparse lines repeat a pixel off
    their pitch as well; every baseline lies a whole number of rows apart."""
    real_terminals.need("urxvt")
    require_family(family)
    title = f"{page.upper()}(1)"
    prompt = f" Manual page {page}(1) line 1 (press h for help or q to quit)"
    options = "[-i | --interactive] [<options>] [--exec <cmd>]"
    shown = [
        Shown.text(f"{title}{'User Commands':^{columns - 1 - 2 * len(title)}}{title}"),
        Shown.text(""),
        Shown("NAME", "\x1b[1mNAME\x1b[0m"),
        Shown.text(f"       {PAGES[page]}"),
        *(
            [
                Shown.text(""),
                Shown("SYNOPSIS", "\x1b[1mSYNOPSIS\x1b[0m"),
                Shown(
                    f"       git-rebase {options}",
                    f"       \x1b[1mgit-rebase\x1b[0m {options}",
                ),
            ]
            if synopsis
            else []
        ),
        Shown.text(""),
        Shown(prompt, f"\x1b[7m{prompt}\x1b[0m"),
    ]
    read = read_on(
        desktop, capturer, engine, "urxvt", shown, columns=columns, rows=len(shown) + 1,
        font=family, size=size, theme=theme, chrome=chrome, dpi=96,
    )  # fmt: skip
    assert read == [line.plain for line in shown if line.plain], read


# ``hexdump -C`` of an ELF file's first lines: its printable column mostly dots.
NMAP = [
    "$ sudo nmap -sS -sV -p- 192.168.1.110",
    "Starting Nmap 7.93 ( https://nmap.org ) at 2026-12-06 13:54 UTC",
    "Nmap scan report for nas.lan (192.168.1.110)",
    "Host is up (0.032s latency).",
    "Not shown: 65533 closed tcp ports (reset)",
    "PORT     STATE SERVICE     VERSION",
    "22/tcp   open  ssh         Dropbear sshd 2022.83 (protocol 2.0)",
    "3306/tcp open  mysql       MySQL 8.0.40-0ubuntu0.22.04.1",
    "5432/tcp open  postgresql  PostgreSQL DB 9.6.0 or later",
    "8080/tcp open  http-proxy",
    "MAC Address: 50:C7:BF:06:03:E0 (TP-Link Technologies)",
    "Service Info: OS: Linux; CPE: cpe:/o:linux:linux_kernel",
    "Running: Linux 4.X|5.X",
    "OS details: Linux 4.15 - 5.8",
    "Service detection performed. Please report any incorrect results at "
    "https://nmap.org/submit/ .",
    "Nmap done: 1 IP address (1 host up) scanned in 24.31 seconds",
    "$ sudo nmap -sn 192.168.1.0/24 | grep -i 'report for'",
    "Nmap scan report for gateway.lan (192.168.1.1)",
    "Nmap scan report for printer.lan (192.168.1.23)",
    "Nmap scan report for nas.lan (192.168.1.110)",
    "Nmap scan report for laptop-jay.lan (192.168.1.142)",
    "Nmap scan report for phone-guest.lan (192.168.1.187)",
]


def test_glyphs_touching_across_tight_rows_are_no_line_drawn_down_them(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Hermit in Konsole: a letter's stem touches the stem of the one below
    it (the lines have no pixel row between them), and a few such chains,
    from a letter's top to the next line's baseline, looked like box
    drawing ending on the cells' edges: the rows' edges moved up into the
    descenders, and every ``g``, ``y``, ``p`` lost its tail (``nmap.ora``).
    A line drawn down the cells is alone in them; a stem has its bowls."""
    require_family("Hermit")
    read = read_on(
        desktop, capturer, engine, "konsole", NMAP, columns=100, rows=28,
        font="Hermit", size=11, theme="solarized-dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()][-len(NMAP) :] == NMAP, read


PLAY = [
    "$ ansible-playbook -i inventories/staging/hosts.ini deploy.yml",
    "",
    "PLAY [webservers] " + "*" * 90,
]


def test_two_lines_one_of_marks_high_in_its_row_are_placed_by_their_edges(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """A command and, a blank row below, a play's heading of stars: the
    stars are most of the heading's ink and end its body high, so its
    baseline came out eleven pixels high, and the two baselines fitted a
    pitch of two rows less a bit. Their tops and bottoms lie as far apart
    as each other and place the rows."""
    require_family(MONO)
    read = read_on(
        desktop, capturer, engine, "urxvt", PLAY, columns=115, rows=36, font=MONO, size=11,
        dpi=192, theme="light", chrome="default",
    )  # fmt: skip
    assert read == [line for line in PLAY if line], read


HEXDUMP = [
    "$ hexdump -C build/meridian | head -n 12",
    "00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|",
    "00000010  03 00 3e 00 01 00 00 00  70 11 00 00 00 00 00 00  |..>.....p.......|",
    "00000020  40 00 00 00 00 00 00 00  98 5b 00 00 00 00 00 00  |@........[......|",
    "00000030  00 00 00 00 40 00 38 00  0d 00 40 00 1f 00 1e 00  |....@.8...@.....|",
    "00000040  06 00 00 00 04 00 00 00  40 00 00 00 00 00 00 00  |........@.......|",
    "00000050  40 00 00 00 00 00 00 00  40 00 00 00 00 00 00 00  |@.......@.......|",
    "00000060  d8 02 00 00 00 00 00 00  d8 02 00 00 00 00 00 00  |................|",
    "00000070  08 00 00 00 00 00 00 00  03 00 00 00 04 00 00 00  |................|",
    "00000080  18 03 00 00 00 00 00 00  18 03 00 00 00 00 00 00  |................|",
    "00000090  18 03 00 00 00 00 00 00  1c 00 00 00 00 00 00 00  |................|",
    "000000a0  1c 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00  |................|",
    "000000b0  01 00 00 00 04 00 00 00  00 00 00 00 00 00 00 00  |................|",
]


def test_a_dump_s_column_of_dots_does_not_halve_the_cells(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """A row of dots, each narrower than half its cell and alone in it,
    folds as emptily at half the advance as at the whole: it said the cells
    were half as wide, and every character came back followed by a space.
    Marks that narrow say nothing of the advance."""
    require_family("Hermit")
    read = read_on(
        desktop, capturer, engine, "xterm", HEXDUMP, columns=90, rows=len(HEXDUMP) + 1,
        font="Hermit", size=11, dpi=192,
    )  # fmt: skip
    exact = sum(line in HEXDUMP for line in read)
    assert len(read) == len(HEXDUMP) and exact >= len(HEXDUMP) - 2, read


def _ansible_headed(title: str) -> str:
    """An ansible-playbook heading: its title, then stars to the 131st column."""
    return f"{title} {'*' * (130 - len(title))}"


ANSIBLE = [
    "$ ansible-playbook -i inventories/prod/hosts.ini site.yml",
    "",
    _ansible_headed("PLAY [all]"),
    "",
    _ansible_headed("TASK [Gathering Facts]"),
    "ok: [cache-01]",
    "ok: [web-01]",
    "",
    _ansible_headed("TASK [app : Check out release]"),
    "changed: [cache-01]",
]


@pytest.mark.parametrize(
    ("term", "family", "size", "theme"),
    [("konsole", "Anonymous Pro", 11, "solarized-light"), ("xterm", "Anonymous Pro", 11, "light")],
)
def test_a_line_of_marks_across_the_row_is_read_on_the_grid_of_the_lines_around_it(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    family: str,
    size: int,
    theme: str,
) -> None:
    """A heading followed by stars to the edge: the stars' middle rows show
    so little paper that they split the terminal's rows in two, and the
    line was read from the middle of its cells down. Its letters go on
    above and below those rows: they are the line's, as a line drawn across
    the rows is."""
    require_family(family)
    read = read_on(
        desktop, capturer, engine, term, ANSIBLE, columns=132, rows=len(ANSIBLE) + 4,
        font=family, size=size, theme=theme,
    )  # fmt: skip
    assert [line for line in read if line in ANSIBLE] == [line for line in ANSIBLE if line], read


RECAP = [
    f"PLAY RECAP {'*' * 108}",
    "cache-01                   : ok=9    changed=1    unreachable=0    failed=0    skipped=0"
    "    rescued=0    ignored=0",
    "web-01                     : ok=5    changed=2    unreachable=0    failed=1    skipped=0"
    "    rescued=0    ignored=0",
]


@pytest.mark.parametrize(("term", "size"), [("kitty", 9), ("xterm", 9)])
def test_three_lines_whose_bottoms_differ_by_their_descenders_are_placed_by_their_tops(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    size: int,
) -> None:
    """A play's recap alone on the screen: the stars end the heading's body
    high, so no pitch fits the baselines; the tops fit one, and the bottoms
    fit it only a descender apart (the heading has none, the hosts' lines
    do), which is no sign of two lines run together."""
    require_family("Cousine")
    read = read_on(
        desktop, capturer, engine, term, RECAP, columns=120, rows=36, font="Cousine", size=size,
    )  # fmt: skip
    assert read == RECAP, read


PS_AUX = [
    "kenji       3386 31.8  5.1 10036968 808801 ?        Sl   Dec06  57:32 /usr/lib/firefox-es",
    "root        4073  0.0  0.3 191226 53044 ?        Sl   Nov28   5:17 /usr/bin/containerd-sh",
    "kenji       4825 35.5  1.4 4924782 225777 ?        Sl   Dec06 272:32 /usr/lib/jvm/java-17",
    "kenji       5663  0.0  0.3  96260 43546 pts/1    S+   00:39   1:31 tmux new -s stream",
    "kenji      11319  0.0  0.0  11084  4480 pts/2    R+   21:00   0:00 ps aux",
]


@pytest.mark.parametrize(
    ("term", "family", "size"),
    [("alacritty", "Noto Sans Mono", 15), ("xterm", "Noto Sans Mono", 15)],
)
def test_one_line_below_a_highlighted_row_takes_its_pitch_from_the_lines_above(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    family: str,
    size: int,
) -> None:
    """Three lines, a highlighted row, one line, and the rest of the screen
    empty: the run of paper under the highlight is the tallest, and its one
    line gave the grid its pitch (the line's own height with a margin, four
    pixels short). The three lines above measure it."""
    require_family(family)
    read = read_on(
        desktop, capturer, engine, term, PS_AUX, columns=90, rows=20, font=family, size=size,
        theme="solarized-light", highlight=3,
    )  # fmt: skip
    assert read == PS_AUX, read


HEXDUMP = [
    "$ hexdump -C assets/logo-17.png | head -n 16",
    "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|",
]


def test_two_lines_with_no_pixel_row_between_them_are_two_rows(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Hermit in Konsole: the command's ``|`` and ``p`` reach down to the
    next line's digits, so the two lines are one run of ink, whose height
    made one row of both. They part where the ink thins between them."""
    require_family("Hermit")
    read = read_on(
        desktop, capturer, engine, "konsole", HEXDUMP, columns=90, rows=20,
        font="Hermit", size=11, theme="solarized-light", chrome="default",
    )  # fmt: skip
    assert read[-len(HEXDUMP) :] == HEXDUMP, read


DAEMONS = [
    "root        7370  0.0  0.1  80844 20295 ?        Ss   Dec06   0:44 /lib/systemd/systemd-udevd",
    "root        7993  0.0  0.5 183046 74790 ?        Ss   Dec06   4:41 "
    "nginx: master process /usr/sbin/nginx -g d",
    "postgres    8844  0.0  0.3  94969 45650 ?        Ss   Dec06   8:24 "
    "postgres: 15/main: checkpointer",
    "dev        11871  0.0  0.0  11084  4480 pts/4    R+   02:33   0:00 ps aux",
]


def test_a_scrollbar_s_arrow_far_below_one_line_does_not_set_the_pitch(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Konsole as it comes (menu bar, toolbar, scrollbar): two lines, a
    highlighted row, one line, and the rest empty. The run of paper under
    the highlight is the tallest; its line and the scrollbar's arrow in the
    window's bottom corner were two lines, so their run set the grid, at
    the one line's own height. Two lines far apart measure no pitch: the
    two lines above do."""
    require_family("Noto Sans Mono")
    read = read_on(
        desktop, capturer, engine, "konsole", DAEMONS, columns=110, rows=28,
        font="Noto Sans Mono", size=12, theme="light", chrome="default", highlight=2,
    )  # fmt: skip
    assert read[-len(DAEMONS) :] == DAEMONS, read


@pytest.mark.parametrize(
    ("term", "family", "size", "dpi", "more"),
    [
        ("konsole", "Anonymous Pro", 12, None, []),
        ("xterm", "DejaVu Sans Mono", 11, 192, ["ok: [cache-01]"]),
    ],
)
def test_lines_whose_marks_end_their_bodies_high_are_read_on_their_rows(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    family: str,
    size: int,
    dpi: int | None,
    more: list[str],
) -> None:
    """ansible's plays and tasks end in a run of ``*``, whose ink ends well
    above the baseline: the few lines' baselines fit no pitch (the rows
    came out cut through the letters, ``****`` read as ``KKKK``). Their
    tops, or their bottoms, do."""
    real_terminals.need(term)
    shown = [
        "$ ansible-playbook -i inventories/staging/hosts.ini site.yml",
        "",
        f"{'PLAY [all] ':*<99}",
        "",
        f"{'TASK [Gathering Facts] ':*<99}",
        *more,
    ]
    read = read_on(
        desktop, capturer, engine, term, shown, columns=100, rows=8, font=family, size=size,
        dpi=dpi, theme="solarized-light",
    )  # fmt: skip
    lines = [line for line in shown if line]
    assert lines[0] in read, read
    assert read[read.index(lines[0]) :] == lines, read  # below Konsole's toolbar


def test_a_first_line_at_the_window_s_very_top_is_a_row_of_the_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """alacritty draws its first row from the window's top pixel: in a small
    face that row starts a pixel above the window, and a grid of four lines
    placed from the window's top had three, too few to be one (the engine
    read `00000010` as `00800018`)."""
    shown = [
        "$ hexdump -C build/nimbus | head -n 16",
        "00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|",
        "00000010  03 00 3e 00 01 00 00 00  80 11 00 00 00 00 00 00  |..>.............|",
        "00000020  40 00 00 00 00 00 00 00  a0 32 00 00 00 00 00 00  |@........2......|",
    ]
    read = read_on(
        desktop, capturer, engine, "alacritty", shown, columns=110, rows=28,
        font="Liberation Mono", size=8, theme="solarized-dark",
    )  # fmt: skip
    assert read == shown, read


@pytest.mark.parametrize(
    ("term", "family", "size"),
    [("konsole", "Noto Sans Mono", 13), ("xfce4-terminal", "Hack", 12), ("st", "Cousine", 11)],
)
def test_a_selection_across_the_rows_keeps_the_rows_above_it_on_the_grid(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    term: real_terminals.Terminal,
    family: str,
    size: int,
) -> None:
    # A highlighted row splits the terminal's background in two: the rows
    # above it are the grid's too, though the grid's origin, found from the
    # gaps between lines of text, is a pixel or two off the cells' edges.
    real_terminals.need(term)
    with real_terminals.open_terminal(
        desktop, term, ALIGNED[:9], columns=100, rows=12, font=family, size=size,
        theme="dark", highlight=3, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    # Konsole's toolbar above its rows is read as text (its own lines).
    rows = [line for line in read if line[:4].isdigit()]
    assert rows[:3] == ALIGNED[:3], read
    assert sum(got == want for got, want in zip(rows[4:], ALIGNED[4:9], strict=False)) >= 4
