"""Whether a planted value's pixels are kept from agents, by the boxes the
drawing program gives (bench/redact_formats.py ``--real`` calls this).

A client shows lines (bench/redact_real.py's ``SHOWN``); its window is
grabbed by Noru's capturer, kept by the store's writer, read by the engine
as the app's OCR child reads it and served as agents get it
(tests/served_terminal.py's ``stored_and_seen``: ``for_agent``, the boxes
``noru.present.pixels.fill`` fills). Where each character was drawn comes
from the program that drew it, never from what the engine found:

- a terminal: its grid, the cell size and padding it gives the window
  manager (``Client.cell``) and its rows (``Client.lines``), each character
  its cells (two for a wide one);
- a page: the browser's own layout, each character's DOM Range client rect,
  which the page posts once drawn and after each resize, put in the window
  by where the viewport is; the page grabbed again while a newer layout
  comes (``tests.page_layout.as_laid_out``: Chromium's bar about its
  ``--no-sandbox`` may show after the page's first layout and push the page
  two rows down).

A value's ink: the pixels of its characters' boxes in the image as grabbed
that differ from the background (the commonest colour of the boxes' area)
by at least ``tests.drawn_ink.INK`` in some channel (a quarter of the range: the faint rim
anti-aliasing leaves around a glyph shows nothing of it). A pixel is left
when no filled box covers it. ``Ink.caught``: none of the value's ink is
left, the strict definition (a sliver of one glyph's edge counts);
``Ink.unreadable``: none of its characters keeps more than a quarter of
its ink, the looser one (what is left of each glyph is too little to tell
it); ``Ink.legible`` shows which characters keep at least half their ink,
printed for each value whose pixels are not all filled.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from tests.drawn_ink import commonest, ink
from tests.page_layout import Layouts, as_laid_out
from tests.page_layout import drawn as page_drawn
from tests.real_clients import Client
from tests.served_terminal import stored_and_seen
from tests.terminal_shown import cell_width, xterm_screen
from tests.xserver import XServer

from noru.capture import Capturer
from noru.capture.base import Grab
from noru.geometry import Rect
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL, fill
from noru.redact.apply import replaced
from noru.redact.rules import DEFAULT_CATEGORIES
from noru.redact.wrap import find_written
from redact_real import Opener

PAGES = ("firefox", "chromium")
MARGIN = 4  # rows above and below a line's boxes where its ink would show they are off


@dataclass(frozen=True)
class Seen:
    """A screen of lines as read and as served, and where each was drawn."""

    read: list[str]  # the lines the engine read
    text: str  # each row's findings replaced, its rows joined where wrapped to search
    agent: str  # the text agents get (``for_agent``)
    drawn: dict[str, list[Rect]]  # each shown line: its characters' boxes in the grab
    taken: np.ndarray  # the grab (RGB)
    covered: np.ndarray  # where a box was filled (bool)


def _grid(client: Client, columns: int, rows: int) -> tuple[int, int, int, int]:
    """A terminal's cell width and height and the padding left of and above
    its cells: as it tells the window manager, else (kitty, which tells
    none) its window made ``columns`` x ``rows`` cells (its
    ``initial_window_width`` in cells), what is over centred."""
    try:
        return client.cell
    except RuntimeError:
        _, _, w, h = client.rect
        return w // columns, h // rows, w % columns // 2, h % rows // 2


def _terminal(client: Client, lines: Sequence[str], columns: int) -> dict[str, list[Rect]]:
    """Each line's characters' cells, in the window: its grid
    (bench/redact_real.py's ``SHOWN`` asks for 150 columns and two rows more
    than the lines; ``wrapping`` for ``columns`` and two rows more than the
    lines take wrapped there), a line longer than a row over the rows it
    wraps to (``tests.terminal_shown.xterm_screen``)."""
    rows = list(client.lines)
    width, height, left, top = _grid(client, columns, len(rows) + 2)
    drawn: dict[str, list[Rect]] = {}
    at = 0
    for line in lines:
        parts = xterm_screen([line], columns=columns, rows=10**6) or [""]
        row = rows.index(parts[0], at)
        at = row + len(parts)
        boxes = []
        for n, part in enumerate(parts):
            column = 0
            for char in part:
                span = cell_width(char)
                boxes.append(
                    (left + column * width, top + (row + n) * height, span * width, height)
                )
                column += span
        drawn[line] = boxes
    return drawn


def shown_and_seen(
    server: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    opener: Opener,
    lines: list[str],
    home: Path,
    pages: Layouts,
    columns: int = 150,
) -> Seen:
    """``lines`` shown by a real client, its window grabbed, kept in the
    store at ``home``, read and served as agents get it; with where the
    client drew each line's characters (a terminal ``columns`` wide)."""
    pages.clear()
    with opener(server, lines, layout=pages.url) as client:
        client.bring_under_pointer()
        if client.kind in PAGES:
            grab, drawn = _page_as_laid_out(client, capturer, pages)
        else:
            (grab,) = capturer.grab_window("pointer")
            drawn = _terminal(client, lines, columns)
    stored, seen, (picture,) = stored_and_seen(home, engine, [grab])
    ((*boxes,),) = seen.boxes
    mask = fill(Image.new("RGB", picture.size, (255, 255, 255)), boxes)
    covered = (np.asarray(mask) == np.array(FILL, dtype=np.uint8)).all(axis=2)
    (image,) = stored.images
    # Chromium's own bar over the page (run as root, it has no sandbox): not
    # the page, and its ``--no-sandbox`` holds 8 characters of a Plaid token.
    rows = [r for r in image.ocr_lines or () if "unsupported command-line flag" not in r.text]
    read = [line.text for line in rows]
    # Each line's findings, its rows joined where the terminal wrapped it.
    found, _ = find_written(rows, DEFAULT_CATEGORIES)
    text = "\n".join(replaced(t, f) if f else t for t, f in zip(read, found, strict=True))
    (agent_image,) = seen.record.images
    agent = "\n".join(
        t for t in (line.text for line in agent_image.ocr_lines or ())
        if "unsupported command-line flag" not in t
    )  # fmt: skip
    return Seen(read, text, agent, drawn, np.asarray(picture), covered)


# The least share of a page's rows' ink its layout's boxes hold in a grab
# that shows that layout (98 % over a run; a layout posted late, the page
# moved since, holds less), and the grabs taken at most for one.
HELD_LEAST = 0.95
GRABS = 3


def _page_as_laid_out(
    client: Client, capturer: Capturer, pages: Layouts
) -> tuple[Grab, dict[str, list[Rect]]]:
    """A page's grab and its characters' boxes, grabbed again (up to
    ``GRABS`` times, a newer layout awaited) while its boxes hold less
    than ``HELD_LEAST`` of its rows' ink: under load, Chromium's bar may
    push the page down after the grab's layout came, the layout of that
    moved later than ``page_layout.SETTLE``."""
    for tries in range(GRABS):
        (grab,), layout = as_laid_out(pages, lambda: capturer.grab_window("pointer"))
        drawn = page_drawn(client, layout)
        inside, inked = _held(np.asarray(grab.image.convert("RGB")), drawn)
        share = inside / inked if inked else 0.0
        if share >= HELD_LEAST or tries == GRABS - 1:
            return grab, drawn
        print(
            f"  ... {client.kind}: its boxes hold {share:.1%} of its ink; grabbed again",
            file=sys.stderr,
            flush=True,
        )
        pages.got.put(pages.newest(5.0) or layout)  # the newest, or the same again
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Ink:
    """A value's ink, and how much of it each character keeps as drawn."""

    chars: list[tuple[int, int]]  # each character: ink pixels, of them left

    @property
    def caught(self) -> bool:
        return not any(left for _, left in self.chars)

    @property
    def unreadable(self) -> bool:
        """No character keeps more than a quarter of its ink as drawn."""
        return not any(4 * left > ink for ink, left in self.chars)

    @property
    def left(self) -> int:
        return sum(left for _, left in self.chars)

    @property
    def ink(self) -> int:
        return sum(ink for ink, _ in self.chars)

    def where(self) -> str:
        """Which characters keep ink, and how many pixels: ``#0: 1, #22: 2``."""
        return ", ".join(f"#{i}: {left}" for i, (_, left) in enumerate(self.chars) if left)

    def legible(self, value: str) -> str:
        """The value, each character that keeps under half its ink as ``·``."""
        return "".join(
            char if ink and 2 * left >= ink else "·"
            for char, (ink, left) in zip(value, self.chars, strict=True)
        )


def ink_of(seen: Seen, line: str, value: str) -> Ink | None:
    """``value``'s ink in ``line`` as drawn, and what of it was left; None
    when the drawing program gave no place for it."""
    boxes = seen.drawn.get(line)
    start = line.find(value)
    if boxes is None or start < 0 or len(boxes) != len(line):
        return None
    mine = boxes[start : start + len(value)]
    height, width = seen.covered.shape
    x0 = max(0, min(x for x, _, _, _ in mine))
    y0 = max(0, min(y for _, y, _, _ in mine))
    x1 = min(width, max(x + w for x, _, w, _ in mine))
    y1 = min(height, max(y + h for _, y, _, h in mine))
    area = seen.taken[y0:y1, x0:x1].reshape(-1, 3)
    if not len(area):
        return None
    background = commonest(area)
    chars = []
    for x, y, w, h in mine:
        a, b = max(0, x), max(0, y)
        pixels = seen.taken[b : y + h, a : x + w]
        inked = ink(pixels, background) if pixels.size else pixels
        left = inked & ~seen.covered[b : y + h, a : x + w] if pixels.size else inked
        chars.append((int(inked.sum()), int(left.sum())))
    return Ink(chars)


def held(seen: Seen) -> tuple[int, int]:
    """How well the drawing program's boxes sit on what was drawn: of the
    ink in the shown lines' rows (``MARGIN`` more above and below each,
    across the window), the pixels inside their characters' boxes, and all
    of them (a window's border, beside the rows, is counted outside)."""
    return _held(seen.taken, seen.drawn)


def _held(taken: np.ndarray, drawn: dict[str, list[Rect]]) -> tuple[int, int]:
    height, width = taken.shape[:2]
    rows = np.zeros(height, dtype=bool)
    mine = np.zeros((height, width), dtype=bool)
    for boxes in drawn.values():
        for x, y, w, h in boxes:
            rows[max(0, y - MARGIN) : max(0, y + h + MARGIN)] = True
            mine[max(0, y) : max(0, y + h), max(0, x) : max(0, x + w)] = True
    area = taken[rows]
    if not area.size:
        return 0, 0
    inked = ink(area, commonest(area))
    return int((inked & mine[rows]).sum()), int(inked.sum())
