"""The OCR pipe's messages: what the app and its OCR child say, as frozen dataclasses.

The app writes a ``Recognise`` to the child's standard input; the child
writes ``Ready`` (its hello) once it has started, then one ``Recognised``
or ``Unreadable`` per job; ``Fatal`` when it cannot go on (it did not start,
or it was sent something that is no request) and ``Mismatch`` when it was
sent a request of another protocol version; after either it ends. Only
``noru.appwire.codec`` turns them into bytes and back.
"""

from __future__ import annotations

from dataclasses import dataclass

from noru.imaging import Scanlines
from noru.ocr.base import OcrLine

__all__ = [
    "MAX_JOB_LINE",
    "MAX_SIDE",
    "PARENT",
    "REASON_LIMIT",
    "Fatal",
    "PipeReply",
    "Ready",
    "Recognise",
    "Recognised",
    "Unreadable",
]

# The longest line of a job or an answer (a screen of text is far less).
MAX_JOB_LINE = 16 * 1024 * 1024
# The largest side of an image sent as pixels (a 16K screen has 15,360).
MAX_SIDE = 32768
# A reason is stored with the capture and shown to agents: keep it short.
REASON_LIMIT = 200
# The environment variable that carries the app's pid to the child it starts,
# so that a child adopted before it could ask to die with the app tells.
PARENT = "NORU_OCR_PARENT"


@dataclass(frozen=True)
class Recognise:
    """Read this stored capture. ``pixels``: its images as the app grabbed
    them (a PNG's rows, 8-bit RGB: the same pixels as its lossless files),
    so the child need not decode those files again; empty: read the files."""

    capture: str
    pixels: tuple[Scanlines, ...] = ()


@dataclass(frozen=True)
class Ready:
    """The child's hello: its engine has started and is warm. The app's
    status names the engine's version from it, so that the app never loads
    the engine's library (tesserocr) only to learn it."""

    engine: str  # its name
    version: str  # of the engine's own library or wheel
    app_version: str


@dataclass(frozen=True)
class Recognised:
    """A capture's text: each image's lines, in the order of its images."""

    engine: str
    version: str
    lines: tuple[tuple[OcrLine, ...], ...]


@dataclass(frozen=True)
class Unreadable:
    """This capture's text could not be read; the child goes on."""

    reason: str


@dataclass(frozen=True)
class Fatal:
    """The child cannot go on (its engine did not start, or it was sent what
    it cannot read); it ends."""

    reason: str


PipeReply = Ready | Recognised | Unreadable | Fatal
