"""Recognising the text of one stored capture: the one OCR pipeline.

``recognise_capture`` reads a capture's images as the store holds them, each
with its windows' rectangles (bottom to top, so every window is read on its
own and a window on top hides what it covers), on the engine it is given. It
only reads history, so the app's OCR process calls it on a read-only
``Reader``; ``noru reocr`` and ``noru import`` call ``recognise_and_save`` on
their ``Store``. The same capture read by any of them gives the same lines.

Failures are ``OcrError`` in words, per capture, and nothing is written: old
text stays until new text is saved, and a capture never read stays pending.

Here ``noru.store`` meets ``noru.ocr``. Neither of them imports this module,
and ``noru.ocr`` never imports the store (the store imports only its line
type, ``noru.ocr.base.OcrLine``, and the line codec).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from noru.errors import OcrError, StoreError
from noru.ocr import Engine, OcrLine, get_engine
from noru.store import CaptureRecord, ImageRecord

if TYPE_CHECKING:
    from PIL import Image

    from noru.store import Store

__all__ = ["CaptureText", "History", "open_engine", "recognise_and_save", "recognise_capture"]


class History(Protocol):
    """What recognition reads: ``noru.store.Reader`` or ``Store``."""

    def get(self, capture_id: str) -> CaptureRecord | None: ...

    def image_file(self, image: ImageRecord) -> Path: ...


@dataclass(frozen=True)
class CaptureText:
    """A capture's recognised lines, one tuple per image in order, and who read them."""

    capture_id: str
    engine: str
    version: str
    lines_per_image: tuple[tuple[OcrLine, ...], ...]

    def save(self, store: Store) -> bool:
        """Record the text; False when the capture is gone. With the person's
        ``redact_at_rest``, the capture is redacted first and only its
        redacted text is stored (``noru.redact.at_rest``)."""
        from noru.settings import snapshot  # the writer's side: the OCR process reads, never saves

        lines: Sequence[Sequence[OcrLine]] = self.lines_per_image
        settings = snapshot(store.home)
        if settings.config.redact_at_rest:
            from noru.redact import at_rest

            in_force = settings.policy
            lines = at_rest.redacted_lines(store, self.capture_id, lines, in_force)
        else:  # held while it was on (``redact_at_rest``), and turned off since
            store.keep_held(self.capture_id)
        return store.set_ocr(
            self.capture_id, engine=self.engine, version=self.version, lines_per_image=lines
        )


def open_engine(home: Path, name: str | None = None) -> Engine:
    """The named engine, else the one config.toml names (tesseract by default).
    ``OcrError`` says what to install when it cannot be made."""
    from noru.settings import snapshot

    config = snapshot(home).config
    return get_engine(name or config.ocr_engine, second_opinion=config.ocr_second_opinion)


def recognise_capture(
    history: History,
    capture_id: str,
    engine: Engine,
    pictures: Sequence[Image.Image] = (),
) -> CaptureText:
    """The text of every image of the capture; ``OcrError`` says why not.
    ``pictures``: the images' pixels, when the caller has them (the app, as
    it grabbed them): each is read instead of its file where it is that
    image's size, one for each image."""
    record = history.get(capture_id)
    if record is None:
        raise OcrError("there is no such capture")
    given = len(pictures) == len(record.images) and all(
        (p.width, p.height) == (i.width, i.height)
        for p, i in zip(pictures, record.images, strict=True)
    )
    per_image = []
    reader = engine.name
    for position, image in enumerate(record.images):
        picture = pictures[position] if given else _load(history, image)
        # Without window rectangles (an imported screenshot, a capture
        # backend that saw none) the image is read as one window.
        result = engine.recognise(picture, regions=image.windows or None)
        per_image.append(result.lines)
        reader = result.engine  # the reader's name: the engine and what it reads with
    return CaptureText(capture_id, reader, engine.version, tuple(per_image))


def recognise_and_save(store: Store, capture_id: str, engine: Engine) -> CaptureText:
    """Recognise the capture and record its text; on failure nothing is written."""
    text = recognise_capture(store, capture_id, engine)
    if not text.save(store):
        raise OcrError("the capture was deleted while its text was read")
    return text


def _load(history: History, image: ImageRecord) -> Image.Image:
    """The stored image as RGB, or ``OcrError`` saying, without a path, why not."""
    from PIL import Image, UnidentifiedImageError

    which = f"image {image.position}"
    try:
        path = history.image_file(image)
        with Image.open(path) as picture:
            return picture.convert("RGB")
    except StoreError as exc:
        raise OcrError(f"{which}: {exc}") from exc
    except FileNotFoundError as exc:
        raise OcrError(f"{which} could not be read: its file is missing") from exc
    except UnidentifiedImageError as exc:  # its message names the file
        raise OcrError(f"{which} could not be read: its file is not an image") from exc
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        # The system's words for an OSError ("Permission denied", without the
        # path), else Pillow's ("image file is truncated", "broken PNG file").
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise OcrError(f"{which} could not be read: {reason}") from exc
