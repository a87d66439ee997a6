"""The default engine: Tesseract through tesserocr (the wheel bundles libtesseract).

The English data comes from the system (``tessdata.require_tessdata``). The
libtesseract in the wheel is built without OpenMP, so one API uses one core;
``threads`` > 1 keeps that many APIs and reads regions in parallel (tesserocr
releases the GIL while Tesseract works).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noru.errors import OcrError
from noru.geometry import Rect, clip
from noru.ocr.band_cuts import split_rows
from noru.ocr.band_grids import one_grid
from noru.ocr.base import OcrLine, OcrResult, clean_line, mean_confidence
from noru.ocr.cells import read_with_grids
from noru.ocr.glyphs import Fonts
from noru.ocr.kana import kana_lines
from noru.ocr.memo import Memo
from noru.ocr.regions import Job, plan_jobs, reading_order
from noru.ocr.second import SecondOpinion
from noru.ocr.terminal import Read
from noru.ocr.terminal_rows import Glyph, Rows
from noru.ocr.tessdata import LANGUAGE, require_tessdata

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["NAME", "TesseractEngine", "TesseractSettings", "library_version"]

NAME = "tesseract"
# A terminal's rows are shared with another API when there are this many;
# a helper waits this long at a time for one to be free.
MIN_ROWS_SHARED = 8
HELPER_WAIT = 0.02
# A strip beside a terminal's grid this many pixels high or more holds text
# (a title bar, a toolbar); it is read this much enlarged.
MIN_BAR = 8
BAR_SCALE = 2.0
# Regions are cut into bands for the threads only above this many pixels
# (about 0.6 s of reading on one core): smaller ones are quick anyway and
# keep their reading order whole.
MIN_BAND_AREA = 1_000_000


@dataclass(frozen=True)
class TesseractSettings:
    """How screens are read; the defaults are what bench/ocr_corpus.py chose."""

    psm: int = 3  # tesserocr.PSM.AUTO
    dpi: int = 96  # of the screen; Tesseract is told dpi * scale
    scale: float = 1.25
    pad: int = 16
    threads: int = 2
    remainder: bool = True  # also read what lies outside the given regions
    remainder_psm: int = 11  # tesserocr.PSM.SPARSE_TEXT: panels, icon labels
    invert_dark: bool = True
    # Text with lines under this many pixels of ink (a bitmap terminal font)
    # is enlarged pixel for pixel and blurred; 0 turns this off (regions.cut).
    small_below: int = 14
    small_scale: int = 4
    small_blur: float = 0.6
    small_psm: int = 6  # tesserocr.PSM.SINGLE_BLOCK
    # Read a bitmap font's character grid by its glyphs (ocr.cells), where the
    # machine has the font; the engine reads the rest.
    grids: bool = True
    # Make a monospace grid's alike cells read alike (ocr.monospace).
    monospace: bool = True
    # Read a monospace grid (a terminal) row by row on its cells (ocr.terminal),
    # each row as one line, enlarged to about this many pixels high (at most
    # 3x; bench/ocr_real.py chose it).
    terminal: bool = True
    # Tell a terminal's cells by their glyphs in the installed font that fits
    # them (ocr.glyphs), where one does.
    glyphs: bool = True
    row_height: int = 32
    row_pad: int = 8
    # Lines read unsure, read again by RapidOCR where it is installed; its
    # reading is kept where it finds Chinese, Japanese or Korean (ocr.second).
    second_opinion: bool = True
    per_region: bool = True  # False: read the whole image at once, regions ignored
    bands: bool = True  # cut big regions into bands so the threads share them
    variables: tuple[tuple[str, str], ...] = ()


def library_version() -> str:
    """``5.5.4``: the libtesseract version, without the leptonica lines."""
    import tesserocr

    first = str(tesserocr.tesseract_version()).splitlines()[0]
    return first.removeprefix("tesseract").strip()


class TesseractEngine:
    name = NAME
    version: str  # of the engine's own library or wheel
    # The reader its results name: the engine, with "+glyphs" when it tells
    # terminals' cells by their glyphs (ocr.glyphs).
    reader: str

    def __init__(
        self,
        *,
        tessdata: Path | None = None,
        settings: TesseractSettings | None = None,
        fonts: Fonts | None = None,
    ) -> None:
        try:
            import tesserocr
        except ImportError as exc:
            raise OcrError("tesserocr is not installed: pip install tesserocr") from exc
        self.settings = settings or TesseractSettings()
        glyphs = self.settings.grids and self.settings.terminal and self.settings.glyphs
        self.reader = f"{NAME}+glyphs" if glyphs else NAME
        self.tessdata = require_tessdata(tessdata)
        self.version = library_version()
        self._lock = threading.Lock()
        self.memo = Memo()  # what recent jobs read, so an unchanged window is not read again
        self.rows = Rows()  # what terminal rows read as, so a scrolled one reads its new row only
        self.fonts = Fonts() if fonts is None else fonts  # the fonts terminals were found drawn in
        self.second = SecondOpinion() if self.settings.second_opinion else None
        self._apis: list[Any] = []
        try:
            for _ in range(max(1, self.settings.threads)):
                self._apis.append(self._open_api(tesserocr))
        except RuntimeError as exc:
            self.close()
            raise OcrError(f"Tesseract could not load {self.tessdata}: {exc}") from exc
        self._pool = (
            ThreadPoolExecutor(len(self._apis), thread_name_prefix="noru-ocr")
            if len(self._apis) > 1
            else None
        )
        # The APIs no job holds now: a terminal's rows are read on these too.
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        for api in self._apis:
            self._idle.put(api)

    def _open_api(self, tesserocr: Any) -> Any:
        # tessdata paths need a trailing separator on some Tesseract builds.
        api = tesserocr.PyTessBaseAPI(
            path=str(self.tessdata) + "/",
            lang=LANGUAGE,
            psm=self.settings.psm,
            oem=tesserocr.OEM.LSTM_ONLY,
        )
        # A screenshot carries no resolution; without one Tesseract estimates
        # it per image (and says so on stderr). Measured: recall is the same
        # from 70 to 300, so it is set to what the scaled pixels really are.
        dpi = round(self.settings.dpi * self.settings.scale)
        api.SetVariable("user_defined_dpi", str(dpi))
        for key, value in self.settings.variables:
            if not api.SetVariable(key, value):
                raise RuntimeError(f"unknown Tesseract variable {key}")
        return api

    def recognise(self, image: Image.Image, *, regions: Sequence[Rect] | None = None) -> OcrResult:
        with self._lock:
            if not self._apis:
                raise OcrError("the OCR engine is closed")
            jobs = self._plan(image, regions)
            results = one_grid(jobs, self._run(jobs))
            lines = tuple(reading_order(jobs, results))
            if self.second is not None:
                lines = tuple(self.second.revise(image, lines))
            lines = tuple(kana_lines(lines))
        return OcrResult(lines, self.reader, self.version, mean_confidence(lines))

    def _plan(self, image: Image.Image, regions: Sequence[Rect] | None) -> list[Job]:
        """What to read: the regions (or the whole image), each cut into bands
        when that lets the threads share the work, and what lies around them."""
        s = self.settings
        threads = len(self._apis)

        def bands(region: Rect, clipped: Sequence[Rect]) -> list[Rect]:
            area = region[2] * region[3]
            total = sum(w * h for _, _, w, h in clipped)
            # A region much bigger than its share keeps one thread busy while
            # the others idle: cut it into bands where text lines part. Bands
            # cost the reading order across columns (sidebar and page come
            # band by band), so only big regions are cut.
            parts = min(round(area * threads / max(1, total)), area // MIN_BAND_AREA)
            split = s.bands and threads > 1 and parts > 1
            return split_rows(image, region, parts) if split else [region]

        return plan_jobs(
            image, regions, per_region=s.per_region, remainder=s.remainder, bands=bands
        )

    def _run(self, jobs: Sequence[Job]) -> list[list[OcrLine]]:
        def task(job: Job) -> list[OcrLine]:
            # As many workers as APIs: an API is free, or soon (a terminal's
            # rows borrow idle ones only for as long as they read).
            api = self._idle.get()
            try:
                return self._read(api, job)
            finally:
                self._idle.put(api)

        if self._pool is None or len(jobs) == 1:
            return [task(job) for job in jobs]

        # Largest first, so a long job does not start last.
        order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
        futures = {i: self._pool.submit(task, jobs[i]) for i in order}
        # Every job ends before any error is raised: an API still working
        # after ``recognise`` returned would race the next call.
        wait(futures.values())
        return [futures[i].result() for i in range(len(jobs))]

    def _read(self, api: Any, job: Job) -> list[OcrLine]:
        key = self.memo.key(job, f"{NAME} {self.version} {self.settings!r}")
        lines = self.memo.recall(key, job.region)
        if lines is None:
            if self.settings.grids:
                lines = read_with_grids(
                    job,
                    lambda part: self._read_fresh(api, part),
                    agree=self.settings.monospace,
                    terminal=(lambda part: self._terminal(api, part))
                    if self.settings.terminal
                    else None,
                )
            else:
                lines = self._read_fresh(api, job)
            self.memo.keep(key, job.region, lines)
        return lines

    def _terminal(self, api: Any, job: Job) -> Read | None:
        """The job's region read row by row when it is a monospace grid."""
        from PIL import ImageDraw

        from noru.ocr import terminal

        region = clip(job.region, (0, 0, *job.source.size))
        if region is None:
            return None
        x, y, w, h = region
        rgb = terminal.in_rgb(job.source.crop((x, y, x + w, y + h)))  # a copy of its own
        if job.covered:  # windows on top are no part of it: its background there
            fill = terminal.background(rgb)
            draw = ImageDraw.Draw(rgb)
            for cx, cy, cw, ch in job.covered:
                draw.rectangle((cx - x, cy - y, cx - x + cw - 1, cy - y + ch - 1), fill=fill)
        found = terminal.read(
            rgb,
            origin=(x, y),
            reader=lambda bands: self._read_rows(api, bands),
            rows=self.rows,
            how=f"{NAME} {self.version} {self.settings!r}",
            agree_cells=self.settings.monospace,
            fonts=self.fonts if self.settings.glyphs else None,
        )
        if found is None:
            return None
        # What lies above or below the grid (a title bar, a toolbar) is a strip
        # of a few labels on a shaded bar: read as sparse text, its contrast
        # made whole.
        # A strip's lines depend on its pixels alone: kept by them, as rows are.
        lines = list(found.lines)
        for bx, by, bw, bh in found.rest:
            if bh >= MIN_BAR:
                strip = rgb.crop((bx - x, by - y, bx - x + bw, by - y + bh))
                key = self.memo.pixels_key(strip, f"bar {NAME} {self.version} {self.settings!r}")
                read = self.memo.recall(key, (bx, by, bw, bh))
                if read is None:
                    read = self._read_bar(api, strip, (bx, by))
                    self.memo.keep(key, (bx, by, bw, bh), read)
                lines += read
        return Read(lines, [])

    def _read_bar(self, api: Any, strip: Image.Image, origin: tuple[int, int]) -> list[OcrLine]:
        """A strip beside a terminal's grid (a title bar, a toolbar) as sparse text."""
        import tesserocr
        from PIL import Image, ImageOps

        from noru.ocr import terminal

        dark = ImageOps.autocontrast(terminal.ink(strip))
        scale, pad = BAR_SCALE, self.settings.pad
        size = (round(dark.width * scale), round(dark.height * scale))
        padded = Image.new("L", (size[0] + 2 * pad, size[1] + 2 * pad), 255)
        padded.paste(dark.resize(size, Image.Resampling.BICUBIC), (pad, pad))
        found = _recognised(
            api,
            padded,
            psm=tesserocr.PSM.SPARSE_TEXT,
            dpi=round(self.settings.dpi * scale),
            level=tesserocr.RIL.TEXTLINE,
        )
        ox, oy = origin
        lines: list[OcrLine] = []
        for text, box, conf in found:
            x1, y1, x2, y2 = (round((v - pad) / scale) for v in box)
            where = (ox + max(0, x1), oy + max(0, y1), max(1, x2 - x1), max(1, y2 - y1))
            line = clean_line(text, where, conf)
            if line is not None:
                lines.append(line)
        return lines

    def _read_rows(self, api: Any, bands: Sequence[Image.Image]) -> list[list[Glyph]]:
        """Row bands read on ``api``, and on every other API that is idle, or
        becomes idle while they are read (another job ended): each takes the
        next row left."""
        results: list[list[Glyph] | None] = [None] * len(bands)
        left = iter(range(len(bands)))
        lock = threading.Lock()
        errors: list[BaseException] = []

        def take() -> int | None:
            with lock:
                return next(left, None)

        def work(on: Any) -> None:
            try:
                while (i := take()) is not None:
                    results[i] = self._read_row(on, bands[i])
            except BaseException as exc:  # raised here, once every thread ended
                errors.append(exc)

        done = threading.Event()

        def helper() -> None:
            # An API freed by another job joins in while rows are left.
            while not done.is_set():
                try:
                    other = self._idle.get(timeout=HELPER_WAIT)
                except queue.Empty:
                    continue
                try:
                    work(other)
                finally:
                    self._idle.put(other)
                return

        helpers = [
            threading.Thread(target=helper, name="noru-ocr-rows")
            for _ in range(min(len(self._apis) - 1, len(bands) // MIN_ROWS_SHARED))
        ]
        for thread in helpers:
            thread.start()
        work(api)
        done.set()
        for thread in helpers:
            thread.join()
        if errors:
            raise errors[0]
        return [glyphs or [] for glyphs in results]

    def _read_row(self, api: Any, band: Image.Image) -> list[Glyph]:
        """One row band (dark on white) read as one line: its glyphs."""
        import tesserocr
        from PIL import Image

        s = self.settings
        scale, pad = min(3.0, max(1.0, s.row_height / max(1, band.height))), s.row_pad
        if scale != 1.0:
            size = (max(1, round(band.width * scale)), max(1, round(band.height * scale)))
            band = band.resize(size, Image.Resampling.BICUBIC)
        padded = Image.new("L", (band.width + 2 * pad, band.height + 2 * pad), 255)
        padded.paste(band, (pad, pad))
        glyphs: list[Glyph] = []
        found = _recognised(
            api,
            padded,
            psm=tesserocr.PSM.SINGLE_LINE,
            dpi=round(s.dpi * scale),
            level=tesserocr.RIL.SYMBOL,
        )
        for text, box, conf in found:
            if text.strip():
                left = max(0, round((box[0] - pad) / scale))
                right = max(left + 1, round((box[2] - pad) / scale))
                glyphs.append(Glyph(text.strip(), left, right, conf))
        return glyphs

    def _read_fresh(self, api: Any, job: Job) -> list[OcrLine]:
        import tesserocr

        s = self.settings
        piece = job.cut(s)
        if piece is None:
            return []
        # A bitmap font is a terminal's: its rows are one block of lines, which
        # automatic layout cuts into columns where the rows line up.
        psm = s.small_psm if piece.small else s.psm
        found = _recognised(
            api,
            piece.image,
            psm=s.remainder_psm if job.unit < 0 else psm,
            # What the piece's pixels really are: small text is enlarged more.
            dpi=round(s.dpi * piece.scale),
            level=tesserocr.RIL.TEXTLINE,
        )
        lines = [clean_line(text, piece.to_original(box), conf) for text, box, conf in found]
        return [line for line in lines if line is not None]

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
            for api in self._apis:
                api.End()
            self._apis = []
            if self.second is not None:
                self.second.close()


def _recognised(
    api: Any, image: Image.Image, *, psm: int, dpi: int, level: int
) -> list[tuple[str, tuple[int, int, int, int], float]]:
    """What ``api`` reads in ``image`` at page segmentation ``psm``, told the
    image is ``dpi``: each item of ``level`` (line, symbol) as its text, its
    box ``(x1, y1, x2, y2)`` in the image, and its confidence 0..1."""
    import tesserocr

    found: list[tuple[str, tuple[int, int, int, int], float]] = []
    with _tesseract_errors():
        api.SetPageSegMode(psm)
        api.SetVariable("user_defined_dpi", str(dpi))
        api.SetImage(image)
        if not api.Recognize():
            raise OcrError("Tesseract could not recognise the image")
        iterator = api.GetIterator()
        for item in () if iterator is None else tesserocr.iterate_level(iterator, level):
            try:
                text = item.GetUTF8Text(level)
            except RuntimeError:  # tesserocr's way of saying "no text here"
                continue
            box = item.BoundingBox(level)
            if box is not None:
                found.append((text, box, item.Confidence(level) / 100.0))
        api.Clear()
    return found


@contextmanager
def _tesseract_errors() -> Iterator[None]:
    """tesserocr raises RuntimeError for what the library refuses."""
    try:
        yield
    except RuntimeError as exc:
        raise OcrError(f"Tesseract failed on the image: {exc}") from exc
