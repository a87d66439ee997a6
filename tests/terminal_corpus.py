"""The terminal corpus: which screens to draw, and drawing them as Noru captures them.

A screen is one real terminal window showing one kind of text
(tests/terminal_texts) in one font family at one size, in one theme, with
or without its own chrome. ``plan(seed)`` chooses the screens along six
axes, deterministic from the seed:

- font family (``FAMILIES``: the monospace families installed, and xterm's
  bitmap "fixed"), by name exactly as fontconfig knows it;
- size band: small (8-10 pt), medium (11-12), large (13-16) and hidpi
  (8-11 pt drawn at 192 dpi, each terminal by its own means); xterm's
  bitmap font comes as fixed 6x13 (small), 9x15 (medium) or 10x20 (large);
- theme: light, dark, solarized-dark, solarized-light, each with its
  16-colour palette, so the tools' ANSI colours look as they do for people;
- terminal: xterm with an Xft font, xterm in its bitmap font, urxvt, st,
  xfce4-terminal, Konsole, kitty and Alacritty, about two screens in five
  with the terminal's default chrome (scrollbar, menu bar, toolbar);
- length: short (1-15 lines in an ordinary window) or dense (a full screen:
  200 columns by 60 rows, or as many as fit at large sizes);
- kind of text (``KINDS``).

Held out. A third of the families and a third of the kinds are never tuned
on: ``HELD_OUT_FAMILIES`` and ``HELD_OUT_KINDS``. A screen is held out when
its family or its kind is; the training part is what remains, so a held-out
figure says how the reader does on type and on text it was not shaped for.
The families held out span what differs between monospace fonts: a narrow
one (Inconsolata), a wide slab-serif one (Go Mono), a thin Courier
(FreeMono), a bitmap-like one (Terminus) and a ligature font (JetBrains
Mono, while Fira Code's ligatures stay in training). DejaVu Sans Mono,
Debian's default monospace, stays in training: it is the font most
terminals come with. The kinds held out mirror kinds in training without
repeating them: rustc's ``-->``/``|``/``^^^`` diagnostics beside gcc's,
Go's panic beside Python's traceback, pytest beside the other tools'
output, psql's ``LINE 1:`` caret, kubectl's table beside docker's, tmux's
box-drawn panes, systemd's tree, df's columns of units, curl's ``>``/``<``
lines and YAML. The plan makes every class along every axis reach
``MIN_TOKENS`` tokens and ``MIN_LINES`` lines of truth in the held-out part
(and ``TRAINING_TIMES`` that in the training part, what readers are tuned
on), spreading screens over combinations rather than drawing every one.
Combinations that cannot be are never drawn: the bitmap font is xterm's
only, has no HiDPI form and no CJK; Powerline's glyphs are missing from
xterm and urxvt's fonts.

``draw(screens, out)`` opens each screen's terminal on a private 2560x1600
Xvfb with openbox, makes it the active window with the pointer on it, and
captures it as Noru's app does (``noru.capture.Capturer``, a WINDOW capture
of the active window), saving the PNG as captured and the window regions
the app would give OCR. ``screens.jsonl`` holds one record per screen: the
plan's facts, the truth (the terminal's rows top to bottom, trailing spaces
stripped, ``""`` for an empty row), the optional lines (the terminal's
chrome: neither required nor an error when read), the PNG and the regions.
A screen whose terminal fails to start is reported and skipped.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import random
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from tests.ocr_scoring import tokens
from tests.real_clients import Client
from tests.real_terminals import (
    KONSOLE_MENU,
    KONSOLE_TOOLBAR,
    XFCE_MENU,
    Chrome,
    Shown,
    Terminal,
    TerminalTheme,
    open_terminal,
    open_xterm,
    xterm_screen,
)
from tests.terminal_shown import in_bitmap_font
from tests.terminal_texts import KINDS, PROBES

__all__ = [
    "BITMAP_FILES",
    "FAMILIES",
    "HELD_OUT_FAMILIES",
    "HELD_OUT_KINDS",
    "LENGTHS",
    "MIN_LINES",
    "MIN_TOKENS",
    "SIZE_BANDS",
    "TERMINAL_NAMES",
    "THEMES",
    "Screen",
    "axis_value",
    "draw",
    "plan",
    "read_corpus",
    "shown_in_family",
]

WIDTH, HEIGHT = 2560, 1600
BITMAP = "fixed"  # the family name of xterm's X core fonts
FAMILIES = (
    "DejaVu Sans Mono",
    "Liberation Mono",
    "Noto Mono",
    "Noto Sans Mono",
    "Hack",
    "JetBrains Mono",
    "Fira Code",
    "Inconsolata",
    "Terminus (TTF)",
    "Cousine",
    "FreeMono",
    "Anonymous Pro",
    "Hermit",
    "mononoki",
    "Go Mono",
    BITMAP,
)
HELD_OUT_FAMILIES = frozenset(
    {"Inconsolata", "Go Mono", "FreeMono", "Terminus (TTF)", "JetBrains Mono"}
)
HELD_OUT_KINDS = frozenset(
    {
        "rustc-error",
        "go-panic",
        "pytest-output",
        "psql-error",
        "kubectl-get-pods",
        "tmux-panes",
        "systemctl-status",
        "df-free",
        "curl-verbose",
        "yaml-config",
    }
)
TerminalName = Literal[
    "xterm-xft", "xterm-fixed", "urxvt", "st", "xfce4-terminal", "konsole", "kitty", "alacritty"
]
TERMINAL_NAMES: tuple[TerminalName, ...] = (
    "xterm-xft",
    "xterm-fixed",
    "urxvt",
    "st",
    "xfce4-terminal",
    "konsole",
    "kitty",
    "alacritty",
)
THEMES: tuple[TerminalTheme, ...] = ("light", "dark", "solarized-dark", "solarized-light")
SizeBand = Literal["small", "medium", "large", "hidpi"]
SIZE_BANDS: dict[SizeBand, tuple[int, ...]] = {
    "small": (8, 9, 10),
    "medium": (11, 12),
    "large": (13, 14, 15, 16),
    "hidpi": (8, 9, 10, 11),  # points at 192 dpi
}
# xterm's X core fonts (xfonts-base) per size band: their cell in pixels.
BITMAPS: dict[SizeBand, tuple[str | None, int, int]] = {
    "small": (None, 6, 13),  # xterm's default, "fixed"
    "medium": ("9x15", 9, 15),
    "large": ("10x20", 10, 20),
}
# The font file xterm draws each with: its default in a UTF-8 locale is the
# ISO 10646 form of fixed; the names 9x15 and 10x20 are the ISO 8859-1 forms.
BITMAP_FILES: dict[SizeBand, str] = {
    "small": "6x13.pcf.gz",
    "medium": "9x15-ISO8859-1.pcf.gz",
    "large": "10x20-ISO8859-1.pcf.gz",
}
X_FONTS = Path("/usr/share/fonts/X11/misc")
LENGTHS = ("short", "dense")
AXES = ("family", "size_band", "theme", "terminal", "length", "kind")
MIN_TOKENS, MIN_LINES = 300, 60
TRAINING_TIMES = 2  # the training part's minimum, in held-out minimums
# Kinds that fill their window as a full-screen program does (a pager, top,
# tmux): a short one is a small window.
FULL_SCREEN = frozenset({"man-page", "top", "tmux-panes"})
# Kinds with reverse-video lines of their own; no highlighted line added.
OWN_REVERSE = frozenset({"man-page", "top", "tsc-error", "tmux-panes"})
# Text a terminal's chrome shows, as readers may split or join it.
OPTIONAL: dict[str, tuple[str, ...]] = {
    KONSOLE_MENU: (KONSOLE_MENU,),
    KONSOLE_TOOLBAR: (
        KONSOLE_TOOLBAR,
        "New Tab Split View",
        "New Tab",
        "Split View",
        "Copy Paste Find",
        "Paste Find",
    ),
    XFCE_MENU: (XFCE_MENU,),
}
# The window's own edges and widgets in pixels at scale 1 (a margin for the
# frame and the terminal's border, scrollbar, menu bar, toolbar): (width, height).
_CHROME_PX: dict[tuple[TerminalName, Chrome], tuple[int, int]] = {
    ("urxvt", "default"): (20, 8),
    ("xfce4-terminal", "default"): (24, 40),
    ("konsole", "none"): (12, 50),
    ("konsole", "default"): (28, 80),
}


@dataclass(frozen=True)
class Screen:
    """One planned screen: what to open and what it shows."""

    id: str
    split: Literal["train", "held-out"]
    terminal: TerminalName
    family: str
    size_pt: int | None  # None for a bitmap font
    size_band: SizeBand
    dpi: int
    theme: TerminalTheme
    kind: str
    length: Literal["short", "dense"]
    columns: int
    rows: int
    text_rows: int  # the rows the text may take (the rest stay empty)
    chrome: Chrome
    highlight: int | None
    seed: str

    @property
    def bitmap(self) -> str | None:
        """xterm's X core font (None: its default, "fixed")."""
        return BITMAPS[self.size_band][0] if self.family == BITMAP else None

    def shown(self) -> list[Shown]:
        """The lines printed, as the kind's generator makes them from the seed."""
        kind = KINDS.get(self.kind) or PROBES[self.kind]
        return kind(random.Random(f"{self.seed}:text"), self.columns - 1, self.text_rows)

    def truth(self) -> list[str]:
        """The terminal's rows top to bottom, trailing spaces stripped; in a
        bitmap font, a character it lacks is U+FFFD (``in_bitmap_font``)."""
        plain = [line.plain for line in self.shown()]
        rows = [row.rstrip() for row in xterm_screen(plain, columns=self.columns, rows=self.rows)]
        return shown_in_family(self.family, self.size_band, rows + [""] * (self.rows - len(rows)))


def shown_in_family(family: str, band: SizeBand, rows: list[str]) -> list[str]:
    """``rows`` as the family draws them: in xterm's bitmap font, each
    character the font file lacks is its default glyph."""
    if family != BITMAP:
        return rows
    return [in_bitmap_font(row, functools.partial(_in_bitmap, band)) for row in rows]


@functools.cache
def _in_bitmap(band: SizeBand, char: str) -> bool:
    """Whether xterm's bitmap font of ``band`` has a glyph for ``char``."""
    from noru.ocr import pcf

    return ord(char) in pcf.bitmaps(_bitmap_file(band), char)


@functools.cache
def _bitmap_file(band: SizeBand) -> bytes:
    """xterm's bitmap font of ``band``, its file's bytes, read once."""
    return gzip.decompress((X_FONTS / BITMAP_FILES[band]).read_bytes())


def split_of(family: str, kind: str) -> Literal["train", "held-out"]:
    """Held out when its family or its kind is."""
    return "held-out" if family in HELD_OUT_FAMILIES or kind in HELD_OUT_KINDS else "train"


def axis_value(record: dict[str, Any] | Screen, axis: str) -> str:
    """A screen's class along ``axis`` (a record of screens.jsonl or a plan's Screen)."""
    value = record[axis] if isinstance(record, dict) else getattr(record, axis)
    return str(value)


# --- planning --------------------------------------------------------------------------


def _possible(terminal: TerminalName, family: str, band: SizeBand, kind: str) -> bool:
    """Whether the combination can be drawn here."""
    if (terminal == "xterm-fixed") != (family == BITMAP):
        return False
    if family == BITMAP and (band == "hidpi" or kind == "cjk"):
        return False
    return not (kind == "powerline-prompt" and terminal in ("xterm-xft", "xterm-fixed", "urxvt"))


@functools.cache
def _font_file(family: str) -> str:
    found = subprocess.run(
        ["fc-match", "-f", "%{file}", family], capture_output=True, text=True, check=True
    )
    return found.stdout


@functools.cache
def cell_size(family: str, size_pt: int, dpi: int) -> tuple[float, float]:
    """A cell's width and height in pixels, from the font's own metrics; the
    height with a margin for the terminals that add line spacing."""
    import freetype

    face = freetype.Face(_font_file(family))
    face.set_char_size(size_pt * 64, 0, dpi, dpi)
    face.load_char("M")
    width = face.glyph.advance.x / 64
    height = (face.size.ascender - face.size.descender) / 64
    return width * 1.04, height * 1.18


def _fitting(
    terminal: TerminalName, family: str, band: SizeBand, size_pt: int | None, chrome: Chrome
) -> tuple[int, int]:
    """The most columns and rows a window of this terminal can have and still
    lie whole on the screen (with its frame and chrome)."""
    scale = 2 if band == "hidpi" else 1
    if family == BITMAP:
        _, cell_w, cell_h = BITMAPS[band]
        width, height = float(cell_w), float(cell_h)
    elif terminal in ("konsole", "xfce4-terminal"):
        # Qt and GTK scale a cell laid out in whole pixels at 96 dpi.
        assert size_pt is not None
        width, height = cell_size(family, size_pt, 96)
        width, height = math.ceil(width) * scale * 1.04, height * scale
    else:
        assert size_pt is not None
        width, height = cell_size(family, size_pt, 96 * scale)
    # xterm and urxvt make a cell as wide as the font's widest glyphs, up to
    # a quarter wider than its letters.
    width *= {"xterm-xft": 1.3, "urxvt": 1.2}.get(terminal, 1.0)
    extra_w, extra_h = _CHROME_PX.get((terminal, chrome), (12, 8))
    columns = int((WIDTH - 60 - extra_w * scale) / width)
    rows = int((HEIGHT - 90 - extra_h * scale) / height)
    return columns, rows


class _Tally:
    """Truth gathered per split, axis and class: lines, tokens, screens."""

    def __init__(self) -> None:
        self.lines: Counter[tuple[str, str, str]] = Counter()
        self.tokens: Counter[tuple[str, str, str]] = Counter()
        self.screens: Counter[tuple[str, str, str]] = Counter()

    def add(self, screen: Screen) -> None:
        truth = [row for row in screen.truth() if row]
        count = sum(len(tokens(row)) for row in truth)
        for axis in AXES:
            key = (screen.split, axis, axis_value(screen, axis))
            self.lines[key] += len(truth)
            self.tokens[key] += count
            self.screens[key] += 1

    def need(self, split: str, axis: str, value: str, min_screens: int) -> float:
        """How far the class is from its minimum (0: there). The training
        part, what readers are tuned on, aims at twice the held-out minimum."""
        key = (split, axis, value)
        times = TRAINING_TIMES if split == "train" else 1
        lines, found, screens = MIN_LINES * times, MIN_TOKENS * times, min_screens * times
        return (
            max(0, lines - self.lines[key]) / lines
            + max(0, found - self.tokens[key]) / found
            + max(0, screens - self.screens[key]) / max(1, screens)
        )


def _classes(split: str) -> dict[str, tuple[str, ...]]:
    """Every class each axis has in ``split``."""
    families = (
        FAMILIES
        if split == "held-out"
        else tuple(f for f in FAMILIES if f not in HELD_OUT_FAMILIES)
    )
    kinds = (
        tuple(KINDS) if split == "held-out" else tuple(k for k in KINDS if k not in HELD_OUT_KINDS)
    )
    return {
        "family": families,
        "size_band": tuple(SIZE_BANDS),
        "theme": THEMES,
        "terminal": TERMINAL_NAMES,
        "length": LENGTHS,
        "kind": kinds,
    }


def _weighted(rng: random.Random, values: Sequence[str], weight: Callable[[str], float]) -> str:
    weights = [weight(v) + 0.05 for v in values]
    return rng.choices(list(values), weights=weights)[0]


def _draft(
    rng: random.Random, split: Literal["train", "held-out"], tally: _Tally, min_screens: int
) -> tuple[str, str, TerminalName, SizeBand, TerminalTheme, str]:
    """Family, kind, terminal, size band, theme and length for one more
    screen of ``split``, each drawn towards the classes furthest from their
    minimum; combinations that cannot be drawn are drawn again."""
    classes = _classes(split)

    def pick(axis: str, values: Sequence[str]) -> str:
        return _weighted(rng, values, lambda v: 4 * tally.need(split, axis, v, min_screens))

    while True:
        # Family or kind first, in turn: in the held-out part a training
        # family comes with a held-out kind and a training kind with a
        # held-out family, and either may be the class most in need.
        if rng.random() < 0.5:
            family = pick("family", classes["family"])
            kinds = classes["kind"]
            if split == "held-out" and family not in HELD_OUT_FAMILIES:
                kinds = tuple(k for k in kinds if k in HELD_OUT_KINDS)
            kind = pick("kind", kinds)
        else:
            kind = pick("kind", classes["kind"])
            families = classes["family"]
            if split == "held-out" and kind not in HELD_OUT_KINDS:
                families = tuple(f for f in families if f in HELD_OUT_FAMILIES)
            family = pick("family", families)
        terminal = pick("terminal", TERMINAL_NAMES)
        band = pick("size_band", tuple(SIZE_BANDS))
        if _possible(terminal, family, band, kind):  # type: ignore[arg-type]
            theme = pick("theme", THEMES)
            length = pick("length", LENGTHS)
            return family, kind, terminal, band, theme, length  # type: ignore[return-value]


_SHORT_WINDOWS = ((80, 24), (100, 30), (120, 36), (90, 20), (132, 43), (110, 28))


def _screen(
    rng: random.Random,
    index: int,
    seed: int,
    choice: tuple[str, str, TerminalName, SizeBand, TerminalTheme, str],
) -> Screen:
    family, kind, terminal, band, theme, length = choice
    size = None if family == BITMAP else rng.choice(SIZE_BANDS[band])
    chrome: Chrome = "default" if rng.random() < 0.4 else "none"
    most_columns, most_rows = _fitting(terminal, family, band, size, chrome)
    if length == "dense":
        columns, rows = min(200, most_columns), min(60, most_rows)
        text_rows = rows - 1
    else:
        columns, rows = rng.choice(_SHORT_WINDOWS)
        text_rows = rng.randint(1, 15)
        if kind in FULL_SCREEN:
            text_rows = max(text_rows, 6)
            rows = text_rows + 1
        columns, rows = min(columns, most_columns), min(rows, most_rows)
        text_rows = min(text_rows, rows - 1)
    highlight = None
    if kind not in OWN_REVERSE and rng.random() < 0.12:
        highlight = rng.randrange(max(1, text_rows))
    return Screen(
        id=f"{index:04d}-{terminal}-{kind}",
        split=split_of(family, kind),
        terminal=terminal,
        family=family,
        size_pt=size,
        size_band=band,
        dpi=192 if band == "hidpi" else 96,
        theme=theme,
        kind=kind,
        length=length,  # type: ignore[arg-type]
        columns=columns,
        rows=rows,
        text_rows=text_rows,
        chrome=chrome,
        highlight=highlight,
        seed=f"{seed}-{index}",
    )


def plan(seed: int = 1, *, min_screens: int = 3) -> list[Screen]:
    """The corpus's screens: training and held-out screens in random turn,
    each drawn towards the classes of its part furthest from their minimum
    (``MIN_LINES`` lines, ``MIN_TOKENS`` tokens of truth and ``min_screens``
    screens; twice that in the training part), until every class of both
    parts has it. The same seed gives the same plan."""
    rng = random.Random(f"terminal-corpus-{seed}")
    tally = _Tally()
    screens: list[Screen] = []
    splits: tuple[Literal["train", "held-out"], ...] = ("train", "held-out")
    while True:
        short = [
            split
            for split in splits
            if any(
                tally.need(split, axis, value, min_screens) > 0
                for axis, values in _classes(split).items()
                for value in values
            )
        ]
        if not short:
            return screens
        split = rng.choice(short)
        screen = _screen(rng, len(screens), seed, _draft(rng, split, tally, min_screens))
        if screen.text_rows < 1 or screen.columns < 40:
            continue
        screens.append(screen)
        tally.add(screen)


# --- drawing ------------------------------------------------------------------------------


def open_screen(server: Any, screen: Screen) -> Client:
    """The screen's terminal, open and drawn, at the top left of the screen."""
    lines = screen.shown()
    common: dict[str, Any] = {"theme": screen.theme, "chrome": screen.chrome, "x": 20, "y": 20}
    if screen.highlight is not None and screen.highlight < len(lines):
        common["highlight"] = screen.highlight
    if screen.terminal in ("xterm-xft", "xterm-fixed"):
        return open_xterm(
            server,
            lines,
            columns=screen.columns,
            rows=screen.rows,
            font=None if screen.family == BITMAP else screen.family,
            size=screen.size_pt or 9,
            bitmap=screen.bitmap,
            dpi=screen.dpi if screen.dpi != 96 else None,
            **common,
        )
    kind: Terminal = screen.terminal  # type: ignore[assignment]
    assert screen.size_pt is not None
    return open_terminal(
        server,
        kind,
        lines,
        columns=screen.columns,
        rows=screen.rows,
        font=screen.family,
        size=screen.size_pt,
        dpi=screen.dpi if screen.dpi != 96 else None,
        **common,
    )


def _optional(client: Client) -> list[str]:
    return [variant for shown in client.chrome for variant in OPTIONAL.get(shown, (shown,))]


def _record(
    screen: Screen, client_chrome: list[str], png: str, regions: list[Any]
) -> dict[str, Any]:
    """The screen's line in screens.jsonl."""
    facts = asdict(screen)
    facts.pop("text_rows")
    return {
        **facts,
        "truth": screen.truth(),
        "optional": client_chrome,
        "png": png,
        "regions": regions,
    }


def draw(
    screens: Sequence[Screen], out: Path, *, say: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Open, capture and close each screen on a private Xvfb; write the PNGs
    and screens.jsonl in ``out``. A screen that fails is said and skipped."""
    from noru import imaging
    from noru.capture import Capturer
    from tests.xserver import running_xserver

    out.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, Any]] = []
    failed: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="noru-terminal-corpus-") as tmp,
        running_xserver(Path(tmp), width=WIDTH, height=HEIGHT, dpi=96) as server,
        Capturer(display=server.display) as capturer,
        (out / "screens.jsonl").open("w") as listing,
    ):
        for n, screen in enumerate(screens, 1):
            started = time.monotonic()
            try:
                with open_screen(server, screen) as client:
                    x, y, w, h = client.rect
                    if x < 0 or y < 0 or x + w > WIDTH or y + h > HEIGHT:
                        raise RuntimeError(f"the window {client.rect} is not whole on the screen")
                    client.bring_under_pointer()
                    (grab,) = capturer.grab_window("active")
                    if grab.geometry != client.rect:
                        raise RuntimeError(
                            f"captured {grab.geometry}, not the window {client.rect}"
                        )
                    optional = _optional(client)
            except Exception as exc:
                failed.append(screen.id)
                say(f"  SKIPPED {screen.id}: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            rows = grab.rows
            png = imaging.png_of_rows(rows) if rows is not None else imaging.encode_png(grab.image)
            name = f"{screen.id}.png"
            (out / name).write_bytes(png)
            regions = [list(region) for region in grab.windows]
            entry = _record(screen, optional, name, regions)
            listing.write(json.dumps(entry, ensure_ascii=False) + "\n")
            listing.flush()
            records.append(entry)
            say(f"  [{n}/{len(screens)}] {screen.id} {w}x{h} {time.monotonic() - started:.1f} s")
    if failed:
        say(f"{len(failed)} screens skipped: {', '.join(failed)}")
    return records


def read_corpus(out: Path) -> list[dict[str, Any]]:
    """The records of a drawn corpus (screens.jsonl), each truth as its
    family draws it (a set drawn before that rule gets it here)."""
    with (out / "screens.jsonl").open() as listing:
        records = [json.loads(text) for text in listing if text.strip()]
    for record in records:
        record["truth"] = shown_in_family(record["family"], record["size_band"], record["truth"])
    return records


def png_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def summary(screens: Sequence[Screen]) -> Iterator[str]:
    """The plan's size per part: screens, non-empty truth lines, tokens."""
    for split in ("train", "held-out"):
        chosen = [s for s in screens if s.split == split]
        lines = [row for s in chosen for row in s.truth() if row]
        count = sum(len(tokens(row)) for row in lines)
        yield f"{split}: {len(chosen)} screens, {len(lines)} lines, {count} tokens"
