"""A terminal grid's inked rows as lines (``noru.ocr.terminal`` reads them):
each cell's character by how it was decided, the cells between as spaces,
the line's confidence from how its cells were decided (``MISSES``), and the
runs of cells the grid's font did not explain, for a second reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from noru.ocr.base import OcrLine, ascii_border, is_border, is_rule
from noru.ocr.box_joints import JOINTS
from noru.ocr.glyphs import Decision
from noru.ocr.terminal_confidence import NEAREST_NEAR, chance, way
from noru.ocr.terminal_grid import Cells
from noru.ocr.terminal_ink import INK
from noru.ocr.terminal_rows import Glyph
from noru.ocr.terminal_votes import Votes, stroke
from noru.ocr.wide import sure as wide_sure

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["DASHES", "Band", "lines_of"]

# A cell no glyph decides in the grid's last this many columns, more than
# this many cells from the row's other ink before them, is chrome (a
# scrollbar's arrow may ink both).
EDGE_COLUMNS = 2
LONE = 3
# A cell's nearest glyph is its character where the engine's copies did not
# agree (``_nearest_instead``) when this near, and the nearest other
# character this many times as far. On the training part, of such cells
# the engine read nothing in, 43 were the nearest glyph's character, all
# of them; of those it read as one character, 79 of 80 (its reading 66).
# (``NEAREST_NEAR`` is ``noru.ocr.terminal_confidence``'s.)
NEAREST_APART = 2.0
# Rows shorter than this many pixels: a line two pixels thick may be light
# or heavy, as the terminal draws it (``_either_weight``).
WEIGHED_BELOW = 30
# Heavy lines, by the light ones of their shape.
LIGHT = {"━": "─", "┃": "│"}
# The shapes of box drawing a line across a cell runs into from the side.
ACROSS = frozenset("─┬┴┼├┤┌┐└┘")
# A pixel this dark (0-255, dark on white) is a stroke's, where one is
# looked for crossing a cell's edge.
STROKE_DARK = 128
# Dashes a font may draw as a line across its cell (``_drawn_by_terminal``).
DASHES = frozenset("-‐‑‒–—―")
# A run of cells no glyph explains goes on across this many cells without ink.
RUN_GAP = 1


class Band(Protocol):
    """What a line is made of: one inked row of the grid, its ink, its inked
    cells' images by column and the glyph the engine read in each it read."""

    row: int
    dark: Image.Image  # its ink, dark on white
    keys: dict[int, bytes]
    placed: dict[int, Glyph]


def _chrome_at_edge(column: int, inked: Iterable[int], cells: Cells) -> bool:
    """Whether an inked cell no glyph of the font is, in the grid's last
    columns and far from the row's other ink before them, is a window's
    chrome (a scrollbar's arrow) rather than a character."""
    edge = cells.columns - EDGE_COLUMNS
    if column < edge:
        return False
    return all(column - other > LONE for other in inked if other < edge)


def lines_of(
    bands: Sequence[Band],
    cells: Cells,
    votes: Votes,
    bars: Callable[[bytes], str | None],
    agreed: Callable[[bytes], str | None],
    drawn: dict[tuple[int, int], Decision],
    origin: tuple[int, int],
    wide: dict[tuple[int, int], Decision] | None = None,
) -> list[OcrLine]:
    """Each band as its line: each inked cell's character by its glyph in the
    grid's font where that is clear (``drawn``), else by its shape
    (``bars``), else as its copies agreed, else as read there; cells
    between as spaces.

    A line's confidence is the chance that all its cells are right, each
    cell's chance by how it was decided (``MISSES``, measured on the
    training part of the terminal corpus): by its glyph, by the engine, or
    not at all (an inked cell nothing was read in is a character lost).
    A wide letter (``wide``, by its first column) takes its two cells."""
    wide = wide or {}
    # Per cell image (a screen shows each many times): its character where
    # its shape or its copies decide it.
    decided: dict[bytes, str | None] = {}
    lines: list[OcrLine] = []
    for index, band in enumerate(bands):
        chars: dict[int, str] = {}
        how: Counter[str] = Counter()
        ways: dict[int, str] = {}  # how each cell no glyph decided was
        loose: list[int] = []  # inked cells neither a glyph nor a shape decided
        weighed = False  # a line across cells whose weight its thickness leaves open
        halves = {c + 1 for i, c in wide if i == index}  # wide letters' second cells
        for (i, column), letter in wide.items():
            if i == index:
                chars[column] = letter.char
                how["wide" if wide_sure(letter) else "wide-near"] += 1
        for column, key in band.keys.items():
            if column in chars or column in halves:
                continue
            glyph = drawn.get((index, column))
            if (
                glyph is not None
                and glyph.sure
                and not _drawn_by_terminal(glyph, band, column, bars, cells)
            ):
                if not glyph.char.strip():
                    continue  # ink the glyphs beside it left: a space
                chars[column] = glyph.char
                how["ligature" if glyph.ligature else "glyph"] += 1
                continue
            barred = bars(key) is not None
            there = band.placed.get(column)
            if glyph is not None and glyph.twins and not barred:
                # Copies of a twin's drawing are of either twin: no vote.
                chars[column] = _twin(glyph, there, drawn, index, column)
                loose.append(column)
                ways[column] = "twin"
                how["twin"] += 1
                continue
            if key not in decided:
                decided[key] = bars(key) or agreed(key)
            shaped = decided[key]
            if shaped == "-" and _one_stroke(band, column, bars, cells, ACROSS):
                # A line's first or last cell, drawn from a pixel or two in.
                shaped = "─"
            half = (
                (shaped == "-" and _one_stroke(band, column, bars, cells))
                or (shaped in ("━", "─") and _short_line(band, column, bars))
            ) and _among_unexplained(band, index, column, drawn)
            if half:
                # Half of a wide letter (``ー``, ``一``), not two hyphens.
                shaped, barred = agreed(key), False
            # Nor is such a half the hyphen its drawing is nearest.
            nearest = not half and shaped is None
            nearest = nearest and _nearest_instead(glyph, read=there is not None)
            if nearest:
                assert glyph is not None
                shaped = glyph.char
            char = shaped or (there.text if there is not None else None)
            if _chrome_at_edge(column, band.keys, cells):
                continue  # a scrollbar's arrow beside the text: no character
            if char is not None:
                chars[column] = char
            if not barred:
                loose.append(column)
            by = (
                "shape"
                if barred
                else "nearest"
                if nearest
                else "copies"
                if shaped is not None
                else "there"
            )
            ways[column] = way(char, font_known=bool(drawn), by=by, glyph=glyph)
            how[ways[column]] += 1
            if not weighed and char == "─" and barred and not _meets_joint(band, column, bars):
                weighed = _either_weight(key, cells)  # once a line is enough
        if not chars:
            continue
        if weighed:
            how["weight"] += 1
        first, last = min(chars), max(chars)
        last = max([last, *halves])
        text = "".join(chars.get(c, "" if c in halves else " ") for c in range(first, last + 1))
        # A rule an engine read in lines drawn across cells is no text, nor a
        # border it read in box drawing. But a row of marks most of them drawn
        # as (or nearest) their glyphs is text (a compiler's ``^~~~~`` under
        # the code it points at, a cell or two of it left unsure),
        # and so is a border each of whose cells is its glyph or its shape
        # (tmux's, a pager's ``───┼───``): the screen shows it as characters;
        # and so is an ASCII table's, its ``-`` drawn as one line.
        if is_border(text):
            if how["glyph"] + how["shape"] < len(chars):
                continue
        elif is_rule(text) and 2 * (how["glyph"] + how["nearest"]) < len(band.keys):
            table = ascii_border(text)
            if table is None:
                continue
            text = table
        box = (
            origin[0] + cells.x + first * cells.width,
            origin[1] + cells.y + band.row * cells.height,
            (last + 1 - first) * cells.width,
            cells.height,
        )
        # Indentation is the grid's too: the line starts at the grid's first column.
        lines.append(
            OcrLine(
                " " * first + text,
                box,
                chance(how),
                columns=cells.columns,
                unexplained=_runs(loose, band.keys, ways) if drawn else (),
            )
        )
    return lines


def _drawn_by_terminal(
    glyph: Decision,
    band: Band,
    column: int,
    bars: Callable[[bytes], str | None],
    cells: Cells,
) -> bool:
    """Whether a cell the font's glyph decided is box drawing the terminal
    drew its own way: its shape (``bars``) is another line or joint than
    the glyph's, or the glyph's heavy line meets a joint (which is light,
    ``JOINTS``: kitty draws a tree's light ``─`` as thick as DejaVu's
    heavy ``━``). A line's weight alone is the font's to say where the
    terminal draws it from the font (xterm's ``━`` in pip's bars). A dash
    (``DASHES``) whose stroke runs unbroken through lines into a joint is
    a line too (a tree's ``├──``, Alacritty's thin line nearest Cousine's
    ``—``)."""
    if glyph.char in DASHES:
        return bars(band.keys[column]) == "─" and _meets_joint(
            band, column, bars, lambda left: _joined(band, left, cells, 255 - INK)
        )
    if not "\u2500" <= glyph.char <= "\u257f":
        return False
    shape = bars(band.keys[column])
    if shape is None:
        return False
    if LIGHT.get(shape, shape) != LIGHT.get(glyph.char, glyph.char):
        return True
    return glyph.char in LIGHT and _meets_joint(band, column, bars)


def _meets_joint(
    band: Band,
    column: int,
    bars: Callable[[bytes], str | None],
    joined: Callable[[int], bool] | None = None,
) -> bool:
    """Whether the line across ``column`` runs into a joint (a tree's
    ``├──``): its weight is the joint's, which is light (``JOINTS``). With
    ``joined`` (whether a stroke crosses the edge after a column), only
    where the line crosses each edge on the way unbroken."""
    for step in (-1, 1):
        here = column
        while (key := band.keys.get(here + step)) is not None:
            if joined is not None and not joined(min(here, here + step)):
                break
            shape = bars(key)
            if shape in JOINTS.values():
                return True
            if shape != "─":
                break
            here += step
    return False


def _either_weight(key: bytes, cells: Cells) -> bool:
    """Whether a light line's thickness in a cell is also a heavy one's in
    some terminal: two or more pixels in a row under ``WEIGHED_BELOW`` tall
    (kitty and Konsole draw ``─`` two pixels thick there, Alacritty ``━``)."""
    return cells.height < WEIGHED_BELOW and stroke(key, cells) >= 2


def _joined(band: Band, left: int, cells: Cells, dark: int = STROKE_DARK) -> bool:
    """Whether a stroke crosses the edge between ``left`` and the cell after
    it: some pixel row darker than ``dark`` on both sides of it (with the
    ink's own threshold, a line whose anti-aliased end meets the next one's
    start: a fallback face's ``─``, a pixel narrower than the cell)."""
    x = (left + 1) * cells.width
    if not 0 < x < band.dark.width:
        return False
    before = band.dark.crop((x - 1, 0, x, band.dark.height)).tobytes()
    after = band.dark.crop((x, 0, x + 1, band.dark.height)).tobytes()
    return any(a < dark and b < dark for a, b in zip(before, after, strict=True))


def _one_stroke(
    band: Band,
    column: int,
    bars: Callable[[bytes], str | None],
    cells: Cells,
    into: frozenset[str] = frozenset("-"),
) -> bool:
    """Whether the ``-`` in ``column`` runs on, unbroken, into a cell beside
    it whose shape is one of ``into``: a font's hyphen that reached its
    cell's edges would be a line across (``─``), so two that meet are one
    stroke drawn over two cells; one that meets a line (``ACROSS``) is
    that line's end."""
    for beside in (column + 1, column - 1):
        key = band.keys.get(beside)
        if key is not None and bars(key) in into and _joined(band, min(column, beside), cells):
            return True
    return False


def _short_line(band: Band, column: int, bars: Callable[[bytes], str | None]) -> bool:
    """Whether the line in ``column`` spans two cells at most with the bars
    beside it: a wide letter's stroke (``ー``), where a drawn line (pip's
    progress bar, a border) runs on, or meets a joint (a tree's ``├──``)."""
    lines = ("━", "-", *ACROSS)
    left = right = column
    while (key := band.keys.get(left - 1)) is not None and bars(key) in lines:
        left -= 1
    while (key := band.keys.get(right + 1)) is not None and bars(key) in lines:
        right += 1
    joints = JOINTS.values()
    if any(bars(band.keys[c]) in joints for c in range(left, right + 1) if c != column):
        return False  # a tree's ``├─sda1``: one cell of line after its joint
    return right - left < 2


def _among_unexplained(
    band: Band, index: int, column: int, drawn: dict[tuple[int, int], Decision]
) -> bool:
    """Whether an inked cell within two of ``column`` is no sure glyph of the
    font: a wide letter's half sits among such cells, a ligature's among the
    font's own glyphs."""
    for d in (-2, -1, 1, 2):
        if column + d in band.keys:
            near = drawn.get((index, column + d))
            if near is None or not near.sure:
                return True
    return False


def _runs(
    loose: Sequence[int], inked: Iterable[int], ways: dict[int, str]
) -> tuple[tuple[int, int, float], ...]:
    """The columns of ``loose`` as runs ``(first, last, chance)``, a run going
    on across at most ``RUN_GAP`` cells without ink (a wide letter's half, or
    a mark such as ``、`` that inks one of its two cells), with the chance
    that its cells are right as they were decided (``ways``, ``MISSES``)."""
    ink = set(inked)
    runs: list[list[int]] = []
    for column in sorted(loose):
        between = range(runs[-1][1] + 1, column) if runs else range(0)
        if runs and len(between) <= RUN_GAP and not any(c in ink for c in between):
            runs[-1][1] = column
        else:
            runs.append([column, column])
    return tuple(
        (a, b, chance(Counter(ways[c] for c in range(a, b + 1) if c in ways))) for a, b in runs
    )


def _nearest_instead(glyph: Decision | None, *, read: bool) -> bool:
    """Whether a cell its glyphs left unsure, whose copies the engine did
    not read alike, is its nearest glyph's character rather than what the
    engine ``read`` there, if anything: the nearest glyph is near
    (``NEAREST_NEAR``) and far nearer than any other (``NEAREST_APART``),
    and, where the engine read a character, in ASCII (not ``×`` for the
    ``x`` it read). A small ``~`` kitty draws thinner than its drawing,
    read ``e``, ``r`` or nothing. Doubted still (``nearest``): the drawing
    is no sure match."""
    return (
        glyph is not None
        and glyph.char.strip() != ""
        and (glyph.char.isascii() or not read)
        and glyph.distance <= NEAREST_NEAR
        and glyph.runner_up >= NEAREST_APART * glyph.distance
    )


def _twin(
    glyph: Decision,
    there: Glyph | None,
    drawn: dict[tuple[int, int], Decision],
    index: int,
    column: int,
) -> str:
    """Which of the characters a font draws alike (``Decision.twins``) the
    cell at ``column`` of band ``index`` is: a letter between letters and a
    digit between digits, as the glyphs either side were surely decided
    (``EDITOR``, ``4012``; not ``0.0s``); among those left, as the engine read
    it there (``there``, its reading of the word), where it read one of
    them; else the first of them."""
    both = glyph.char + glyph.twins
    beside = [
        d.char
        for c in (column - 1, column + 1)
        if (d := drawn.get((index, c))) is not None and d.sure and d.char.isalnum()
    ]
    for kind in (str.isalpha, str.isdigit):
        if len(beside) == 2 and all(kind(char) for char in beside):
            both = "".join(c for c in both if kind(c)) or both
    if len(both) > 1 and there is not None and there.text in both:
        return there.text
    return both[0]
