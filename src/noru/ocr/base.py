"""What every OCR engine returns, the interface an engine implements, and what
an engine's probe says of it (``EngineStatus``).

Boxes are ``(x, y, w, h)`` in pixels of the image the caller passed in, so a
stored box lines up with the stored original whatever an engine did to the
pixels on the way (crops, padding, scaling, inversion).

``OcrLine`` is the one line type: the store keeps it, the app's OCR process
sends it, and ``encode_lines`` / ``decode_lines`` are its one wire and storage
form, ``[[text, x, y, w, h, confidence], ...]`` as compact JSON; a row of a
character grid (a terminal's) has its grid's width in cells as a seventh
value, ``columns``: whether the row runs to the grid's last column, where a
terminal wraps a longer line to the next row, is known from it
(``noru.redact.wrap``). Rows stored before it was kept have six values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from noru.geometry import Rect

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "BOX_LINES",
    "Engine",
    "EngineStatus",
    "OcrLine",
    "OcrResult",
    "clean_line",
    "decode_lines",
    "encode_lines",
    "mean_confidence",
]


@dataclass(frozen=True)
class OcrLine:
    text: str
    box: Rect  # in original image pixels
    confidence: float  # 0..1
    # A character grid's row (its text from the grid's first column, its
    # indentation as spaces, one character a cell): the grid's width in
    # cells. None for any other line, and for rows read before it was kept.
    columns: int | None = None
    # A grid row's runs of cells, (first, last) column, that no glyph of the
    # grid's font explains (a wide CJK letter drawn by a fallback font), each
    # with the chance that its cells are right as decided (a factor of the
    # line's confidence): what a second reader may read again
    # (``noru.ocr.second``). Known only while the engine reads; neither
    # stored nor sent.
    unexplained: tuple[tuple[int, int, float], ...] = ()


# What a line drawn across a terminal (a rule, a box's edge, a progress bar)
# is read as: no text.
RULE_MARKS = frozenset(
    "-_=~|+*#.:'`^"
    "─━│┃┄┅┆┇┈┉┊┋╌╍╎╏═║╒╓╔╕╖╗╘╙╚╛╜╝╞╟╠╡╢╣╤╥╦╧╨╩╪╫╬"
    "┌┍┎┏┐┑┒┓└┕┖┗┘┙┚┛├┝┞┟┠┡┢┣┤┥┦┧┨┩┪┫┬┭┮┯┰┱┲┳┴┵┶┷┸┹┺┻┼┽┾┿╀╁╂╃╄╅╆╇╈╉╊╋"
    "╭╮╯╰╱╲╳╴╵╶╷╸╹╺╻╼╽╾╿▀▁▂▃▄▅▆▇█▉▊▋▌▍▎▏▐░▒▓▔▕"
)


# The box drawing tools print (trees, tables, panes), light and heavy.
BOX_LINES = "│─┌┐└┘├┤┬┴┼═║╭╮╯╰━┃"

# What draws a box or a bar (box drawing, block elements): a border, no text.
BORDER_MARKS = frozenset(chr(c) for c in range(0x2500, 0x25A0))
# An ASCII table's border: ``+`` joints, runs of lines between them.
_ASCII_BORDER = re.compile(r"\+(?:[-─—–]+\+)+")
_AS_HYPHEN = str.maketrans("─—–", "---")


def is_border(text: str) -> bool:
    """Whether a grid's line holds nothing but box drawing and blocks."""
    return all(c in BORDER_MARKS or c.isspace() for c in text)


def ascii_border(text: str) -> str | None:
    """``text`` as an ASCII table's border (``+-----+----+``, the MySQL
    client's), its lines as ``-``; None for any other text. A font's
    ligature (Fira Code's in kitty) draws a run of ``-`` as one line, read
    as box drawing's ``─`` or a dash; beside ``+`` joints it is ``-``."""
    found = _ASCII_BORDER.fullmatch(text.strip())
    return None if found is None else text.translate(_AS_HYPHEN)


def is_rule(text: str) -> bool:
    """Whether a grid's line holds nothing but marks that draw lines (``RULE_MARKS``)."""
    return all(c in RULE_MARKS or c.isspace() for c in text)


def clean_line(text: str, box: Rect, confidence: float, *, spaced: bool = False) -> OcrLine | None:
    """An engine's raw line as Noru keeps it, or None when it is no text.

    Runs of whitespace become one space (unless ``spaced``: a character
    grid's line, whose spaces are its empty cells, keeps them, trailing ones
    aside), and the confidence is clamped to 0..1, the range the store and
    the contract promise whatever the engine's scale. A line without a
    letter or digit is dropped: icons and rules read as lone punctuation.
    A grid's line (``spaced``) is read from its cells' own ink, so only a
    rule is dropped there (``is_rule``): a row of ``}`` or ``);`` is code.
    """
    words = text.rstrip() if spaced else " ".join(text.split())
    if is_rule(words) if spaced else not any(c.isalnum() for c in words):
        return None
    return OcrLine(words, box, min(1.0, max(0.0, confidence)))


def encode_lines(lines: Sequence[OcrLine]) -> str:
    """Lines as compact JSON, confidences rounded to 4 places so stored rows stay small."""
    return json.dumps(
        [
            [line.text, *line.box, round(line.confidence, 4)]
            + ([line.columns] if line.columns is not None else [])
            for line in lines
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode_lines(raw: str) -> tuple[OcrLine, ...]:
    """What ``encode_lines`` wrote; ValueError when it is not that."""
    try:
        return tuple(
            OcrLine(
                str(text),
                (int(x), int(y), int(w), int(h)),
                float(conf),
                int(more[0]) if more else None,
            )
            for text, x, y, w, h, conf, *more in json.loads(raw)
        )
    except (TypeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"not OCR lines: {exc}") from None


@dataclass(frozen=True)
class EngineStatus:
    """What ``noru doctor`` prints for one engine: facts, or what to install.
    Here, beside the interface, so that an engine's probe needs only this
    module, not the registry that imports the engines."""

    name: str
    available: bool
    version: str | None = None
    data_path: Path | None = None
    problem: str | None = None  # why it cannot run here, with the fix

    def __str__(self) -> str:
        if not self.available:
            return f"{self.name}: unavailable: {self.problem}"
        data = f", data {self.data_path}" if self.data_path else ""
        return f"{self.name} {self.version}{data}"


@dataclass(frozen=True)
class OcrResult:
    lines: tuple[OcrLine, ...]  # reading order
    engine: str
    engine_version: str
    mean_confidence: float | None  # None when no text was found

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def mean_confidence(lines: Sequence[OcrLine]) -> float | None:
    """Line confidences weighted by characters, so one stray glyph that the
    engine was unsure of does not weigh as much as a paragraph it read well."""
    weight = sum(len(line.text) for line in lines)
    if weight == 0:
        return None
    return sum(line.confidence * len(line.text) for line in lines) / weight


class Engine(Protocol):
    """An OCR engine. Instances hold native state: one caller at a time is
    enough (``recognise`` serialises itself), and ``close()`` frees it."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def recognise(self, image: Image.Image, *, regions: Sequence[Rect] | None = None) -> OcrResult:
        """The text of ``image``, lines in reading order.

        ``regions`` are the windows' rectangles in image pixels (frames, border
        included), bottom to top in stacking order: where two overlap, the
        later one is on top. Each is read on its own, and so is whatever lies
        outside them all. Without regions the image is read as one window.
        """
        ...

    def close(self) -> None: ...
