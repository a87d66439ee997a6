"""What each cell of a terminal's grid is: the engine's readings of a cell
image made to agree across its copies (``noru.ocr.terminal`` reads the rows).

A terminal draws one character as one image, wherever it is: so what the
engine read in most copies of an image is what every copy is, a misread
copy outvoted, an unread one filled in. Some cells need no reading at all
(``bar``: ``_`` and ``-`` by their shape). Case is left as read: told by
where a letter's ink starts, it turned letters the engine had right; the
glyphs of the font on screen tell it (``noru.ocr.glyphs``).

Pure Pillow, and pure Python over cell images as bytes: a cell image is its
pixels of ink (``terminal_ink.ink``), one byte a pixel, column by column
(each pixel column top to bottom), so that its core (the cell without its
side columns) is one slice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noru.ocr.box_joints import JOINTS
from noru.ocr.monospace import MIN_CORE_SHARE, MIN_SHARE, MIN_VOTES
from noru.ocr.terminal_grid import Cells
from noru.ocr.terminal_ink import INK, darker_than, darkest

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["Votes", "bar", "edge", "inked_columns", "stroke"]

# A cell image is read as one character as a monospace grid's is
# (``noru.ocr.monospace``: MIN_VOTES copies read, MIN_SHARE of them alike).
# A cell image is the character of an agreed one it is drawn like, in another
# colour, when they differ by at most this share of its ink.
LIKE = 0.05
# A cell holds a glyph when it has ink this share of its band's deepest.
CELL_INK = 0.2
# The least darkness that is ink in a cell.
FAINT = 24
# A bar across a cell is a line when this share of its pixel columns is
# inked through the bar's whole thickness (``_straight``).
STRAIGHT = 0.7
# A thin bar across a cell from this share of its height down is an
# underscore; above it, a line (``─``, ``━``) drawn through the cells. VTE
# draws Cousine's bold ``_`` at 0.71 of its row, full width, under a
# letter's baseline: a line there was read in ``node─modules``.
UNDERSCORE_TOP = 0.65


def edge(width: int) -> int:
    """The pixel columns at each side of a cell ``width`` wide that its
    neighbours' anti-aliased edges reach (a ``W`` bleeding into the next
    cell): left out where a cell's own ink is looked for."""
    return 1 if width > 4 else 0


class Votes:
    """What each cell image was read as, across the region: one image, one
    character, where its copies agree.

    A glyph whose anti-aliased edge runs into the next cell looks a little
    different beside each neighbour, so a copy can be alone in its exact
    image; cells are also counted by their core (the cell without the pixel
    columns its neighbours reach, ``edge``), where a larger share must
    agree. And a glyph drawn in a colour seen once (a blue ``0`` in a table
    of white ones) has no copies of its own: it is the character of the
    agreed image it is drawn like (``like``), however its own copies were read:
    the engine reads a faint colour worse.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.exact: dict[bytes, Counter[str]] = {}
        # The copies read in words the engine read one cell a glyph (``add``'s
        # ``trusted``): the font is found by these alone.
        self.trusted: dict[bytes, Counter[str]] = {}
        # Of those, the copies the engine was sure of (``add``'s ``sure``): a
        # screen mostly of wide letters, whose halves the engine reads as
        # Latin ones less surely, has its font found by these.
        self.sure: dict[bytes, Counter[str]] = {}
        self.cores: dict[bytes, Counter[str]] = {}
        self._core: dict[bytes, bytes] = {}
        self._shape: dict[bytes, _Shape | None] = {}
        self._agreed_shapes: list[tuple[_Shape, str]] | None = None
        self._like: dict[bytes, str | None] = {}
        self._agreed: dict[bytes, str | None] = {}  # until the next vote

    def core(self, key: bytes) -> bytes:
        """``key`` without the pixel columns at its sides that its neighbours reach."""
        found = self._core.get(key)
        if found is None:
            height, side = len(key) // self.width, edge(self.width)
            found = key[side * height : (self.width - side) * height]
            self._core[key] = found
        return found

    def add(self, key: bytes, char: str, *, trusted: bool = True, sure: bool = True) -> None:
        """One copy of ``key`` read as ``char``; not ``trusted`` when the
        engine read its word in glyphs wider than a cell (a CJK letter, drawn
        over two cells, read as Latin ones), and not ``sure`` when it was
        unsure of the glyph."""
        self.exact.setdefault(key, Counter())[char] += 1
        if trusted:
            self.trusted.setdefault(key, Counter())[char] += 1
            if sure:
                self.sure.setdefault(key, Counter())[char] += 1
        core = self.core(key)
        self.cores.setdefault(core, Counter())[char] += 1
        self._agreed_shapes = None
        self._like.clear()
        self._agreed.clear()

    def _own_disagree(self, key: bytes) -> bool:
        own = self.exact.get(key)
        return own is not None and own.total() >= MIN_VOTES

    def agreed(self, key: bytes) -> str | None:
        """The character the copies of ``key`` (or of its core) agree on, or None."""
        if key in self._agreed:
            return self._agreed[key]
        found = self._agree(key)
        self._agreed[key] = found
        return found

    def _agree(self, key: bytes) -> str | None:
        exact = _consensus(self.exact.get(key), MIN_SHARE)
        if exact is not None:
            return exact
        if self._own_disagree(key):
            return None  # its own copies disagree: no core overrules them
        return _consensus(self.cores.get(self.core(key)), MIN_CORE_SHARE)

    def shape(self, core: bytes) -> _Shape | None:
        if core not in self._shape:
            self._shape[core] = _shape_of(core)
        return self._shape[core]

    def like(self, key: bytes) -> str | None:
        """The character of the agreed cell image that ``key`` is drawn like,
        its ink scaled to the same depth (``_shape_of``): the nearest by far
        of any character's, and near. None where there is none."""
        if key in self._like:
            return self._like[key]
        found = None
        shape = self.shape(self.core(key))
        if shape is not None:
            if self._agreed_shapes is None:
                agreed = {self.core(k): self.agreed(k) for k in self.exact}
                self._agreed_shapes = [
                    (known, char)
                    for core, char in agreed.items()
                    if char is not None and (known := self.shape(core)) is not None
                ]
            found = _nearest(shape, self._agreed_shapes)
        self._like[key] = found
        return found


# A cell image's ink scaled so its darkest pixel is full ink (0-255 a pixel),
# and the sum of it.
_Shape = tuple[int, bytes]


def _shape_of(core: bytes) -> _Shape | None:
    """A cell image's ink, scaled so its deepest pixel is full: the same
    glyph in two colours has the same shape, anti-aliasing and all. None for
    a cell with no ink."""
    depth = 255 - min(core) if core else 0
    if depth < INK:
        return None
    scaled = bytes(min(255, (255 - v) * 255 // depth) for v in core)
    return sum(scaled), scaled


def _nearest(shape: _Shape, known: Sequence[tuple[_Shape, str]]) -> str | None:
    """The character whose shapes in ``known`` are nearest ``shape``, where
    the nearest differs from it by at most ``LIKE`` of its ink and every
    other character's by at least twice as much."""
    mass, pixels = shape
    best: dict[str, float] = {}
    for (other_mass, other), char in known:
        most = max(mass, other_mass)
        if abs(mass - other_mass) > LIKE * most or len(other) != len(pixels):
            continue
        distance = sum(abs(a - b) for a, b in zip(pixels, other, strict=True)) / most
        if distance < best.get(char, 2.0):
            best[char] = distance
    ranked = sorted(best.items(), key=lambda item: item[1])
    if not ranked or ranked[0][1] > LIKE:
        return None
    if len(ranked) > 1 and ranked[1][1] < 2 * ranked[0][1]:
        return None
    return ranked[0][0]


def _consensus(counter: Counter[str] | None, share: float) -> str | None:
    if counter is None:
        return None
    (char, count), total = counter.most_common(1)[0], counter.total()
    return char if total >= MIN_VOTES and count >= share * total else None


def bar(key: bytes, cells: Cells) -> str | None:
    """What a cell whose only ink is one thin bar across it is: along its
    bottom ``_``, which the engine leaves out of a word as often as not
    (``job_247`` read ``job 247``); half way up ``-``, which it reads as a
    letter among letters (``-rw-r--r--`` read ``-rwwrr-rr-``). A bar from
    edge to edge is a line drawn across cells, as terminals draw box
    drawing themselves: ``─`` (``━`` when thick: pip's progress bar), and a
    bar from top to bottom ``│`` (a pane's border). None for any other cell."""
    from PIL import Image

    cell = Image.frombytes("L", (cells.height, cells.width), key).transpose(
        Image.Transpose.TRANSPOSE
    )
    inked = cell.point(darker_than(255 - INK))
    # Its shape inside the side columns, where a neighbour's edge (the
    # ``w`` before the ``-`` of ``rw-``) does not reach.
    side = edge(cells.width)
    box = inked.crop((side, 0, cells.width - side, cells.height)).getbbox()
    if box is None:
        return None
    left, top, right, bottom = box
    height = cells.height
    whole = inked.getbbox()
    joined = junction(inked)
    if joined is not None:
        return joined
    if (
        whole is not None
        and whole[1] == 0
        and whole[3] == height
        and whole[2] - whole[0] <= max(2, cells.width // 4)
    ):
        return "│"  # a line from the cell's top to its bottom, thin
    if whole is not None and (whole[0] == 0 or whole[2] == cells.width):
        span = _line_rows(inked, whole)
        thickness, thick = span[3] - span[1], max(2, height // 8)
        if (
            thickness <= max(4, height // 4)
            and 0.2 * height <= span[1] < UNDERSCORE_TOP * height
            and _straight(inked, span)
        ):
            if whole[0] == 0 and whole[2] == cells.width:
                return "━" if thickness > thick else "─"
            # A thick bar to one edge from within a third of the other: the
            # end of a heavy line (pip's progress bar, whose first cell
            # rxvt-unicode draws from a pixel or two in), never a hyphen.
            if (
                thickness > thick
                and whole[2] - whole[0] >= cells.width - cells.width // 3
                and inked.crop(span).getextrema() == (255, 255)
            ):
                return "━"
    if bottom - top > max(2, height // 8):
        return None
    if right - left >= 0.6 * cells.width and top >= UNDERSCORE_TOP * height:
        return "_"
    # From edge to edge of the whole cell, at the bar's own rows: a line.
    row = inked.crop((0, top, cells.width, bottom)).getbbox()
    across = row is not None and row[0] == 0 and row[2] == cells.width
    if (
        right - left >= 0.4 * cells.width
        and not across
        and 0.3 * height <= top < 0.65 * height
        and _straight(inked, (left + side, top, right + side, bottom))
    ):
        return "-"
    return None


def _line_rows(inked: Image.Image, whole: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """``whole`` (the ink's box) cut to the rows a line across it fills:
    those at least half inked, with the few pixels an anti-aliased edge
    darkens beside them (a fallback face's ``━``, drawn a little past its
    cell, darkens one pixel above it) left out; ``whole`` where they are
    more than such a pixel or two, or no row is half inked."""
    import numpy as np

    ink = np.asarray(inked, dtype=np.uint8) > 0
    width = ink.shape[1]
    full = np.flatnonzero(ink.sum(axis=1) * 2 >= width)
    if not full.size or full[-1] - full[0] + 1 != full.size:
        return whole
    top, bottom = int(full[0]), int(full[-1]) + 1
    outside = int(ink.sum()) - int(ink[top:bottom].sum())
    near = int(ink[max(0, top - 1) : bottom + 1].sum()) - int(ink[top:bottom].sum())
    if outside != near or outside > max(1, width // 4):
        return whole
    return whole[0], top, whole[2], bottom


def _straight(inked: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Whether the ink in ``box`` is a straight bar: most of its pixel
    columns inked through its whole thickness. A small ``~`` whose waves
    join its neighbours' runs from edge to edge too, but each column holds
    a part of its thickness only."""
    import numpy as np

    part = np.asarray(inked.crop(box), dtype=np.uint8) > 0  # ink is white here
    return float(part.all(axis=0).mean()) >= STRAIGHT


def stroke(key: bytes, cells: Cells) -> int:
    """How many pixel rows a cell's ink spans (a line's thickness)."""
    from PIL import Image

    cell = Image.frombytes("L", (cells.height, cells.width), key)
    box = cell.point(darker_than(255 - INK)).getbbox()
    return 0 if box is None else box[2] - box[0]  # the image is the cell transposed


# A joint's line down may stop this share of its cell's height short of its
# top or bottom (a pixel at least): a font's own line, its face's height
# less than the row's (``junction``). A corner's line stops at the middle.
SHORT = 0.1
# A joint's line across lies about its cell's middle: its middle at most
# this share of the cell's height down (terminals draw it at the middle, a
# face a little lower in a tall row: CMU Typewriter's at 0.59; an ``l``'s
# foot, Cousine's in kitty at 9 pt, lies on the baseline at 0.64).
ACROSS_LOW = 0.61


def _run(found: Sequence[int]) -> tuple[int, int] | None:
    """``found`` (sorted) as one unbroken run ``(first, last)``, else None."""
    if not found or found[-1] - found[0] != len(found) - 1:
        return None
    return found[0], found[-1]


def junction(inked: Image.Image) -> str | None:
    """A cell whose ink is a line across it meeting a line down it, as
    terminals draw box drawing's joints (a pager's ``───┬───``, tmux's
    ``├``, systemctl's ``└─``): which edges its lines reach says which
    joint. Its ink must be those two thin lines alone, each reaching its
    edges through the cell's middle; None for any other cell (a ``+`` or a
    ``T`` reaches no edge, an ``L`` not two)."""
    width, height = inked.size
    px = inked.load()
    assert px is not None
    rows = {
        side: [y for y in range(height) if px[x, y]] for side, x in (("l", 0), ("r", width - 1))
    }
    # A line down may stop a little short of the edge (``SHORT``): a font's
    # own ``├`` (DejaVu Sans Mono's in st at 192 dpi) ends a pixel under
    # its cell's top, and is no ``┌``.
    ends = {"u": 0, "d": height - 1}
    for side, step in (("u", 1), ("d", -1)):
        for _ in range(max(1, round(SHORT * height))):
            if any(px[x, ends[side]] for x in range(width)):
                break
            ends[side] += step
    columns = {side: [x for x in range(width) if px[x, y]] for side, y in ends.items()}
    arms = (bool(rows["l"]), bool(rows["r"]), bool(columns["u"]), bool(columns["d"]))
    char = JOINTS.get(arms)
    if char is None:
        return None
    across = _run(sorted(set(rows["l"]) | set(rows["r"])))
    down = _run(sorted(set(columns["u"]) | set(columns["d"])))
    if across is None or down is None:
        return None
    (top, bottom), (left, right) = across, down
    if bottom - top + 1 > max(4, height // 4) or right - left + 1 > max(3, width // 3):
        return None
    if not (0.2 * height <= top and bottom < 0.8 * height and 0.2 * width <= left < 0.8 * width):
        return None
    if top + bottom > 2 * ACROSS_LOW * height:
        return None
    # Each arm unbroken from its edge to the other line, and no ink elsewhere
    # but a pixel about where they meet (a fallback face's ``├`` in st,
    # its line across thickened into the joint).
    for x in range(width):
        for y in range(height):
            on_across, on_down = top <= y <= bottom, left <= x <= right
            at_joint = top - 1 <= y <= bottom + 1 and left - 1 <= x <= right + 1
            if px[x, y] and not (on_across or on_down or at_joint):
                return None
    reach = (
        (arms[0], [(x, top, bottom) for x in range(0, left)]),
        (arms[1], [(x, top, bottom) for x in range(right + 1, width)]),
    )
    for wanted, spans in reach:
        if wanted and not all(any(px[x, y] for y in range(a, b + 1)) for x, a, b in spans):
            return None
    above, below = range(ends["u"], top), range(bottom + 1, ends["d"] + 1)
    for wanted, ys in ((arms[2], above), (arms[3], below)):
        if wanted and not all(any(px[x, y] for x in range(left, right + 1)) for y in ys):
            return None
    return char


def inked_columns(band: Image.Image, cells: Cells) -> list[int]:
    """The columns of a row band whose cells hold ink inside their first and
    last column of pixels: where only an edge is inked, it is the
    anti-aliased edge of the glyph beside it (a ``W`` bleeding into the
    next cell), and the cell holds no glyph. Ink is a share of the band's
    deepest (``CELL_INK``): a thin ``|`` of a light face never reaches much."""
    from PIL import Image

    level = max(FAINT, round(CELL_INK * (255 - darkest(band))))
    inked = band.point(darker_than(255 - level))
    profile = inked.resize((band.width, 1), Image.Resampling.BOX).tobytes()
    w, side = cells.width, edge(cells.width)
    return [
        column
        for column in range(cells.columns)
        if any(profile[column * w + side : (column + 1) * w - side])
    ]
