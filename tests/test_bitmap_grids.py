"""xterm in its bitmap fonts, read by their glyphs: what the engines are
told about such a terminal (small two-tone text), the grid of cells read
glyph by glyph from the font files on the machine (``noru.ocr.cells``,
``noru.ocr.pcf``), what the corpus's truth says xterm draws, and a damaged
font file refused. The terminals are real xterms on the session's Xvfb,
from tests/real_terminals.py; a missing program or font skips on a
developer machine and fails under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from noru.capture import Capturer, Grab
from noru.geometry import contains
from noru.ocr import Engine
from tests import real_terminals
from tests.parts import require
from tests.real_terminals import LOG
from tests.terminal_shown import Shown

if TYPE_CHECKING:
    # Types only: pytest imports tests.xserver itself, as a plugin.
    from tests.xserver import XServer


# --- what the engines are told about a terminal's bitmap font --------------------------


def prepared(grab: Grab) -> tuple[int | None, bool, bool]:
    """How ``regions.cut`` sees the grab's one window: its line height, whether
    it is two-tone, and whether it takes the small-text path."""
    from noru.ocr import regions
    from noru.ocr.tesseract import TesseractSettings

    settings = TesseractSettings()
    region = (0, 0, *grab.image.size)
    piece = regions.cut(
        grab.image,
        region,
        scale=settings.scale,
        small_below=settings.small_below,
        small_scale=settings.small_scale,
        small_blur=settings.small_blur,
    )
    assert piece is not None
    grey = grab.image.convert("L")
    background = regions.histogram_mode(grey.histogram())
    if background < 128:
        from PIL import ImageOps

        grey, background = ImageOps.invert(grey), 255 - background
    rows = regions.text_rows(grey, background)
    return regions.ink_height(rows), regions.two_tone(grey, background, rows), piece.small


def test_an_xterm_in_its_bitmap_font_is_read_as_small_two_tone_text(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("xterm")
    with real_terminals.open_xterm(desktop, LOG, columns=90, rows=30) as client:
        grab = client.grab(capturer)
    line, sharp, small = prepared(grab)
    assert line is not None and line < 14 and sharp and small
    # Read as one block: each row whole, not cut into columns where rows line up.
    # (The engine itself, not the glyph grid, which would read it first.)
    from noru.ocr.tesseract import TesseractEngine, TesseractSettings

    plain = TesseractEngine(settings=TesseractSettings(grids=False))
    try:
        result = plain.recognise(grab.image)
    finally:
        plain.close()
    whole = [ln.text for ln in result.lines if "INFO" in ln.text and "handler" in ln.text]
    assert len(whole) >= len(LOG) * 3 // 4, result.text


def test_an_xterm_in_an_antialiased_font_is_not_taken_for_a_bitmap_font(
    desktop: XServer, capturer: Capturer
) -> None:
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, LOG, columns=90, rows=30, font="DejaVu Sans Mono", size=8
    ) as client:
        grab = client.grab(capturer)
    _, sharp, small = prepared(grab)
    assert not sharp and not small


# --- a bitmap font's grid, read by its glyphs ---------------------------------------------


def test_a_terminal_in_a_bitmap_font_is_read_exactly_by_its_glyphs(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    real_terminals.need("xterm")
    shown = [*LOG, "m n w u . , 0 O l 1 I | ~ ` { } [ ] ( ) < > ; : ' \" ! ? @ # $ % ^ & * + = _ -"]
    with real_terminals.open_xterm(desktop, shown, columns=100, rows=32) as client:
        grab = client.grab(capturer)
        truth = list(client.lines)
    result = engine.recognise(grab.image)
    # Every row as xterm shows it, white space folded as every engine folds it.
    assert [line.text for line in result.lines] == [" ".join(row.split()) for row in truth]
    assert all(line.confidence == 1.0 for line in result.lines)


def test_bold_coloured_and_reverse_text_in_a_bitmap_font_is_read_by_glyphs(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    """Bold in xterm's default font is its bold face (6x13B); 10x20 has none,
    so xterm strikes each glyph twice, one pixel apart (a bold ``_`` spills
    a dot into the next cell). gcc's colours are greys between the ink's and
    the paper's; tsc prints line numbers in reverse video. Every row is
    still the font's glyphs, read exactly (6x13B's bold ``-`` is 6x13's
    ``—``: a hyphen, as ASCII is likelier)."""
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    bold, magenta, green, off = "\x1b[1m", "\x1b[1;35m", "\x1b[32m", "\x1b[0m"
    shown = [
        Shown.text("$ make -j5"),
        Shown("src/config_column.c: In function 'send_cache':",
              f"{bold}src/config_column.c:{off} In function '{bold}send_cache{off}':"),
        Shown("src/config_column.c:17:13: warning: format '%d' expects 'int'",
              f"{bold}src/config_column.c:17:13:{off} {magenta}warning:{off} "
              "format '%d' expects 'int'"),
        Shown("   17 |     printf(\"%d\\n\", count_max);",
              "   17 |     printf(\"%d\\n\", count_max);"),
        Shown("      |             ^~", f"      |             {green}^~{off}"),
        Shown("BOLD_UNDER_SCORES m_n w_u", f"{bold}BOLD_UNDER_SCORES m_n w_u{off}"),
        Shown("diff --git a/src/entry.py b/src/entry.py",
              f"{bold}diff --git a/src/entry.py b/src/entry.py{off}"),
        Shown("--- a/src/entry.py", f"{bold}--- a/src/entry.py{off}"),
        Shown("881   const poolRetry: number = request.id;",
              "\x1b[7m881\x1b[0m   const poolRetry: number = request.id;"),
        Shown("            ~~~~~~~~~", f"\x1b[7m   \x1b[0m         \x1b[31m~~~~~~~~~{off}"),
    ]  # fmt: skip
    for bitmap, theme in ((None, "light"), ("10x20", "light"), ("10x20", "solarized-dark")):
        with real_terminals.open_xterm(
            desktop, shown, columns=70, rows=12, bitmap=bitmap, theme=theme
        ) as client:
            grab = client.grab(capturer)
            truth = [row for row in client.lines if row.strip()]
        whole = (0, 0, *grab.image.size)
        read = read_job(Job(grab.image, whole, 0, whole))
        assert read is not None, (bitmap, theme)
        lines, _ = read
        assert [line.text for line in lines] == [row.rstrip() for row in truth], (bitmap, theme)
        assert all(line.confidence == 1.0 for line in lines), (bitmap, theme)


def test_box_drawing_and_marks_in_a_bitmap_font_are_read_by_glyphs(
    desktop: XServer, capturer: Capturer
) -> None:
    """lsblk, tree and systemctl draw trees and marks with box drawing and
    geometric characters; xterm takes them from the bitmap font, whose
    ``─`` is its ``—`` (and 6x13's its bold ``-``): a line beside box
    drawing. (A run of them between two letters alone, pstree's
    ``sshd───bash``, stays dashes in 6x13: nothing there tells.) A row of
    box drawing alone (bat's frame) is text, as the screen shows it."""
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    red, off = "\x1b[31m", "\x1b[0m"
    shown = [
        Shown.text("NAME          MAJ:MIN RM   SIZE RO TYPE  MOUNTPOINTS"),
        Shown.text("nvme0n1       259:0    0 238.5G  0 disk"),
        Shown.text("├─nvme0n1p1   259:1    0   512M  0 part  /boot/efi"),
        Shown.text("└─nvme0n1p2   259:2    0   238G  0 part"),
        Shown.text("  └─vg0-root  254:0    0    40G  0 lvm   /"),
        Shown.text("│   ├── conftest.py"),
        Shown.text("systemd(1)─┬─sshd(812)"),
        Shown.text("───────┬──────────────────"),
        Shown.text("       │ File: src/app.ts"),
        Shown.text("───────┼──────────────────"),
    ]  # fmt: skip
    # xterm's 10x20 is its Latin-1 font, with no ``●`` (nor lines: xterm
    # draws those itself).
    mark = Shown("● ssh.service loaded failed", f"{red}●{off} ssh.service loaded failed")
    for bitmap, lines in ((None, [*shown, mark]), ("10x20", shown)):
        with real_terminals.open_xterm(
            desktop, lines, columns=70, rows=len(lines) + 1, bitmap=bitmap
        ) as client:
            grab = client.grab(capturer)
            truth = [row for row in client.lines if row.strip()]
        whole = (0, 0, *grab.image.size)
        read = read_job(Job(grab.image, whole, 0, whole))
        assert read is not None, bitmap
        lines, _ = read
        assert [line.text for line in lines] == [row.rstrip() for row in truth], bitmap


MISSING = "\ufffd"


def test_a_few_rows_with_one_highlighted_across_the_window_are_found_as_the_font_s_grid(
    desktop: XServer, capturer: Capturer
) -> None:
    """Four lines of ``strace`` in 9x15, the third in reverse video across
    the window: its 90 cells, ink with the glyphs in the paper's colour,
    were most of the inked cells sampled to place the font's grid, and none
    of them counted as a glyph, so the grid was not tried and the engine
    read the rows (``[`` as ``(``). A cell in reverse video counts as the
    glyph it shows."""
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    shown = [
        "$ strace ./build/meridian --config etc/meridian.toml",
        'execve("./build/meridian", ["./build/meridian", "--config"], 0x7ffdb8300ce9) = 0',
        "brk(NULL)                               = 0x552d0aa63000",
        'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3',
    ]
    with real_terminals.open_xterm(
        desktop, shown, columns=90, rows=20, bitmap="9x15", theme="light", highlight=2
    ) as client:
        grab = client.grab(capturer)
    whole = (0, 0, *grab.image.size)
    read = read_job(Job(grab.image, whole, 0, whole))
    assert read is not None
    assert [line.text.rstrip() for line in read[0] if line.text.strip()] == shown


def test_a_character_the_bitmap_font_lacks_is_read_as_the_replacement_character(
    desktop: XServer, capturer: Capturer
) -> None:
    """xterm's 9x15 is its Latin-1 font: docker's cut ``…``, pip's ``━``
    bar and systemd's ``●`` are drawn as the font's default glyph, a dotted
    box. Each is U+FFFD, the character that says one was there, sure: not
    a letter the box looks like, nor a space. Latin-1 and the lines xterm
    draws itself stay as they are."""
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    shown = [
        '"docker-entrypoint.s…"   Up 3 hours',
        "   ━━━━━━━━━━━━━━━━━━━━ 12.4/12.4 MB 1.0 MB/s",
        "● nginx.service - A high performance web server",
        '├─ 1234 "nginx: master process"',
        "café ±3 °C",
    ]
    drawn = [
        f'"docker-entrypoint.s{MISSING}"   Up 3 hours',
        f"   {MISSING * 20} 12.4/12.4 MB 1.0 MB/s",
        f"{MISSING} nginx.service - A high performance web server",
        '├─ 1234 "nginx: master process"',
        "café ±3 °C",
    ]
    with real_terminals.open_xterm(desktop, shown, columns=60, rows=7, bitmap="9x15") as client:
        grab = client.grab(capturer)
    whole = (0, 0, *grab.image.size)
    read = read_job(Job(grab.image, whole, 0, whole))
    assert read is not None
    assert [line.text for line in read[0]] == drawn
    assert min(line.confidence for line in read[0]) >= 0.99


def test_the_corpus_truth_of_a_bitmap_font_is_what_xterm_draws(
    desktop: XServer, capturer: Capturer
) -> None:
    """The terminal corpus's truth for xterm in a bitmap font
    (``tests.terminal_shown.in_bitmap_font``) says U+FFFD exactly where
    xterm draws the font's default glyph: in 9x15 (ISO 8859-1) every
    character beyond Latin-1 but the DEC graphics xterm draws itself, in
    its default fixed (ISO 10646) only what that font lacks."""
    import gzip

    import numpy as np

    from noru.ocr import pcf
    from tests.terminal_corpus import BITMAP, BITMAP_FILES, X_FONTS, shown_in_family

    real_terminals.need("xterm")
    marks = "…‘’“”–—•→✓✗❯●○◆■□▪▶▲━┃═║╭╮─│├└┼┬┴┐┌┘┤▒π≠≤≥⚠ⓘ⠿αλΩ€™"
    for band, bitmap, (width, height) in (("medium", "9x15", (9, 15)), ("small", None, (6, 13))):
        row = " ".join(marks)
        with real_terminals.open_xterm(
            desktop, [row], columns=len(row) + 2, rows=3, bitmap=bitmap
        ) as client:
            grab = client.grab(capturer)
        raw = gzip.decompress((X_FONTS / BITMAP_FILES[band]).read_bytes())
        box = np.asarray(pcf.bitmaps(raw, "")[pcf.MISSING].convert("L")) > 0
        pixels = np.asarray(grab.image.convert("L"))
        ink = pixels != np.median(pixels)
        rows, columns = np.nonzero(ink)
        top, left = rows.min(), columns.min()
        # The grid: where the cells hold the most default glyphs, the first
        # mark's cell holding the first ink.
        found = None
        for y in range(max(0, top - height), top + 1):
            for x in range(max(0, left - width), left + 1):
                cells = [ink[y : y + height, x + 2 * i * width : x + (2 * i + 1) * width]
                         for i in range(len(marks))]  # fmt: skip
                boxes = "".join(m for m, c in zip(marks, cells, strict=True)
                                if c.shape == box.shape and (c == box).all())  # fmt: skip
                if found is None or len(boxes) > len(found):
                    found = boxes
        truth = shown_in_family(BITMAP, band, [marks])[0]
        assert found == "".join(m for m, t in zip(marks, truth, strict=True) if t == MISSING), band
        assert found, band  # some are missing in each


def test_a_band_cut_below_a_row_s_glyphs_reads_that_row_by_its_glyphs(
    desktop: XServer, capturer: Capturer
) -> None:
    """A big region is read in bands cut through rows with no ink
    (``noru.ocr.band_cuts``): below a row of capitals, its cells' last pixel
    rows. The rows past the cut are as empty, so the row is still read by
    its glyphs in the band above, not left to the engine."""
    import numpy as np

    from noru.ocr.cells import MIN_BAND, read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    shown = [
        "$ docker ps -a",
        "CONTAINER ID   IMAGE   NAMES",
        "d95a38e0e193   redis   cobalt-path-8",
    ]
    with real_terminals.open_xterm(desktop, shown, columns=50, rows=5, bitmap="10x20") as client:
        grab = client.grab(capturer)
    image = grab.image
    whole = (0, 0, *image.size)
    read = read_job(Job(image, whole, 0, whole))
    assert read is not None
    capitals = read[0][1].box
    assert read[0][1].text == shown[1]
    pixels = np.asarray(image.convert("L"))
    x, y, w, h = capitals
    inked = np.flatnonzero((pixels[y : y + h, x : x + w] != np.median(pixels)).any(axis=1))
    cut = y + int(inked[-1]) + 2  # two empty pixel rows below the capitals, in their cells
    assert cut < y + h
    lines, rests = [], []
    for band in ((0, 0, image.width, cut), (0, cut, image.width, image.height - cut)):
        found = read_job(Job(image, band, 0, band))
        assert found is not None
        lines += [line.text for line in found[0]]
        rests += [rest for rest in found[1] if rest[3] >= MIN_BAND]
    assert lines == shown
    assert not any(rest[1] < y + h and y < rest[1] + rest[3] for rest in rests)


def test_a_few_rows_atop_a_tall_bitmap_grid_are_found_whatever_its_cell_count() -> None:
    """The grid's position is found from a sample of its inked cells,
    visited in scattered steps: three rows of 9x15 atop a window of 90 x 22
    cells (a count one more than a multiple of a step once tried, which
    walked the empty rows from the bottom up)."""
    import numpy as np
    from PIL import Image

    from noru.ocr.cells import fonts, read_grid

    (font,) = [found for found in fonts() if found.name == "9x15"]
    bitmap = {}
    for key, char in font.glyphs.items():
        bits = np.unpackbits(np.frombuffer(key, dtype=np.uint8)).reshape(font.height, -1)
        bitmap.setdefault(char, bits[:, : font.width])
    rows = [
        "$ make -j16",
        "cc -O2 -g -Wall -c src/app.c -o build/app.o",
        "src/app.c: In function 'main':",
    ]
    ink = np.zeros((22 * font.height, 90 * font.width), dtype=bool)
    for r, text in enumerate(rows):
        for c, char in enumerate(text):
            if char != " ":
                ink[
                    r * font.height : (r + 1) * font.height, c * font.width : (c + 1) * font.width
                ] = bitmap[char]
    grid = read_grid(Image.fromarray(np.where(ink, 0, 255).astype(np.uint8)), 255)
    assert grid is not None
    assert [line.text for line in grid.lines] == rows


def test_rows_mostly_of_digits_in_a_tall_bitmap_font_are_read_by_glyphs(
    desktop: XServer, capturer: Capturer
) -> None:
    """top's rows are digits and capitals, ink a cap height high: 10 pixels
    of 9x15's 15 still tell its grid."""
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    shown = [
        "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND",
        "  20737 ROOT      36  -4 2197600   9892  73494 S  60.4  83.9  27:57.72 CRON",
        "  25444 NORU       6   4 4977275 529594  65509 D  33.3  62.6  51:57.36 XORG",
        "  56298 HTTP      29  17 4345583 959853  74204 I  93.1  41.3  80:05.07 NGINX",
        "  97872 NORU      19   6 8479972 635209  11032 R  43.2  32.9  85:39.21 MAKE",
        "  10391 ROOT      20   0  216580  11740   8400 S   0.0   0.1   0:01.93 INIT",
    ]
    with real_terminals.open_xterm(
        desktop, shown, columns=90, rows=8, bitmap="9x15", theme="dark"
    ) as client:
        grab = client.grab(capturer)
        truth = [row.rstrip() for row in client.lines if row.strip()]
    whole = (0, 0, *grab.image.size)
    read = read_job(Job(grab.image, whole, 0, whole))
    assert read is not None
    assert [line.text for line in read[0]] == truth


def test_in_a_display_capture_the_grid_is_read_by_glyphs_and_its_title_left_to_the_engine(
    desktop: XServer, capturer: Capturer, engine: Engine
) -> None:
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    with real_terminals.open_xterm(desktop, LOG, columns=90, rows=30, x=40, y=40) as client:
        client.bring_under_pointer()
        (grab,) = capturer.grab_display(1)
        truth = list(client.lines)
    (frame,) = [w for w in grab.windows if contains(w, client.centre)]
    read = read_job(Job(grab.image, frame, 0, frame))
    assert read is not None
    lines, rest = read
    assert [line.text for line in lines] == [" ".join(row.split()) for row in truth]
    # The frame's title bar is no glyph of the font: a band above the grid,
    # for the engine to read.
    assert rest and rest[0][1] <= frame[1] + 4 and rest[0][3] >= 10
    assert all(band[1] + band[3] <= lines[0].box[1] + 1 for band in rest[:1])
    result = engine.recognise(grab.image, regions=grab.windows)
    texts = [line.text for line in result.lines]
    assert all(" ".join(row.split()) in texts for row in truth)


def test_an_antialiased_terminal_is_not_read_as_a_grid(
    desktop: XServer, capturer: Capturer
) -> None:
    from noru.ocr.cells import read_job
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, LOG, columns=90, rows=30, font="DejaVu Sans Mono", size=9
    ) as client:
        grab = client.grab(capturer)
    whole = (0, 0, *grab.image.size)
    assert read_job(Job(grab.image, whole, 0, whole)) is None


def test_without_the_bitmap_fonts_on_the_machine_the_engine_reads_the_grid(
    desktop: XServer, capturer: Capturer, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noru.ocr import cells
    from noru.ocr.regions import Job

    real_terminals.need("xterm")
    with real_terminals.open_xterm(desktop, LOG, columns=90, rows=30) as client:
        grab = client.grab(capturer)
    monkeypatch.setattr(cells, "FONT_DIRS", ())
    cells.fonts.cache_clear()
    try:
        whole = (0, 0, *grab.image.size)
        assert cells.fonts() == ()
        assert cells.read_job(Job(grab.image, whole, 0, whole)) is None
    finally:
        cells.fonts.cache_clear()


def test_the_bitmap_fonts_glyphs_are_what_pillows_own_pcf_reader_reads() -> None:
    """Noru reads only the code points it looks up from the X server's PCF
    files; every glyph it gets is the one Pillow's full reader gets, and
    past Latin-1 (which Pillow does not read) the one FreeType draws."""
    import gzip

    import freetype
    import numpy as np
    from PIL import PcfFontFile

    from noru.ocr import cells, pcf

    checked = 0
    for folder in cells.FONT_DIRS:
        for name in cells.FONT_FILES:
            path = folder / f"{name}.pcf.gz"
            if not path.is_file():
                continue
            with gzip.open(path) as f:
                theirs = PcfFontFile.PcfFontFile(f)  # type: ignore[arg-type]
            ours = pcf.bitmaps(gzip.decompress(path.read_bytes()), cells.BEYOND)
            expected = {c: g[3] for c, g in enumerate(theirs.glyph) if g is not None}
            assert sorted(c for c in ours if c < 256) == sorted(expected), name
            for code, bitmap in expected.items():
                assert ours[code].size == bitmap.size, (name, code)
                assert ours[code].tobytes() == bitmap.convert("1").tobytes(), (name, code)
            face = freetype.Face(str(path))
            beyond = [c for c in ours if c >= 256 and c != pcf.MISSING]
            assert beyond == [c for c in map(ord, cells.BEYOND) if face.get_char_index(c)], name
            # The default glyph, FreeType's glyph 0 (its PCF driver puts it there).
            mono = freetype.FT_LOAD_RENDER | freetype.FT_LOAD_TARGET_MONO
            for code in [*beyond, pcf.MISSING]:
                if code == pcf.MISSING:
                    face.load_glyph(0, mono)
                else:
                    face.load_char(chr(code), mono)
                drawn = face.glyph.bitmap
                mine = np.asarray(ours[code].convert("L")) > 0
                theirs_bits = np.unpackbits(
                    np.array(drawn.buffer, dtype=np.uint8).reshape(drawn.rows, drawn.pitch), axis=1
                )[:, : drawn.width]
                assert mine.any() and (mine == theirs_bits.astype(bool)).all(), (name, code)
            checked += 1
    require(checked > 0, "no X bitmap fonts here (apt: xfonts-base)")
    found = cells.fonts()
    assert {font.name for font in found} >= {"6x13", "9x15"}  # xterm's default, and kin


def test_a_damaged_font_file_is_no_font(tmp_path: Path) -> None:
    """Read as no font (the engine reads such text), whatever is wrong with it."""
    import gzip
    import struct

    from noru.ocr import cells

    source = cells.FONT_DIRS[0] / "6x13.pcf.gz"
    require(source.is_file(), "no X bitmap fonts here (apt: xfonts-base)")
    raw = gzip.decompress(source.read_bytes())
    no_encodings = bytearray(raw)
    for i in range(struct.unpack_from("<I", raw, 4)[0]):
        if struct.unpack_from("<I", raw, 8 + 16 * i)[0] == 1 << 5:  # the encodings table
            struct.pack_into("<I", no_encodings, 8 + 16 * i, 1 << 9)
    huge = bytearray(raw)
    for i in range(struct.unpack_from("<I", raw, 4)[0]):
        kind, _, _, offset = struct.unpack_from("<IIII", raw, 8 + 16 * i)
        if kind == 1 << 2:  # the metrics table: one glyph made 65535 pixels a side
            (form,) = struct.unpack_from("<I", raw, offset)
            order = ">" if form & 4 else "<"
            if (form & 0xFF00) == 0x100:
                huge[offset + 6 + 5 * 65 : offset + 11 + 5 * 65] = bytes([0, 255, 128, 255, 255])
            else:
                struct.pack_into(
                    f"{order}6H", huge, offset + 8 + 12 * 65, 0, 65535, 0, 65535, 65535, 0
                )
    damaged = {
        "no-encodings.pcf.gz": gzip.compress(bytes(no_encodings)),
        "huge-glyph.pcf.gz": gzip.compress(bytes(huge)),
        "cut.pcf.gz": gzip.compress(raw[: len(raw) // 3]),
        "header.pcf.gz": gzip.compress(raw[:4] + b"\xff" * 40),
        "other.pcf.gz": gzip.compress(b"not a font at all"),
        "not-gzip.pcf.gz": raw,
        "cut-gzip.pcf.gz": source.read_bytes()[:200],
    }
    for name, data in damaged.items():
        (tmp_path / name).write_bytes(data)
        assert cells._load(tmp_path / name) is None, name
    assert cells._load(source) is not None
