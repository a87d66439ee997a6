"""Pixels follow what could not be read: lines too uncertain to check,
beside secrets, are filled whole.

Redaction finds secrets in the text the screen was read as, so where the
text is misread the secret is not found and its pixels are served: a
highlighted token read as ``ff oA TSE ESR ere``, an ``_`` read as a space
in a label, a space read inside a token. The text layer says how sure it is
of each line (``OcrLine.confidence``): a terminal's row read on its grid
(its grid's width recorded) has the calibrated chance that it is exact
(``noru.ocr.terminal_confidence.chance``), and a line below ``UNSURE`` is more likely
misread than not. A row of a terminal's grid that the grid reader left to
the engine's layout (a highlighted row: it lies on the grid's rows, its
width not recorded) has the engine's own confidence, which is not that
chance: a token read with spaces inside (``ghp_6pyuge TySnPhpSw6VV¥vpJ
Juh66377…``) comes back at 0.6. Such a row is unsure below
``UNSURE_ENGINE``. An unsure line is filled whole
(``unsure``), its text served as ``[redacted: unsure]`` (its indentation
kept), where it lies beside what a secret is found in or looks like:

- a secret found in it, in the line just before or just after it, or in
  the rows of the line it was wrapped from (``noru.redact.wrap``);
- a label of a secret (``token``, ``password``, ``secret``, ``key``, ...,
  before a value's ``:`` or ``=``; or ``Bearer``) in it or in the line
  before it (a value under its label);
- a key-like word in it: ``KEY_LIKE`` characters or more of a token's
  alphabet with upper and lower case letters and digits (a key misread
  stays key-like; a path, a hash or a name of the code is not: a slash
  in ten characters at most).

An uncertain line elsewhere is served as read: most misread lines are
ordinary text, and filling them all would hide what the screen shows. What
it costs on ordinary screens is measured by bench/redact_unsure.py.

The engine's layout may also lose a row altogether (a highlighted row in
xterm's bitmap font, and the row above it): no line, so no box. Where a
line filled as unsure has, between it and the line above or below it, a
gap of ``LOST_ROW`` of its height or more with no line read, that gap is
filled too, across the filled line's width (``lost_rows``): what stood
there beside a secret could not be read at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from noru.geometry import Rect
from noru.redact.detect import Finding
from noru.redact.shapes import all_classes
from noru.store import OcrLine

__all__ = [
    "KEY_LIKE",
    "LOST_ROW",
    "UNSURE",
    "UNSURE_ENGINE",
    "UNSURE_KIND",
    "key_like",
    "lost_rows",
    "unsure",
]

# A grid's row whose (calibrated) confidence is below this is more likely
# misread than not.
UNSURE = 0.5
# A grid's row the engine's layout read (its own confidence) is unsure below this.
UNSURE_ENGINE = 0.8
# What an unsure line's text is served as: ``[redacted: unsure]``.
UNSURE_KIND = "unsure"
# A gap between a line filled as unsure and the next line read, in that
# line's heights, that is a lost row (``lost_rows``).
LOST_ROW = 0.8
# A word of at least this many characters of a token's alphabet, with
# upper and lower case letters and digits, looks like a key (a path, a
# hash, a name of the code has not all three, or is cut by its dots).
KEY_LIKE = 20
# A secret's label as a label: its name (in a longer word: ``DB_PASSWORD``,
# ``apiKey``) before a value's separator, or a credential's scheme. A name
# inside a path or a type (``token_user.py``, ``FileToken``) is no label.
_LABEL = re.compile(
    r"(?:pass(?:word|wd|phrase)|pwd|secret|token|credential|(?<![a-z])(?:auth|key)|api[_-]?key)"
    r"[A-Za-z0-9_-]*[\"']?\s*(?::|=|=>)|\b(?:bearer|basic)\s",
    re.IGNORECASE,
)
_WORD = re.compile(rf"[A-Za-z0-9+/=_\-]{{{KEY_LIKE},}}")


def key_like(text: str) -> bool:
    """Whether ``text`` holds a key-like word (the module's doc)."""
    return any(
        all_classes(word) and word.count("/") * 10 <= len(word) for word in _WORD.findall(text)
    )


def unsure(
    lines: Sequence[OcrLine],
    found: Sequence[Sequence[Finding]],
    groups: Sequence[Sequence[int]],
) -> set[int]:
    """Which of an image's ``lines`` (with what was ``found`` in each, and
    the rows each was wrapped over, ``groups``) are filled whole (the
    module's doc)."""
    left = _left_to_the_engine(lines)
    doubtful = [
        i
        for i, line in enumerate(lines)
        if line.confidence < (UNSURE_ENGINE if i in left else UNSURE)
    ]
    if not doubtful:
        return set()
    group_of = {i: group for group in groups for i in group}
    return {i for i in doubtful if _beside(lines, found, group_of.get(i, ()), i)}


def _left_to_the_engine(lines: Sequence[OcrLine]) -> set[int]:
    """The lines that lie on a terminal's grid, on one of its rows and from
    within its columns, without being read as its rows (their width not
    recorded): rows the grid reader left to the engine's layout."""
    grids = set()
    for line in lines:
        if line.columns is None:
            continue
        lead = len(line.text) - len(line.text.lstrip(" "))
        drawn = len(line.text) - lead
        if drawn <= 0 or line.box[2] % drawn:
            continue
        pitch = line.box[2] // drawn
        x0 = line.box[0] - lead * pitch
        grids.add((x0, x0 + line.columns * pitch, line.box[1] % line.box[3], line.box[3]))
    if not grids:
        return set()
    return {
        i
        for i, line in enumerate(lines)
        if line.columns is None
        and any(
            left <= line.box[0] < right and line.box[1] % height == phase and line.box[3] == height
            for left, right, phase, height in grids
        )
    }


def _beside(
    lines: Sequence[OcrLine], found: Sequence[Sequence[Finding]], rows: Sequence[int], i: int
) -> bool:
    """Whether line ``i`` lies beside a secret (the module's doc)."""
    if any(0 <= j < len(lines) and found[j] for j in (i - 1, i, i + 1, *rows)):
        return True
    label = _LABEL.search(lines[i].text) or (i and _LABEL.search(lines[i - 1].text))
    return bool(label) or key_like(lines[i].text)


def lost_rows(
    lines: Sequence[OcrLine], filled: set[int], frames: Sequence[Rect] = ()
) -> list[Rect]:
    """The gaps with no line read (``LOST_ROW`` of a line's height or more)
    between each line of ``filled`` and the nearest line above and below
    it that shares some of its width, with the line's own height: rows the
    engine lost, beside it. A lost row may be wider than the line read
    beside it: the gap is filled from the line's left to the right edge of
    the frame it lies in (of ``frames``: its window; none known, its own
    right edge)."""
    out: list[Rect] = []
    for i in sorted(filled):
        x, y, w, h = lines[i].box
        frame = next(
            (f for f in reversed(frames) if f[0] <= x < f[0] + f[2] and f[1] <= y < f[1] + f[3]),
            None,
        )
        w = max(w, frame[0] + frame[2] - x) if frame is not None else w
        beside = [
            line.box
            for j, line in enumerate(lines)
            if j != i
            and line.text.strip()
            and line.box[0] < x + w
            and x < line.box[0] + line.box[2]
        ]
        above = max((b[1] + b[3] for b in beside if b[1] + b[3] <= y), default=None)
        below = min((b[1] for b in beside if b[1] >= y + h), default=None)
        # With the line's own height: the lost row may reach into its box.
        if above is not None and y - above >= LOST_ROW * h:
            out.append((x, above, w, y + h - above))
        if below is not None and below - (y + h) >= LOST_ROW * h:
            out.append((x, y, w, below - y))
    return out
