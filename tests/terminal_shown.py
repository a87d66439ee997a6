"""What a terminal shows: lines with their escapes, cells, rows and themes.

- ``Shown``: one line as a tool prints it, the plain text (the truth) and the
  same text with the SGR escapes (colours, bold, reverse) around its parts.
- ``cell_width``: the cells a text takes (two for a wide CJK character).
- ``xterm_screen``: the rows a terminal shows after ``cat`` of some lines,
  long ones wrapped at the last column, the first scrolled away once the
  rows are full.
- ``in_bitmap_font``: a row as xterm draws it in an X core font, a
  character the font lacks shown as the font's default glyph (U+FFFD).
- ``PALETTES``: the themes (background, text colour, 16 ANSI colours) and the
  escape sequences that set them (OSC 11, 10 and 4).

Plain data and arithmetic, no X: tests/terminal_texts builds its lines from
these, tests/real_terminals shows them in real terminals.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Self

__all__ = [
    "DEC_GRAPHICS",
    "PALETTES",
    "Palette",
    "Shown",
    "TerminalTheme",
    "cell_width",
    "in_bitmap_font",
    "xterm_screen",
]

TerminalTheme = Literal["light", "dark", "solarized-dark", "solarized-light"]
_SGR = re.compile(r"\033\[[0-9;]*m")


@dataclass(frozen=True)
class Shown:
    """One line as a terminal prints it: ``plain`` is the text on screen (the
    truth), ``styled`` the same text with the SGR escapes (``ESC [ ... m``:
    colours, bold, reverse) the real tool prints around its parts. Nothing
    else: no tab, no control character, no other escape."""

    plain: str
    styled: str

    def __post_init__(self) -> None:
        if _SGR.sub("", self.styled) != self.plain:
            raise ValueError(f"the styled line is not the plain one: {self.styled!r}")
        # A tab or a control character would be drawn in ways the truth
        # cannot say in characters (tab stops, an escape sequence); a
        # combining mark shares its cell. Powerline's glyphs are private-use
        # characters, one cell each: those are fine.
        for char in self.plain:
            if char != " " and unicodedata.category(char)[0] in "CMZ" and not _private(char):
                raise ValueError(f"only printable characters, no tabs: {self.plain!r}")

    @classmethod
    def text(cls, plain: str) -> Self:
        """A line without escapes."""
        return cls(plain, plain)

    @property
    def width(self) -> int:
        """Its cells on screen."""
        return cell_width(self.plain)


def _private(char: str) -> bool:
    return unicodedata.category(char) == "Co"


def cell_width(text: str) -> int:
    """The terminal cells ``text`` takes: two for a wide (CJK) character, one
    for any other (box drawing and Powerline's private-use glyphs included, as
    in a non-CJK locale)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def xterm_screen(lines: Sequence[str], *, columns: int, rows: int) -> list[str]:
    """What a ``columns`` x ``rows`` xterm shows after ``cat`` of ``lines``.

    A line longer than the terminal wraps at the last column (a word may be
    cut in two; a wide character that does not fit in the last cell goes to
    the next row); a line of exactly N columns takes one row. ``cat`` ends
    with a newline, so the cursor waits on an empty row below the text, and
    once the rows are full the top ones scroll away.
    """
    shown: list[str] = []
    for line in lines:
        shown += _wrapped(line, columns) or [""]
    shown.append("")  # the cursor's row
    return shown[-rows:][:-1]


def _wrapped(line: str, columns: int) -> list[str]:
    rows, row, used = [], "", 0
    for char in line:
        width = cell_width(char)
        if used + width > columns:
            rows.append(row)
            row, used = "", 0
        row += char
        used += width
    return [*rows, row] if row else rows


# The VT100's Special Graphics characters: xterm draws these itself where
# its font lacks them (lines, corners, tees, ``◆``, ``▒``, ``≤``, ``π``).
DEC_GRAPHICS = frozenset("◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·")
MISSING = "\ufffd"


def in_bitmap_font(row: str, has: Callable[[str], bool]) -> str:
    """``row`` as xterm shows it in an X core font that ``has`` some
    characters: each other one (beyond the DEC graphics it draws itself) is
    the font's default glyph (misc-fixed's dotted box), written U+FFFD, as
    Noru reads it. xterm in ``-fn 9x15`` draws docker's ``…`` and pip's
    ``━`` so: 9x15 names the font's ISO 8859-1 form."""
    return "".join(c if c.isascii() or c in DEC_GRAPHICS or has(c) else MISSING for c in row)


# --- themes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Palette:
    """A terminal theme: its background, its text colour and its 16 ANSI
    colours (0-7, then their bright forms 8-15), as ``#rrggbb``; no colours:
    the terminal keeps its own."""

    background: str
    foreground: str
    colours: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.colours) not in (0, 16):
            raise ValueError("a palette has 16 colours, or none")

    def escapes(self) -> str:
        """The escape sequences that set it: OSC 4 (each palette colour), OSC
        10 (the text colour) and OSC 11 (the background)."""
        palette = "".join(f"\033]4;{n};{colour}\007" for n, colour in enumerate(self.colours))
        return f"{palette}\033]10;{self.foreground}\007\033]11;{self.background}\007"

    def without_colours(self) -> Palette:
        """Its background and text colour, the terminal's own 16 colours."""
        return replace(self, colours=())

    def rgb(self, colour: str) -> str:
        """``#rrggbb`` as Konsole's ``r,g,b``."""
        return ",".join(str(int(colour[i : i + 2], 16)) for i in (1, 3, 5))


def _palette(background: str, foreground: str, colours: str) -> Palette:
    return Palette(background, foreground, tuple(colours.split()))


_SOLARIZED = (
    "#073642 #dc322f #859900 #b58900 #268bd2 #d33682 #2aa198 #eee8d5 "
    "#002b36 #cb4b16 #586e75 #657b83 #839496 #6c71c4 #93a1a1 #fdf6e3"
)
PALETTES: dict[TerminalTheme, Palette] = {
    # Black on white with GNOME Terminal's default palette (Tango).
    "light": _palette(
        "#ffffff",
        "#000000",
        "#000000 #cc0000 #4e9a06 #c4a000 #3465a4 #75507b #06989a #d3d7cf "
        "#555753 #ef2929 #8ae234 #fce94f #729fcf #ad7fa8 #34e2e2 #eeeeec",
    ),
    # Light grey on near-black with VS Code's terminal palette.
    "dark": _palette(
        "#1e1e1e",
        "#d4d4d4",
        "#000000 #cd3131 #0dbc79 #e5e510 #2472c8 #bc3fbc #11a8cd #e5e5e5 "
        "#666666 #f14c4c #23d18b #f5f543 #3b8eea #d670d6 #29b8db #e5e5e5",
    ),
    # Ethan Schoonover's Solarized, as its terminal ports set it.
    "solarized-dark": _palette("#002b36", "#839496", _SOLARIZED),
    "solarized-light": _palette("#fdf6e3", "#657b83", _SOLARIZED),
}
