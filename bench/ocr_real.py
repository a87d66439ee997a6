"""OCR on real X clients: xterm, Tk, GTK and Firefox showing text we know.

The synthetic corpus (bench/ocr_corpus.py) is drawn by Pillow; this one is
drawn by the programs people read text in. On a private 2560x1600 Xvfb with
openbox (tests/xserver.py), each client class opens real programs
(tests/real_clients.py, tests/real_terminals.py) showing generated text:
terminal output (logs, shell listings, tracebacks, JSON, long lines that
wrap) in xterm, prose, figures and names in Tk, GTK and Firefox. Noru's
``Capturer`` takes the capture the app would take: a WINDOW capture of the
window under the pointer, or a DISPLAY capture of several clients side by
side, whose window rectangles (``Grab.windows``) go to the engine as the
app's OCR does (``noru.recognition.recognise_capture``:
``engine.recognise(image, regions=windows or None)``). Each engine reads
every capture; the programs are stopped before it reads, so they do not
share the CPU.

Scoring is by word tokens (split on white space, stray punctuation at either
end stripped as bench/ocr_corpus.py strips it), as multisets: recall is the
share of the truth's tokens the engine read, precision the share of the
engine's tokens that are in the truth. The truth is what is on screen: the
rows xterm shows (a long line wraps at the last column, cutting a word in
two; the top rows scroll away), the display lines Tk and GTK report as wholly
visible, the page's lines with Firefox's tab title and address, and in a
display capture each window's title in its frame. Times are wall ms per
capture (median) and CPU ms (median, all threads); each engine reads a small
image first, untimed.

    .venv/bin/python bench/ocr_real.py                           # all classes, both engines
    .venv/bin/python bench/ocr_real.py --classes xterm-fixed-200 --engines tesseract
    .venv/bin/python bench/ocr_real.py --frames 1 --misses 8
    .venv/bin/python bench/ocr_real.py --list                    # the classes
    .venv/bin/python bench/ocr_real.py --served pillow,vips      # as served, by each scaler
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVED_EDGE = 1568  # the served image's long edge (config max_edge's default)
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from PIL import Image, ImageDraw  # noqa: E402
from tests import real_clients, real_terminals  # noqa: E402
from tests.real_clients import Client, Kind, Theme  # noqa: E402
from tests.sway import Foot, Sway  # noqa: E402
from tests.xserver import XServer, running_xserver  # noqa: E402

from capture_pipeline import host_speed  # noqa: E402
from noru.capture import Capturer, Grab  # noqa: E402
from noru.geometry import Rect  # noqa: E402
from noru.imaging import fit_long_edge, scale  # noqa: E402
from noru.ocr import Engine, OcrResult, available_engines, describe, get_engine  # noqa: E402
from ocr_corpus import _ENDS  # noqa: E402

WIDTH, HEIGHT = 2560, 1600
MONO = "DejaVu Sans Mono"

# --- the text -------------------------------------------------------------------------

_WORDS = """
account address agenda allocation analysis annual approval archive balance batch billing
budget buffer cache calendar capture catalogue channel checkout client column commit
config contract counter customer dashboard database deadline delivery deploy device
digest display document download draft editor estimate export feature filter folder
forecast gateway handler header history import index invoice journal kernel ledger
license listing margin meeting memory merge message migration monitor network notice
operator order output package partner payment pending pipeline policy portfolio preview
printer profile project quarterly queue receipt record release report request revenue
review router schedule schema screen search segment server session settings shipment
snapshot source status storage summary supplier support switch table target terminal
ticket timeline token transfer update upload vendor version volume warehouse window
worker
"""
WORDS = _WORDS.split()
_NAMES = """
Meridian Holloway Castellan Okonkwo Lindqvist Marchetti Takahashi Abernathy Vasquez
Delacroix Nakamura Fitzgerald Oyelaran Kowalczyk Brennan Sorensen
"""
NAMES = _NAMES.split()
_MODULES = """
noru.app.writer noru.capture.x11 noru.store.reader noru.ocr.tesseract noru.mcp.session
noru.recognition noru.app.hotkey noru.appwire
"""
MODULES = _MODULES.split()
LEVELS = ["INFO", "DEBUG", "WARNING", "ERROR"]
_FILES = """
recognition.py writer.py session.py tesseract.py schema.py layout.py regions.py
config.toml noru.sqlite3 README.md performance.md Makefile
"""
FILES = _FILES.split()


def _sentence(rng: random.Random, words: int) -> str:
    out = []
    for i in range(words):
        roll = rng.random()
        if roll < 0.08:
            out.append(rng.choice(NAMES))
        elif roll < 0.16:
            out.append(f"{rng.randint(2, 9999):,}")
        elif roll < 0.19:
            out.append(f"{rng.randint(1, 28)} {rng.choice(['March', 'June', 'October'])}")
        else:
            out.append(rng.choice(WORDS))
        if 0 < i < words - 1 and rng.random() < 0.08:
            out[-1] += ","
    text = " ".join(out) + "."
    return text[0].upper() + text[1:]


def _stamp(rng: random.Random) -> str:
    day, hour, minute, second = (
        rng.randint(1, 30),
        rng.randint(0, 23),
        rng.randint(0, 59),
        rng.randint(0, 59),
    )
    return f"2026-11-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"


def terminal_lines(rng: random.Random, count: int) -> list[str]:
    """What a terminal shows: logs, listings, commits, tracebacks, JSON, prose;
    many lines long enough to wrap in a narrow xterm."""
    lines: list[str] = []
    while len(lines) < count:
        kind = rng.random()
        if kind < 0.3:
            ms = rng.randint(0, 999)
            message = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
            lines.append(
                f"{_stamp(rng)}.{ms:03d} {rng.choice(LEVELS):<7} {rng.choice(MODULES)} "
                f"{message} in {rng.randint(1, 4000)} ms (id {rng.getrandbits(32):08x})"
            )
        elif kind < 0.45:
            size = rng.randint(100, 9_999_999)
            lines.append(
                f"-rw-r--r-- 1 noru noru {size:>8} Nov {rng.randint(1, 30):>2} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(FILES)}"
            )
        elif kind < 0.6:
            words = rng.randint(4, 12)
            lines.append(f"{rng.getrandbits(28):07x} {_sentence(rng, words)[:-1]}")
        elif kind < 0.7:
            path = f"/usr/lib/python3/dist-packages/{rng.choice(MODULES).replace('.', '/')}.py"
            lines.append(f'  File "{path}", line {rng.randint(1, 900)}, in {rng.choice(WORDS)}')
        elif kind < 0.8:
            fields = ", ".join(
                f'"{rng.choice(WORDS)}": {rng.randint(0, 99999)}' for _ in range(rng.randint(2, 9))
            )
            lines.append("{" + fields + "}")
        else:
            lines.append(
                " ".join(_sentence(rng, rng.randint(6, 20)) for _ in range(rng.randint(1, 4)))
            )
    return lines[:count]


def aligned_lines(rng: random.Random, count: int, *, columns: int) -> list[str]:
    """What a terminal shows in aligned columns, each line under ``columns``:
    numbered code with aligned comments, a table (`kubectl get pods`), `top`,
    a log with fixed-width fields, `ls -l`."""
    names = ["ledger", "batch", "total", "ctx", "rows", "entry", "amount", "region", "pool"]
    lines: list[str] = []
    block = 0
    while len(lines) < count:
        kind = block % 5
        block += 1
        for _ in range(rng.randint(6, 14)):
            if kind == 0:
                body = rng.choice(
                    [
                        f"def job_{rng.randint(100, 999)}(ctx, {rng.choice(names)}):",
                        f"    {rng.choice(names):<8} = "
                        f"{rng.choice(names)}.get({rng.randint(0, 99)})",
                        f"    if {rng.choice(names)} > {rng.randint(0, 9999)}: return "
                        f"{rng.choice(names)}",
                    ]
                )
                comment = "# " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
                line = f"{len(lines) + 1:04d}  {body:<48}{comment}"
            elif kind == 1:
                pod = f"{rng.choice(WORDS)}-{rng.getrandbits(24):06x}-{rng.getrandbits(20):05x}"
                status = rng.choice(["Running", "Pending", "CrashLoopBackOff", "Completed"])
                line = (
                    f"{pod:<36}{rng.randint(0, 3)}/{rng.randint(1, 3):<6}{status:<20}"
                    f"{rng.randint(0, 40):<10}{rng.randint(1, 59)}m"
                )
            elif kind == 2:
                line = (
                    f"{rng.randint(1, 99999):>7} {rng.choice(['noru', 'root', 'www-data']):<9}"
                    f"{rng.randint(0, 39):>3} {rng.randint(-20, 19):>3} "
                    f"{rng.randint(10000, 9999999):>9} {rng.randint(1000, 999999):>8} "
                    f"{rng.randint(0, 99999):>7} {rng.choice('SRDI')} "
                    f"{rng.randint(0, 999) / 10:>5.1f} {rng.randint(0, 999) / 10:>5.1f} "
                    f"{rng.randint(0, 99):>3}:{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d} "
                    f"{rng.choice(FILES).split('.')[0]}"
                )
            elif kind == 3:
                line = (
                    f"{_stamp(rng)}.{rng.randint(0, 999):03d} {rng.choice(LEVELS):<8}"
                    f"[{rng.choice(names)}-{rng.randint(1, 16):02d}] "
                    f"{rng.choice(MODULES):<22}{' '.join(rng.choice(WORDS) for _ in range(4))}"
                )
            else:
                line = (
                    f"-rw-r--r-- 1 noru noru {rng.randint(100, 9_999_999):>8} "
                    f"Nov {rng.randint(1, 30):>2} "
                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} "
                    f"{rng.choice(FILES)}"
                )
            lines.append(line[: columns - 1])
    return lines[:count]


def prose_lines(rng: random.Random, count: int, *, width: int) -> list[str]:
    """Sentences and figures, each at most ``width`` characters (cut at a word)."""
    lines = []
    for _ in range(count):
        line = _sentence(rng, rng.randint(4, 30))
        while len(line) > width:
            line = line[: line.rindex(" ", 0, width)]
        lines.append(line)
    return lines


def labels(rng: random.Random) -> list[str]:
    return [
        f"Account: {rng.choice(NAMES)} {rng.choice(['Holdings', 'Logistics', 'Partners'])}",
        f"Invoice {rng.randint(1000, 9999)}-{rng.randint(10, 99)} "
        f"due {rng.randint(1, 28)} December",
        f"Balance {rng.randint(100, 99999):,}.{rng.randint(0, 99):02d} EUR",
    ]


# --- the client classes ------------------------------------------------------------------

Opener = Callable[[XServer, random.Random], list[Client]]


def _xterm(
    columns: int,
    rows: int,
    *,
    font: str | None = None,
    size: int = 9,
    theme: Theme = "light",
    aligned: bool = False,
    subpixel: bool = False,
    dpi: int | None = None,
) -> Opener:
    def open_(server: XServer, rng: random.Random) -> list[Client]:
        # Twice the rows: the screen is full, the first lines scrolled away.
        text = (
            aligned_lines(rng, rows * 2, columns=columns)
            if aligned
            else terminal_lines(rng, rows * 2)
        )
        return [
            real_terminals.open_xterm(
                server,
                text,
                columns=columns,
                rows=rows,
                font=font,
                size=size,
                theme=theme,
                subpixel=subpixel,
                dpi=dpi,
                x=40,
                y=40,
            )
        ]

    return open_


def _fitting(lines: Sequence[str], columns: int) -> list[str]:
    """Each line cut at a word to fit ``columns`` (these terminals' truth is
    their rows only where nothing wraps)."""
    out = []
    for line in lines:
        while len(line) >= columns:
            line = line[: line.rindex(" ", 0, columns - 1)].rstrip()
        out.append(line)
    return out


def _terminal(
    kind: real_terminals.Terminal,
    columns: int,
    rows: int,
    *,
    size: int = 10,
    theme: Theme = "dark",
    aligned: bool = False,
) -> Opener:
    def open_(server: XServer, rng: random.Random) -> list[Client]:
        count = rows - 2
        text = (
            aligned_lines(rng, count, columns=columns)
            if aligned
            else _fitting(terminal_lines(rng, count), columns)
        )
        return [
            real_terminals.open_terminal(
                server, kind, text, columns=columns, rows=rows, size=size, theme=theme,
                x=40, y=40,
            )
        ]  # fmt: skip

    return open_


def _tk(size: int, theme: Theme) -> Opener:
    def open_(server: XServer, rng: random.Random) -> list[Client]:
        lines = prose_lines(rng, 80, width=400)
        return [
            real_clients.open_tk_text(
                server,
                lines,
                size=size,
                theme=theme,
                x=40,
                y=40,
                width=1400,
                height=1000,
            )
        ]

    return open_


def _gtk(size: int, theme: Theme) -> Opener:
    def open_(server: XServer, rng: random.Random) -> list[Client]:
        return [
            real_clients.open_gtk(
                server,
                labels(rng),
                prose_lines(rng, 60, width=400),
                size=size,
                theme=theme,
                x=40,
                y=40,
                width=1400,
                height=1000,
            )
        ]

    return open_


def _firefox(server: XServer, rng: random.Random) -> list[Client]:
    heading = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} for {rng.choice(NAMES)}"
    lines = prose_lines(rng, 22, width=100)
    return [real_clients.open_firefox(server, heading, lines, x=40, y=40, width=1200, height=900)]


def _display_terminals(server: XServer, rng: random.Random) -> list[Client]:
    return [
        real_terminals.open_xterm(
            server, terminal_lines(rng, 100), columns=100, rows=56, x=20, y=20
        ),
        real_terminals.open_xterm(
            server,
            terminal_lines(rng, 100),
            columns=100,
            rows=48,
            font=MONO,
            size=9,
            theme="dark",
            x=680,
            y=20,
        ),
        real_terminals.open_xterm(
            server,
            terminal_lines(rng, 100),
            columns=110,
            rows=40,
            font=MONO,
            size=10,
            x=1500,
            y=20,
        ),
    ]


def _display_mixed(server: XServer, rng: random.Random) -> list[Client]:
    return [
        real_terminals.open_xterm(
            server, terminal_lines(rng, 120), columns=150, rows=56, x=20, y=20
        ),
        real_clients.open_firefox(
            server,
            f"{rng.choice(WORDS).capitalize()} for {rng.choice(NAMES)}",
            prose_lines(rng, 18, width=90),
            x=960,
            y=20,
            width=1100,
            height=760,
        ),
        real_clients.open_tk_text(
            server, prose_lines(rng, 40, width=300), size=10, x=20, y=790, width=900, height=780
        ),
        real_terminals.open_xterm(
            server,
            terminal_lines(rng, 80),
            columns=90,
            rows=40,
            font=MONO,
            size=9,
            theme="dark",
            x=960,
            y=830,
        ),
        real_clients.open_gtk(
            server,
            labels(rng),
            prose_lines(rng, 30, width=300),
            x=1740,
            y=830,
            width=780,
            height=700,
        ),
    ]


@dataclass(frozen=True)
class ClientClass:
    name: str
    capture: str  # "window" or "display"
    what: str
    open: Opener = field(repr=False)

    @property
    def rows(self) -> bool:
        """Its truth is a terminal's rows (scored as lines as drawn too)."""
        return self.capture in ("window", "sway") and self.name.startswith(TERMINALS)


TERMINALS = (
    "xterm-", "urxvt", "st-", "xfce4-terminal", "konsole", "kitty", "alacritty", "foot-",
)  # fmt: skip


CLASSES = [
    ClientClass(
        "xterm-fixed-80", "window", "xterm 80x60, default 6x13 bitmap font, light", _xterm(80, 60)
    ),
    ClientClass("xterm-fixed-150", "window", "xterm 150x60, default font, light", _xterm(150, 60)),
    ClientClass("xterm-fixed-200", "window", "xterm 200x80, default font, light", _xterm(200, 80)),
    ClientClass(
        "xterm-fixed-200-dark",
        "window",
        "xterm 200x80, default font, dark",
        _xterm(200, 80, theme="dark"),
    ),
    ClientClass(
        "xterm-xft-8",
        "window",
        "xterm 220x70, DejaVu Sans Mono 8 pt, dark",
        _xterm(220, 70, font=MONO, size=8, theme="dark"),
    ),
    ClientClass(
        "xterm-xft-9",
        "window",
        "xterm 160x60, DejaVu Sans Mono 9 pt, light",
        _xterm(160, 60, font=MONO, size=9),
    ),
    ClientClass(
        "xterm-xft-11",
        "window",
        "xterm 120x45, DejaVu Sans Mono 11 pt, dark",
        _xterm(120, 45, font=MONO, size=11, theme="dark"),
    ),
    ClientClass(
        "xterm-xft-8-aligned",
        "window",
        "xterm 160x50, DejaVu Sans Mono 8 pt, light, aligned columns",
        _xterm(160, 50, font=MONO, size=8, aligned=True),
    ),
    ClientClass(
        "xterm-xft-9-aligned-dark",
        "window",
        "xterm 200x60, DejaVu Sans Mono 9 pt, dark, aligned columns",
        _xterm(200, 60, font=MONO, size=9, theme="dark", aligned=True),
    ),
    ClientClass(
        "xterm-xft-11-aligned",
        "window",
        "xterm 120x45, DejaVu Sans Mono 11 pt, light, aligned columns",
        _xterm(120, 45, font=MONO, size=11, aligned=True),
    ),
    ClientClass(
        "xterm-xft-10-subpixel",
        "window",
        "xterm 160x50, DejaVu Sans Mono 10 pt, light, sub-pixel (RGB) anti-aliasing",
        _xterm(160, 50, font=MONO, size=10, subpixel=True),
    ),
    ClientClass(
        "xterm-xft-10-subpixel-aligned-dark",
        "window",
        "xterm 160x50, DejaVu Sans Mono 10 pt, dark, sub-pixel (RGB), aligned columns",
        _xterm(160, 50, font=MONO, size=10, theme="dark", aligned=True, subpixel=True),
    ),
    ClientClass(
        "xterm-xft-9-hidpi",
        "window",
        "xterm 110x36, DejaVu Sans Mono 9 pt at 192 dpi (HiDPI, Xft scale 2), light",
        _xterm(110, 36, font=MONO, size=9, dpi=192),
    ),
    ClientClass(
        "xterm-xft-9-hidpi-subpixel-aligned-dark",
        "window",
        "xterm 110x36, DejaVu Sans Mono 9 pt at 192 dpi, dark, sub-pixel (RGB), aligned columns",
        _xterm(110, 36, font=MONO, size=9, dpi=192, theme="dark", aligned=True, subpixel=True),
    ),
    *[
        ClientClass(
            f"{kind}-{size}{'-aligned' if aligned else ''}-{theme}",
            "window",
            f"{kind} {columns}x{rows}, DejaVu Sans Mono {size} pt, {theme}"
            + (", aligned columns" if aligned else ""),
            _terminal(kind, columns, rows, size=size, theme=theme, aligned=aligned),
        )
        for kind, columns, rows, size, theme, aligned in (
            ("urxvt", 140, 50, 10, "dark", False),
            ("urxvt", 140, 50, 10, "light", True),
            ("st", 150, 50, 9, "dark", True),
            ("st", 150, 50, 9, "light", False),
            ("xfce4-terminal", 130, 45, 10, "dark", True),
            ("xfce4-terminal", 130, 45, 10, "light", False),
            ("konsole", 130, 45, 10, "dark", True),
            ("kitty", 140, 48, 10, "dark", False),
            ("kitty", 140, 48, 10, "light", True),
            ("alacritty", 140, 48, 10, "dark", True),
        )
    ],
    ClientClass(
        "tk-text-10",
        "window",
        "Tk Text, DejaVu Sans Mono 10 pt, light, 1400x1000",
        _tk(10, "light"),
    ),
    ClientClass(
        "tk-text-12", "window", "Tk Text, DejaVu Sans Mono 12 pt, dark, 1400x1000", _tk(12, "dark")
    ),
    ClientClass(
        "gtk-10", "window", "GTK 3 labels + TextView, DejaVu Sans 10 pt, light", _gtk(10, "light")
    ),
    ClientClass(
        "gtk-11-dark",
        "window",
        "GTK 3 labels + TextView, DejaVu Sans 11 pt, dark",
        _gtk(11, "dark"),
    ),
    ClientClass("firefox", "window", "Firefox ESR page, DejaVu Sans 16 px, 1200x900", _firefox),
    ClientClass(
        "display-terminals",
        "display",
        "three xterms side by side (fixed, Xft 9 dark, Xft 10)",
        _display_terminals,
    ),
    ClientClass(
        "display-mixed",
        "display",
        "xterm fixed + Firefox + Tk + xterm Xft dark + GTK",
        _display_mixed,
    ),
]
# Foot on a headless sway (Wayland), captured by Noru's sway backend as the
# app captures there: (name, theme, aligned). Opened by ``_foot``.
FOOT_COLUMNS, FOOT_ROWS = 120, 36
FOOT = [("foot-10-dark", "dark", False), ("foot-10-aligned-light", "light", True)]
CLASSES += [
    ClientClass(
        name,
        "sway",
        f"foot on sway, {FOOT_COLUMNS} columns x {FOOT_ROWS} lines, DejaVu Sans Mono 10 pt, "
        f"{theme}" + (", aligned columns" if aligned else ""),
        lambda server, rng: [],  # opened on sway by _foot, not on the X server
    )
    for name, theme, aligned in FOOT
]
BY_NAME = {c.name: c for c in CLASSES}


def _foot(sway: Sway, name: str, rng: random.Random, frame: int) -> Foot:
    """A foot window on ``sway`` for the class ``name``, showing new text."""
    _, theme, aligned = next(f for f in FOOT if f[0] == name)
    text = (
        aligned_lines(rng, FOOT_ROWS, columns=FOOT_COLUMNS)
        if aligned
        else _fitting(terminal_lines(rng, FOOT_ROWS), FOOT_COLUMNS)
    )
    background, foreground = real_clients.THEMES[theme]
    return sway.open_foot(
        text, title=f"{name} {frame} - foot", app_id=f"noru.bench.{name}.{frame}",
        x=40, y=40, width=1100, height=760, font="DejaVu Sans Mono:size=10",
        background=background, foreground=foreground,
    )  # fmt: skip


# --- scoring -------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """Word tokens as scored: split on white space, stray punctuation at either
    end stripped (as bench/ocr_corpus.py does); a token of punctuation only
    stays as it is."""
    return [token.strip(_ENDS) or token for token in text.split()]


def distance_within(a: str, b: str, most: int) -> int | None:
    """The edit distance of ``a`` and ``b`` when it is at most ``most`` (a band
    of the table), else None."""
    if abs(len(a) - len(b)) > most:
        return None
    big = most + 1
    previous = {j: j for j in range(min(len(b), most) + 1)}
    for i in range(1, len(a) + 1):
        current = {}
        for j in range(max(0, i - most), min(len(b), i + most) + 1):
            if j == 0:
                current[j] = i
                continue
            cost = previous.get(j - 1, big) + (a[i - 1] != b[j - 1])
            current[j] = min(cost, previous.get(j, big) + 1, current.get(j - 1, big) + 1)
        if min(current.values()) > most:
            return None
        previous = current
    found = previous.get(len(b), big)
    return found if found <= most else None


def rows_as_lines(rows: Sequence[str], lines: Sequence[str], cer: float = 0.02) -> int:
    """How many of a terminal's ``rows`` came out as one line each, in order,
    with a character error rate of at most ``cer`` (spaces included)."""
    found, j = 0, 0
    for row in (r.rstrip() for r in rows):
        if not row.strip():
            continue
        for k in range(j, min(j + 4, len(lines))):
            if distance_within(lines[k].rstrip(), row, int(cer * len(row))) is not None:
                found, j = found + 1, k + 1
                break
    return found


@dataclass
class Tally:
    """One class x engine: the tokens, what was read, what was lost, and the lines."""

    truth: int = 0
    read: int = 0
    matched: int = 0
    rows: int = 0  # a terminal's rows with text
    rows_read: int = 0  # of them, read as one line each, in order, CER <= 2 %
    lost: Counter[str] = field(default_factory=Counter)
    wrong: Counter[str] = field(default_factory=Counter)
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    # (share of the line's tokens read, the truth line, the OCR lines of its capture)
    lines: list[tuple[float, str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, truth_lines: Sequence[str], result: OcrResult, *, rows: bool = False) -> None:
        if rows:
            # A window's own widgets (Konsole's toolbar) are text, not rows.
            grid = [line for line in truth_lines if line not in real_terminals.CHROME]
            self.rows += sum(1 for line in grid if line.strip())
            self.rows_read += rows_as_lines(grid, [line.text for line in result.lines])
        truth = Counter(t for line in truth_lines for t in tokens(line))
        read = Counter(t for line in result.lines for t in tokens(line.text))
        both = truth & read
        self.truth += sum(truth.values())
        self.read += sum(read.values())
        self.matched += sum(both.values())
        self.lost.update(truth - read)
        self.wrong.update(read - truth)
        ocr_lines = tuple(line.text for line in result.lines)
        for line in truth_lines:
            own = Counter(tokens(line))
            if sum(own.values()) >= 3:
                share = sum((own & read).values()) / sum(own.values())
                self.lines.append((share, line, ocr_lines))

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.read if self.read else 0.0


def _kind(token: str) -> str:
    if any(c.isdigit() for c in token):
        return "with digits"
    if token.isalpha():
        return "words"
    return "code/symbols"


def _closest(line: str, candidates: Sequence[str]) -> str:
    """The OCR line most like ``line`` by characters, for showing what became of it."""
    from difflib import SequenceMatcher

    best, best_ratio = "", 0.0
    for candidate in candidates:
        matcher = SequenceMatcher(None, line, candidate, autojunk=False)
        if matcher.real_quick_ratio() > best_ratio and matcher.quick_ratio() > best_ratio:
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = candidate, ratio
    return best


def _clip(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def report_misses(name: str, capture: str, engine: str, tally: Tally, count: int) -> None:
    lost = sum(tally.lost.values())
    if not lost and not tally.wrong:
        print(f"{name} ({capture}, {engine}): nothing lost")
        return
    kinds = Counter[str]()
    for token, n in tally.lost.items():
        kinds[_kind(token)] += n
    by_kind = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
    print(f"{name} ({capture}, {engine}): lost {lost:,} of {tally.truth:,} tokens ({by_kind})")
    print("    lost most: " + ", ".join(f"{t!r} x{n}" for t, n in tally.lost.most_common(count)))
    print(
        "    read instead: " + ", ".join(f"{t!r} x{n}" for t, n in tally.wrong.most_common(count))
    )
    worst = sorted((item for item in tally.lines if item[0] < 1), key=lambda item: item[0])
    for share, line, ocr_lines in worst[: max(1, count // 2)]:
        print(f"    line read {100 * share:3.0f} %: {_clip(line)!r}")
        print(f"          as: {_clip(_closest(line, ocr_lines))!r}")


# --- running -----------------------------------------------------------------------------


def _warm(engine: Engine) -> None:
    """One small read first, so that loading models is not timed."""
    image = Image.new("RGB", (400, 80), "white")
    ImageDraw.Draw(image).text((10, 30), "warm up the engine", fill="black")
    engine.recognise(image)


def _no_overlap(clients: Sequence[Client]) -> None:
    # A display's truth is every window's text: none may hide another's.
    # The frame: 1 px border, a title bar of about 20 px above.
    frames = [(x - 2, y - 24, w + 4, h + 26) for x, y, w, h in (c.rect for c in clients)]
    for i, a in enumerate(frames):
        for b in frames[i + 1 :]:
            if (
                a[0] < b[0] + b[2]
                and b[0] < a[0] + a[2]
                and a[1] < b[1] + b[3]
                and b[1] < a[1] + a[3]
            ):
                raise SystemExit(f"windows overlap: {a} and {b}; change the layout")


def capture(
    server: XServer, capturer: Capturer, spec: ClientClass, rng: random.Random, frame: int
) -> tuple[Grab, list[str]]:
    """Open the class's clients, take its capture, close them: the grab and its truth.
    A window capture takes the window under the pointer, or every other frame the
    active one (the same window here: both ways of finding it are used)."""
    with ExitStack() as stack:
        clients = []
        for client in spec.open(server, rng):
            clients.append(stack.enter_context(client))
        if spec.capture == "window":
            (client,) = clients
            client.bring_under_pointer()
            grab = capturer.grab_window("active" if frame % 2 else "pointer")[0]
            if grab.source.window_title != client.title or grab.geometry != client.rect:
                raise SystemExit(f"captured the wrong window: {grab.source} at {grab.geometry}")
            return grab, [*client.chrome, *client.lines]
        _no_overlap(clients)
        clients[0].bring_under_pointer()
        grab = capturer.grab_display(1)[0]
        truth = []
        for client in clients:
            # The title in its frame's title bar, then the window's text.
            truth += [client.title, *client.chrome, *client.lines]
        return grab, truth


def read(
    engines: dict[str, Engine],
    tallies: dict[tuple[str, str], Tally],
    name: str,
    grab: Grab,
    truth: list[str],
) -> None:
    """Each engine's reading of one capture, timed and scored."""
    for engine_name, engine in engines.items():
        start, start_cpu = time.perf_counter(), time.process_time()
        # As noru.recognition.recognise_capture reads a stored image.
        result = engine.recognise(grab.image, regions=grab.windows or None)
        tally = tallies.setdefault((name, engine_name), Tally())
        tally.wall_ms.append((time.perf_counter() - start) * 1000)
        tally.cpu_ms.append((time.process_time() - start_cpu) * 1000)
        tally.add(truth, result, rows=BY_NAME[name].rows)


def with_sway(
    names: Sequence[str],
    engines: dict[str, Engine],
    tallies: dict[tuple[str, str], Tally],
    *,
    frames: int,
    seed: int,
) -> None:
    """The foot classes: a headless sway of the same size, this process in its
    session while the windows are captured (the capture backend is chosen
    from the session, as the app's is), foot windows with new text."""
    from tests.sway import missing, running_sway

    problem = missing()
    if problem:
        raise SystemExit(f"foot on sway: {problem}")
    saved = dict(os.environ)
    with (
        tempfile.TemporaryDirectory(prefix="noru-ocr-real-sway-") as tmp,
        running_sway(Path(tmp), width=WIDTH, height=HEIGHT) as sway,
    ):
        os.environ.pop("DISPLAY", None)
        os.environ.update(sway.env)
        try:
            with Capturer() as capturer:
                for name in names:
                    for frame in range(frames):
                        rng = random.Random(f"{seed}-{name}-{frame}")
                        with _foot(sway, name, rng, frame) as foot:
                            foot.focus()
                            (grab,) = capturer.grab_window("active")
                            truth = list(foot.lines)
                        read(engines, tallies, name, grab, truth)
                    print(f"  ... {name} done", file=sys.stderr, flush=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)


class ServedReader:
    """An engine reading a capture as it is served to an agent: scaled to the
    served long edge (1568 px) by ``scaler``, Pillow's Lanczos or Noru's
    (``noru.imaging.scale``: libvips), its window rectangles scaled alike."""

    def __init__(self, engine: Engine, scaler: str) -> None:
        self.engine, self.scaler = engine, scaler
        self.name, self.version = engine.name, engine.version

    def recognise(self, image: Image.Image, regions: Sequence[Rect] | None = None) -> OcrResult:
        size = fit_long_edge(image.width, image.height, SERVED_EDGE)
        if size == image.size:
            return self.engine.recognise(image, regions=regions)
        if self.scaler == "pillow":
            scaled = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
        elif self.scaler.startswith("vips-"):  # another libvips kernel: vips-lanczos2
            scaled = scale(image, size, kernel=self.scaler.removeprefix("vips-"))
        else:
            scaled = scale(image, size)
        factor = size[0] / image.width
        windows = [
            (round(x * factor), round(y * factor), round(w * factor), round(h * factor))
            for x, y, w, h in regions or ()
        ]
        return self.engine.recognise(scaled, regions=windows or None)

    def close(self) -> None:
        self.engine.close()


def make_engine(name: str) -> Engine:
    """An engine by name; ``tesseract-layout`` is Tesseract without the
    terminal row reader (its page layout reads terminals too), to compare."""
    if name == "tesseract-layout":
        from noru.ocr.tesseract import TesseractEngine, TesseractSettings

        return TesseractEngine(settings=TesseractSettings(terminal=False))
    return get_engine(name)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--engines", default=None, help="comma-separated (default: every available)"
    )
    parser.add_argument(
        "--classes", default=None, help="comma-separated (default: all; see --list)"
    )
    parser.add_argument("--frames", type=int, default=3, help="captures per class, each new text")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misses", type=int, default=6, help="examples of lost tokens per class")
    parser.add_argument("--list", action="store_true", help="list the client classes")
    parser.add_argument(
        "--served",
        default=None,
        help="comma-separated scalers (pillow, vips, vips-KERNEL such as vips-lanczos2): read "
        "each capture as served to an "
        "agent, scaled to 1568 px by each, instead of the original",
    )
    args = parser.parse_args(argv)
    if args.list:
        for c in CLASSES:
            print(f"{c.name:<20} {c.capture:<8} {c.what}")
        return
    names = args.classes.split(",") if args.classes else [c.name for c in CLASSES]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown classes: {', '.join(unknown)} (see --list)")
    engine_names = (
        args.engines.split(",")
        if args.engines
        else [e for e in ("tesseract", "rapidocr") if e in available_engines()]
    )
    for name in engine_names:
        status = describe(name.removesuffix("-layout"))
        if not status.available:
            raise SystemExit(f"engine {name} unavailable: {status.problem}")
    kinds: tuple[Kind, ...] = ("xterm", "tk", "gtk", "firefox", *real_terminals.TERMINALS)
    problems = [p for k in kinds if (p := real_terminals.missing_any(k))]
    if problems:
        raise SystemExit("; ".join(problems))

    command = shlex.join(
        [".venv/bin/python", "bench/ocr_real.py", *(argv if argv is not None else sys.argv[1:])]
    )
    speed_before = host_speed()
    engines: dict[str, Engine] = {name: make_engine(name) for name in engine_names}
    if args.served:
        engines = {
            f"{name}@{scaler}": ServedReader(engine, scaler)
            for name, engine in engines.items()
            for scaler in args.served.split(",")
        }
    versions = ", ".join(f"{name} {e.version}" for name, e in engines.items())
    print(
        f"OCR on real clients: {WIDTH}x{HEIGHT} Xvfb + openbox (foot: headless sway), "
        f"{args.frames} captures per class, {versions}"
    )
    print(f"command: {command}")
    print(
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    for name in names:
        print(f"  {name:<20} {BY_NAME[name].capture:<8} {BY_NAME[name].what}")
    for engine in engines.values():
        _warm(engine)

    tallies: dict[tuple[str, str], Tally] = {}
    with (
        tempfile.TemporaryDirectory(prefix="noru-ocr-real-") as tmp,
        running_xserver(Path(tmp), width=WIDTH, height=HEIGHT) as server,
        Capturer(display=server.display) as capturer,
    ):
        for name in names:
            spec = BY_NAME[name]
            if spec.capture == "sway":
                continue
            for frame in range(args.frames):
                rng = random.Random(f"{args.seed}-{name}-{frame}")
                grab, truth = capture(server, capturer, spec, rng, frame)
                read(engines, tallies, name, grab, truth)
            print(f"  ... {name} done", file=sys.stderr, flush=True)
    on_sway = [name for name in names if BY_NAME[name].capture == "sway"]
    if on_sway:
        with_sway(on_sway, engines, tallies, frames=args.frames, seed=args.seed)
    for engine in engines.values():
        engine.close()
    speed_after = host_speed()
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{speed_after:.0f} ms after"
    )
    print()
    print(
        f"{'class':<26} {'capture':<8} {'engine':<17} {'tokens':>7} {'recall':>8} "
        f"{'precision':>10} {'rows':>7} {'wall ms':>8} {'cpu ms':>7}"
    )
    for name in names:
        for engine_name in engines:
            t = tallies[(name, engine_name)]
            rows = f"{100 * t.rows_read / t.rows:6.1f}%" if t.rows else "      -"
            print(
                f"{name:<26} {BY_NAME[name].capture:<8} {engine_name:<17} "
                f"{t.truth // args.frames:>7,} "
                f"{100 * t.recall:7.1f}% {100 * t.precision:9.1f}% {rows} "
                f"{statistics.median(t.wall_ms):8,.0f} {statistics.median(t.cpu_ms):7,.0f}"
            )
    print(
        "(tokens: per capture, the truth's; rows: a terminal's rows read as one line each,"
        " in order, CER <= 2 %; wall and cpu ms: median per capture)"
    )
    print()
    print("worst misses per class:")
    for name in names:
        for engine_name in engines:
            report_misses(
                name, BY_NAME[name].capture, engine_name, tallies[(name, engine_name)], args.misses
            )


if __name__ == "__main__":
    main()
