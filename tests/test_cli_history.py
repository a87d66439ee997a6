"""The person's history commands: import, list, search, show, note, delete."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from noru.ocr import describe
from noru.store import CaptureRecord, Filters, Reader
from tests.history_data import decode, png, seed
from tests.noru_cli import invoke
from tests.parts import require
from tests.screens import FONT_PACKAGE, font, fonts_available


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = invoke(*args, input=input)
    return result.exit_code, result.output


def image_file(path: Path, kind: str, size: tuple[int, int] = (300, 200)) -> Path:
    image = Image.new("RGB", size, (10, 120, 200))
    image.putpixel((0, 0), (255, 255, 0))
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **({"lossless": True} if kind == "WEBP" else {}))
    path.write_bytes(buffer.getvalue())
    return path


def the_capture(home: Path) -> CaptureRecord:
    with Reader.open(home) as reader:
        (row,), _ = reader.list_rows(Filters(), limit=2)
        record = reader.get(row.id)
    assert record is not None
    return record


def stored(home: Path) -> list[bytes]:
    with Reader.open(home) as reader:
        rows, _ = reader.list_rows(Filters(), limit=200)
        records = [reader.get(row.id) for row in rows]
        return [reader.image_file(r.images[0]).read_bytes() for r in records if r]


class TestImport:
    def test_a_png_is_kept_byte_for_byte_with_the_given_source_facts(
        self, home: Path, tmp_path: Path
    ) -> None:
        data = png(640, 400)
        shot = tmp_path / "shot.png"
        shot.write_bytes(data)
        code, out = run(
            "import",
            str(shot),
            "--app",
            "Figma",
            "--window-title",
            "Design - Figma",
            "--note",
            "the new header",
            "--at",
            "2026-08-12T14:15:02Z",
        )
        assert code == 0, out
        capture_id = out.splitlines()[0]
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            assert record is not None
            assert reader.image_file(record.images[0]).read_bytes() == data
        assert record.imported and record.origin == "user" and record.note == "the new header"
        assert record.images[0].source.app_name == "Figma"
        assert record.images[0].source.workspace_hint == "Design"
        assert record.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ") == "2026-08-12T14:15:02Z"

    def test_jpeg_and_webp_keep_their_decoded_pixels_as_png(
        self, home: Path, tmp_path: Path
    ) -> None:
        jpeg = image_file(tmp_path / "a.jpg", "JPEG")
        webp = image_file(tmp_path / "b.webp", "WEBP")
        code, _ = run("import", str(jpeg), str(webp))
        assert code == 0
        with Image.open(jpeg) as source:
            expected_jpeg = source.convert("RGB").tobytes()
        images = [decode(data) for data in stored(home)]
        assert sorted(i.format for i in images) == ["PNG", "PNG"]
        assert expected_jpeg in [i.convert("RGB").tobytes() for i in images]
        assert (255, 255, 0) in [i.convert("RGB").getpixel((0, 0)) for i in images]

    def test_a_folder_imports_its_images_and_the_file_time_is_the_capture_time(
        self, home: Path, tmp_path: Path
    ) -> None:
        folder = tmp_path / "Screenshots"
        (folder / "old").mkdir(parents=True)
        for i in range(3):
            shot = image_file(folder / f"s{i}.png", "PNG")
            os.utime(shot, (1_700_000_000 + i, 1_700_000_000 + i))
        image_file(folder / "old" / "deep.jpeg", "JPEG")
        (folder / "notes.txt").write_text("not an image")
        code, out = run("import", str(folder))
        assert code == 0 and "Imported 4 of 4" in out
        with Reader.open(home) as reader:
            assert reader.count() == 4
            oldest = reader.nth(4, Filters())
            assert oldest is not None and oldest.captured_at.timestamp() == 1_700_000_000

    def test_an_unreadable_file_is_skipped_with_a_reason_and_the_rest_imported(
        self, home: Path, tmp_path: Path
    ) -> None:
        good = image_file(tmp_path / "good.png", "PNG")
        bad = tmp_path / "bad.png"
        bad.write_bytes(b"\x89PNG\r\n\x1a\n broken")
        text = tmp_path / "readme.txt"
        text.write_text("hello")
        cut = tmp_path / "cut.png"
        cut.write_bytes(good.read_bytes()[:-40])
        code, out = run("import", str(good), str(bad), str(text), str(cut))
        assert code == 1
        assert "Imported 1 of 4 files." in out
        assert f"skipped {bad}: not an image Noru can read (PNG, JPEG or WebP)" in out
        assert f"skipped {text}: not an image Noru can read (PNG, JPEG or WebP)" in out
        assert f"skipped {cut}: the image is damaged: " in out
        # Reasons are words: no exception class names, no traceback.
        assert "Error" not in out and "Traceback" not in out

    def test_an_imported_screenshot_is_read_at_once_and_found_by_search(
        self, home: Path, tmp_path: Path
    ) -> None:
        status = describe()
        require(status.available, f"OCR engine unavailable: {status.problem}")
        require(fonts_available(), f"DejaVu fonts missing: apt-get install {FONT_PACKAGE}")
        image = Image.new("RGB", (900, 300), "white")
        ImageDraw.Draw(image).text(
            (40, 110), "kettlebell schedule", fill="black", font=font("sans", 40)
        )
        image.save(tmp_path / "shot.png")
        code, out = run("import", str(tmp_path / "shot.png"))
        assert code == 0, out
        record = the_capture(home)
        # The reader's name: the engine, telling terminals' cells by their glyphs.
        assert (record.ocr_state, record.ocr_engine) == ("done", "tesseract+glyphs")
        assert "kettlebell" in record.ocr_text
        assert record.id in run("search", "kettlebell")[1]

    def test_without_an_available_engine_imports_stay_pending_and_the_command_says_so(
        self, home: Path, tmp_path: Path
    ) -> None:
        (home / "config.toml").write_text('ocr_engine = "nonsense"\n')
        code, out = run("import", str(image_file(tmp_path / "a.png", "PNG")))
        assert code == 0, out
        assert "unknown OCR engine 'nonsense'" in out
        assert "Text not recognised now (unknown OCR engine 'nonsense'" in out
        assert "`noru app` reads it." in out
        assert the_capture(home).ocr_state == "pending"

    def test_a_bad_time_is_a_usage_error(self, home: Path, tmp_path: Path) -> None:
        code, out = run("import", str(image_file(tmp_path / "a.png", "PNG")), "--at", "soonish")
        assert code == 2 and "--at" in out


class TestBrowse:
    def test_list_search_and_show(self, home: Path) -> None:
        seeded = seed(home)
        code, out = run("list")
        assert code == 0 and out.index(seeded.browser.id) < out.index(seeded.editor.id)
        code, out = run("list", "--app", "xterm")
        assert seeded.terminal.id in out and seeded.editor.id not in out
        code, out = run("search", "frobnicate")
        assert seeded.editor.id in out and "«frobnicate»" in out
        code, out = run("show", seeded.editor.id)
        assert code == 0
        assert "ModuleNotFoundError" in out and "the failing build" in out
        assert "prov: -px(text only)" in out
        assert str(home / "images") in out

    def test_the_persons_own_commands_work_while_agents_are_revoked(self, home: Path) -> None:
        seeded = seed(home)
        run("revoke")
        code, out = run("list")
        assert code == 0 and seeded.editor.id in out

    def test_show_refuses_a_malformed_id(self, home: Path) -> None:
        seed(home)
        code, out = run("show", "capture_../../etc/passwd")
        assert code == 2 and "capture id" in out

    def test_with_no_history_the_commands_say_so(self, home: Path) -> None:
        code, out = run("list")
        assert code == 1 and "history is empty" in out


class TestChange:
    def test_a_note_is_attached_searchable_and_removable(self, home: Path) -> None:
        seeded = seed(home)
        assert run("note", seeded.terminal.id, "flaky test run")[0] == 0
        assert seeded.terminal.id in run("search", "flaky")[1]
        assert run("note", seeded.terminal.id, "")[0] == 0
        assert "Nothing found" in run("search", "flaky")[1]
        code, out = run("note", "capture_2001-01-01_000000", "x")
        assert code == 1 and "no capture" in out

    def test_delete_asks_first_and_removes_rows_and_files(self, home: Path) -> None:
        seeded = seed(home)
        files_before = len(list((home / "images").rglob("*.png")))
        code, _ = run("delete", seeded.browser.id, input="n\n")
        assert code == 1
        assert run("delete", seeded.browser.id, "--yes")[0] == 0
        assert len(list((home / "images").rglob("*.png"))) == files_before - 2
        assert seeded.browser.id not in run("list")[1]

    @pytest.mark.parametrize("trick", ["../../x", "capture_2026-08-12_141502/../y"])
    def test_delete_refuses_path_tricks(self, home: Path, trick: str) -> None:
        seed(home)
        code, out = run("delete", trick, "--yes")
        assert code == 2 and "capture id" in out
