"""``redact_at_rest`` over history stored before it was on: `noru reocr`
keeps only the redacted forms, and leaves no term of the old text in the
database's bytes, the search index's segments included. A real store, the
real engine reading a real image."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw, ImageFont

from noru.cli import main
from noru.store import NewImage, OcrLine, Reader, Store

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
SECRET = "Zq7hunter2Xk9Wp4"
LINE = f"password: {SECRET}"


def _png() -> bytes:
    import io

    image = Image.new("RGB", (900, 200), (255, 255, 255))
    ImageDraw.Draw(image).text((30, 70), LINE, font=ImageFont.truetype(FONT, 36), fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _left_in(home: Path, secret: str) -> str | None:
    """8 consecutive characters of ``secret`` (either case) found in the
    database's files, or None."""
    data = b"".join(p.read_bytes() for p in home.glob("noru.sqlite3*")).lower()
    bare = secret.lower().encode()
    return next(
        (bare[i : i + 8].decode() for i in range(len(bare) - 7) if bare[i : i + 8] in data), None
    )


def test_reocr_with_redact_at_rest_leaves_no_term_of_the_old_text(home: Path) -> None:
    with Store.open(home) as store:
        record = store.add_capture([NewImage(_png(), 900, 200)], origin="user")
        store.set_ocr(
            record.id, engine="tesseract", lines_per_image=[[OcrLine(LINE, (30, 70, 700, 40), 0.9)]]
        )
        # The old text's terms are in the index's segments, as stored.
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert _left_in(home, SECRET) is not None
    (home / "config.toml").write_text("redact_at_rest = true\n")
    result = CliRunner().invoke(main, ["reocr", record.id])
    assert result.exit_code == 0, result.output
    with Reader.open(home) as reader:
        kept = reader.get(record.id)
    assert kept is not None and "[redacted: password]" in kept.ocr_text
    assert _left_in(home, SECRET) is None


def test_the_image_as_taken_is_overwritten_when_its_filled_form_replaces_it(home: Path) -> None:
    """Its bytes are not left to the file system to reuse: a second name
    for the old file (a hard link, as a recovery tool would find its
    blocks) reads zeros, and the image in history is the filled one."""
    with Store.open(home) as store:
        record = store.add_capture([NewImage(_png(), 900, 200)], origin="user")
        path = store.image_file(record.images[0])
    taken = path.read_bytes()
    other_name = home / "taken-link.png"
    other_name.hardlink_to(path)
    (home / "config.toml").write_text("redact_at_rest = true\n")
    result = CliRunner().invoke(main, ["reocr", record.id])
    assert result.exit_code == 0, result.output
    assert other_name.read_bytes() == b"\0" * len(taken)
    kept = path.read_bytes()
    with Image.open(path) as filled:
        assert kept != taken and filled.size == (900, 200)


def test_a_capture_taken_before_it_was_on_and_read_by_the_app_leaves_no_term(home: Path) -> None:
    """The app's way: its writer stores the text the OCR process read
    (``CaptureText.save``, which rewrites the capture's accessibility text
    redacted), and its indexer thread then rewrites the search index whole."""
    from noru.app.indexer import Indexer
    from noru.app.writer import Writer
    from noru.config import load_config
    from noru.recognition import CaptureText
    from noru.store import AxLine

    with Store.open(home) as store:  # taken while redact_at_rest was off
        record = store.add_capture(
            [NewImage(_png(), 900, 200, ax_lines=(AxLine(LINE, (30, 70, 700, 40), "text"),))],
            origin="user",
        )
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert _left_in(home, SECRET) is not None
    (home / "config.toml").write_text("redact_at_rest = true\n")
    writer = Writer(home)
    indexer = Indexer(lambda: load_config(home), writer)
    try:
        line = OcrLine(LINE, (30, 70, 700, 40), 0.9)
        assert writer.call(CaptureText(record.id, "tesseract", "5.5.4", ((line,),)).save)
        indexer.run_once()
    finally:
        indexer.close()
        writer.close()
    with Reader.open(home) as reader:
        kept = reader.get(record.id)
    assert kept is not None and SECRET not in kept.ax_text and SECRET not in kept.ocr_text
    assert _left_in(home, SECRET) is None


# --- held in memory until redacted --------------------------------------------


def _read(capture_id: str, home: Path, lines: list[OcrLine]) -> None:
    """Its text read and saved as the app's writer saves it."""
    from noru.recognition import CaptureText

    with Store.open(home) as store:
        assert CaptureText(capture_id, "tesseract", "5.5.4", (tuple(lines),)).save(store)


def test_a_held_capture_reaches_the_disk_only_filled(home: Path, held: Path) -> None:
    (home / "config.toml").write_text("redact_at_rest = true\n")
    taken = _png()
    with Store.open(home) as store:
        record = store.add_capture([NewImage(taken, 900, 200)], origin="user", held=True)
        relative = record.images[0].path
        # Held: in memory, not in the images folder; the person's own reads find it.
        assert (held / relative).read_bytes() == taken
        assert not (store.images_root / relative).exists()
        assert store.image_file(record.images[0]) == held / relative
    with Reader.open(home) as reader:
        assert reader.image_file(record.images[0]).read_bytes() == taken
    _read(record.id, home, [OcrLine(LINE, (30, 70, 700, 40), 0.9)])
    assert not (held / relative).exists()
    on_disk = home / "images" / relative
    with Image.open(on_disk) as filled:
        box = filled.convert("RGB").crop((30 + 12 * 22, 70, 700, 110))  # the value's cells
        assert len(set(box.tobytes())) == 1  # solid
    assert on_disk.read_bytes() != taken
    with Reader.open(home) as reader:
        kept = reader.get(record.id)
        assert reader.usage().images == on_disk.stat().st_size
    assert kept is not None and SECRET not in kept.ocr_text


def test_a_held_capture_with_nothing_to_fill_is_kept_as_taken(home: Path, held: Path) -> None:
    (home / "config.toml").write_text("redact_at_rest = true\n")
    taken = _png()
    with Store.open(home) as store:
        record = store.add_capture([NewImage(taken, 900, 200)], origin="user", held=True)
    _read(record.id, home, [OcrLine("nothing secret here", (30, 70, 700, 40), 0.9)])
    relative = record.images[0].path
    assert not (held / relative).exists()
    assert (home / "images" / relative).read_bytes() == taken


def test_saving_a_capture_s_text_at_rest_reads_its_row_once(
    home: Path, held: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redacting at rest reads the capture once and hands that record on
    to the rewrite (or to moving the held images): its row is not read
    again for each step, whether there was something to fill or not."""
    (home / "config.toml").write_text("redact_at_rest = true\n")
    reads: list[str] = []
    get = Store.get

    def counted(self: Store, capture_id: str) -> object:
        reads.append(capture_id)
        return get(self, capture_id)

    for text in (LINE, "nothing secret here"):
        with Store.open(home) as store:
            record = store.add_capture([NewImage(_png(), 900, 200)], origin="user", held=True)
        monkeypatch.setattr(Store, "get", counted)
        _read(record.id, home, [OcrLine(text, (30, 70, 700, 40), 0.9)])
        monkeypatch.setattr(Store, "get", get)
        assert reads == [record.id], text
        assert not (held / record.images[0].path).exists()
        reads.clear()


def test_a_held_capture_outlives_the_apps_crash_and_goes_with_its_delete(
    home: Path, held: Path
) -> None:
    """A killed app leaves it held (its row names it: a start keeps it, and
    reads it then); a held file no row names is removed at the next start."""
    from noru.store import files

    with Store.open(home) as store:
        kept = store.add_capture([NewImage(_png(), 900, 200)], origin="user", held=True)
        gone = store.add_capture([NewImage(_png(), 900, 200)], origin="user", held=True)
    orphan = held / files.relative_path("capture_2020-01-02_030405", 1)
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"a killed writer's")
    with Store.open(home) as store:  # the next start
        assert (held / kept.images[0].path).exists() and not orphan.exists()
        assert store.pending_ocr() == [kept.id, gone.id]
        assert store.delete(gone.id)
    assert not (held / gone.images[0].path).exists()
    assert (held / kept.images[0].path).exists()


def test_a_full_held_folder_sends_the_images_to_disk(home: Path, held: Path) -> None:
    """Nothing is lost: as without a memory file system, the image goes to
    the images folder and its filled form replaces it."""
    held.mkdir(mode=0o700)
    (held / ".tmp").write_text("in the way: no file can be written here")
    with Store.open(home) as store:
        record = store.add_capture([NewImage(_png(), 900, 200)], origin="user", held=True)
        assert store.image_file(record.images[0]) == store.images_root / record.images[0].path
        assert store.image_file(record.images[0]).exists()


def test_a_held_folder_someone_else_opened_is_not_used(home: Path, held: Path) -> None:
    held.mkdir(mode=0o700)
    held.chmod(0o777)  # as another user's squat in a shared /dev/shm would be
    with Store.open(home) as store:
        record = store.add_capture([NewImage(_png(), 900, 200)], origin="user", held=True)
        assert (store.images_root / record.images[0].path).exists()
    assert not list(held.iterdir())
    (home / "config.toml").write_text("redact_at_rest = true\n")
    result = CliRunner().invoke(main, ["doctor"])
    assert "is not this user's private folder" in result.output
