"""The fonts terminals were found drawn in, kept from one OCR process to the
next (``noru.ocr.font_memory``, the app's OCR process and its ``fonts.json``).

A fresh engine given the fonts an earlier one found reads a real terminal
without looking among the installed faces; the OCR process keeps what it
found in the data dir and a fresh process starts from it; what the file
says is trusted only as far as it names installed faces with numbers of the
right kinds, and a damaged file is as no file.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from noru.app.ocr_process import FONTS_FILE
from noru.appwire.ocr_pipe import Ready, Recognise, Recognised
from noru.capture import Capturer
from noru.ocr import font, font_memory
from noru.ocr.faces import bold_of, monospace_faces
from noru.ocr.glyphs import KEPT_FONTS, Font, Fonts
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.ocr_pipe import answer, child_process, pending_image, send
from tests.parts import require
from tests.xserver import XServer

MONO = "DejaVu Sans Mono"
FIRST = [
    "$ python -m ledger.sync --region eu-west-3",
    "Traceback (most recent call last):",
    '  File "/srv/ledger/sync.py", line 214, in <module>',
    "    main(sys.argv[1:])",
    "ModuleNotFoundError: No module named 'ledger.adapters'",
]
SECOND = [
    "$ git status --short",
    " M src/ledger/sync.py",
    "?? src/ledger/adapters/__init__.py",
    "$ make check 2>&1 | tail -n 2",
    "error: Cannot find module 'quartz-cache' (TS2307)",
]


def _dejavu() -> Any:
    faces = [f for f in monospace_faces() if f.family == MONO and f.weight == 80]
    require(bool(faces), "DejaVu Sans Mono is not installed (fonts-dejavu-core)")
    return faces[0]


def _font(**changed: Any) -> Font:
    face = _dejavu()
    fields: dict[str, Any] = {
        "face": face, "bold": None, "size": 12.5, "hinting": "light", "shift": 0.0,
        "x": 0, "baseline": 11, "width": 8, "height": 15, "fit": 0.0004,
    }  # fmt: skip
    fields.update(changed)
    return Font(**fields)


def _entry(**changed: Any) -> dict[str, Any]:
    (entry,) = json.loads(font_memory.dump([_font()]))["fonts"]
    entry.update(changed)
    return dict(entry)


def _document(*entries: Any) -> str:
    return json.dumps({"format": font_memory.FORMAT, "fonts": list(entries)})


# --- what the file holds ---------------------------------------------------------


def test_fonts_written_are_read_back_the_same_with_their_bold() -> None:
    kept = [_font(), _font(size=17.375, hinting="full", shift=0.5, x=1, width=11, height=21)]
    found = font_memory.load(font_memory.dump(kept))
    assert found == [dataclasses.replace(f, bold=bold_of(f.face)) for f in kept]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{not json",
        "[1, 2]",
        '{"format": 99, "fonts": []}',
        '{"format": 1, "fonts": {"path": "x"}}',
        "[" * 100_000,
    ],
)
def test_a_file_that_is_not_the_fonts_is_as_no_file(text: str) -> None:
    assert font_memory.load(text) == []


@pytest.mark.parametrize(
    "changed",
    [
        {"path": "/etc/passwd"},  # not an installed face: never opened
        {"index": 3},
        {"index": True},
        {"hinting": "subpixel"},
        {"size": "12.5"},
        {"size": float("nan")},
        {"size": 0},
        {"shift": 2.0},
        {"fit": -1.0},
        {"width": 12.0},
        {"width": 100_000},
        {"height": None},
        {"baseline": False},
    ],
)
def test_an_entry_that_cannot_be_trusted_is_left_out_and_the_others_kept(
    changed: dict[str, Any],
) -> None:
    found = font_memory.load(_document(_entry(**changed), "a font", _entry(x=1)))
    assert [(f.face.family, f.x) for f in found] == [(MONO, 1)]


def test_no_more_fonts_are_read_than_an_engine_keeps() -> None:
    entries = [_entry(size=10.0 + i) for i in range(KEPT_FONTS + 3)]
    assert len(font_memory.load(_document(*entries))) == KEPT_FONTS


# --- a real terminal -----------------------------------------------------------------


def shown(desktop: XServer, capturer: Capturer, lines: list[str]) -> Image.Image:
    """A real xterm in DejaVu Sans Mono 9 showing ``lines``, as grabbed."""
    real_terminals.need("xterm")
    with real_terminals.open_xterm(
        desktop, lines, columns=70, rows=len(lines) + 1, font=MONO, size=9, x=40, y=40
    ) as client:
        client.bring_under_pointer()
        (grab,) = capturer.grab_window("pointer")
        return grab.image


def exact(image: Image.Image, engine: TesseractEngine, lines: list[str]) -> int:
    read = [line.text.rstrip() for line in engine.recognise(image).lines]
    return sum(line in read for line in lines)


def test_a_fresh_engine_reads_a_terminal_in_a_font_remembered_without_a_search(
    desktop: XServer, capturer: Capturer, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = TesseractEngine()
    try:
        assert exact(shown(desktop, capturer, FIRST), first, FIRST) >= len(FIRST) - 1
        remembered = font_memory.dump(first.fonts.recent())
    finally:
        first.close()
    assert MONO in remembered
    fonts = Fonts()
    for found in reversed(font_memory.load(remembered)):
        fonts.keep(found)

    def searched(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the installed faces were searched")

    image = shown(desktop, capturer, SECOND)
    monkeypatch.setattr(font, "_search", searched)
    fresh = TesseractEngine(fonts=fonts)
    try:
        assert exact(image, fresh, SECOND) >= len(SECOND) - 1
    finally:
        fresh.close()


def read_by_a_process(home: Path, capture_id: str) -> str:
    with child_process(home) as proc:
        assert isinstance(answer(proc), Ready)
        send(proc, Recognise(capture_id))
        reply = answer(proc)
        assert proc.stdin is not None
        proc.stdin.close()  # as the app ends it: it finishes what it does, and exits
        assert proc.wait(timeout=30) == 0
    assert isinstance(reply, Recognised), reply
    return "\n".join(line.text for lines in reply.lines for line in lines)


def test_the_ocr_process_keeps_the_fonts_it_found_for_the_next_one(
    desktop: XServer, capturer: Capturer, home: Path, tmp_path: Path
) -> None:
    kept = home / FONTS_FILE
    kept.write_text("{damaged", encoding="utf-8")  # as no file: read, then written anew
    first = pending_image(home, tmp_path, shown(desktop, capturer, FIRST), "first")
    assert FIRST[-1] in read_by_a_process(home, first)
    (found,) = font_memory.load(kept.read_text(encoding="utf-8"))
    assert found.face.family == MONO
    assert kept.stat().st_mode & 0o777 == 0o600
    # A fresh process reads another screen in that font: it found no font
    # it did not know, and leaves the file as it was.
    before = kept.stat()
    second = pending_image(home, tmp_path, shown(desktop, capturer, SECOND), "second")
    assert SECOND[-1] in read_by_a_process(home, second)
    after = kept.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_data_dir_the_process_cannot_write_costs_only_the_search(
    desktop: XServer, capturer: Capturer, home: Path, tmp_path: Path
) -> None:
    (home / FONTS_FILE).mkdir()  # stops root too, where a file's mode would not
    first = pending_image(home, tmp_path, shown(desktop, capturer, FIRST), "first")
    assert FIRST[-1] in read_by_a_process(home, first)
    assert (home / FONTS_FILE).is_dir()
