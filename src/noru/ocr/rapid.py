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
text (``text_blocks``), because PP-OCRv6's detector loses text on a large,
mostly blank image, and blocks keep its memory bounded.

Importing this module imports neither rapidocr, onnxruntime, numpy nor
OpenCV; they load when an engine is made.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noru.errors import OcrError
from noru.geometry import Rect
from noru.ocr.base import OcrLine, OcrResult, mean_confidence
from noru.ocr.regions import (
    Job,
    Piece,
    cut,
    histogram_mode,
    order_boxes,
    plan_jobs,
    reading_order,
    split_rows,
)

if TYPE_CHECKING:
    from PIL import Image

    from noru.ocr import EngineStatus

__all__ = [
    "INSTALL_ADVICE",
    "MODELS",
    "NAME",
    "REINSTALL_ADVICE",
    "RapidEngine",
    "RapidSettings",
    "model_folder",
    "package_version",
    "probe",
    "text_blocks",
]

NAME = "rapidocr"
INSTALL_ADVICE = "pip install 'noru[rapidocr]'"
REINSTALL_ADVICE = "pip install --force-reinstall 'noru[rapidocr]'"
# The files the rapidocr 3.10 wheel ships in rapidocr/models: text detection,
# text recognition (its character list in the model's metadata), and the
# 0/180 degree line classifier.
MODELS = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


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


def model_folder() -> Path | None:
    """The installed rapidocr package's ``models`` folder, found without importing it."""
    try:
        spec = importlib.util.find_spec("rapidocr")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def package_version() -> str | None:
    """``3.10.0``: the installed rapidocr distribution, or None."""
    try:
        return importlib.metadata.version("rapidocr")
    except importlib.metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    """What keeps the engine from running here, with the fix; None when nothing."""
    folder = model_folder()
    version = package_version()
    if folder is None or version is None:
        return f"rapidocr is not installed: {INSTALL_ADVICE}"
    if importlib.util.find_spec("onnxruntime") is None:
        return f"onnxruntime is not installed: {INSTALL_ADVICE}"
    absent = [name for name in MODELS.values() if not (folder / name).is_file()]
    if absent:
        return (
            f"rapidocr {version} has no bundled {', '.join(absent)} in {folder}; "
            f"Noru never downloads models: {REINSTALL_ADVICE}"
        )
    return None


def probe() -> EngineStatus:
    """For ``noru doctor``: version and model folder, or what to install.
    Cheap: looks at the installed files, imports nothing heavy."""
    from noru.ocr import EngineStatus

    problem = _missing()
    if problem is not None:
        return EngineStatus(NAME, False, problem=problem)
    return EngineStatus(NAME, True, version=package_version(), data_path=model_folder())


class RapidEngine:
    def __init__(self, *, settings: RapidSettings | None = None) -> None:
        problem = _missing()
        if problem is not None:
            raise OcrError(problem)
        self.settings = settings or RapidSettings()
        folder = model_folder()
        assert folder is not None  # _missing() said so
        self.models = {task: folder / file for task, file in MODELS.items()}
        self._version = package_version() or "unknown"
        self._lock = threading.Lock()
        with _rapidocr_errors("load its models"):
            rapidocr = importlib.import_module("rapidocr")
            _forbid_downloads()
            self._ocr: Any = rapidocr.RapidOCR(params=self._params())
            # RapidOCR loads each model on first use; loading them now puts a
            # broken install's error here, where the app reports it, rather
            # than on the first capture. The loaders are private (3.10): a
            # RapidOCR without them still loads on first use.
            tasks = ["det", "rec", *(["cls"] if self.settings.use_cls else [])]
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
            # Blocks come with their own margin (_frame); RapidOCR's padding of
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
    def name(self) -> str:
        return NAME

    @property
    def version(self) -> str:
        return self._version

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
        return OcrResult(lines, NAME, self._version, mean_confidence(lines))

    def _read(self, job: Job) -> list[OcrLine]:
        s = self.settings
        piece = cut(
            job.source,
            job.region,
            scale=s.scale,
            pad=s.pad,
            invert=s.invert_dark,
            covered=job.covered,
        )
        if piece is None:
            return []
        lines: list[OcrLine] = []
        for block in text_blocks(piece.image, gap=s.block_gap, max_area=s.block_area):
            for tile, core in _tiles(block, max_area=s.block_area):
                lines += self._read_block(piece, tile, core)
        return lines

    def _read_block(
        self, piece: Piece, block: _Corners, core: tuple[int, int] | None
    ) -> list[OcrLine]:
        """The lines of one block; of a tile, those centred in its core rows."""
        image, (left, top) = _frame(piece.image, block, margin=self.settings.block_margin)
        with _rapidocr_errors("read the image"):
            output = self._ocr(image)
        boxes, texts, scores = (getattr(output, k, None) for k in ("boxes", "txts", "scores"))
        if boxes is None or texts is None or scores is None:
            return []
        lines: list[OcrLine] = []
        for quad, raw, score in zip(boxes, texts, scores, strict=True):
            text = " ".join(str(raw).split())
            # Icons and rules read as lone punctuation; they are not text.
            if not any(c.isalnum() for c in text):
                continue
            xs = [left + float(point[0]) for point in quad]
            ys = [top + float(point[1]) for point in quad]
            corners = (round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys)))
            if core is not None and not core[0] <= (corners[1] + corners[3]) / 2 < core[1]:
                continue  # read whole by the tile whose core it lies in
            confidence = min(1.0, max(0.0, float(score)))
            lines.append(OcrLine(text, piece.to_original(corners), confidence))
        # RapidOCR sorts by top edge with a fixed 10 px tolerance; the shared
        # rule keeps the lines of one row together at any text size.
        return [lines[i] for i in order_boxes([line.box for line in lines])]

    def close(self) -> None:
        with self._lock:
            # The sessions hold the models (tens of MB); dropping the last
            # reference frees them.
            self._ocr = None


# --- blocks of text -----------------------------------------------------------------

_Corners = tuple[int, int, int, int]  # x1, y1, x2, y2
# A pixel is ink when it differs this much from the background grey.
INK_CONTRAST = 32
# The detector takes sides in multiples of this (RapidOCR resizes to them).
DET_STRIDE = 32
# Pixels of the piece kept around a block's ink box.
BLOCK_EDGE = 2
# Bands of a block that cannot be cut between its lines overlap by this many
# pixels: more than a line of 20 px text at 200 % scaling.
TILE_OVERLAP = 64


def text_blocks(grey: Image.Image, *, gap: int = 32, max_area: int | None = None) -> list[_Corners]:
    """The blocks of ink in a piece, in reading order, as ``(x1, y1, x2, y2)``.

    Measured: PP-OCRv6's detector finds nothing on a large, mostly blank image
    (a 900x420 window's text is found on its own and lost once pasted into a
    2600x1600 blank), and a masked remainder or a sparse window is just that.
    So a piece is cut, recursively, at blank bands at least ``gap`` pixels
    wide: rows first, then columns (an XY cut). A block bigger than
    ``max_area`` is cut into bands between its text lines. The blocks come in
    reading order: top to bottom, and left to right within a band of rows,
    so a sidebar is read before the page beside it, not line by line across.
    """
    from PIL import Image, ImageChops

    background = histogram_mode(grey.histogram())
    flat = Image.new("L", grey.size, background)
    ink = ImageChops.difference(grey, flat).point(lambda v: 255 if v >= INK_CONTRAST else 0)
    blocks: list[_Corners] = []

    def split(box: _Corners) -> None:
        found = ink.crop(box).getbbox()
        if found is None:
            return
        x1, y1 = box[0] + found[0], box[1] + found[1]
        x2, y2 = box[0] + found[2], box[1] + found[3]
        columns, rows = ink.crop((x1, y1, x2, y2)).getprojection()
        bands = _runs(rows, gap)
        if len(bands) > 1:
            for top, bottom in bands:
                split((x1, y1 + top, x2, y1 + bottom))
            return
        spans = _runs(columns, gap)
        if len(spans) > 1:
            for left, right in spans:
                split((x1 + left, y1, x1 + right, y2))
            return
        area = (x2 - x1) * (y2 - y1)
        if max_area is None or area <= max_area:
            blocks.append((x1, y1, x2, y2))
            return
        for bx, by, bw, bh in split_rows(grey, (x1, y1, x2 - x1, y2 - y1), -(-area // max_area)):
            found = ink.crop((bx, by, bx + bw, by + bh)).getbbox()
            if found is not None:
                blocks.append((bx + found[0], by + found[1], bx + found[2], by + found[3]))

    split((0, 0, *grey.size))
    # The cut finds the blocks, but its order is not always the reading
    # order: a title bar's text above a page, with less than ``gap`` between
    # them, is cut off as a column of its own to the right of the page. Read
    # by position instead: bands top to bottom, left to right within a band.
    boxes = [(x1, y1, x2 - x1, y2 - y1) for x1, y1, x2, y2 in blocks]
    return [blocks[i] for i in order_boxes(boxes)]


def _tiles(block: _Corners, *, max_area: int) -> Iterator[tuple[_Corners, tuple[int, int] | None]]:
    """``block`` as is, or, when it is far bigger than ``max_area`` (no blank
    rows to cut it between its lines: a photo, a gradient), as overlapping
    bands with the rows each one answers for. A line cut by a band's edge
    lies, whole, in the next band, and is kept only there."""
    x1, y1, x2, y2 = block
    width, height = x2 - x1, y2 - y1
    if width * height <= max_area * 3 // 2:
        yield block, None
        return
    step = max(2 * TILE_OVERLAP, max_area // width)
    for top in range(y1, y2, step):
        bottom = min(y2, top + step)
        core = (y1 if top == y1 else top, y2 if bottom == y2 else bottom)
        yield (x1, max(y1, top - TILE_OVERLAP), x2, min(y2, bottom + TILE_OVERLAP)), core


def _runs(flags: Sequence[int], gap: int) -> list[tuple[int, int]]:
    """Runs of set flags as (start, end), joined across fewer than ``gap`` unset ones."""
    runs: list[tuple[int, int]] = []
    for index, flag in enumerate(flags):
        if not flag:
            continue
        if runs and index - runs[-1][1] < gap:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


def _frame(
    grey: Image.Image, block: _Corners, *, margin: int
) -> tuple[Image.Image, tuple[int, int]]:
    """The block alone on its own background, ``margin`` on every side and
    grown to multiples of DET_STRIDE so the detector reads it unresized; and
    where the framed image's top-left lies in the piece (it may be negative).

    The margin is blank rather than the piece around the block: a block cut
    from a bigger one between two text lines would otherwise bring the
    edges of its neighbours' glyphs, read as stray text."""
    from PIL import Image

    x1, y1, x2, y2 = block
    # A few pixels past the ink box: a glyph's faint anti-aliased edge is not ink.
    x1, y1 = max(0, x1 - BLOCK_EDGE), max(0, y1 - BLOCK_EDGE)
    x2, y2 = min(grey.width, x2 + BLOCK_EDGE), min(grey.height, y2 + BLOCK_EDGE)
    crop = grey.crop((x1, y1, x2, y2))
    width = -(-(crop.width + 2 * margin) // DET_STRIDE) * DET_STRIDE
    height = -(-(crop.height + 2 * margin) // DET_STRIDE) * DET_STRIDE
    framed = Image.new("L", (width, height), histogram_mode(crop.histogram()))
    framed.paste(crop, (margin, margin))
    return framed, (x1 - margin, y1 - margin)


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
