"""The tour: every Noru tool called once by a scripted model, and what its
model must then have received.

A ``Step`` is one call the stand-in model makes and an ``Expect``ation of
the result as the client passed it on: the image (pixels decoded, the size
the label states), the header, words a real xterm showed, the person's
note, the closing ``prov:`` line, a steering tag with its ``Next:`` step.
``missing`` lists what of it did not arrive, in words, so a failing test
says what a client update stopped delivering.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

from PIL import Image

from tests.clients.standin import Call, Received

__all__ = ["Expect", "Step", "missing"]

_SERVED = re.compile(r"served at (\d+)x(\d+) px")
_ID = re.compile(r"capture_\d{4}-\d{2}-\d{2}_\d{6}(?:-\d+)?")


@dataclass(frozen=True)
class Expect:
    """What the model must have got of one answer. ``words`` must all be in
    its text; ``absent`` must not (text outside a region, say)."""

    image: bool = False
    header: bool = False
    words: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    note: str | None = None
    prov: bool = False
    tag: str | None = None  # a steering answer's first words
    next_step: bool = False
    ids: tuple[str, ...] = ()  # capture ids the text names (locator rows)


@dataclass(frozen=True)
class Step:
    label: str  # what the test is called after: the tool, and how
    call: Call
    expect: Expect = field(default_factory=Expect)


def _image_size(data: bytes) -> tuple[int, int] | None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except OSError:
        return None


def missing(step: Step, got: Received | None) -> list[str]:
    """What ``step`` expected that ``got`` (the model's copy of the result) lacks."""
    if got is None:
        return ["the result itself: the model got no result for this call"]
    want, text = step.expect, got.text
    lost: list[str] = []
    if want.image:
        sizes = [_image_size(data) for data in got.images]
        stated = [(int(w), int(h)) for w, h in _SERVED.findall(text)]
        if not got.images:
            lost.append("the image")
        elif None in sizes:
            lost.append("a decodable image (the image data does not decode)")
        elif stated and sizes[0] != stated[0]:
            # A client may scale it for its model; then it must say so.
            lost.append(f"the image at the served size {stated[0]} (got {sizes[0]})")
    if want.header and not re.search(r"^Noru capture capture_", text, re.MULTILINE):
        lost.append("the header (Noru capture <id> ...)")
    lost += [f"the on-screen words {word!r}" for word in want.words if word not in text]
    lost += [
        f"no text outside the region, but {word!r} came" for word in want.absent if word in text
    ]
    if want.note is not None and want.note not in text:
        lost.append(f"the person's note {want.note!r}")
    if want.prov and not re.search(r"^prov: ", text, re.MULTILINE):
        lost.append("the prov: line")
    if want.tag is not None:
        # A client may put its own lines first (Codex CLI's "Wall time", Gemini
        # CLI's <untrusted_context>): Noru's first line must be the tag's.
        first = next((line for line in text.splitlines() if line.startswith("Noru")), None)
        if first is None or not first.startswith(want.tag):
            lost.append(f"the steering tag {want.tag!r} first (got {first!r})")
    if want.next_step and not re.search(r"^Next: ", text, re.MULTILINE):
        lost.append("the Next: step")
    lost += [f"the capture id {cid}" for cid in want.ids if cid not in _ID.findall(text)]
    return lost
