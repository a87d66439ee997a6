"""Box drawing as the rows around it join it (``noru.ocr.terminal`` reads a
grid's rows, then joins them here).

A font's box drawing may stop a pixel short of its cell's edge (DejaVu Sans
Mono's ``├`` in st at 192 dpi ends a pixel under its cell's top), so the
cell's own pixels show no arm there and the glyph nearest them is the joint
without it (``┌``). The line that arm meets in the next row says it is
there: a line down a cell ends only where a joint or a corner takes it, and
a tree's ``│`` above a ``┌`` is its ``├``. So is an engine's ``|`` met so by
box drawing, a line the grid's font left unsure.

It holds box drawing's joints by their arms (``JOINTS``), by which the cells'
reader (``noru.ocr.terminal_votes``) tells a joint from its pixels too.

Pure Python.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

__all__ = ["JOINTS", "join"]

# Box drawing's joints by the edges their lines reach: left, right, up, down
# (``terminal_votes.junction`` tells a cell's by its pixels).
JOINTS = {
    (True, True, False, True): "┬",
    (True, True, True, False): "┴",
    (True, True, True, True): "┼",
    (False, True, True, True): "├",
    (True, False, True, True): "┤",
    (False, True, False, True): "┌",
    (True, False, False, True): "┐",
    (False, True, True, False): "└",
    (True, False, True, False): "┘",
}
# A joint or a line down by its arms, and back.
_BY_ARMS = {**JOINTS, (False, False, True, True): "│"}
ARMS = {char: arms for arms, char in _BY_ARMS.items()}
UP, DOWN = 2, 3


def join(rows: Mapping[int, str]) -> dict[int, str]:
    """``rows`` (each row's text by its number in the grid, from the grid's
    first column) with each corner or joint that has one vertical arm given
    the other where the box drawing beside it in that direction reaches it
    (``┌`` under a ``│`` is ``├``), and each ``|`` so met above or below a
    ``│``."""
    # A wide letter takes two cells and one character: a row holding one is
    # left as it is, its characters no longer its columns.
    joined = {row: list(text) for row, text in rows.items() if not _wide(text)}
    for row, cells in joined.items():
        for column, char in enumerate(cells):
            above = _at(joined, row - 1, column)
            below = _at(joined, row + 1, column)
            reached_up = above in ARMS and ARMS[above][DOWN]
            reached_down = below in ARMS and ARMS[below][UP]
            if char == "|" and (reached_up or reached_down):
                cells[column] = "│"
                continue
            arms = ARMS.get(char)
            if arms is None or arms[UP] == arms[DOWN]:
                continue  # no vertical arm, or both: nothing to add
            if reached_up if not arms[UP] else reached_down:
                cells[column] = _BY_ARMS[(arms[0], arms[1], True, True)]
    return {row: "".join(joined[row]) if row in joined else text for row, text in rows.items()}


def _at(rows: Mapping[int, list[str]], row: int, column: int) -> str:
    cells = rows.get(row)
    return cells[column] if cells is not None and column < len(cells) else " "


def _wide(text: str) -> bool:
    return any(unicodedata.east_asian_width(char) in "WF" for char in text)
