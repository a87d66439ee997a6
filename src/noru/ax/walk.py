"""Walking one window's accessibility tree: what each node is, says and covers.

The walk asks as little as it can, and as much at once as the cap allows:

1. of every node, its role, state set and extents in screen coordinates,
   together. A node with a secret's role (``atspi.SECRET_ROLES``) is left
   there, and its subtree with it: nothing else is asked of it. So is a node
   that is not showing, or whose extents lie outside the grabbed rectangle
   (extents of no size say nothing, and do not prune);
2. of a node kept, its children and its text (``GetText(0, -1)``: -1 is the
   end of the text for every toolkit, one call instead of ``CharacterCount``
   then ``GetText``), and its name when its role shows the name as text
   (``atspi.NAMED_ROLES``), or, for a label, when it has no Text (Qt's);
   then its children, all at once.
3. of a text of several lines, where each line is (``GetRangeExtents``), so
   lines scrolled out of the node's view are dropped. A long text first asks
   which characters are at the view's corners (``GetOffsetAtPoint``) and
   places only the lines between them.

Every node gathered is a ``Node`` in ``Walk.nodes``; the walk stops taking
nodes at ``MAX_NODES`` (``capped``). A document in which a node shows but
has no extents (the document itself included), or whose children give no
text, is one its application may still be building (Firefox makes a page's
nodes on the first request, and they are placeholders for a moment, then
nodes whose text comes a moment later): ``unready`` says so.
Cancelling the walk leaves what it gathered until then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from noru.ax import atspi
from noru.ax.bus import Calls
from noru.geometry import Rect, clip, intersects

__all__ = ["MAX_NODES", "Node", "Walk", "box_of"]

# More nodes than any window shows; a tree this big is read in part.
MAX_NODES = 5000

# A text of more lines than this asks which of them are in view before
# asking where each is.
_FEW_LINES = 8

# U+FFFC stands in a hypertext's text for each embedded child (a link in a
# paragraph): the child is a node of its own, read on its own.
_EMBEDDED = "\ufffc"


@dataclass
class Node:
    """A node the walk kept: ``parent`` is the index of its parent in
    ``Walk.nodes`` (-1 for the window's own children); ``box`` its extents,
    or its nearest ancestor's when its own say nothing; ``lines`` its text,
    line by line, each with its place (None: the node's box); ``name`` its
    name when its role shows it and it has no text."""

    parent: int
    role: int
    box: Rect
    lines: list[tuple[str, Rect | None]]
    name: str | None


def box_of(extents: Any) -> Rect | None:
    """Extents ``(x, y, w, h)`` as a Rect, or None when they say nothing
    (no size, or not four numbers)."""
    if not isinstance(extents, Sequence) or len(extents) != 4:
        return None
    x, y, w, h = (int(v) for v in extents)
    if w <= 0 or h <= 0:
        return None
    return (x, y, w, h)


class Walk:
    """The nodes of one window inside ``rect``, gathered with ``calls``."""

    def __init__(self, calls: Calls, rect: Rect) -> None:
        self.calls = calls
        self.rect = rect
        self.nodes: list[Node] = []
        self.visited = 0
        self.capped = False
        self.unready = False

    async def children(self, name: str, path: str, parent: int, around: Rect) -> None:
        """Walk the children of the node at ``name``/``path`` (the window)."""
        found = await self.calls.call(name, path, atspi.ACCESSIBLE, "GetChildren")
        await self._all(found, parent, around)

    async def _all(
        self, children: Any, parent: int, around: Rect, *, document: bool = False
    ) -> None:
        if not children:
            return
        await asyncio.gather(
            *(
                self.node(str(child[0]), str(child[1]), parent, around, document=document)
                for child in children
            )
        )

    async def node(
        self, name: str, path: str, parent: int, around: Rect, *, document: bool = False
    ) -> None:
        """Walk the node at ``name``/``path`` and what is below it; ``document``:
        it lies in a document."""
        if self.visited >= MAX_NODES:
            self.capped = True
            return
        self.visited += 1
        call = self.calls.call
        role, state, extents = await asyncio.gather(
            call(name, path, atspi.ACCESSIBLE, "GetRole"),
            call(name, path, atspi.ACCESSIBLE, "GetState"),
            call(name, path, atspi.COMPONENT, "GetExtents", "u", (atspi.COORD_SCREEN,)),
        )
        if not isinstance(role, int) or not isinstance(state, list):
            return  # gone, or not an accessible
        if role in atspi.SECRET_ROLES:
            return
        bits = atspi.states(state)
        if not bits >> atspi.STATE_SHOWING & 1 or bits >> atspi.STATE_DEFUNCT & 1:
            return
        own = box_of(extents)
        if own is not None and not intersects(own, self.rect):
            return
        document = document or role in atspi.DOCUMENT_ROLES
        if own is None and document:
            self.unready = True
        box = own or around
        asks = [
            call(name, path, atspi.ACCESSIBLE, "GetChildren"),
            call(name, path, atspi.TEXT, "GetText", "ii", (0, -1)),
        ]
        if role in atspi.NAMED_ROLES:
            asks.append(call(name, path, atspi.PROPERTIES, "Get", "ss", (atspi.ACCESSIBLE, "Name")))
        children, text, *label = await asyncio.gather(*asks)
        if text is None and role in atspi.LABEL_ROLES:
            label = [
                await call(name, path, atspi.PROPERTIES, "Get", "ss", (atspi.ACCESSIBLE, "Name"))
            ]
        lines = await self._lines(name, path, text, box) if isinstance(text, str) else []
        named = label[0] if label and isinstance(label[0], str) and not lines else None
        index = len(self.nodes)
        self.nodes.append(Node(parent, role, box, lines, named.strip() if named else None))
        await self._all(children, index, box, document=document)
        if role in atspi.DOCUMENT_ROLES and children and not self._gave_text(index):
            self.unready = True

    def _gave_text(self, index: int) -> bool:
        """Whether a node below ``self.nodes[index]`` has a line or a name."""
        nodes = self.nodes
        for node in nodes[index + 1 :]:
            if not (node.lines or node.name):
                continue
            above = node.parent
            while above > index:  # parents come before their children
                above = nodes[above].parent
            if above == index:
                return True
        return False

    async def _lines(
        self, name: str, path: str, text: str, box: Rect
    ) -> list[tuple[str, Rect | None]]:
        """The node's text line by line, each with its place when there are several."""
        # (offset of the line in the text, its length, its words)
        pieces: list[tuple[int, int, str]] = []
        offset = 0
        for raw in text.split("\n"):
            line = raw.replace(_EMBEDDED, "").strip()
            if line:
                pieces.append((offset, len(raw), line))
            offset += len(raw) + 1
        if len(pieces) <= 1:
            return [(line, None) for _, _, line in pieces]
        view = clip(box, self.rect) or box
        call = self.calls.call
        if len(pieces) > _FEW_LINES:
            first, last = await asyncio.gather(
                call(name, path, atspi.TEXT, "GetOffsetAtPoint", "iiu", (view[0], view[1], 0)),
                call(
                    name,
                    path,
                    atspi.TEXT,
                    "GetOffsetAtPoint",
                    "iiu",
                    (view[0] + view[2] - 1, view[1] + view[3] - 1, 0),
                ),
            )
            if isinstance(first, int) and isinstance(last, int) and 0 <= first <= last:
                pieces = [p for p in pieces if p[0] <= last and p[0] + p[1] >= first]
        places = await asyncio.gather(
            *(
                call(
                    name,
                    path,
                    atspi.TEXT,
                    "GetRangeExtents",
                    "iiu",
                    (at, at + length, atspi.COORD_SCREEN),
                )
                for at, length, _ in pieces
            )
        )
        kept: list[tuple[str, Rect | None]] = []
        for (_, _, line), place in zip(pieces, places, strict=True):
            where = box_of(place)
            if where is not None and not intersects(where, view):
                continue  # scrolled out of the node's view
            kept.append((line, where))
        return kept
