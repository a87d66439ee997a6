"""A form's field and its label, read as two lines.

A settings dialog or a web form shows a key in a field with its label beside
it (``API key``, ``Client secret``) or above it, and no ``=`` nor ``:``
between. The engine reads a form's column of labels apart from its column
of fields, so the label and its field are two lines; and a field narrower
than its key shows only a part of it, scrolled to its end, its prefix (the
format's mark) out of view. Such a part is no format's, and alone it looks
like a commit id or a digest; beside a label that names a secret it is a
key's (``unlabelled.field_values``, run on the label and the field's line
put together). A line is a label here when it is short (a few words) and
ends in a secret's name; its field is the line to its right on the same
row, the nearest, or the line just under it that starts where it starts.
Terminal rows are left out: a terminal's row is read whole, label and
value together.
"""

from __future__ import annotations

from collections.abc import Sequence

from noru.redact.shapes import Finding
from noru.redact.unlabelled import FIELD_LABEL, field_values
from noru.store import OcrLine

__all__ = ["beside"]

# A label's words at most: a form's label, not a line of prose.
LABEL_WORDS = 5
# How far right of its label a field may start, in the label's heights (a
# form's column of fields lines up past its longest label).
ACROSS = 30
# How far under its label a field may start, in the field's heights, and how
# far left or right of it, in the label's.
UNDER = 1.5
ALIGNED = 2


def beside(lines: Sequence[OcrLine]) -> list[list[Finding]]:
    """Per line, the key a field shows whose label the engine read as a line
    of its own, to its left on its row or just above it (spans in the
    field's line)."""
    found: list[list[Finding]] = [[] for _ in lines]
    for n, label in enumerate(lines):
        text = label.text.strip().rstrip(":").rstrip()
        if label.columns is not None or not _a_label(text):
            continue
        field = _field_of(n, lines)
        if field is not None:
            found[field] += field_values(lines[field].text, text)
    return found


def _a_label(text: str) -> bool:
    """Whether ``text`` may be a form's label that names a secret: a few
    words, ending in a secret's name."""
    if not text or len(text.split()) > LABEL_WORDS:
        return False
    last = None
    for m in FIELD_LABEL.finditer(text + " x"):
        last = m
    return last is not None and last.end("name") == len(text)


def _field_of(n: int, lines: Sequence[OcrLine]) -> int | None:
    """The line that is label ``n``'s field: the nearest to its right on its
    row, else the one just under it, starting where it starts."""
    x, y, w, h = lines[n].box
    right, under = None, None
    for m, line in enumerate(lines):
        if m == n or line.columns is not None or not line.text.strip():
            continue
        fx, fy, _, fh = line.box
        row = abs((fy + fh / 2) - (y + h / 2)) <= max(h, fh) / 2
        if row and x + w <= fx + h / 2 and fx - (x + w) <= ACROSS * h:
            if right is None or fx < lines[right].box[0]:
                right = m
        elif (
            0 <= fy - (y + h) <= UNDER * fh
            and abs(fx - x) <= ALIGNED * h
            and (under is None or fy < lines[under].box[1])
        ):
            under = m
    return right if right is not None else under
