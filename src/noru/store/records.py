"""What the store holds, as typed records (frozen dataclasses, nullable facts)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from noru.ax.base import AxLine  # the accessibility line type (types only: no D-Bus)
from noru.geometry import Rect
from noru.ocr.base import OcrLine  # the one line type, re-exported for the store's users
from noru.sources import Source
from noru.times import format_utc

__all__ = [
    "AxLine",
    "CaptureRecord",
    "Filters",
    "ImageRecord",
    "NewImage",
    "OcrLine",
    "Origin",
    "Row",
    "SearchHit",
    "SourceView",
]


# Who took a capture: the person (shortcut, `noru capture`, import) or an agent.
Origin = Literal["user", "agent"]


@dataclass(frozen=True)
class NewImage:
    """One image of a capture about to be stored."""

    png: bytes
    width: int
    height: int
    source: Source = field(default_factory=Source)
    display_mode: str | None = None
    # The accessibility text read at capture, boxes in this image's pixels, and
    # in words why there is none (or why it is partial); neither: not read.
    ax_lines: tuple[AxLine, ...] = ()
    ax_note: str | None = None
    windows: tuple[Rect, ...] = ()
    excluded: int = 0  # excluded windows painted black before it was kept
    # Its rectangle on the whole screen (root coordinates: its pixels may be
    # more, on a scaled output); None when not known (an import).
    screen_rect: Rect | None = None

    @property
    def ax_text(self) -> str | None:
        return "\n".join(line.text for line in self.ax_lines) or None


@dataclass(frozen=True)
class ImageRecord:
    position: int
    path: str  # relative to the images folder
    width: int
    height: int
    source: Source
    display_mode: str | None
    ax_text: str | None
    ocr_lines: tuple[OcrLine, ...] | None  # None until OCR has run
    windows: tuple[Rect, ...] = ()  # visible windows, bottom to top
    ax_lines: tuple[AxLine, ...] = ()  # with boxes (image pixels) and roles
    ax_note: str | None = None  # why there are no ax lines, or why they are partial
    excluded: int = 0  # excluded windows painted black before it was kept
    # Its rectangle on the whole screen (root coordinates: its pixels may be
    # more, on a scaled output); None for an import and older captures.
    screen_rect: Rect | None = None


@dataclass(frozen=True)
class CaptureRecord:
    seq: int
    id: str
    captured_at: datetime
    origin: str
    note: str | None
    ocr_state: str  # pending | done | failed
    ocr_engine: str | None
    ocr_version: str | None
    ocr_confidence: float | None
    ocr_error: str | None
    imported: bool
    delivered: bool
    images: tuple[ImageRecord, ...]
    kept: bool = False  # the person keeps it forever: pruning passes it by

    @property
    def ocr_text(self) -> str:
        return "\n".join(
            line.text for image in self.images for line in (image.ocr_lines or ()) if line.text
        )

    @property
    def ax_text(self) -> str:
        return "\n".join(image.ax_text for image in self.images if image.ax_text)

    @property
    def ax_note(self) -> str | None:
        """Why the accessibility text is missing (no lines) or partial (lines):
        the first image's word on it; None when it was not read at all."""
        return next((image.ax_note for image in self.images if image.ax_note), None)

    def carried_layers(self) -> list[str]:
        """The layers this capture can serve now, in contract order."""
        layers = ["image"]
        if self.ocr_state == "done":
            layers.append("ocr")
        if self.ax_text:
            layers.append("ax")
        ocr_boxes = self.ocr_state == "done" and any(image.ocr_lines for image in self.images)
        if ocr_boxes or any(image.ax_lines for image in self.images):
            layers.append("regions")
        if self.note:
            layers.append("note")
        return layers


@dataclass(frozen=True)
class Filters:
    app: str | None = None
    workspace: str | None = None
    display: int | str | None = None
    since: datetime | None = None
    before: datetime | None = None
    origin: str | None = None

    def describe(self) -> str:
        parts = [
            f"{name}={value}"
            for name in ("app", "workspace", "display", "origin")
            if (value := getattr(self, name)) is not None
        ]
        if self.since:
            parts.append(f"since={format_utc(self.since)}")
        if self.before:
            parts.append(f"before={format_utc(self.before)}")
        return ", ".join(parts) or "none"

    @property
    def empty(self) -> bool:
        return self.describe() == "none"


@dataclass(frozen=True)
class Row:
    """A locator row: enough to recognise a capture and fetch it."""

    id: str
    captured_at: datetime
    origin: str
    image_count: int
    has_text: bool
    note: str | None
    source: Source


@dataclass(frozen=True)
class SearchHit:
    row: Row
    layer: str  # ocr | ax | note
    snippet: str
    score: float


@dataclass(frozen=True)
class SourceView:
    """How a reader shows source facts to whom it serves (an agent's: made
    by ``noru.redact.facts.view``): ``source``, a whole source; ``hint``, a
    workspace hint given its window title (``(title, hint) -> hint``);
    ``text``, an app's or a display's name. Rows, filters and the values
    present are read through it (``Reading.show_sources_as``)."""

    source: Callable[[Source], Source]
    hint: Callable[[str | None, str | None], str | None]
    text: Callable[[str | None], str | None]
