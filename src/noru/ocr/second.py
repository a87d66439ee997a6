"""A second opinion on the lines Tesseract cannot read: text in a script its
English model has no letters for (Chinese, Japanese, Korean).

Tesseract with English data reads a CJK file name as Latin letters
(``数据库连接超时`` as ``dBi # AY``) with a low confidence. RapidOCR's
model reads Chinese and Latin text. A line served under ``DOUBT`` is read
again by RapidOCR's recogniser in its own box (no detection: the line is
found); where RapidOCR finds characters of those
scripts in it (``WIDE``, at least ``LEAST_WIDE`` different ones), its reading is the line's
text. Its confidence is then the chance that RapidOCR's reading is right,
cell by cell (``MISSES``, fitted like the terminal reader's): a line read
again is named unsure as often as such lines are wrong.

Nothing else changes: a line Tesseract read with confidence, or one
RapidOCR reads in Latin letters only, is served as Tesseract read it. The
recogniser is loaded on the first line that needs it (tens of MB), only
when the package is installed (``pip install noru[rapidocr]``), and let go
after ``IDLE`` seconds unused; what it read is kept by the line's pixels.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noru.errors import OcrError
from noru.geometry import Rect
from noru.ocr.base import OcrLine
from noru.ocr.memo import Memo

if TYPE_CHECKING:
    from PIL import Image

    from noru.ocr.rapid import RapidEngine

__all__ = ["DOUBT", "SecondOpinion", "spaced", "wide_letters"]

# Lines served under this confidence are read again, when their box is at
# least LEAST_ASPECT times as wide as high and the first reading has at
# least LEAST_CHARACTERS characters (two CJK letters read as Latin ones).
DOUBT = 0.7
LEAST_ASPECT = 3
LEAST_CHARACTERS = 3
# CJK radicals, kana and ideographs, Hangul syllables: letters of scripts
# the English model has none of (not CJK punctuation or full-width forms,
# which RapidOCR also gives for Latin text).
WIDE = re.compile("[\u2e80-\u2fdf\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
LEAST_WIDE = 2
# The chance that a cell read again is wrong: in a grid row's run of cells
# its font did not explain, and in a line read again whole (whose spaces
# RapidOCR closes up and ``spaced`` puts back). A line read again is as sure
# as these make it. Fitted on the training part of the terminal corpus
# (bench/ocr_calibrate.py).
MISSES = {"run": 0.0079, "line": 0.071}
# Around a line's box, this share of its height (at least MARGIN_LEAST px):
# the recogniser reads a line best with some of its background around it.
MARGIN = 0.25
MARGIN_LEAST = 4
# At most this many lines are read again in one look, and this many
# readings are kept by their pixels.
MOST_LINES = 40
KEPT = 512
# RapidOCR's recogniser (tens of MB) is let go after this long unused: the
# app at rest holds only Tesseract.
IDLE = 30.0


class SecondOpinion:
    """RapidOCR's recogniser, loaded when first needed and let go when
    ``IDLE`` seconds pass unused, reading again the lines another engine
    was unsure of. Thread-safe; ``close`` frees its model."""

    def __init__(self, *, idle: float = IDLE) -> None:
        self.idle = idle
        self._lock = threading.Lock()
        self._engine: RapidEngine | None = None
        self._unavailable = False
        self._used = 0.0  # monotonic time the engine last read
        self._timer: threading.Timer | None = None
        self._kept = Memo(most=KEPT)  # what lines read, by their pixels

    @property
    def loaded(self) -> bool:
        """Whether RapidOCR's model is in memory now."""
        return self._engine is not None

    def revise(self, image: Image.Image, lines: Sequence[OcrLine]) -> list[OcrLine]:
        """``lines`` (read in ``image``), each unsure one in a script the
        first engine cannot read replaced by RapidOCR's reading of it."""
        doubtful = [i for i, line in enumerate(lines) if _doubtful(line)]
        if not doubtful:
            return list(lines)
        revised = list(lines)
        with self._lock:
            for i in doubtful[:MOST_LINES]:
                line = lines[i]
                if line.unexplained:
                    runs = self._read_runs(image, line)
                    if runs is not None:
                        text, factor = runs
                        confidence = line.confidence * factor
                        revised[i] = dataclasses.replace(line, text=text, confidence=confidence)
                    continue
                if wide_letters(line.text) >= LEAST_WIDE:
                    continue  # its wide letters were read by their drawings
                read = self._read(image, line.box)
                if read is not None and wide_letters(read) >= LEAST_WIDE:
                    whole = spaced(line.text, read)
                    confidence = (1.0 - MISSES["line"]) ** cells(whole)
                    revised[i] = dataclasses.replace(line, text=whole, confidence=confidence)
        return revised

    def _read_runs(self, image: Image.Image, line: OcrLine) -> tuple[str, float] | None:
        """A grid row's text with each run of cells its font did not explain
        read again on its own, where RapidOCR reads letters of a wide script
        there that fill the run's cells; the cells the font explained stay as
        they are. With it, what the line's confidence is multiplied by: each
        run read again has the chance of a run so read (``MISSES``) in place
        of its chance as first decided. None when no run is so read."""
        text = line.text
        first = len(text) - len(text.lstrip(" "))
        x, y, w, h = line.box
        # Columns, not characters: a wide letter already read takes two.
        width = w / max(1, cells(text) - first)
        pieces: dict[int, tuple[int, str]] = {}
        factor = 1.0
        for a, b, was in line.unexplained:
            left = x + round((a - first) * width)
            right = x + round((b + 1 - first) * width)
            read = self._read(image, (left, y, right - left, h), alone=True)
            if read is None:
                continue
            fitted = fitting(read.strip(), b + 1 - a)
            if fitted is not None and WIDE.search(fitted):
                pieces[a] = (b, fitted)
                factor *= (1.0 - MISSES["run"]) ** (b + 1 - a) / max(was, 1e-9)
        if not pieces:
            return None
        out: list[str] = []
        column = index = 0
        while index < len(text):
            if column in pieces:
                last, piece = pieces[column]
                out.append(piece)
                while index < len(text) and column <= last:
                    column += cells(text[index])
                    index += 1
            else:
                out.append(text[index])
                column += cells(text[index])
                index += 1
        return "".join(out), factor

    def _read(self, image: Image.Image, where: Rect, *, alone: bool = False) -> str | None:
        """The text RapidOCR reads at ``where`` with a margin around it: the
        image's own pixels, or (``alone``) its paper, so that no neighbour's
        ink is read with it."""
        x, y, w, h = where
        margin = max(MARGIN_LEAST, round(h * MARGIN))
        if alone:
            from PIL import ImageOps

            piece = image.crop((x, y, x + w, y + h)).convert("RGB")
            counted = piece.getcolors(max(1, w * h)) or []
            paper = max(counted, key=lambda pair: pair[0])[1] if counted else (255, 255, 255)
            piece = ImageOps.expand(piece, margin, fill=paper)  # type: ignore[arg-type]
        else:
            box = (max(0, x - margin), max(0, y - margin), x + w + margin, y + h + margin)
            piece = image.crop(box).convert("RGB")
        key = Memo.pixels_key(piece, "rapidocr line")
        whole = (0, 0, piece.width, piece.height)
        kept = self._kept.recall(key, whole)
        if kept is not None:
            return kept[0].text
        engine = self._load()
        if engine is None:
            return None
        text, score = engine.read_line(piece)
        self._used = time.monotonic()
        self._kept.keep(key, whole, [OcrLine(text, whole, score)])
        return text

    def _load(self) -> RapidEngine | None:
        if self._engine is None and not self._unavailable:
            from noru.ocr.rapid import RapidEngine

            try:
                self._engine = RapidEngine(lines_only=True)
            except OcrError:
                self._unavailable = True  # not installed: the first reading stands
                return None
            self._timer_after(self.idle)
        return self._engine

    def _timer_after(self, delay: float) -> None:
        self._timer = threading.Timer(delay, self._let_go)
        self._timer.daemon = True
        self._timer.start()

    def _let_go(self) -> None:
        """Free the model when it sat unused for ``idle`` seconds; else look
        again when it will have."""
        with self._lock:
            self._timer = None
            if self._engine is None:
                return
            left = self._used + self.idle - time.monotonic()
            if left > 0:
                self._timer_after(left)
                return
            self._engine.close()
            self._engine = None

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._engine is not None:
                self._engine.close()
                self._engine = None
            self._kept = Memo(most=KEPT)


def _doubtful(line: OcrLine) -> bool:
    """Whether ``line`` is read again: unsure, and long enough to hold two
    CJK letters (a window's title-bar buttons read as ``[x`` are not)."""
    _, _, w, h = line.box
    return (
        line.confidence < DOUBT
        and w >= LEAST_ASPECT * h
        and len("".join(line.text.split())) >= LEAST_CHARACTERS
    )


def wide_letters(text: str) -> int:
    """How many different CJK letters ``text`` holds: one repeated is no
    script but a row of marks the recogniser took for one (``^^^^`` read as
    ``ヘヘヘヘ``)."""
    return len(set(WIDE.findall(text)))


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes: two for a wide or full-width
    character, none for a combining mark, one for any other."""
    import unicodedata

    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def fitting(text: str, run: int) -> str | None:
    """``text`` as it fills ``run`` cells: as read, or with its full-width
    forms of ASCII as ASCII (RapidOCR reads ``:`` beside CJK letters as
    ``：``); None when neither fills them."""
    if cells(text) == run:
        return text
    narrow = "".join(chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else c for c in text)
    return narrow if cells(narrow) == run else None


def spaced(first: str, second: str) -> str:
    """``second`` with the spaces ``first`` has between two characters that
    ``second`` reads side by side: RapidOCR closes up the gaps Tesseract
    keeps (``406:47:28.120WARN[`` for ``4 06:47:28.120 WARN [``). The two
    are aligned by their NFKC forms, so a full-width ``（`` lines up with
    ``(``; ``second``'s characters are kept."""
    import difflib
    import unicodedata

    def plain(text: str) -> str:
        # One character for one: NFKC of a character may be several.
        return "".join((unicodedata.normalize("NFKC", c) or c)[:1] for c in text)

    matcher = difflib.SequenceMatcher(None, plain(first), plain(second), autojunk=False)
    out: list[str] = []
    agreed = False  # whether what came last both read alike
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        gap, piece = first[i1:i2], second[j1:j2]
        if tag == "equal" or not gap:
            out.append(piece)
            agreed = tag == "equal" and not piece.endswith(" ")
            continue
        after = second[j2 : j2 + 1]
        if not gap.strip():
            # Only spaces where ``second`` reads nothing (or something else):
            # ``first``'s run of them, a terminal's aligned gap whole.
            if agreed and after not in ("", " "):
                piece = gap + piece.strip(" ")
            out.append(piece)
            agreed = False
            continue
        # A space leading what the two read differently, after a character
        # both read, is a gap on the screen (``] 新增``). Not one ending it:
        # where the first reader misread a script, its spaces fall anywhere.
        if gap[0] == " " and agreed and not piece.startswith(" "):
            piece = " " + piece
        out.append(piece)
        agreed = False
    return "".join(out)
