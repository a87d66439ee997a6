"""An optional engine: RapidOCR (PP-OCRv6 on onnxruntime), with the models its wheel ships.

Installed by ``pip install 'noru[rapidocr]'``. Nothing is ever downloaded:

- the detection, recognition and orientation models are given to RapidOCR
  as explicit paths into the installed wheel's ``models`` folder, and
  RapidOCR only fetches a model when it is given none;
- the recognition model carries its character list in its metadata, so
  RapidOCR does not fetch a dictionary either;
- as a last guard, RapidOCR's one download function is replaced by one that
  raises ``OcrError``, so a future RapidOCR that wanted to fetch something
  fails loudly instead of reaching the network.

Screens are read the way ``tesseract.py`` reads them (``noru.ocr.regions``):
each window region on its own, cropped inside its border, dark themes
inverted, padded with its own edge colour, plus whatever lies around the
regions. One step is this engine's own: each piece is cut into blocks of
text (``noru.ocr.layout``), because PP-OCRv6's detector loses text on a
large, mostly blank image, and blocks keep its memory bounded. Whether the
engine can run here is ``noru.ocr.rapid_probe``'s question.

Importing this module imports neither rapidocr, onnxruntime, numpy nor
OpenCV; they load when an engine is made.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noru.errors import OcrError
from noru.geometry import Rect, order_boxes
from noru.ocr.base import OcrLine, OcrResult, clean_line, mean_confidence
from noru.ocr.cells import read_with_grids
from noru.ocr.layout import frame, text_blocks, tiles
from noru.ocr.memo import Memo
from noru.ocr.rapid_probe import (
    MODELS,
    NAME,
    REINSTALL_ADVICE,
    missing,
    model_folder,
    package_version,
)
from noru.ocr.regions import Job, Piece, plan_jobs, reading_order

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["RapidEngine", "RapidSettings"]

# The detector takes sides in multiples of this (RapidOCR resizes to them).
DET_STRIDE = 32


@dataclass(frozen=True)
class RapidSettings:
    """How screens are read. The defaults are what measurement chose, on the
    bench/ocr_corpus.py desktops (2560x1600, 3-6 windows, 2 cores); the
    figures are in the commit that set them."""

    scale: float = 1.0  # 1.25 found no more words and took a third longer
    pad: int = 16
    # onnxruntime's intra-op threads per model. Two read a frame about 1.5x
    # faster than one on two cores (for 1.3x the CPU time); the app runs
    # the engine niced and holds it still while a capture runs.
    threads: int = 2
    remainder: bool = True  # also read what lies outside the given regions
    invert_dark: bool = True  # as tesseract.py; PP-OCR read dark themes as well either way
    # As tesseract.py's: small text enlarged pixel for pixel and blurred (0: off).
    small_below: int = 0
    small_scale: int = 4
    small_blur: float = 0.6
    grids: bool = True  # as tesseract.py's: a bitmap font's grid read by its glyphs
    monospace: bool = True  # as tesseract.py's: alike monospace cells read alike
    per_region: bool = True  # False: read the whole image at once, regions ignored
    # Screen text is upright. The 180 degree classifier costs a fifth more
    # time and turned some lines upside down (recall 98.5 % against 100 %).
    use_cls: bool = False
    # Detection runs at the block's own size up to this many pixels on its
    # longer side (RapidOCR's default, a minimum side of 736 px, blows a small
    # block up several times and a 2560 px screen down).
    det_max_side: int = 4096
    block_gap: int = 32  # blank pixels that part two blocks of text (text_blocks)
    block_margin: int = 16  # blank kept around a block for the detector
    # Bigger blocks are cut between text lines: the detector's memory grows
    # with its input (peak RSS 277 MB at 0.26 Mpx, 493 MB at 1 Mpx, 785 MB at
    # 2.4 Mpx). 250k px: peak 473 MB a frame against 554 MB at 500k, same
    # words found, same time.
    block_area: int = 250_000
    text_score: float = 0.5  # RapidOCR drops lines it reads with less confidence
    box_thresh: float = 0.5
    # How far a detected line's box is grown. Recognition scales each line
    # to 48 px high, so its cost follows the box's width/height: 2.0 (taller
    # boxes) costs less than RapidOCR's 1.6 and found as many words.
    unclip_ratio: float = 2.0
    # Lines per recognition run. RapidOCR pads a batch to its widest line and
    # the model's 18k-character output grows with batch x width: 1 line at
    # a time was as fast as 2 or 6 and peaked at 522 MB against 651 and 899.
    rec_batch: int = 1


class RapidEngine:
    name = NAME
    version: str  # of the engine's own library or wheel

    def __init__(self, *, settings: RapidSettings | None = None, lines_only: bool = False) -> None:
        """``lines_only``: an engine for ``read_line`` alone, which loads
        only the recognition model (the detector is tens of MB more)."""
        problem = missing()
        if problem is not None:
            raise OcrError(problem)
        self.settings = settings or RapidSettings()
        folder = model_folder()
        assert folder is not None  # missing() said so
        self.models = {task: folder / file for task, file in MODELS.items()}
        self.version = package_version() or "unknown"
        self._lock = threading.Lock()
        self.memo = Memo()  # what recent jobs read, so an unchanged window is not read again
        with _rapidocr_errors("load its models"):
            rapidocr = importlib.import_module("rapidocr")
            _forbid_downloads()
            self._ocr: Any = rapidocr.RapidOCR(params=self._params())
            # RapidOCR loads each model on first use; loading them now puts a
            # broken install's error here, where the app reports it, rather
            # than on the first capture. The loaders are private (3.10): a
            # RapidOCR without them still loads on first use.
            tasks = (
                ["rec"]
                if lines_only
                else ["det", "rec", *(["cls"] if self.settings.use_cls else [])]
            )
            for task in tasks:
                load = getattr(self._ocr, f"_load_{task}_model", None)
                if load is not None:
                    load()

    def _params(self) -> dict[str, Any]:
        s = self.settings
        ort = "EngineConfig.onnxruntime"
        return {
            "Det.model_path": str(self.models["Det"]),
            "Rec.model_path": str(self.models["Rec"]),
            "Cls.model_path": str(self.models["Cls"]),
            # Where RapidOCR would put a model it fetched: the wheel's folder,
            # never a cache somewhere else (nothing is fetched anyway).
            "Global.model_root_dir": str(self.models["Det"].parent),
            "Global.use_cls": s.use_cls,
            "Global.text_score": s.text_score,
            # Pieces come at the size to read them; RapidOCR's own resizing
            # (at most 2000 px) would shrink a 2560 px screen's small text.
            "Global.max_side_len": max(s.det_max_side, 2000),
            # Its warnings ("the text detection result is empty") are normal
            # for blank regions; the app's log is no place for them.
            "Global.log_level": "error",
            # Blocks come with their own margin (layout.frame); RapidOCR's padding of
            # a wide, thin image to a quarter of its width is mostly blank,
            # and blank area is what makes the detector miss text.
            "Global.use_vertical_padding": False,
            "Det.limit_type": "max",
            "Det.limit_side_len": s.det_max_side,
            "Det.box_thresh": s.box_thresh,
            "Det.unclip_ratio": s.unclip_ratio,
            "Rec.rec_batch_num": max(1, s.rec_batch),
            # RapidOCR ignores a count above the machine's cores and then
            # leaves onnxruntime at its default, every core: clamp it here.
            f"{ort}.intra_op_num_threads": max(1, min(s.threads, os.cpu_count() or 1)),
            # onnxruntime runs a model's nodes in order (sequential execution):
            # an inter-op pool would only sit idle.
            f"{ort}.inter_op_num_threads": 1,
        }

    @property
    def model_paths(self) -> tuple[Path, ...]:
        """The model files RapidOCR was told to load (the offline test checks them)."""
        cfg = self._ocr.cfg
        tasks = [cfg.Det, cfg.Rec] + ([cfg.Cls] if self.settings.use_cls else [])
        return tuple(Path(str(task.model_path)) for task in tasks)

    def recognise(self, image: Image.Image, *, regions: Sequence[Rect] | None = None) -> OcrResult:
        with self._lock:
            if self._ocr is None:
                raise OcrError("the OCR engine is closed")
            s = self.settings
            jobs = plan_jobs(image, regions, per_region=s.per_region, remainder=s.remainder)
            results = [self._read(job) for job in jobs]
        lines = tuple(reading_order(jobs, results))
        return OcrResult(lines, NAME, self.version, mean_confidence(lines))

    def read_line(self, image: Image.Image) -> tuple[str, float]:
        """``image`` read as one line of text (no detection: the caller found
        the line), and the recogniser's confidence."""
        import numpy as np

        with self._lock:
            if self._ocr is None:
                raise OcrError("the OCR engine is closed")
            with _rapidocr_errors("read the line"):
                output = self._ocr(
                    np.asarray(image.convert("RGB")), use_det=False, use_cls=False, use_rec=True
                )
        texts, scores = getattr(output, "txts", None), getattr(output, "scores", None)
        if not texts or not scores:
            return "", 0.0
        return " ".join(str(text) for text in texts), float(min(scores))

    def _read(self, job: Job) -> list[OcrLine]:
        key = self.memo.key(job, f"{NAME} {self.version} {self.settings!r}")
        lines = self.memo.recall(key, job.region)
        if lines is None:
            if self.settings.grids:
                lines = read_with_grids(job, self._read_fresh, agree=self.settings.monospace)
            else:
                lines = self._read_fresh(job)
            self.memo.keep(key, job.region, lines)
        return lines

    def _read_fresh(self, job: Job) -> list[OcrLine]:
        s = self.settings
        piece = job.cut(s)
        if piece is None:
            return []
        lines: list[OcrLine] = []
        for block in text_blocks(piece.image, gap=s.block_gap, max_area=s.block_area):
            for tile, core in tiles(block, max_area=s.block_area):
                lines += self._read_block(piece, tile, core)
        return lines

    def _read_block(self, piece: Piece, block: Rect, core: tuple[int, int] | None) -> list[OcrLine]:
        """The lines of one block; of a tile, those centred in its core rows."""
        margin = self.settings.block_margin
        image, (left, top) = frame(piece.image, block, margin=margin, stride=DET_STRIDE)
        with _rapidocr_errors("read the image"):
            output = self._ocr(image)
        boxes, texts, scores = (getattr(output, k, None) for k in ("boxes", "txts", "scores"))
        if boxes is None or texts is None or scores is None:
            return []
        lines: list[OcrLine] = []
        for quad, raw, score in zip(boxes, texts, scores, strict=True):
            xs = [left + float(point[0]) for point in quad]
            ys = [top + float(point[1]) for point in quad]
            corners = (round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys)))
            if core is not None and not core[0] <= (corners[1] + corners[3]) / 2 < core[1]:
                continue  # read whole by the tile whose core it lies in
            line = clean_line(str(raw), piece.to_original(corners), float(score))
            if line is not None:
                lines.append(line)
        # RapidOCR sorts by top edge with a fixed 10 px tolerance; the shared
        # rule keeps the lines of one row together at any text size.
        return [lines[i] for i in order_boxes([line.box for line in lines])]

    def close(self) -> None:
        with self._lock:
            # The sessions hold the models (tens of MB); dropping the last
            # reference frees them.
            self._ocr = None


def _refuse_download(cls: Any, params: Any) -> None:
    url = getattr(params, "file_url", "a file")
    raise OcrError(
        f"rapidocr tried to download {url}; Noru only uses the models the rapidocr "
        f"wheel ships: {REINSTALL_ADVICE}"
    )


def _forbid_downloads() -> None:
    """Make RapidOCR's one download function refuse, for the whole process.

    Every fetch in rapidocr 3.10 (models, dictionaries, fonts) goes through
    ``DownloadFile.run``. Noru's engines live in a process of their own (the
    app's OCR worker, ``noru reocr``), where nothing else uses rapidocr, so
    refusing process-wide costs nothing and covers code paths we never meant
    to reach."""
    download = importlib.import_module("rapidocr.utils.download_file")
    download.DownloadFile.run = classmethod(_refuse_download)


@contextmanager
def _rapidocr_errors(doing: str) -> Iterator[None]:
    """RapidOCR and onnxruntime raise all sorts (ValueError, FileNotFoundError,
    their own errors); the app expects ``OcrError`` with the reason."""
    try:
        yield
    except OcrError:
        raise
    except Exception as exc:
        raise OcrError(f"rapidocr could not {doing}: {exc.__class__.__name__}: {exc}") from exc
