"""The terminal reader's passes over a whole screen hold a few bytes a pixel.

A screen is read in the OCR process, beside the app, within a memory budget:
the passes that look at every pixel of a terminal (its colour off the
paper, its solid blocks of ink) must not hold many copies of it at once.
numpy's arrays are seen by tracemalloc, so what a pass holds at its most is
measured here, and what it finds is checked against the plain definition.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PIL import Image

from noru.ocr.terminal_chrome import off_paper
from noru.ocr.terminal_ink import INK, PAPER, edges, fits

SCREEN = (1600, 2560)  # rows, columns


def most_held(work: Callable[[], Any]) -> int:
    """The most bytes ``work`` held at once, beyond what was held before it."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def boxes(mask: Any, high: int, wide: int, *, grow: bool) -> Any:
    """``fits`` by its definition, box by box."""
    rows, columns = mask.shape
    corners = np.zeros(mask.shape, dtype=bool)
    for y in range(rows - high + 1):
        for x in range(columns - wide + 1):
            corners[y, x] = mask[y : y + high, x : x + wide].all()
    if not grow:
        return corners
    grown = np.zeros(mask.shape, dtype=bool)
    for y in range(rows):
        for x in range(columns):
            grown[y, x] = mask[max(0, y - high + 1) : y + 1, max(0, x - wide + 1) : x + 1].any()
    return grown


@pytest.mark.parametrize("grow", [False, True])
def test_boxes_of_ink_are_found_where_they_fit_whole(grow: bool) -> None:
    rng = np.random.default_rng(7)
    for _ in range(150):
        rows, columns = (int(n) for n in rng.integers(1, 24, 2))
        high, wide = (int(n) for n in rng.integers(1, 28, 2))
        mask = rng.random((rows, columns)) < rng.choice([0.5, 0.9, 0.98])
        assert (fits(mask, high, wide, grow=grow) == boxes(mask, high, wide, grow=grow)).all()


@pytest.mark.parametrize("grow", [False, True])
def test_finding_blocks_of_ink_on_a_screen_holds_a_few_bytes_a_pixel(grow: bool) -> None:
    mask = np.random.default_rng(3).random(SCREEN) < 0.9
    held = most_held(lambda: fits(mask, 9, 9, grow=grow))
    assert held <= 4 * mask.size


def test_a_screen_s_colour_off_the_paper_is_measured_in_a_few_bytes_a_pixel() -> None:
    rng = np.random.default_rng(5)
    paper = (30, 200, 250)
    # The paper, with one pixel in ten of any colour: text, no bar.
    pixels = np.empty((*SCREEN, 3), dtype=np.uint8)
    pixels[...] = paper
    inked = rng.random(SCREEN) < 0.1
    pixels[inked] = rng.integers(0, 256, (int(inked.sum()), 3), dtype=np.uint8)
    screen = Image.fromarray(pixels, "RGB")
    off = off_paper(screen, paper)
    # Where any channel is further from the paper's than PAPER; no bar here.
    apart = np.abs(pixels.astype(np.int16) - np.array(paper, dtype=np.int16)).max(axis=2)
    assert (off == (apart > PAPER)).all()
    assert most_held(lambda: off_paper(screen, paper)) <= 8 * SCREEN[0] * SCREEN[1]


def test_a_screen_s_outlines_are_found_in_a_few_bytes_a_pixel() -> None:
    rng = np.random.default_rng(9)
    # Blocks of a few colours, as segments and text draw them.
    pixels = (rng.integers(0, 4, (*SCREEN, 3), dtype=np.uint8) * 85).astype(np.uint8)
    screen = Image.fromarray(pixels, "RGB")
    found = np.asarray(edges(screen))
    # Dark where any channel differs by more than INK from the pixel left or above.
    wide = pixels.astype(np.int16)
    step = np.zeros(SCREEN, dtype=np.int16)
    step[:, 1:] = np.abs(wide[:, 1:] - wide[:, :-1]).max(axis=2)
    step[1:] = np.maximum(step[1:], np.abs(wide[1:] - wide[:-1]).max(axis=2))
    assert (found == np.where(step > INK, 0, 255)).all()
    assert most_held(lambda: edges(screen)) <= 8 * SCREEN[0] * SCREEN[1]
