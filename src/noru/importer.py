"""Bring existing screenshots into history: ``noru import PATH...``.

PNG files are kept byte for byte (after checking they decode); JPEG and WebP
are decoded and kept as lossless PNG of exactly the decoded pixels. Imported
captures are user captures marked as imported: the live handoff never hands
them off, and their source facts are what the person said.

Given an engine, each import's text is recognised at once
(``noru.recognition``), so it is searchable when the command returns. Without
one, or when reading fails, the capture stays pending: the app reads pending
work at its next start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from noru.errors import OcrError
from noru.ocr import Engine
from noru.recognition import recognise_and_save
from noru.sources import Source, infer_workspace
from noru.store import CaptureRecord, NewImage, Store

__all__ = ["EXTENSIONS", "ImportOptions", "Imported", "find_images", "import_file"]

EXTENSIONS = {".png", ".jpg", ".jpeg", ".webp"}


@dataclass(frozen=True)
class ImportOptions:
    app: str | None = None
    window_title: str | None = None
    note: str | None = None
    at: datetime | None = None  # None: the file's modification time


@dataclass(frozen=True)
class Imported:
    record: CaptureRecord  # as stored, its text too when it was read
    unread: str | None = None  # why its text was not recognised (it stays pending)


def find_images(paths: Iterable[Path]) -> Iterator[Path]:
    """Files named on the command line, and image files inside named folders (sorted)."""
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs.sort()
                for name in sorted(names):
                    if Path(name).suffix.lower() in EXTENSIONS and not name.startswith("."):
                        yield Path(root) / name
        else:
            yield path


def _decode(path: Path) -> NewImage:
    import warnings

    from PIL import Image, UnidentifiedImageError

    from noru import imaging

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read the file: {exc.strerror}") from None
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(path) as image:
                image.load()
                kind = image.format
                width, height = image.size
                if kind == "PNG":
                    return NewImage(png=data, width=width, height=height)
                if kind not in ("JPEG", "WEBP"):
                    raise ValueError(
                        f"{kind or 'this kind of'} images cannot be imported "
                        "(PNG, JPEG and WebP can)"
                    )
                pixels = image.convert("RGBA" if "A" in image.getbands() else "RGB")
                return NewImage(png=imaging.encode_png(pixels), width=width, height=height)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ValueError("the image is too large to import safely") from None
        except UnidentifiedImageError:  # its message names the file: say it in words
            raise ValueError("not an image Noru can read (PNG, JPEG or WebP)") from None
        except (OSError, SyntaxError) as exc:
            # Pillow's own words for a damaged file ("image file is truncated",
            # "broken PNG file"), or the system's for one it cannot read.
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ValueError(f"the image is damaged: {reason}") from None


def import_file(
    store: Store, path: Path, options: ImportOptions, *, engine: Engine | None = None
) -> Imported:
    """Import one screenshot and, given an engine, recognise its text.

    ValueError with a reason when the file cannot be read; a failure to
    recognise it is not one (the capture is kept, pending, and ``unread``
    says why)."""
    decoded = _decode(path)
    # An empty fact is an unknown one: None, never "".
    app = (options.app or "").strip() or None
    title = (options.window_title or "").strip() or None
    source = Source(app_name=app, window_title=title, workspace_hint=infer_workspace(title))
    moment = options.at or datetime.fromtimestamp(path.stat().st_mtime, UTC)
    if moment > datetime.now(UTC):
        # A capture is never taken in the future; a clock set wrong made this file.
        raise ValueError("its modification time is in the future: give the time with --at")
    image = NewImage(png=decoded.png, width=decoded.width, height=decoded.height, source=source)
    record = store.add_capture(
        [image], origin="user", captured_at=moment, note=options.note or None, imported=True
    )
    if engine is None:
        return Imported(record)
    try:
        recognise_and_save(store, record.id, engine)
    except OcrError as exc:
        return Imported(record, unread=str(exc))
    return Imported(store.get(record.id) or record)
