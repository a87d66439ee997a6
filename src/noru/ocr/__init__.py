"""On-device OCR: an engine interface, a registry of engines, and a doctor.

``get_engine()`` gives the default engine, Tesseract through tesserocr with
the system's English data. Other engines register themselves with
``register_engine`` (a factory and a probe), so the app and ``noru doctor``
never name an engine's module. Importing this package imports neither
tesserocr nor Pillow: an engine's module loads when an engine is made.

    >>> engine = get_engine()
    >>> result = engine.recognise(image, regions=[(0, 0, 1280, 800)])
    >>> result.text, result.mean_confidence
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noru.errors import OcrError
from noru.ocr.base import Engine, EngineStatus, OcrLine, OcrResult, mean_confidence
from noru.ocr.tessdata import INSTALL_ADVICE, locate_tessdata, require_tessdata

if TYPE_CHECKING:
    from noru.ocr.glyphs import Fonts

__all__ = [
    "DEFAULT_ENGINE",
    "INSTALL_ADVICE",
    "Engine",
    "EngineStatus",
    "OcrLine",
    "OcrResult",
    "available_engines",
    "describe",
    "get_engine",
    "locate_tessdata",
    "mean_confidence",
    "register_engine",
    "registered_engines",
    "require_tessdata",
    "warm",
]

DEFAULT_ENGINE = "tesseract"


EngineFactory = Callable[[Path | None, bool, "Fonts | None"], Engine]
EngineProbe = Callable[[Path | None], EngineStatus]


@dataclass(frozen=True)
class _Registration:
    factory: EngineFactory
    probe: EngineProbe


_REGISTRY: dict[str, _Registration] = {}


def register_engine(name: str, *, factory: EngineFactory, probe: EngineProbe) -> None:
    """Make ``name`` selectable. ``factory(tessdata, second_opinion, fonts)``
    builds an engine (raising ``OcrError`` when it cannot; ``second_opinion``:
    whether it may ask another engine about the lines it is unsure of;
    ``fonts``: where an engine that finds terminals' fonts keeps them);
    ``probe(tessdata)`` says whether it could, cheaply and without raising."""
    _REGISTRY[name] = _Registration(factory, probe)


def registered_engines() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def available_engines(*, tessdata: Path | None = None) -> tuple[str, ...]:
    """The registered engines that can run on this machine now."""
    return tuple(name for name in _REGISTRY if describe(name, tessdata=tessdata).available)


def describe(name: str = DEFAULT_ENGINE, *, tessdata: Path | None = None) -> EngineStatus:
    """Engine name, version and data path, or what is missing and how to fix it."""
    registration = _REGISTRY.get(name)
    if registration is None:
        return EngineStatus(name, False, problem=f"unknown OCR engine {name!r}; known: {_known()}")
    return registration.probe(tessdata)


def get_engine(
    name: str = DEFAULT_ENGINE,
    *,
    tessdata: Path | None = None,
    second_opinion: bool = True,
    fonts: Fonts | None = None,
) -> Engine:
    """A ready engine; ``OcrError`` says what to install when it cannot be made.
    ``second_opinion``: lines Tesseract is unsure of may be read again by
    RapidOCR (``noru.ocr.second``; config.toml's ``ocr_second_opinion``).
    ``fonts``: the fonts terminals were found drawn in, tried first and kept
    there (``noru.ocr.font_memory`` carries them to the next process); a
    memory of its own without it."""
    registration = _REGISTRY.get(name)
    if registration is None:
        raise OcrError(f"unknown OCR engine {name!r}; known: {_known()}")
    return registration.factory(tessdata, second_opinion, fonts)


def warm(engine: Engine) -> None:
    """Make ``engine`` ready for its first real reading: what it loads on first
    use (its models' first pass, the bitmap fonts the glyph reader looks up,
    the installed monospace faces a terminal's font is found among)."""
    from PIL import Image, ImageDraw

    from noru.ocr import font
    from noru.ocr.cells import fonts

    fonts()
    font.warm()
    image = Image.new("RGB", (360, 60), "white")
    ImageDraw.Draw(image).text((12, 20), "warm up the engine 0123", fill="black")
    engine.recognise(image)


def _known() -> str:
    return ", ".join(_REGISTRY) or "none"


# --- the default engine ---------------------------------------------------------


def _tesseract_factory(tessdata: Path | None, second_opinion: bool, fonts: Fonts | None) -> Engine:
    from noru.ocr.tesseract import TesseractEngine, TesseractSettings

    settings = TesseractSettings(second_opinion=second_opinion)
    return TesseractEngine(tessdata=tessdata, settings=settings, fonts=fonts)


def _tesseract_probe(tessdata: Path | None) -> EngineStatus:
    if importlib.util.find_spec("tesserocr") is None:
        return EngineStatus(
            DEFAULT_ENGINE, False, problem="tesserocr is not installed: pip install tesserocr"
        )
    try:
        path = require_tessdata(tessdata)
    except OcrError as exc:
        return EngineStatus(DEFAULT_ENGINE, False, problem=str(exc))
    from noru.ocr.tesseract import library_version

    try:
        version = library_version()
    except ImportError as exc:  # installed but broken (a missing shared library)
        return EngineStatus(DEFAULT_ENGINE, False, problem=f"tesserocr does not load: {exc}")
    return EngineStatus(DEFAULT_ENGINE, True, version=version, data_path=path)


register_engine(DEFAULT_ENGINE, factory=_tesseract_factory, probe=_tesseract_probe)


# --- optional engines -------------------------------------------------------------


def _rapidocr_factory(tessdata: Path | None, second_opinion: bool, fonts: Fonts | None) -> Engine:
    from noru.ocr.rapid import RapidEngine

    return RapidEngine()  # its models come with its wheel: no data path


def _rapidocr_probe(tessdata: Path | None) -> EngineStatus:
    from noru.ocr.rapid_probe import probe

    return probe()


register_engine("rapidocr", factory=_rapidocr_factory, probe=_rapidocr_probe)
