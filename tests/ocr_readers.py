"""The readers the terminal corpus is scored with, each reading a screen's PNG.

- ``noru``: Noru's engine as the app calls it (``noru.ocr.get_engine
  ("tesseract")``, then ``engine.recognise(image, regions=regions or
  None)``, as ``noru.recognition.recognise_capture`` does): lines and their
  confidences.
- ``tesseract-psm6``: Tesseract alone through tesserocr, LSTM, English, the
  system's tessdata (``noru.ocr.locate_tessdata``), reading the whole PNG as
  one block of text (page segmentation mode 6): its text lines as it gives them.
- ``rapidocr``: RapidOCR alone, as installed, on the whole PNG, with the
  models its wheel ships (a download is refused): its boxes joined into
  lines.

The two engines alone are the yardstick Noru is held to (never worse than
the better of them): what they read depends on their version and the PNG
only, so callers may keep it (``Reader.cached``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from PIL import Image

__all__ = [
    "READERS",
    "NoruReader",
    "RapidAlone",
    "Reader",
    "Reading",
    "TesseractPsm6",
    "make_reader",
]

READERS = ("noru", "tesseract-psm6", "rapidocr")
Region = tuple[int, int, int, int]


@dataclass(frozen=True)
class Reading:
    """A reader's lines, top to bottom, and their confidences (Noru's only)."""

    lines: tuple[str, ...]
    confidences: tuple[float, ...] | None = None


class Reader:
    """One way of reading a screen's PNG."""

    name: str
    version: str
    cached: bool = True  # its readings never change with Noru's code

    def read(self, image: Image.Image, regions: list[Region]) -> Reading:
        raise NotImplementedError

    def close(self) -> None:
        pass


class NoruReader(Reader):
    """Noru's engine, called as the app calls it (noru.recognition)."""

    name, cached = "noru", False

    def __init__(self) -> None:
        from noru.ocr import get_engine

        self.engine = get_engine("tesseract")
        self.version = self.engine.version

    def read(self, image: Image.Image, regions: list[Region]) -> Reading:
        result = self.engine.recognise(image, regions=regions or None)
        return Reading(
            tuple(line.text for line in result.lines),
            tuple(line.confidence for line in result.lines),
        )

    def close(self) -> None:
        self.engine.close()


class TesseractPsm6(Reader):
    """tesserocr alone: the window as one block of text (PSM 6), LSTM, English."""

    name = "tesseract-psm6"

    def __init__(self) -> None:
        import tesserocr

        from noru.ocr import locate_tessdata

        self.api = tesserocr.PyTessBaseAPI(
            path=str(locate_tessdata()),
            lang="eng",
            psm=tesserocr.PSM.SINGLE_BLOCK,
            oem=tesserocr.OEM.LSTM_ONLY,
        )
        self.version = f"tesseract {tesserocr.tesseract_version().split()[1]}, psm 6"

    def read(self, image: Image.Image, regions: list[Region]) -> Reading:
        self.api.SetImage(image)
        text = self.api.GetUTF8Text()
        return Reading(tuple(line for line in text.splitlines() if line.strip()))

    def close(self) -> None:
        self.api.End()


class RapidAlone(Reader):
    """RapidOCR as installed, on the whole PNG, with the models its wheel
    ships (never a download); its boxes, in the order it gives them, joined
    into lines: a box whose middle lies within the current line's height
    joins it, and a line's boxes are put left to right."""

    name = "rapidocr"

    def __init__(self) -> None:
        from noru.ocr.rapid_probe import MODELS, model_folder, package_version

        folder = model_folder()
        if folder is None:
            raise SystemExit("rapidocr is not installed")
        download = importlib.import_module("rapidocr.utils.download_file")

        def refuse(cls: Any, params: Any) -> None:
            raise RuntimeError(f"rapidocr tried to download {getattr(params, 'file_url', '')}")

        download.DownloadFile.run = classmethod(refuse)
        rapidocr = importlib.import_module("rapidocr")
        self.ocr = rapidocr.RapidOCR(
            params={
                "Det.model_path": str(folder / MODELS["Det"]),
                "Rec.model_path": str(folder / MODELS["Rec"]),
                "Cls.model_path": str(folder / MODELS["Cls"]),
                "Global.log_level": "error",
            }
        )
        self.version = f"rapidocr {package_version()}"

    def read(self, image: Image.Image, regions: list[Region]) -> Reading:
        import numpy as np

        output = self.ocr(np.asarray(image.convert("RGB")))
        boxes, texts = getattr(output, "boxes", None), getattr(output, "txts", None)
        if boxes is None or texts is None:
            return Reading(())
        rows: list[list[tuple[float, float, float, str]]] = []  # (left, top, bottom, text)
        for quad, text in zip(boxes, texts, strict=True):
            xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
            top, bottom, middle = min(ys), max(ys), (min(ys) + max(ys)) / 2
            row = rows[-1] if rows else None
            if row is not None and min(r[1] for r in row) <= middle <= max(r[2] for r in row):
                row.append((min(xs), top, bottom, str(text)))
            else:
                rows.append([(min(xs), top, bottom, str(text))])
        rows.sort(key=lambda row: min(r[1] for r in row))
        return Reading(tuple(" ".join(r[3] for r in sorted(row)) for row in rows))


def make_reader(name: str) -> Reader:
    return {"noru": NoruReader, "tesseract-psm6": TesseractPsm6, "rapidocr": RapidAlone}[name]()
