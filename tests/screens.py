"""Synthetic screenshots with ground truth, shared by tests/test_ocr.py and bench/.

Pillow paints desktops the way screens look: light and dark themes, window
frames with a 1 px border and a title bar, toolbars with buttons, sidebars,
status bars, a top panel, and body text at 12-20 px in DejaVu (Sans, Mono,
Serif). Every word drawn is recorded with its ink box, so a test or benchmark
can say which words an OCR engine found and where.

Some lines are drawn so their ink touches a window border (left, right or
bottom): the case where whole-screen OCR loses words. ``Window.rect`` is the
window's frame including its border, as a capture backend reports a window.

Everything is deterministic for a given seed. The fonts come from Debian's
``fonts-dejavu-core``; ``fonts_available()`` says whether they are here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

__all__ = [
    "DARK",
    "FONT_PACKAGE",
    "LIGHT",
    "THEMES",
    "Box",
    "Pane",
    "Screen",
    "Theme",
    "Window",
    "Word",
    "compose",
    "desktop",
    "font",
    "fonts_available",
    "window_screen",
]

Box = tuple[int, int, int, int]  # x, y, w, h

FONT_PACKAGE = "fonts-dejavu-core"
_FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),  # Debian, Ubuntu
    Path("/usr/share/fonts/dejavu"),  # Fedora
    Path("/usr/share/fonts/TTF"),  # Arch
)
_FONT_FILES = {
    "sans": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "serif": "DejaVuSerif.ttf",
}


def _font_path(family: str) -> Path | None:
    for folder in _FONT_DIRS:
        path = folder / _FONT_FILES[family]
        if path.is_file():
            return path
    return None


def fonts_available() -> bool:
    return all(_font_path(family) for family in _FONT_FILES)


_FONTS: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


def font(family: str, size: int) -> ImageFont.FreeTypeFont:
    """DejaVu ``family`` (sans, bold, mono, serif) at ``size`` px (the em size)."""
    key = (family, size)
    if key not in _FONTS:
        path = _font_path(family)
        if path is None:
            raise FileNotFoundError(f"DejaVu fonts missing: apt-get install {FONT_PACKAGE}")
        _FONTS[key] = ImageFont.truetype(str(path), size)
    return _FONTS[key]


RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    name: str
    desktop: RGB
    window: RGB
    text: RGB
    muted: RGB
    chrome: RGB  # title bar, toolbar
    chrome_text: RGB
    border: RGB
    panel: RGB  # sidebars, status bars
    accent: RGB  # buttons and the selected row
    accent_text: RGB
    control: RGB  # the title bar's close/maximise/minimise dots


LIGHT = Theme(
    name="light",
    desktop=(58, 110, 165),
    window=(255, 255, 255),
    text=(33, 33, 33),
    muted=(96, 96, 100),
    chrome=(232, 232, 235),
    chrome_text=(40, 40, 44),
    border=(160, 160, 166),
    panel=(243, 243, 245),
    accent=(0, 103, 192),
    accent_text=(255, 255, 255),
    control=(150, 150, 156),
)
DARK = Theme(
    name="dark",
    desktop=(24, 28, 36),
    window=(30, 30, 30),
    text=(212, 212, 212),
    muted=(150, 150, 155),
    chrome=(45, 45, 48),
    chrome_text=(204, 204, 204),
    border=(72, 72, 78),
    panel=(37, 37, 40),
    accent=(14, 99, 156),
    accent_text=(255, 255, 255),
    control=(110, 110, 116),
)
THEMES = {"light": LIGHT, "dark": DARK}


@dataclass(frozen=True)
class Word:
    text: str
    box: Box  # the ink box in image pixels
    size: int  # font size in px
    theme: str
    family: str
    touches_border: bool = False


@dataclass(frozen=True)
class Window:
    rect: Box  # the frame, 1 px border included
    theme: str
    title: str


@dataclass(frozen=True)
class Screen:
    image: Image.Image
    words: tuple[Word, ...]
    windows: tuple[Window, ...]

    @property
    def regions(self) -> tuple[Box, ...]:
        return tuple(w.rect for w in self.windows)


# --- vocabulary ---------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_UI = _words(
    "File Edit View Selection Help Settings Preferences Terminal Search Open Save Cancel "
    "Apply Close Export Import Share Refresh Download Upload Account Profile Network "
    "Display Sound Privacy Security Updates Backup Storage Keyboard Mouse Printers "
    "Bluetooth Notifications Appearance Language Region Users Devices Applications "
    "History Bookmarks Downloads Library Documents Pictures Music Videos Desktop Projects "
    "Inbox Drafts Archive Calendar Contacts Messages Reply Forward Delete Rename "
    "Properties Details Status Version Branch Commit Merge Release Deploy Build Tests "
    "Coverage Report Dashboard Overview Analytics Revenue Invoice Quarterly Budget "
    "Forecast Meeting Agenda Summary Review"
)
_PROSE = _words(
    "the of and to in is that for it with as was on be at by this had not are but from or "
    "have an they which one you were all we when there can more if no out so said what up "
    "its about into than them only other new some could time these two may then do first "
    "any like now my such make over our even most state after also made many did must "
    "before back see through way well down should because each just those people how too "
    "little good very world still own work long get here between both life being under "
    "never day same another know while last might great old year off come since against "
    "go came right used take three screen capture window agent history search person text "
    "image display server client reading answer question meeting project release careful "
    "simple number letter morning evening weekly monthly customer supplier contract "
    "delivery payment balance account"
)
_CODE = _words(
    "def return import class self None True False print range len config capture_id "
    "get_capture main.py noru.ocr test_ocr.py README.md pyproject.toml 0.4.2 2025-06-18 "
    "localhost:8080 42 1024 3.14 99 2560x1600 14:32 async await yield lambda assert "
    "session.py store.db list_captures search_captures --help --all origin/main HEAD git "
    "status make test pytest ruff mypy open() close() result value count index"
)
_TITLES = (
    "Settings",
    "Quarterly Report",
    "Inbox - Mail",
    "main.py - noru - Editor",
    "dev@laptop: ~/src/noru",
    "Invoice 2041",
    "Release Notes",
    "Calendar",
    "Project Overview",
    "Files",
)


# --- painting -----------------------------------------------------------------


@dataclass
class _Painter:
    image: Image.Image
    rng: random.Random
    words: list[Word] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.draw = ImageDraw.Draw(self.image)

    def rect(self, box: Box, fill: RGB, outline: RGB | None = None) -> None:
        x, y, w, h = box
        self.draw.rectangle((x, y, x + w - 1, y + h - 1), fill=fill, outline=outline)

    def line_width(self, tokens: Sequence[str], family: str, size: int) -> int:
        f = font(family, size)
        return round(f.getlength(" ".join(tokens)))

    def text(
        self,
        x: float,
        y: int,
        tokens: Sequence[str],
        *,
        family: str,
        size: int,
        fill: RGB,
        theme: str,
        touches: bool = False,
    ) -> None:
        """Draw words left to right from pen position (x, y), recording ink boxes.

        Words are drawn one by one at the advance a whole line would give them,
        so the spacing is what the font itself would produce.
        """
        f = font(family, size)
        space = f.getlength(" ")
        for token in tokens:
            self.draw.text((round(x), y), token, font=f, fill=fill)
            left, top, right, bottom = f.getbbox(token)
            box = (round(x) + left, y + top, right - left, bottom - top)
            self.words.append(Word(token, box, size, theme, family, touches))
            x += f.getlength(token) + space

    def ink_left(self, token: str, family: str, size: int) -> int:
        """How far right of the pen the first word's ink starts."""
        return font(family, size).getbbox(token)[0]

    def ink_bottom(self, tokens: Sequence[str], family: str, size: int) -> int:
        """How far below the pen the lowest ink of any word ends."""
        f = font(family, size)
        return max(f.getbbox(t)[3] for t in tokens)

    def ink_right(self, tokens: Sequence[str], family: str, size: int) -> int:
        """How far right of the pen the last word's ink ends."""
        f = font(family, size)
        space = f.getlength(" ")
        x = sum(f.getlength(t) + space for t in tokens[:-1])
        return round(x) + f.getbbox(tokens[-1])[2]


def _phrase(rng: random.Random, vocab: Sequence[str], count: int) -> list[str]:
    return [rng.choice(vocab) for _ in range(count)]


def _fill_lines(
    p: _Painter,
    area: Box,
    *,
    theme: Theme,
    family: str,
    size: int,
    vocab: Sequence[str],
    fill: RGB,
    touch_left: bool = False,
    touch_right: bool = False,
    touch_bottom: bool = False,
    indent: int = 12,
) -> None:
    """Lines of random words filling ``area``; optionally some touching its edges.

    ``area`` is the inside of the window border, so touching its edge means
    the ink is adjacent to the border line.
    """
    x0, y0, w, h = area
    rng = p.rng
    pitch = round(size * rng.uniform(1.35, 1.7))
    asc, desc = font(family, size).getmetrics()
    y = y0 + rng.randint(6, 14)
    row = 0
    while y + asc + desc <= y0 + h:
        last = y + 2 * pitch + asc + desc > y0 + h
        tokens = _phrase(rng, vocab, rng.randint(2, 9))
        while len(tokens) > 1 and p.line_width(tokens, family, size) > w - 2 * indent:
            tokens.pop()
        if p.line_width(tokens, family, size) > w - 2:
            break
        if last and touch_bottom:
            # The lowest ink (a descender or the baseline) sits on the bottom border.
            y = y0 + h - p.ink_bottom(tokens, family, size)
            p.text(
                x0 + indent,
                y,
                tokens,
                family=family,
                size=size,
                fill=fill,
                theme=theme.name,
                touches=True,
            )
            break
        if row == 1 and touch_left:
            x = x0 - p.ink_left(tokens[0], family, size)
            p.text(
                x, y, tokens, family=family, size=size, fill=fill, theme=theme.name, touches=True
            )
        elif row == 3 and touch_right:
            x = x0 + w - p.ink_right(tokens, family, size)
            p.text(
                x, y, tokens, family=family, size=size, fill=fill, theme=theme.name, touches=True
            )
        else:
            p.text(x0 + indent, y, tokens, family=family, size=size, fill=fill, theme=theme.name)
        y += pitch
        row += 1


def _title_bar(p: _Painter, frame: Box, theme: Theme, title: str) -> int:
    """Title bar inside the border; returns its height."""
    x, y, w, _ = frame
    height = 30
    p.rect((x + 1, y + 1, w - 2, height), theme.chrome)
    size = 13
    tokens = title.split()
    tw = p.line_width(tokens, "bold", size)
    asc, desc = font("bold", size).getmetrics()
    if tw < w - 120:
        ty = y + 1 + (height - asc - desc) // 2
        p.text(
            x + (w - tw) / 2,
            ty,
            tokens,
            family="bold",
            size=size,
            fill=theme.chrome_text,
            theme=theme.name,
        )
    # Close, maximise, minimise: round dots, no text.
    for i in range(3):
        cx = x + w - 20 - i * 22
        cy = y + 1 + height // 2
        p.draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), fill=theme.control)
    return height


def _buttons(p: _Painter, area: Box, theme: Theme, labels: Sequence[str]) -> None:
    x, y, w, h = area
    size = 13
    asc, desc = font("sans", size).getmetrics()
    bx = x + 10
    for i, label in enumerate(labels):
        lw = p.line_width([label], "sans", size)
        bw = lw + 24
        if bx + bw > x + w - 10:
            break
        primary = i == 0
        fill = theme.accent if primary else theme.panel
        p.draw.rounded_rectangle(
            (bx, y + 5, bx + bw, y + h - 6), radius=4, fill=fill, outline=theme.border
        )
        p.text(
            bx + 12,
            y + (h - asc - desc) // 2,
            [label],
            family="sans",
            size=size,
            fill=theme.accent_text if primary else theme.text,
            theme=theme.name,
        )
        bx += bw + 8


def _window(
    p: _Painter,
    frame: Box,
    theme: Theme,
    *,
    size: int,
    kind: str,
    touching: bool,
) -> Window:
    rng = p.rng
    x, y, w, h = frame
    title = rng.choice(_TITLES)
    p.rect(frame, theme.window, outline=theme.border)
    top = y + 1 + _title_bar(p, frame, theme, title)
    inner_left, inner_right, bottom = x + 1, x + w - 1, y + h - 1
    if kind in ("document", "settings") and h > 260:
        # A toolbar with a primary button and plain ones.
        p.rect((inner_left, top, inner_right - inner_left, 40), theme.chrome)
        _buttons(p, (inner_left, top, inner_right - inner_left, 40), theme, _phrase(rng, _UI, 5))
        top += 40
    if kind != "terminal" and h > 240 and rng.random() < 0.6:
        # A status bar along the bottom, in small text.
        sb = 24
        p.rect((inner_left, bottom - sb, inner_right - inner_left, sb), theme.panel)
        asc, desc = font("sans", 12).getmetrics()
        p.text(
            inner_left + 10,
            bottom - sb + (sb - asc - desc) // 2,
            _phrase(rng, _UI, 3),
            family="sans",
            size=12,
            fill=theme.muted,
            theme=theme.name,
        )
        bottom -= sb
        touch_bottom = False
    else:
        touch_bottom = touching
    left = inner_left
    if kind == "settings" and w > 520:
        # A sidebar list with one selected row.
        sw = rng.randint(170, 230)
        p.rect((left, top, sw, bottom - top), theme.panel)
        item = 14
        asc, desc = font("sans", item).getmetrics()
        iy = top + 10
        selected = rng.randint(0, 4)
        for i in range(12):
            if iy + 30 > bottom:
                break
            if i == selected:
                p.rect((left + 6, iy, sw - 12, 28), theme.accent)
            p.text(
                left + 16,
                iy + (28 - asc - desc) // 2,
                [rng.choice(_UI)],
                family="sans",
                size=item,
                fill=theme.accent_text if i == selected else theme.text,
                theme=theme.name,
            )
            iy += 32
        left += sw
        touch_left = False
    else:
        touch_left = touching
    family, vocab = {
        "document": (rng.choice(("sans", "serif")), _PROSE),
        "settings": ("sans", _UI + _PROSE),
        "editor": ("mono", _CODE),
        "terminal": ("mono", _CODE),
    }[kind]
    _fill_lines(
        p,
        (left, top, inner_right - left, bottom - top),
        theme=theme,
        family=family,
        size=size,
        vocab=vocab,
        fill=theme.text,
        touch_left=touch_left,
        touch_right=touching,
        touch_bottom=touch_bottom,
        indent=rng.randint(10, 24),
    )
    return Window(frame, theme.name, title)


def _split(rng: random.Random, area: Box, count: int, min_w: int, min_h: int) -> list[Box]:
    """Cut ``area`` into ``count`` tiles by random guillotine cuts."""
    tiles = [area]
    attempts = 0
    while len(tiles) < count and attempts < 50:
        attempts += 1
        tiles.sort(key=lambda t: t[2] * t[3])
        x, y, w, h = tiles.pop()
        if w / max(1, h) > 1.2 and w >= 2 * min_w:
            cut = rng.randint(min_w, w - min_w)
            tiles += [(x, y, cut, h), (x + cut, y, w - cut, h)]
        elif h >= 2 * min_h:
            cut = rng.randint(min_h, h - min_h)
            tiles += [(x, y, w, cut), (x, y + cut, w, h - cut)]
        else:
            tiles.append((x, y, w, h))
            break
    return sorted(tiles, key=lambda t: (t[1], t[0]))


def _panel(p: _Painter, width: int, theme: Theme) -> int:
    """The desktop's top bar (not a window): activities, app menu, clock."""
    height = 28
    p.rect((0, 0, width, height), (16, 16, 18) if theme is DARK else (36, 36, 40))
    size = 13
    asc, desc = font("bold", size).getmetrics()
    ty = (height - asc - desc) // 2
    white = (238, 238, 238)
    p.text(12, ty, ["Activities"], family="bold", size=size, fill=white, theme=theme.name)
    p.text(
        120,
        ty,
        [p.rng.choice(("Files", "Terminal", "Editor", "Mail"))],
        family="bold",
        size=size,
        fill=white,
        theme=theme.name,
    )
    clock = [
        p.rng.choice(("Mon", "Tue", "Wed", "Thu", "Fri")),
        f"{p.rng.randint(7, 19)}:{p.rng.randint(0, 59):02d}",
    ]
    cw = p.line_width(clock, "bold", size)
    p.text((width - cw) / 2, ty, clock, family="bold", size=size, fill=white, theme=theme.name)
    return height


def desktop(
    seed: int,
    *,
    width: int = 2560,
    height: int = 1600,
    themes: Sequence[str] = ("light", "dark"),
    sizes: Sequence[int] = (12, 13, 14, 15, 16, 18, 20),
    windows: tuple[int, int] = (3, 6),
    touching: float = 0.5,
) -> Screen:
    """A whole desktop: a top panel and several windows, some text touching borders.

    Windows are tiled without overlap; gaps between them show the desktop, or
    are zero so two borders meet. ``touching`` is the chance that a window
    has lines whose ink touches its border.
    """
    rng = random.Random(seed)
    base = THEMES[rng.choice(list(themes))]
    image = Image.new("RGB", (width, height), base.desktop)
    p = _Painter(image, rng)
    top = _panel(p, width, base)
    count = rng.randint(*windows)
    min_w, min_h = min(520, width // 2), min(300, (height - top) // 2)
    made: list[Window] = []
    for tile in _split(rng, (0, top, width, height - top), count, min_w, min_h):
        gap = rng.choice((0, 0, 8, 16, 24))
        x, y, w, h = tile
        frame = (x + gap, y + gap, w - 2 * gap, h - 2 * gap)
        theme = base if rng.random() < 0.8 else THEMES[rng.choice(list(themes))]
        made.append(
            _window(
                p,
                frame,
                theme,
                size=rng.choice(list(sizes)),
                kind=rng.choice(("document", "settings", "editor", "terminal")),
                touching=rng.random() < touching,
            )
        )
    return Screen(image, tuple(p.words), tuple(made))


@dataclass(frozen=True)
class Pane:
    """A window with known lines, for ``compose``."""

    frame: Box  # border included
    lines: Sequence[str]
    theme: str = "light"
    size: int = 14
    family: str = "sans"
    title: str = "Known Words"
    # Lines drawn with their ink against a border: the first on the left
    # border, the second on the right, the third on the bottom.
    touch: Sequence[str] = ()


def compose(
    panes: Sequence[Pane], *, width: int = 900, height: int = 420, desktop: str = "light"
) -> Screen:
    """Windows with known lines on a plain desktop (drawn in the order given)."""
    image = Image.new("RGB", (width, height), THEMES[desktop].desktop)
    p = _Painter(image, random.Random(0))
    for pane in panes:
        _pane(p, pane)
    windows = tuple(Window(pane.frame, pane.theme, pane.title) for pane in panes)
    return Screen(image, tuple(p.words), windows)


def _pane(p: _Painter, pane: Pane) -> None:
    t, size, family = THEMES[pane.theme], pane.size, pane.family
    fx, fy, fw, fh = pane.frame
    p.rect(pane.frame, t.window, outline=t.border)
    top = fy + 1 + _title_bar(p, pane.frame, t, pane.title)
    asc, desc = font(family, size).getmetrics()
    pitch = round(size * 1.5)
    y = top + 12
    sides = iter(("left", "right", "bottom"))
    for line in pane.lines:
        tokens = line.split()
        x: float = fx + 24
        if line in pane.touch:
            side = next(sides)
            if side == "bottom":
                by = fy + fh - 1 - p.ink_bottom(tokens, family, size)
                p.text(
                    x, by, tokens, family=family, size=size, fill=t.text, theme=t.name, touches=True
                )
                continue
            if side == "left":
                x = fx + 1 - p.ink_left(tokens[0], family, size)
            else:
                x = fx + fw - 1 - p.ink_right(tokens, family, size)
            p.text(x, y, tokens, family=family, size=size, fill=t.text, theme=t.name, touches=True)
        else:
            p.text(x, y, tokens, family=family, size=size, fill=t.text, theme=t.name)
        y += pitch
        if y + asc + desc > fy + fh - 2 * pitch:
            raise ValueError("too many lines for the window")


def window_screen(
    lines: Sequence[str],
    *,
    theme: str = "light",
    size: int = 14,
    family: str = "sans",
    touch: Sequence[str] = (),
    width: int = 900,
    height: int = 420,
) -> Screen:
    """One window showing ``lines`` at ``size`` px on a desktop of the same theme."""
    frame = (60, 40, width - 120, height - 80)
    pane = Pane(frame, lines, theme=theme, size=size, family=family, touch=touch)
    return compose([pane], width=width, height=height, desktop=theme)
