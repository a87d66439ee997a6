"""Where a picture holds ink: the one measure of what was drawn that the
redaction tests and bench/redact_pixels.py check is filled in what agents
get.

A pixel is ink when one of its channels is ``INK`` (a quarter of the range)
or more off the background, the commonest colour of the area looked at: a
glyph's faint anti-aliased rim is not, its strokes are, on any theme.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["INK", "commonest", "ink"]

INK = 64


def commonest(pixels: Any) -> Any:
    """The commonest colour of ``pixels`` (an RGB array of any shape)."""
    colours, counts = np.unique(np.asarray(pixels).reshape(-1, 3), axis=0, return_counts=True)
    return colours[counts.argmax()]


def ink(pixels: Any, background: Any) -> Any:
    """Which of ``pixels`` (an RGB array, rows by columns) are ink against
    ``background``."""
    drawn = np.asarray(pixels).astype(int)
    return np.abs(drawn - np.asarray(background).astype(int)).max(axis=-1) >= INK
