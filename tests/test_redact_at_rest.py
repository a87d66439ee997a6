"""``redact_at_rest`` over history stored before it was on: `noru reocr`
keeps only the redacted forms, and leaves no term of the old text in the
database's bytes, the search index's segments included. A real store, the
real engine reading a real image."""

from __future__ import annotations

from pathlib import Path

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
