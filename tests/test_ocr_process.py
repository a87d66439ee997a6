"""The app's OCR child (`python -m noru.app.ocr_process`), driven over its own
pipes as the app drives it: a capture read from its file, or from the pixels
the app sends after the request line; and what it does with a request that is
no such thing. The real engine, a real history."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw, ImageFont

from noru.cli import main
from noru.store import Filters, Reader
from tests.processes import stop

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture
def stored(home: Path, tmp_path: Path) -> tuple[str, Image.Image]:
    """A capture in the history whose text is not read yet, and its image."""
    image = Image.new("RGB", (900, 240), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((40, 90), "quarterly ledger 4096", font=ImageFont.truetype(FONT, 40), fill=(0, 0, 0))
    image.save(tmp_path / "shot.png")
    result = CliRunner().invoke(main, ["import", "--no-ocr", str(tmp_path / "shot.png")])
    assert result.exit_code == 0, result.output
    with Reader.open(home) as reader:
        (row,) = reader.list_rows(Filters(), limit=1)[0]
    return row.id, image


@pytest.fixture
def child(home: Path, stored: tuple[str, Image.Image]) -> Iterator[subprocess.Popen[bytes]]:
    """The OCR process on the history (made first: it opens it as it starts)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "noru.app.ocr_process", "tesseract", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert "ready" in answer(proc)
        yield proc
    finally:
        stop(proc)


def answer(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the OCR process ended"
    found: dict[str, Any] = json.loads(line)
    return found


def send(proc: subprocess.Popen[bytes], request: object, *pixels: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(request).encode() + b"\n" + b"".join(pixels))
    proc.stdin.flush()


def test_pixels_sent_with_a_request_read_as_the_stored_file_reads(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    capture_id, image = stored
    send(child, {"capture": capture_id})
    from_file = answer(child)
    send(child, {"capture": capture_id, "pixels": [[image.width, image.height]]}, image.tobytes())
    from_pixels = answer(child)
    assert "quarterly ledger" in from_file["lines"][0]
    assert from_pixels == from_file


def test_a_pngs_rows_sent_as_the_app_sends_them_read_as_the_stored_file_reads(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    """The app sends a grab as a PNG's rows (``imaging.Scanlines``: each row
    and then a zero byte), its stride in the request."""
    from noru import imaging

    capture_id, image = stored
    send(child, {"capture": capture_id})
    from_file = answer(child)
    rows = imaging.scanlines(image)
    assert rows is not None and rows.stride == 3 * image.width + 1
    send(child, {"capture": capture_id, "pixels": [[*image.size, rows.stride]]}, rows.data)
    assert answer(child) == from_file


def test_pixels_of_another_size_than_the_image_are_not_read_its_file_is(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    capture_id, _ = stored
    blank = Image.new("RGB", (300, 100), (255, 255, 255))
    send(child, {"capture": capture_id, "pixels": [[300, 100]]}, blank.tobytes())
    assert "quarterly ledger" in answer(child)["lines"][0]


def anonymous_mb(pid: int) -> float:
    """The process's own memory (not its mapped files), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/PID/status")


def test_pixels_sent_with_a_job_are_let_go_once_it_is_answered(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    """A 2560x1600 screen's bytes (12 MB) must not stay with the process while
    it waits for its next job (a name that outlived the loop held them)."""
    capture_id, _ = stored
    send(child, {"capture": capture_id})
    answer(child)
    before = anonymous_mb(child.pid)
    screen = Image.new("RGB", (2560, 1600), (255, 255, 255)).tobytes()
    send(child, {"capture": capture_id, "pixels": [[2560, 1600]]}, screen)
    assert "quarterly ledger" in answer(child)["lines"][0]
    assert anonymous_mb(child.pid) - before < len(screen) / 2**20 / 2


@pytest.mark.parametrize(
    "request_line",
    [
        {"pixels": [[10, 10]]},  # no capture id
        {"capture": "x", "pixels": [[0, 10]]},
        {"capture": "x", "pixels": [[10, "10"]]},
        {"capture": "x", "pixels": [[10, 10, 10]]},  # rows shorter than their pixels
        {"capture": "x", "pixels": [[10, 10, 47]]},  # more padding than a row may have
        {"capture": "x", "pixels": [[10, 10, "31"]]},
        {"capture": "x", "pixels": [[10, 10, 31, 1]]},
        {"capture": "x", "pixels": [[1, 40000]]},
        {"capture": "x", "pixels": "10x10"},
        [1, 2],
    ],
)
def test_a_request_that_is_no_request_ends_the_process_with_a_reason(
    child: subprocess.Popen[bytes], request_line: object
) -> None:
    """What follows such a line can no longer be told apart from the next
    request: the process says why and ends; the app starts a fresh one."""
    send(child, request_line)
    assert answer(child)["error"].startswith("the OCR process was sent ")
    assert child.wait(timeout=30) == 1


def test_pixels_cut_short_by_the_app_stopping_end_the_process_quietly(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    capture_id, image = stored
    send(child, {"capture": capture_id, "pixels": [[image.width, image.height]]}, b"\0" * 1000)
    assert child.stdin is not None
    child.stdin.close()
    assert child.wait(timeout=30) == 0


# The OCR process with its idle times shortened (a quiet spell is QUIET, 10 s).
_SHORT_IDLE = (
    "import sys; from noru.app import ocr_process as p; "
    "p.RECYCLE = p.IDLE_EXIT = 11.0; sys.argv[1:] = ['tesseract', sys.argv[1]]; "
    "sys.exit(p.main())"
)


@pytest.mark.parametrize("reads", [True, False])
def test_an_idle_process_that_read_makes_way_for_a_fresh_one(
    home: Path, stored: tuple[str, Image.Image], reads: bool
) -> None:
    """Idle after reading, the process ends saying so (RECYCLED: the app
    starts a fresh one at once, which hands back what reading left behind);
    one that read nothing just ends (the app starts one at the next job)."""
    from noru.app.ocr_process import RECYCLED

    proc = subprocess.Popen(
        [sys.executable, "-c", _SHORT_IDLE, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert "ready" in answer(proc)
        if reads:
            send(proc, {"capture": stored[0]})
            assert "quarterly ledger" in answer(proc)["lines"][0]
        assert proc.wait(timeout=120) == (RECYCLED if reads else 0)
    finally:
        stop(proc)
