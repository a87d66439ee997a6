"""From the nodes a walk gathered to lines in reading order.

- A node's text gives its lines, each placed where the application says
  (a line of a several-line text) or at the node's box.
- A node whose role shows its name (a button, a tab, a menu item; a label
  without Text, as Qt's) and that has no text of its own gives its name as
  a line, unless a node below it
  already gives that text: a button whose label is a child of its own reads
  once, at the label's place.
- A name longer than its box could show (under ``NARROWEST`` px a
  character) is an icon's label, not text on screen: Firefox's toolbar
  names its buttons "View site information" on 28 px. A short name on an
  icon ("Back" on 42 px) still passes for text.
- A text line that a node below gives too reads once, from the node below
  (Chromium's heading holds its words, and so does the text inside it, in
  a tighter box).
- A line given twice at the same place (the same words, the same box) reads
  once.
- Boxes are cut to the grabbed rectangle; a line wholly outside it is dropped.
- Reading order is ``noru.geometry.order_boxes``: bands of rows top to
  bottom, left to right within a band, as the OCR engines order theirs.
"""

from __future__ import annotations

from collections.abc import Sequence

from noru.ax import atspi
from noru.ax.base import AxLine
from noru.ax.walk import Node
from noru.geometry import Rect, clip, order_boxes

__all__ = ["NARROWEST", "reading_lines"]

# The narrowest a character of a UI font is drawn, on average, in px.
NARROWEST = 5


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()


def reading_lines(nodes: Sequence[Node], rect: Rect) -> tuple[AxLine, ...]:
    below: list[list[int]] = [[] for _ in nodes]
    for index, node in enumerate(nodes):
        if node.parent >= 0:
            below[node.parent].append(index)

    def texts_under(index: int) -> set[str]:
        found: set[str] = set()
        stack = list(below[index])
        while stack:
            child = stack.pop()
            found.update(_words(line) for line, _ in nodes[child].lines)
            if nodes[child].name:
                found.add(_words(nodes[child].name or ""))
            stack += below[child]
        return found

    candidates: list[AxLine] = []
    for index, node in enumerate(nodes):
        role = atspi.role_name(node.role)
        under = texts_under(index) if below[index] and node.lines else set()
        for text, place in node.lines:
            if _words(text) not in under:
                candidates.append(AxLine(text, place or node.box, role))
        name = node.name
        if name and node.box[2] >= NARROWEST * len(name) and _words(name) not in texts_under(index):
            candidates.append(AxLine(name, node.box, role))

    seen: set[tuple[str, Rect]] = set()
    kept: list[AxLine] = []
    for line in candidates:
        box = clip(line.box, rect)
        if box is None or (line.text, box) in seen:
            continue
        seen.add((line.text, box))
        kept.append(AxLine(line.text, box, line.role))
    return tuple(kept[i] for i in order_boxes([line.box for line in kept]))
