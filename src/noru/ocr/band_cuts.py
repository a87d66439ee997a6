"""Where a big region is cut into bands, each read by a thread of its own.

A cut runs through rows of pixels that repeat (no glyph changes there), near
where the bands would be of equal height: rows of one colour where they are
near, else the few rows between two lines of text.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noru.geometry import Rect, clip

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["split_rows"]

# A band is cut only inside this many identical rows in a row, so the cut
# runs through the gap between two text lines, never through a glyph.
BLANK_RUN = 4
# Better, through rows of one colour but for this share of the width at each
# side (a scrollbar, a frame): the rows between two lines may still be a
# line's cells, a highlighted word's block reaching its cell's top and a
# pixel or two above the gap's middle, and a band cut through it leaves the
# block a pixel short; rows of one colour are no cell's block. Best, through
# rows of one colour from edge to edge: a block in the first columns (tsc's
# line numbers in reverse video) lies within that share.
EDGE_SHARE = 0.03


def split_rows(image: Image.Image, region: Rect, parts: int) -> list[Rect]:
    """``region`` cut into up to ``parts`` bands of about equal height, each
    cut made in a run of identical rows near its ideal position, rows of one
    colour (edge to edge, else but for the edges) where some are as near as
    half the reach, else the gap between two text lines. Fewer bands when
    no such gap lies near enough."""
    from PIL import ImageChops

    clipped = clip(region, (0, 0, *image.size))
    if clipped is None:
        return []
    if parts <= 1:
        return [clipped]
    x, y, w, h = clipped
    grey = image.crop((x, y, x + w, y + h)).convert("L")
    # blank[r]: row r+1 is identical to row r. A cut at row c needs blank rows
    # around it: the gap between two text lines, not the middle of one.
    diff = ImageChops.difference(grey.crop((0, 0, w, h - 1)), grey.crop((0, 1, w, h)))
    blank = [not changed for changed in diff.getprojection()[1]]
    whole = [same and one for same, one in zip(blank, _one_colour(grey, 0), strict=False)]
    plain = [same and one for same, one in zip(blank, _one_colour(grey), strict=False)]
    cuts: list[int] = []
    reach = h // (2 * parts)
    for k in range(1, parts):
        ideal = k * h // parts
        found = (
            _near(whole, ideal, reach // 2)
            or _near(plain, ideal, reach // 2)
            or _near(blank, ideal, reach)
        )
        if found is not None and (not cuts or found > cuts[-1] + BLANK_RUN):
            cuts.append(found)
    edges = [0, *cuts, h]
    return [(x, y + top, w, bottom - top) for top, bottom in itertools.pairwise(edges)]


def _near(quiet: Sequence[bool], ideal: int, reach: int) -> int | None:
    """The row nearest ``ideal`` (within ``reach``) inside ``BLANK_RUN`` quiet
    rows in a row."""
    for offset in range(reach):
        for row in (ideal - offset, ideal + offset):
            if BLANK_RUN <= row < len(quiet) + 1 - BLANK_RUN and all(
                quiet[row - BLANK_RUN // 2 : row + BLANK_RUN // 2]
            ):
                return row
    return None


def _one_colour(grey: Image.Image, share: float = EDGE_SHARE) -> list[bool]:
    """Whether each row of ``grey`` is one grey, but for ``share`` of its
    width at each side."""
    import numpy as np

    side = round(grey.width * share)
    inner = np.asarray(grey.crop((side, 0, grey.width - side, grey.height)))
    if inner.shape[1] == 0:
        return [True] * grey.height
    one: list[bool] = (inner.min(axis=1) == inner.max(axis=1)).tolist()
    return one
