"""How sure a terminal's line is: the chance that a cell is wrong, by how
it was decided (``way``: by its glyph, its shape, the engine's copies...),
fitted on the training part of the terminal corpus (bench/ocr_calibrate.py),
and a line's chance of being exact from its cells' (``chance``).
``noru.ocr.terminal_lines`` decides the cells and makes the lines.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from noru.ocr.glyphs import Decision

__all__ = ["MISSES", "NEAREST_NEAR", "chance", "way"]

# The chance that a cell is wrong, by how it was decided (``way``): by its
# glyph in the grid's font; by its shape; where the font is known and its
# glyphs left the cell unsure, by the engine's readings of its copies
# agreeing, or as the engine read it there; by the engine where no font is
# known; a character outside ASCII by the engine; or not at all. Fitted on
# the training part of the terminal corpus (bench/ocr_calibrate.py): a cell
# the engine read once is wrong about one time in four, one whose copies it
# read alike one in two hundred.
MISSES = {
    "glyph": 8.9e-6,
    # A character of a ligature its run of cells is drawn as
    # (``noru.ocr.ligatures``): set, not fitted (the training part draws few
    # ligatures shaped; of the runs in Konsole and kitty their thresholds
    # were chosen on, none was wrong): a line of three ligatures is served
    # as sure.
    "ligature": 5e-4,
    # A wide letter by its drawing in the face the terminal falls back to
    # (``noru.ocr.wide``): none of the training part's 1,505 was wrong, so
    # one in ten thousand is set, not fitted (a smaller size than any there,
    # 12 px, draws ``불`` as the drawing of ``물``). One taken as the nearest
    # Hangul but not beyond doubt: fitted, on 9.
    "wide": 1e-4,
    "wide-near": 0.11,
    "shape": 1e-7,
    "agreed": 0.005,
    # Copies read alike as a character of the grid's font that the cell is
    # far from (``FAR``), or far from beside a near other (``CLAIM_APART``),
    # and nearer another (Konsole's branch icon read ``}`` in every copy).
    # Set, not fitted: the training part fits 0.89, a set of fonts in
    # neither part far less (Konsole draws some of Monoid's letters unlike
    # its drawings).
    "agreed-far": 0.5,
    # The nearest glyph where the engine's copies did not agree
    # (``_nearest_instead``). Set, not fitted: the training part fits under
    # 0.01, but its distances are a font's the reader was tuned on; a line
    # holding one is not served as sure.
    "nearest": 0.05,
    # One of the characters the grid's font draws alike (``_twin``), told
    # by the engine's reading. Set from a set of fonts in neither part (no
    # training font draws two ASCII characters alike).
    "twin": 0.05,
    "engine": 0.28,
    "engine-alone": 0.016,
    "engine-other": 0.89,
    "lost": 0.79,
    # Once a line: its ─ may be a terminal's ━ (``_either_weight``). Even
    # odds: of such lines in the training part and a set of fonts in neither
    # part, 4 were light (a pager's header in kitty and xfce4-terminal) and
    # 36 heavy (pip's bars in 4 screens).
    "weight": 0.5,
}
# A cell this far (``Decision.claim``) from the grid font's drawing of what
# its copies were read as, another character than its nearest glyph, is not
# that character as the font draws it: the reading is doubted. On the
# training part, of such cells this far, five in six were wrong; nearer,
# one in thirty. So is a reading whose drawing is ``CLAIM_APART`` times as
# far as a near nearest glyph's (``NEAREST_NEAR``): of the lines holding
# one nearer than ``FAR``, 5 of 8 were wrong on the training part and 14 of
# 14 on a set of fonts in neither part (a Powerline arrow in Konsole, 0.13
# from its drawing, read ``P`` in every copy, 0.45 from ``P``'s).
FAR = 0.5
CLAIM_APART = 2.0
# A cell's nearest glyph this near is near (``noru.ocr.terminal_lines``
# takes it for the cell's character where the engine's copies did not agree).
NEAREST_NEAR = 0.2


def way(char: str | None, *, font_known: bool, by: str, glyph: Decision | None = None) -> str:
    """How a cell no glyph decided was decided, as ``MISSES`` counts it: ``by``
    its shape (a line across, a bar); where the grid's font is known (its
    glyphs left this cell unsure, ``glyph`` the nearest), as the engine read
    its copies alike, the more doubtful when the cell is far from that
    character's drawing and nearer another's (``FAR``, ``CLAIM_APART``), or as the
    engine read it there; by the engine where no font is known; a character
    outside ASCII by the engine; or lost."""
    if char is None:
        return "lost"
    if by in ("shape", "nearest"):
        return by
    if not char.isascii():
        return "engine-other"
    if not font_known:
        return "engine-alone"
    if by != "copies":
        return "engine"
    if glyph is not None and _doubted(glyph):
        return "agreed-far"
    return "agreed"


def _doubted(glyph: Decision) -> bool:
    """Whether the copies' reading of the cell, ``glyph.claim`` from its
    drawing, is doubted against the cell's nearest glyph (``FAR``,
    ``CLAIM_APART``)."""
    claim = glyph.claim
    return claim is not None and (
        claim >= FAR or (glyph.distance <= NEAREST_NEAR and claim >= CLAIM_APART * glyph.distance)
    )


def chance(how: Counter[str]) -> float:
    """The chance that a line is exact, from how many of its cells were
    decided each way (``MISSES``): that all of them are right."""
    found = 1.0
    for way, count in how.items():
        found *= (1.0 - MISSES[way]) ** count
    return found
