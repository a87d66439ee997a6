"""The period a profile of a terminal's ink repeats at: its rows' pitch, its
columns' advance, and where the gap between two of them lies
(``noru.ocr.terminal_grid`` finds the grid with them).

Pure Python (NumPy for the autocorrelation).
"""

from __future__ import annotations

from collections.abc import Sequence

from noru.ocr.monospace import fold

__all__ = ["gap_middle", "half_advance", "pitch", "rows_fold_at_half", "whole_advance"]

# Phases of a gap between rows within this share of the mean phase of its
# emptiest are as empty as it (``gap_middle``).
EMPTIEST = 0.005
# Glyphs as wide as their cells (Hermit, Terminus) leave no empty phase
# between cells, only a thinner one: a fold's emptiest phase counts as the
# gap when it holds at most WIDE_GAP of the mean and at most STANDS_OUT of
# what the folds at the other periods typically do (proportional text folds
# alike at every period).
WIDE_GAP = 0.75
STANDS_OUT = 0.75
# A peak of a profile's autocorrelation this share of the tallest is a period
# it repeats at.
REPEATS = 0.7
# Half an advance is the advance where the columns fold there with a phase
# this nearly as empty as at the whole (``half_advance``).
HALF_SLACK = 0.05
# Twice an advance is the advance where the columns fold there this much
# more emptily (``whole_advance``).
WHOLE_SLACK = 0.2
# Stretches of a row that say the advance is half the one the whole region
# folds at (``rows_fold_at_half``): HALF_ROW_CELLS cells of the whole, at
# least HALF_INKED of their halves inked, folding at the half with a phase
# at most HALF_EMPTY of the mean or within HALF_SLACK of the whole's (a
# stretch whose ink, folded at the whole, leaves half of it empty is of
# marks narrower than a half, and counts for neither). The
# half is the advance where at least two stretches and HALF_ROWS of those
# counted say so. Of the screens whose advance was right (the training
# part and four sets in neither part, 729), the most that said so was one
# stretch of twelve, and 0.06 where more than one did; the two dense CJK
# screens taken at two cells said 0.12 and 0.38.
HALF_ROW_CELLS = 8
HALF_INKED = 0.75
HALF_EMPTY = 0.1
HALF_ROWS = 0.1


def pitch(
    profile: Sequence[int],
    low: int,
    high: int,
    gap: float,
    *,
    least: int | None = None,
    wide: bool = False,
) -> tuple[int, int] | None:
    """The pitch of ``profile``'s rows (or cells) in ``[low, high]``, and the
    middle of the emptiest phases at it: where the gap between two rows (or
    cells) is.

    The pitch is the smallest period at which the profile repeats (a peak of
    its autocorrelation) and folds with an emptiest phase holding at most
    ``gap`` of the mean's ink: with ``least``, the smallest such period of
    at least that many pixels (a line of text is no taller than its row),
    else the smallest whose peak is nearly as high as the highest. Folding
    alone cannot tell a few rows 22 pixels apart from 20 (each row's gap is
    wider than they drift), and repeating alone prefers five rows' period on
    a screen of compiler errors (a message, a blank line, a source line, its
    carets, a blank line). With ``wide``, where no fold has so empty a
    phase, one that stands out from the rest does (``WIDE_GAP``)."""
    import statistics

    import numpy as np

    values = np.array(list(profile), dtype=np.float64)
    high = min(high, len(values) - 1)
    if high < max(2, low):
        return None
    folds = {period: fold(profile, period)[0] for period in range(max(2, low), high + 1)}
    if wide and min(folds.values()) > gap:
        gap = min(WIDE_GAP, STANDS_OUT * statistics.median(folds.values()))
    # The autocorrelation at every lag up to one past ``high``.
    lags = np.array([float(values[:-lag] @ values[lag:]) for lag in range(1, high + 2)])
    tallest = 0.0
    peaks: list[int] = []
    for period in range(max(2, low), high + 1):
        here = lags[period - 1]
        if here >= lags[period - 2] and here >= lags[period] and folds[period] <= gap:
            peaks.append(period)
            tallest = max(tallest, here)
    if not peaks or tallest <= 0:
        return None
    if least is not None:
        period = next((p for p in peaks if p >= least), peaks[-1])
    else:
        period = next(p for p in peaks if lags[p - 1] >= REPEATS * tallest)
    return period, gap_middle(profile, period, edge_past_ink=not wide)


def gap_middle(profile: Sequence[int], period: int, *, edge_past_ink: bool = False) -> int:
    """The middle of the emptiest phases of ``profile`` folded at ``period``.
    With ``edge_past_ink`` (rows), where that middle is inked, the middle of
    the phases as empty as the emptiest (``EMPTIEST``: a stray glyph's top
    is no line's ink): ink in the gap between two rows belongs to the line
    it touches (an underscore, a descender; a tall letter's top), so the
    edge between them lies past it, where no ink is."""
    _, phase = fold(profile, period)
    sums = [0] * period
    for i, value in enumerate(profile):
        sums[i % period] += value
    quiet = sums[phase] + 0.02 * sum(sums) / period
    before = after = 0
    while before < period - 1 and sums[(phase - before - 1) % period] <= quiet:
        before += 1
    while after < period - 1 - before and sums[(phase + after + 1) % period] <= quiet:
        after += 1
    middle = (phase + (after - before + 1) // 2) % period
    run = [(phase + d) % period for d in range(-before, after + 1)]
    emptiest = [p for p in run if sums[p] <= sums[phase] + EMPTIEST * sum(sums) / period]
    if edge_past_ink and middle not in emptiest:
        return emptiest[len(emptiest) // 2]
    return middle


def half_advance(glyphs: Sequence[int], low: int, found: tuple[int, int]) -> tuple[int, int]:
    """The advance ``found``, or half of it where the columns fold there
    nearly as emptily (``HALF_SLACK``): a narrow face's glyphs fill their
    cells (monofur at 8 pt, five pixels wide), so no phase of one cell is
    empty enough and two cells' fold, a little emptier by chance, was
    taken, reading every other character. Glyphs in cells twice as wide
    leave no half of a cell so empty: ink lies in every phase of a half."""
    width = found[0]
    half = width // 2
    if width % 2 or half < low:
        return found
    if fold(glyphs, half)[0] > fold(glyphs, width)[0] + HALF_SLACK:
        return found
    return half, gap_middle(glyphs, half)


def whole_advance(glyphs: Sequence[int], high: int, found: tuple[int, int]) -> tuple[int, int]:
    """The advance ``found``, or twice it where the columns fold there far
    more emptily (``WHOLE_SLACK``): glyphs as wide as their cells (Hermit)
    leave no empty phase between cells, and where wide letters (CJK) fill
    the rest no fold stands out; the smallest period that passed for one
    was half a cell, its fold no emptier than its neighbours'. Half of the
    advance a narrow face fills its cells at folds nearly as emptily as
    the whole (``half_advance``), never this much less so."""
    width = 2 * found[0]
    if width > high or fold(glyphs, width)[0] > fold(glyphs, found[0])[0] - WHOLE_SLACK:
        return found
    return width, gap_middle(glyphs, width)


def rows_fold_at_half(rows: Sequence[Sequence[int]], width: int) -> bool:
    """Whether the rows' column profiles (one a row of the grid) say the
    advance is half of ``width``: enough stretches of them fold at the
    half nearly as emptily as at ``width`` (``HALF_ROWS``). A screen dense
    with double-width glyphs (CJK) folds best at two cells, since each wide
    glyph inks the middle of its pair; a stretch of ASCII letters between
    them still folds at its own cells, while letters in cells of the whole
    ``width`` ink their middles, and no stretch of them folds at the
    half."""
    said, counted = _half_share(rows, width)
    return said >= 2 and said >= HALF_ROWS * counted


def _half_share(rows: Sequence[Sequence[int]], width: int) -> tuple[int, int]:
    """How many stretches of the rows fold at half of ``width``, and of how
    many counted (``rows_fold_at_half``)."""
    half = width // 2
    if width % 2 or half < 2:
        return 0, 0
    span = HALF_ROW_CELLS * width
    counted = said = 0
    for profile in rows:
        for start in range(0, len(profile) - span + 1, span):
            stretch = profile[start : start + span]
            inked = sum(1 for c in range(0, span, half) if any(stretch[c : c + half]))
            if inked < HALF_INKED * 2 * HALF_ROW_CELLS:
                continue
            if sum(1 for c in range(width) if any(stretch[c::width])) <= half:
                # Marks narrower than half a cell (a dump's ``.`` column)
                # fold emptily at any part of their advance: no word on it.
                continue
            counted += 1
            at_half = fold(stretch, half)[0]
            said += at_half <= HALF_EMPTY or at_half <= fold(stretch, width)[0] + HALF_SLACK
    return said, counted
