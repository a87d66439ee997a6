"""Terminal text read as lines: real terminals drawing text we gave them, read
by the real engine row by row on their cell grid (noru.ocr.terminal).

A terminal whose rows share aligned gaps (numbered code with aligned
comments, a table, `top`) comes back as its rows, in order, each as one
line with its gaps as spaces; light on dark and coloured text is read as
ink; a row read once is not read again when the terminal scrolls or when
another row changes; and what a warm engine answers is what a cold one
reads. Proportional type keeps the engine's own layout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageDraw

from noru.capture import Capturer
from noru.ocr import terminal as rows_reader
from noru.ocr import terminal_rows
from noru.ocr.tesseract import TesseractEngine, TesseractSettings
from tests import real_clients, real_terminals, terminal_reading
from tests.parts import require_family
from tests.real_clients import Client
from tests.redaction_cases import planted
from tests.sway import Sway, enter_session
from tests.terminal_reading import ALIGNED, MONO, as_drawn, read_on, window
from tests.terminal_shown import Shown
from tests.xserver import TkWindow, XServer

engine = terminal_reading.engine  # the fixture: a cold engine each test


def test_a_terminal_s_aligned_columns_come_back_as_its_rows(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, ALIGNED, columns=100, rows=len(ALIGNED) + 2, font=MONO, size=9, x=60, y=60
    ) as client:
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    # One line a row, in order: the page layout gave the numbers, the code and
    # the comments as three columns, one after another.
    assert len(read) == len(ALIGNED)
    exact = sum(got == want for got, want in zip(read, ALIGNED, strict=True))
    misread = [(got, want) for got, want in zip(read, ALIGNED, strict=True) if got != want]
    assert exact >= len(ALIGNED) - 1, misread
    # The gaps are the grid's: aligned fields stay aligned.
    assert read[11].index("CrashLoopBackOff") == ALIGNED[11].index("CrashLoopBackOff")


@pytest.mark.parametrize(
    ("kind", "theme"),
    [
        ("urxvt", "dark"),
        ("st", "light"),
        ("xfce4-terminal", "dark"),
        ("konsole", "light"),
        ("kitty", "dark"),
        ("alacritty", "light"),
    ],
)
def test_light_on_dark_and_coloured_text_in_other_terminals_is_read_as_ink(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, kind: str, theme: str
) -> None:
    real_terminals.need(kind)  # type: ignore[arg-type]
    with real_terminals.open_terminal(
        desktop, kind, ALIGNED, columns=100, rows=len(ALIGNED) + 3, theme=theme,  # type: ignore[arg-type]
        coloured=True, own_palette=True, x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    words = " ".join(ALIGNED).split()
    found = " ".join(read).split()
    assert sum(w in found for w in words) >= 0.97 * len(words), read
    assert sum(line in read for line in ALIGNED) >= len(ALIGNED) - 1, read


@pytest.mark.parametrize(
    "drawn",
    [{"dpi": 192}, {"subpixel": True, "dpi": 192, "theme": "dark"}],
    ids=["HiDPI (Xft at 192 dpi)", "HiDPI, sub-pixel RGB, dark"],
)
def test_hidpi_terminals_sub_pixel_or_not_are_read_as_their_rows(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, drawn: dict[str, Any]
) -> None:
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, ALIGNED, columns=100, rows=len(ALIGNED) + 2, font=MONO, size=9, x=60, y=60,
        **drawn,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert len(read) == len(ALIGNED)
    exact = sum(got == want for got, want in zip(read, ALIGNED, strict=True))
    assert exact >= len(ALIGNED) - 1, read


@pytest.mark.parametrize(("size", "theme"), [(9, "light"), (10, "dark"), (11, "light")])
def test_sub_pixel_text_at_96_dpi_is_read_as_its_rows(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, size: int, theme: str
) -> None:
    """Each channel of a sub-pixel glyph is covered a third of a pixel apart:
    read by its largest channel, a glyph is a pixel wider (`9` read `0`)."""
    real_terminals.need("xterm")
    lines = ALIGNED + SHELL
    with real_terminals.open_xterm(
        desktop, lines, columns=100, rows=len(lines) + 2, font=MONO, size=size,
        theme=theme, subpixel=True, x=60, y=60,  # type: ignore[arg-type]
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert sum(line in read for line in lines) >= len(lines) - 1, read


@pytest.mark.parametrize(
    ("family", "size"), [("DejaVu Sans", 12), ("Liberation Serif", 11), ("Noto Sans", 15)]
)
def test_proportional_type_has_no_cell_grid_and_keeps_the_engine_s_layout(
    desktop: XServer, capturer: Capturer, family: str, size: int
) -> None:
    real_terminals.need("tk")
    prose = [
        "The quarterly ledger was settled on the ninth, after the review.",
        "Every invoice of the Castellan account was matched to its receipt.",
        "Nothing is left pending but the shipment from Holloway Logistics.",
        "Error: cannot open the archive of March; the path was moved.",
        "A second opinion is asked of the engine only where it is unsure.",
        "Tomorrow the warehouse in Lisbon ships eleven crates by rail.",
    ] * 2
    with real_clients.open_tk_text(
        desktop, prose, family=family, size=size, x=80, y=80, width=900, height=500
    ) as client:
        image = window(capturer, client)
    assert rows_reader.find_cells(rows_reader.ink(image)) is None


@pytest.mark.parametrize("terminal", ["xfce4-terminal", "konsole"])
def test_a_scrollbar_beside_a_few_lines_is_no_text(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, terminal: str
) -> None:
    # A scrollbar as a new user sees it: xfce4-terminal's thumb runs the
    # window's height beside a screen of a few lines, a bar of ink the
    # font's `|` is nearest to in every row; Konsole's is a thin line with
    # its arrows beyond it, as a pane's border has text beyond it.
    real_terminals.need(terminal)
    with real_terminals.open_terminal(
        desktop, terminal, ALIGNED[:6], columns=90, rows=8, theme="light",
        chrome="default", x=80, y=80,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    rows = [line for line in read if line[:4].isdigit()]
    assert rows == ALIGNED[:6], read
    assert not [line for line in read if line.rstrip().endswith(("|", "—", "I"))], read


# A pager's gutter (bat, delta) and tmux's border between two panes: a
# `│` in the same cell of every row, a bar down the whole window.
GUTTER = [
    f"{n:>6} │ {code:<34}│ {log}"
    for n, (code, log) in enumerate(
        [
            ("def merge_node(entry):", "GET /api/items 200"),
            ("    if entry is None:", "GET /api/items/7 404"),
            ("        return []", "POST /api/items 201"),
            ("    total = sum(entry.sizes)", "GET /healthz 200"),
            ("    return [total, entry.name]", "DELETE /api/items/7 204"),
            ("", "GET /api/items 200"),
            ("def total_of(items):", "GET /api/items?page=2 200"),
            ("    return sum(items)", "GET /metrics 200"),
            ("", "PUT /api/items/9 200"),
            ("class Node:", "GET /api/items/9 200"),
            ("    name: str", "GET /healthz 200"),
            ("    sizes: list[int]", "GET /api/items 304"),
            ("", "GET /api/users/3 200"),
            ("print(merge_node(None))", "POST /api/login 401"),
        ],
        start=26,
    )
]


def test_a_bar_drawn_in_every_row_between_text_is_text(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """A bar down the whole window with text on both sides, as thin as a
    stroke, is a character in every row's cell (a scrollbar stands beside
    the text: ``test_a_scrollbar_beside_a_few_lines_is_no_text``)."""
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, GUTTER, columns=72, rows=len(GUTTER) + 1, font=MONO, size=11, x=60, y=60
    ) as client:
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert read == [line.rstrip() for line in GUTTER], read


@pytest.mark.parametrize(
    "prompt", ["ops@laptop /var/log %", "svc@worker ~/src/cosmos %", "root@box /usr/local/src #"]
)
def test_a_lone_prompt_is_read_by_its_glyphs(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, prompt: str
) -> None:
    """A prompt alone on the screen has few letters the font is found by
    unless the twins (``o`` and ``O``, ``s`` and ``S``) count, each by the
    nearer of its two forms: with them, it is read by its glyphs."""
    real_terminals.need("st")
    with real_terminals.open_terminal(
        desktop, "st", [prompt], columns=60, rows=4, font="mononoki", size=10, dpi=192,
        theme="solarized-light", x=60, y=60,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = list(engine.recognise(image).lines)
    assert as_drawn(read) == [prompt]
    assert read[0].columns is not None  # on the grid, not the engine's layout


def _tsc() -> list[Shown]:
    """Errors as tsc prints them: a message, a blank row, the source line
    with tildes under it, a blank row."""
    shown = [Shown.text("$ npx tsc --noEmit -p tsconfig.json"), Shown.text("")]
    for n, (path, name, source) in enumerate(
        [("src/tenant_buffer.ts", "index_record", "user, null"),
         ("src/replica_pool.tsx", "poolRetry", "request.id"),
         ("src/node_token.ts", "invoiceQueue", "lease.id"),
         ("src/row_ledger.ts", "validate_buffer", "token, null"),
         ("src/schema_account.tsx", "eventSchema", "retry.id")]
    ):  # fmt: skip
        line = 100 + 97 * n
        shown += [
            Shown.text(f"{path}:{line}:9 - error TS2322: Type 'string' is not assignable."),
            Shown.text(""),
            Shown.text(f"{line} |   const {name} = {source};"),
            Shown.text(" " * len(str(line)) + " |" + " " * 9 + "~" * len(name)),
            Shown.text(""),
        ]  # fmt: skip
    return shown


@pytest.mark.parametrize(("face", "size"), [("mononoki", 11), ("Anonymous Pro", 14)])
def test_text_on_every_other_row_is_read_on_a_grid_of_single_rows(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, face: str, size: int
) -> None:
    """tsc's output repeats best at two rows (each message has a blank row
    below it; a source line and its tildes run together): the grid is still
    one row high, or every other character would be read."""
    shown = _tsc()
    read = read_on(
        desktop, capturer, engine, "urxvt", shown, columns=100, rows=len(shown) + 1, font=face,
        size=size, theme="solarized-dark",
    )  # fmt: skip
    assert read == [line.plain for line in shown if line.plain], read


def test_an_underline_drawn_across_the_rows_edge_is_left_to_the_row_above() -> None:
    """Konsole draws a small face's underline two pixels thick; where the
    grid's rows edge runs through it, the next row's top pixels would make a
    space below an underlined word a ``¯`` (a man page's ``=PATTERN`` above
    a line of prose, read from a real Konsole in the corpus). Only a line
    that crosses the edge along two cells or more is taken; a glyph's own
    ink at a row's top is left."""
    from noru.ocr.terminal_grid import Cells
    from noru.ocr.terminal_spill import without_spilt_lines

    cells = Cells(x=0, y=0, width=7, height=14, columns=12, rows=3)
    image = Image.new("L", (84, 42), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((14, 3, 40, 11), fill=0)  # a word in row 0
    draw.line((14, 13, 48, 13), fill=0)  # its underline, row 0's last pixel row
    draw.line((14, 14, 48, 14), fill=0)  # and row 1's first
    draw.line((60, 13, 64, 13), fill=0)  # short ink on both sides of the edge:
    draw.line((60, 14, 64, 14), fill=0)  # a glyph's, kept
    draw.rectangle((2, 16, 10, 26), fill=0)  # a letter in row 1
    kept = without_spilt_lines(image, cells)
    pixels = kept.load()
    assert all(pixels[x, 14] == 255 for x in range(14, 49))  # the spill, gone
    assert all(pixels[x, 13] == 0 for x in range(14, 49))  # the underline stays
    assert all(pixels[x, 14] == 0 for x in range(60, 65))
    assert kept.crop((0, 15, 84, 42)).tobytes() == image.crop((0, 15, 84, 42)).tobytes()


# pip's progress bars, each a run of heavy lines after an indent.
PIP = [
    "$ pip install scipy sqlalchemy",
    "Collecting scipy==1.14.1",
    "  Downloading scipy-1.14.1-py3-none-any.whl (642 kB)",
    "     " + "━" * 40 + " 641.9/641.9 kB 7.9 MB/s eta 0:00:00",
    "Collecting sqlalchemy",
    "  Downloading sqlalchemy-2.0.36-py3-none-any.whl (1.9 MB)",
    "     " + "━" * 40 + " 1.9/1.9 MB 5.2 MB/s eta 0:00:00",
]


@pytest.mark.parametrize(("face", "size"), [(MONO, 10), ("Hermit", 12)])
def test_a_heavy_line_is_read_to_its_first_cell(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, face: str, size: int
) -> None:
    """rxvt-unicode draws a run of ``━``'s first cell from a pixel or two
    in: that cell is the line's too, not a letter."""
    read = read_on(
        desktop, capturer, engine, "urxvt", PIP, columns=100, rows=len(PIP) + 1, font=face,
        size=size, theme="solarized-light",
    )  # fmt: skip
    assert read == PIP, read


# File names in Chinese and Japanese among Latin text: Tesseract's English
# model has no letters for them; the terminal draws them with the face
# fontconfig falls back to (ocr.wide).
WIDE_NAMES = [
    "$ ls -l reports",
    "-rw-r--r-- 1 me me  913136 Mar 19 10:18 数据库连接超时_2022.md",
    "-rw-r--r-- 1 me me  465509 Mar 19 20:45 订单已创建_2019.xlsx",
    '$ echo "テストを追加" | wc -c',
    "19",
    "2025-05-12 06:09:52.159 ERROR [数据库连接超时] テストを追加, user_id=58486",
    "2025-05-12 06:10:03.412 INFO  [订单已创建] OK, order_id=0O1l",
]


def test_wide_letters_in_a_terminal_need_no_second_opinion(
    desktop: XServer, capturer: Capturer
) -> None:
    """The wide letters are told by their drawings whether RapidOCR is asked
    or not, and the cells the font explains keep their characters (no
    ``ERR0R``, no full-width ``，``, no gap closed up)."""
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, WIDE_NAMES, columns=80, rows=8, font=MONO, size=11, x=60, y=60
    ) as client:
        image = window(capturer, client)
    for second in (True, False):
        engine = TesseractEngine(settings=TesseractSettings(second_opinion=second))
        try:
            assert as_drawn(list(engine.recognise(image).lines)) == WIDE_NAMES
        finally:
            engine.close()


def test_text_in_a_script_the_engine_cannot_read_is_read_by_a_second_opinion(
    desktop: XServer, capturer: Capturer, open_window: Callable[..., TkWindow]
) -> None:
    """Outside a terminal's grid (an app's label) no drawing tells the wide
    letters: Tesseract reads them unsure as Latin ones, and RapidOCR reads
    the line again; its model is let go once unused."""
    shown = open_window(
        desktop, "Report", x=60, y=60, width=900, height=160, background="#ffffff",
        foreground="#000000", text="数据库连接超时",
    )  # fmt: skip
    shown.bring_under_pointer()
    (grab,) = capturer.grab_window("pointer")
    readings = {}
    for second in (True, False):
        engine = TesseractEngine(settings=TesseractSettings(second_opinion=second))
        try:
            if engine.second is not None:
                engine.second.idle = 0.5
            readings[second] = "\n".join(as_drawn(list(engine.recognise(grab.image).lines)))
            if engine.second is not None:
                # RapidOCR's model was loaded for the unsure line, and is let
                # go once unused: the app at rest holds Tesseract alone.
                assert engine.second.loaded
                deadline = time.monotonic() + 30
                while engine.second.loaded and time.monotonic() < deadline:
                    time.sleep(0.1)
                assert not engine.second.loaded
        finally:
            engine.close()
    assert "数据库连接超时" in readings[True], readings
    assert "数据库连接超时" not in readings[False], readings


# A log mostly of wide letters, drawn from the pen narrower than their two
# cells (VTE, a CJK face's em under two of Fira Code's cells at 192 dpi):
# the gap after each is wider than the gap before the next.
MOSTLY_WIDE = [
    "72ff332 数据库连接超时 (#626)",
    "bced7a3 会议记录 (#369)",
    "4f94612 テストを追加 (#923)",
    "2025-10-25 01:01:02.585 INFO  [内存使用率过高] 订单已创建, user_id=98506",
    "エラー: データベースへの接続がタイムアウトしました (sda1, code=247)",
    "-rw-r--r-- 1 me me  754406 Mar  3 15:42 内存使用率过高_2024.xlsx",
    "エラー: 修复支付回调的重复处理 (0x0O1l, code=16)",
    "9c01de4 修复支付回调的重复处理 (#412)",
]


def test_a_screen_mostly_of_wide_letters_is_read_on_its_grid(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Its grid is found by the spaces between its words, whatever the gaps
    between its wide letters: its rows are the grid's (their gaps kept, no
    ``9c01de4修复``), its Latin told by the font's glyphs (no ``0x001l``,
    no full-width ``（``)."""
    real_terminals.need("xfce4-terminal")
    with real_terminals.open_terminal(
        desktop, "xfce4-terminal", MOSTLY_WIDE, columns=90, rows=10, font="Fira Code", size=11,
        theme="light", dpi=192, x=60, y=60,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = list(engine.recognise(image).lines)
    assert [line.columns for line in read] == [90] * len(MOSTLY_WIDE), as_drawn(read)
    for got, shown in zip(as_drawn(read), MOSTLY_WIDE, strict=True):
        latin = [word for word in shown.split() if word.isascii()]
        assert [word for word in got.split() if word.isascii()] == latin, (got, shown)


# Lines with a wide letter's stroke (``ー``) among Latin ones, as a log shows them.
WIDE_STROKES = [
    "-rw-r--r-- 1 me me  633917 Mar 27 18:44 report_2022.docx",
    "エラー: 文件上传成功 (l10n, code=37)",
    "-rw-r--r-- 1 me me  445371 Mar 11 23:40 timeout_2025.csv",
    "エラー: 文件上传成功 (ttyS0, code=32)",
    "2025-08-15 12:52:01.395 ERROR [report] done, user_id=50273",
    "エラー: 订单已创建 (md0, code=41)",
]


@pytest.mark.parametrize(
    ("term", "face", "theme"),
    [("xterm", MONO, "dark"), ("xfce4-terminal", "Anonymous Pro", "solarized-light")],
)
def test_a_wide_letter_s_stroke_is_no_line(
    desktop: XServer,
    capturer: Capturer,
    term: real_terminals.Terminal,
    face: str,
    theme: real_terminals.TerminalTheme,
) -> None:
    """``ー`` is one stroke across its two cells, each half a thick bar to
    one edge, as the first cell of pip's bar is; the bar runs on, the letter
    stops: it is a letter, read by the second opinion."""
    real_terminals.need(term)
    with real_terminals.open_terminal(
        desktop, term, WIDE_STROKES, columns=90, rows=len(WIDE_STROKES) + 1, font=face,
        size=9, dpi=192, theme=theme, x=60, y=60,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    engine = TesseractEngine(settings=TesseractSettings(second_opinion=True))
    try:
        read = as_drawn(list(engine.recognise(image).lines))
    finally:
        engine.close()
    strokes = [line for line in read if line.startswith("エラ")]
    assert len(strokes) == 3 and not any("━" in line or "─" in line for line in strokes), read


# A face whose glyphs reach into the cells beside them (Hermit at 16 pt): a
# space between two words holds only what they left there, no character.
SPILLED = [
    "$ npm install",
    "npm ERR! code ERESOLVE",
    "npm ERR! ERESOLVE unable to resolve dependency tree",
    "npm ERR!",
    "npm WARN deprecated inflight@1.0.6: This module is not supported",
    "added 1284 packages, and audited 1285 packages in 31s",
]


def test_ink_a_glyph_leaves_in_the_space_beside_it_is_no_character(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    real_terminals.need("st")
    with real_terminals.open_terminal(
        desktop, "st", SPILLED, columns=80, rows=8, font="Hermit", size=16, theme="dark",
        x=40, y=40,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert read == SPILLED, "\n".join(read)


# A label on a colour of its own (npm's WARN on yellow, ERR! on black):
# its first cell's pixels may begin a column before the block, on the page.
LABELLED = [
    Shown("$ npm install", "$ npm install"),
    Shown(
        "npm WARN deprecated vite@0.20.19: no longer supported",
        "npm \033[30;43mWARN\033[0m \033[35mdeprecated\033[0m vite@0.20.19: no longer supported",
    ),
    Shown(
        "npm WARN deprecated glob@7.2.3: Glob prior to v9",
        "npm \033[30;43mWARN\033[0m \033[35mdeprecated\033[0m glob@7.2.3: Glob prior to v9",
    ),
    Shown("npm ERR! code ERESOLVE", "npm \033[31;40mERR!\033[0m \033[35mcode\033[0m ERESOLVE"),
    Shown(
        "npm ERR! Exit handler never called!",
        "npm \033[31;40mERR!\033[0m Exit handler never called!",
    ),
]


@pytest.mark.parametrize(("family", "size"), [("Liberation Mono", 8), ("DejaVu Sans Mono", 10)])
def test_a_label_on_a_colour_of_its_own_is_read_to_its_first_letter(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, family: str, size: int
) -> None:
    real_terminals.need("urxvt")
    with real_terminals.open_terminal(
        desktop, "urxvt", LABELLED, columns=80, rows=7, font=family, size=size,
        theme="solarized-light", x=40, y=40,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert read == [shown.plain for shown in LABELLED], "\n".join(read)


# A short screen mostly of wide letters: the gaps between two of them lie on
# a cell's edge, between its spaces' middles; the grid is the spaces' still.
WIDE_MOSTLY = [
    "エラー: 設定ファイルの読み込みに失敗しました (IO0x1f, code=191)",
    "-rw-r--r-- 1 me me  445371 Mar 11 23:40 数据库连接超时_2025.csv",
    "2025-08-15 12:52:01.395 ERROR [报告书] 処理が完了しました, user_id=50273",
    "エラー: 修正: ログイン時のセッション切れを直す (l1_cache, code=61)",
    "-rw-r--r-- 1 me me  461339 Mar 21 20:38 新增导出报表功能_2020.docx",
]


@pytest.mark.parametrize(("family", "size"), [("Anonymous Pro", 9), ("DejaVu Sans Mono", 9)])
def test_a_short_screen_mostly_of_wide_letters_is_read_on_its_grid(
    desktop: XServer, capturer: Capturer, family: str, size: int
) -> None:
    real_terminals.need("xfce4-terminal")
    with real_terminals.open_terminal(
        desktop, "xfce4-terminal", WIDE_MOSTLY, columns=80, rows=7, font=family, size=size,
        theme="light", dpi=192, x=40, y=40,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    engine = TesseractEngine()
    try:
        read = as_drawn(list(engine.recognise(image).lines))
    finally:
        engine.close()
    assert read == WIDE_MOSTLY, "\n".join(read)


# A prompt's symbols (Powerline's arrows and branch sign) in a face that
# draws them: told by their glyphs, not read as `>`, `}` or `»`.
SYMBOLS = [
    "me@box \ue0b1 ~/src/ledger \ue0b1 \ue0a0 main \ue0b0 git status",
    "On branch main, your branch is up to date with 'origin/main'.",
    "ops@db-3 \ue0b1 /var/log \ue0b1 \ue0a0 fix/retry_item \ue0b0 tail -n 2 app.log",
    "2025-05-12 06:09:52 WARN retry 3/5: upstream timed out after 30s",
    "2025-05-12 06:09:58 ERROR giving up: ConnectionRefusedError(111)",
]


# A prompt's marks that the terminal's face has not (``❯``, ``✔``, ``✘``,
# ``➜``, ESLint's ``✖``), drawn from the face fontconfig falls back to: told
# by that face's glyphs, not read as ``)``, ``v``, ``X`` or ``%``.
FALLEN_BACK = [
    "❯ git status --short",
    " M src/ledger/totals.py",
    "✔ 12 passed in 0.84s ❯ make lint",
    "✘ 3 errors in src/ledger/api.py",
    "➜ ledger git:(main) ✗ pytest -q tests/test_api.py",
    "✖ 12 problems (2 errors, 10 warnings)",
]


@pytest.mark.parametrize(
    ("shown", "term", "face", "size", "theme"),
    [(SYMBOLS, "st", "Hack", 10, "light"),
     (SYMBOLS, "xfce4-terminal", "JetBrains Mono", 12, "light"),
     (SYMBOLS, "konsole", "Hack", 14, "light"),
     (FALLEN_BACK, "alacritty", "Noto Sans Mono", 11, "dark"),
     (FALLEN_BACK, "xfce4-terminal", "JetBrains Mono", 12, "dark"),
     (FALLEN_BACK, "st", "Liberation Mono", 10, "dark")],
    ids=["face-st", "face-xfce4", "face-konsole", "fallback-alacritty", "fallback-xfce4",
         "fallback-st"],
)  # fmt: skip
def test_a_prompt_s_marks_are_told_by_the_glyphs_of_the_face_that_draws_them(
    desktop: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    shown: list[str],
    term: real_terminals.Terminal,
    face: str,
    size: int,
    theme: str,
) -> None:
    read = read_on(
        desktop, capturer, engine, term, shown,
        columns=90, rows=8, font=face, size=size, theme=theme,
    )  # fmt: skip
    missing = [line for line in shown if line not in read]
    assert not missing, read


# A compiler's output, its file names and its warnings bold.
BOLD_GCC = [
    Shown.text("$ make -j2"),
    Shown.text("cc -O2 -g -Wall -Wextra -Iinclude -c src/worker_tenant.c -o build/worker_tenant.o"),
    Shown("src/worker_tenant.c: In function 'dispatch_config_request':",
          "\x1b[1msrc/worker_tenant.c:\x1b[0m In function "
          "'\x1b[1mdispatch_config_request\x1b[0m':"),
    Shown("src/worker_tenant.c:1630:16: warning: 'migrate_replic' undeclared (first use)",
          "\x1b[1msrc/worker_tenant.c:1630:16:\x1b[0m \x1b[1;35mwarning: \x1b[0m"
          "'\x1b[1mmigrate_replic\x1b[0m' undeclared (first use)"),
    Shown(" 1630 |     size_t n = migrate_replic->len;",
          " 1630 |     size_t n = \x1b[1;35mmigrate_replic\x1b[0m->len;"),
    Shown("      |                ^~~~~~~~~~~~~~",
          "      |                \x1b[1;35m^~~~~~~~~~~~~~\x1b[0m"),
    Shown("Error 1 in BUILD_DIR/Worker_Tenant.o: OOPS 0O1lI",
          "\x1b[1mError 1 in BUILD_DIR/Worker_Tenant.o: OOPS 0O1lI\x1b[0m"),
]  # fmt: skip


def test_bold_of_a_family_with_no_bold_face_is_read_by_its_glyphs(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Noto Mono has no bold face: a terminal draws its bold by emboldening
    the regular one (FreeType's synthetic bold, through fontconfig). With
    half the sampled letters bold, the font is still found, and every row
    comes back as drawn."""
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, BOLD_GCC, columns=90, rows=len(BOLD_GCC) + 2, font="Noto Mono", size=9,
        dpi=192, theme="solarized-dark", x=60, y=60,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert read == [line.plain for line in BOLD_GCC]


# What a reading of a few parts per cell image can lose: a lone letter between
# wide gaps (top's state column), a row of one closing brace, a hyphen next
# to a letter whose anti-aliased edge reaches its cell (the `-` of `rw-`).
SHELL = [
    "$ ls -l src",
    "-rw-r--r-- 1 noru noru  4635292 Nov 27 13:01 layout.py",
    "-rw-r--r-- 1 noru noru  7805771 Nov 18 10:54 schema.py",
    "drwxr-xr-x 2 noru noru     4096 Nov  2 05:00 tests",
    "$ top -bn1 | tail -4",
    "  20737 root      36  -4   2197600     9892   73494 S  60.4  83.9  27:57.72 config",
    "  25444 noru       6   4   4977275   529594   65509 D  33.3  62.6  51:57.36 writer",
    "  56298 www-data  29  17   4345583   959853   74204 I  93.1  41.3  80:05.07 session",
    "  97872 noru      19   6   8479972   635209   11032 R  43.2  32.9  85:39.21 Makefile",
    "$ cat totals.json",
    '{"source": 98800, "session": 95185}',
    "{",
    '  "feature": 32775,',
    '  "commit": 68906',
    "}",
]


def test_lone_letters_lone_braces_and_hyphens_by_letters_come_back_as_drawn(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, SHELL, columns=100, rows=len(SHELL) + 2, font=MONO, size=9, x=60, y=60
    ) as client:
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    missing = [line for line in SHELL if line not in read]
    assert not missing, read


@pytest.fixture
def full_terminal(desktop: XServer) -> Iterator[Client]:
    real_terminals.need("urxvt")
    lines = [f"{n:03d} worker-7 retry {n % 5}/5: upstream timed out after {n}s" for n in range(24)]
    with real_terminals.open_terminal(
        desktop, "urxvt", lines, columns=80, rows=25, theme="dark", x=100, y=100
    ) as client:
        yield client


def test_a_terminal_that_scrolled_is_read_again_only_in_its_new_row(
    full_terminal: Client, capturer: Capturer, engine: TesseractEngine
) -> None:
    first = engine.recognise(window(capturer, full_terminal))
    read_first = engine.rows.misses
    # Words whose cell images the screen shows elsewhere are known from their
    # copies: fewer parts are read than the screen has rows.
    assert 0 < read_first < 24 and engine.rows.hits == 0
    assert as_drawn(list(first.lines))[5].startswith("005 worker-7 retry 0/5")
    full_terminal.print_line("batch 88213 given up after five tries")
    after = engine.recognise(window(capturer, full_terminal))
    # The rows that moved up a row are not read again; the new one at most.
    assert engine.rows.misses - read_first <= 1
    assert as_drawn(list(after.lines))[-1] == "batch 88213 given up after five tries"
    assert as_drawn(list(after.lines))[0].startswith("001 worker-7")


def test_a_warm_read_of_a_screen_is_what_a_cold_read_of_it_gives(
    full_terminal: Client, capturer: Capturer
) -> None:
    before = window(capturer, full_terminal)
    full_terminal.print_line("a line that changes the screen")
    after = window(capturer, full_terminal)
    warm, cold = TesseractEngine(), TesseractEngine()
    try:
        warm.recognise(before)
        assert warm.recognise(after).lines == cold.recognise(after).lines
        assert warm.rows.hits > 0 and cold.rows.hits == 0
    finally:
        warm.close()
        cold.close()


def test_rows_kept_by_their_pixels_stay_within_their_bound() -> None:
    kept = terminal_rows.Rows(most=3)
    bands = [Image.new("L", (40, 12), 255 - n) for n in range(5)]
    calls: list[int] = []

    def reader(batch: list[Image.Image]) -> list[list[terminal_rows.Glyph]]:
        calls.append(len(batch))
        return [[terminal_rows.Glyph(str(band.getpixel((0, 0))), 0, 6, 1.0)] for band in batch]

    got = kept.read(bands, "how", reader)
    assert [glyphs[0].text for glyphs in got] == ["255", "254", "253", "252", "251"]
    assert len(kept) == 3 and calls == [5]
    again = kept.read(bands[-2:], "how", reader)  # the newest are still kept
    assert calls == [5] and [g[0].text for g in again] == ["252", "251"]
    kept.read(bands[:1], "how", reader)  # the oldest was let go
    assert calls == [5, 1]


ENV_FILE = [
    "AWS_ACCESS_KEY_ID=AKIA4QXZ7PLM2RT9WQ3E",
    "DATABASE_URL=postgres://app:s3cr3t@db.internal:5432/ledger",
    "DATABASE_POOL_SIZE=17",
    "REDIS_URL=redis://cache.internal:6379/0",
    "LOG_LEVEL=debug",
    "FEATURE_FLAGS=ledger_v2,fast_export",
]


def test_in_a_display_capture_a_small_terminal_in_a_bitmap_font_is_read_by_its_glyphs(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Its title bar is no bigger a share of what decides how it is read than
    of the window (a bold title once outweighed six short lines)."""
    real_terminals.need("xterm")
    with real_terminals.open_xterm(desktop, ENV_FILE, columns=90, rows=16, x=200, y=150) as client:
        client.bring_under_pointer()
        (grab,) = capturer.grab_display(1)
    read = engine.recognise(grab.image, regions=grab.windows or None)
    lines = [line.text for line in read.lines]
    assert all(line in lines for line in ENV_FILE), lines
    ours = [line for line in read.lines if line.text in ENV_FILE]
    assert all(line.confidence == 1.0 for line in ours)  # every cell a known glyph


def test_a_character_xterm_s_default_font_lacks_is_served_as_the_replacement_character(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """xterm's ``fixed`` lacks some characters tools print: a warning sign
    is drawn as the font's default glyph, a dotted box. The cell is served
    as U+FFFD, and the line is as sure as its glyphs: it is what the screen
    shows."""
    real_terminals.need("xterm")
    shown = ["fd07f2e7edeb   nginx:1.20   \u26a0 restarting   48 minutes ago", *ENV_FILE[:3]]
    with real_terminals.open_xterm(desktop, shown, columns=90, rows=8, x=40, y=40) as client:
        image = window(capturer, client)
    read = {line.text.rstrip(): line.confidence for line in engine.recognise(image).lines}
    for line in ENV_FILE[:3]:
        assert read[line] == 1.0, read  # every cell a known glyph
    drawn = shown[0].replace("\u26a0", "\ufffd")
    assert read.get(drawn) == 1.0, read


@pytest.mark.parametrize(
    ("background", "foreground"),
    [("ffffff", "000000"), ("1e1e1e", "d4d4d4")],
    ids=["light", "dark"],
)
def test_foot_on_sway_is_read_as_its_rows(
    sway: Sway,
    monkeypatch: pytest.MonkeyPatch,
    engine: TesseractEngine,
    background: str,
    foreground: str,
) -> None:
    """A Wayland terminal (foot, on a headless sway), captured as the app
    captures there and read as its rows, aligned columns and all."""
    enter_session(monkeypatch, sway.env)
    lines = ALIGNED + SHELL
    with (
        sway.open_foot(
            lines, title="Ledger - foot", app_id=f"noru.rows.{background}", x=60, y=60,
            width=1100, height=700, font="DejaVu Sans Mono:size=10",
            background=background, foreground=foreground,
        ) as foot,
        Capturer() as capturer,
    ):  # fmt: skip
        foot.focus()
        (grab,) = capturer.grab_window("active")
    read = as_drawn(list(engine.recognise(grab.image).lines))
    assert sum(line in read for line in lines) >= len(lines) - 1, read


def test_long_unbroken_tokens_come_back_as_drawn(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """Keys, hashes and tokens have no spaces and no words for the engine to
    lean on: where it reads a glyph more or fewer than the token's cells,
    its glyphs are aligned with the cells, never pushed along them."""
    real_terminals.need("xterm")
    lines = [line for line, _, _ in planted(seed=11)]
    with real_terminals.open_xterm(
        desktop, lines, columns=160, rows=len(lines) + 2, font=MONO, size=9, x=60, y=60
    ) as client:
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    # Random characters have few copies to agree, and the engine misreads one
    # now and then (`A05` read `AO5`): all but two rows as drawn (pushed
    # along their cells, 4 of these 15 were).
    assert sum(line in read for line in lines) >= len(lines) - 2, read


NPM = [
    "$ npm install",
    "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
    "npm WARN deprecated rimraf@3.0.2: Rimraf versions prior to v4 are no longer supported",
    "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory",
    "npm ERR! code ERESOLVE",
    "npm ERR! ERESOLVE unable to resolve dependency tree",
    "npm ERR!",
    "npm ERR! While resolving: ledger-web@2.14.0",
    "npm ERR! Found: react@17.0.2",
    'npm ERR! Could not resolve dependency: peer react@"^18.2.0" from react-dom@18.2.0',
    "$ npm install --legacy-peer-deps",
    "added 1287 packages, and audited 1288 packages in 41s",
]


def test_a_narrow_face_filling_its_cells_is_read_cell_by_cell(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """CMU Typewriter Text at 7 pt in st: five pixels a cell, each glyph
    filling its cell, so no phase of one cell is empty, and two cells' fold,
    a little emptier by chance, was taken for the advance: every other
    character was read (``$ npm install`` came back ``$nminal``). Half an
    advance that folds nearly as emptily is the advance."""
    require_family("CMU Typewriter Text", "fonts-cmu")
    read = read_on(
        desktop, capturer, engine, "st", NPM, columns=110, rows=28,
        font="CMU Typewriter Text", size=7, theme="solarized-light",
    )  # fmt: skip
    assert sum(line in read for line in NPM) >= len(NPM) - 2, read


BOLD_DIRECTORIES = [
    Shown.text("$ ls"),
    Shown(
        "LICENSE     Makefile    README.md   flush_job.py    node_modules    site_packages",
        "LICENSE     Makefile    README.md   flush_job.py    \033[1;34mnode_modules\033[0m"
        "    \033[1;34msite_packages\033[0m",
    ),
    Shown.text("$ ls node_modules/left_pad"),
    Shown.text("index.js    package.json    read_me.md"),
]


def test_an_underscore_drawn_under_the_baseline_in_bold_is_an_underscore(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine
) -> None:
    """VTE draws Cousine's bold `_` (ls's directories) a row of pixels under
    the letters' baseline, at 0.71 of its row, across the whole cell: no
    glyph of the font is that drawing, and its shape was taken for a line
    drawn across the cells (`node─modules`, at 0.9994)."""
    require_family("Cousine", "fonts-croscore")
    real_terminals.need("xfce4-terminal")
    with real_terminals.open_terminal(
        desktop, "xfce4-terminal", BOLD_DIRECTORIES, columns=100, rows=6, font="Cousine",
        size=10, theme="dark", x=60, y=60,
    ) as client:  # fmt: skip
        image = window(capturer, client)
    read = as_drawn(list(engine.recognise(image).lines))
    assert [line for line in read if line.strip()] == [s.plain for s in BOLD_DIRECTORIES], read
