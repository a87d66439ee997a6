"""What a store must look like after any fault: whole captures only, nothing lost."""

from __future__ import annotations

from pathlib import Path

from noru.store import Store
from noru.store.files import TMP_PREFIX

__all__ = ["check_store"]


def check_store(
    home: Path, committed: set[str], *, seen: dict[str, str] | None = None, when: str = "now"
) -> int:
    """The store opens; every capture has all its files and its text row; nothing
    committed is missing; no temp file is left. Returns the capture count.

    ``seen``, kept by the caller across checks: each capture's first check
    (``when`` names this one), so that a failure says whether the capture
    was there all along or showed up late, besides whether it was answered."""
    seen = {} if seen is None else seen
    with Store.open(home) as store:  # a writer start also cleans temp files
        db = store.db
        captures = db.execute(
            "SELECT seq, id, image_count, ocr_state, ocr_error FROM captures"
        ).fetchall()
        for seq, capture_id, count, ocr_state, ocr_error in captures:
            story = (
                f"{capture_id}: {'answered' if capture_id in committed else 'never answered'}"
                f" to the test, first seen {seen.get(capture_id, when)},"
                f" OCR {ocr_state}{f' ({ocr_error})' if ocr_error else ''}"
            )
            rows = db.execute(
                "SELECT path FROM images WHERE capture_seq = ? ORDER BY position", (seq,)
            ).fetchall()
            assert len(rows) == count, f"half a capture: {story}"
            for (relative,) in rows:
                assert (store.images_root / relative).is_file(), f"missing {relative} of {story}"
            assert db.execute("SELECT 1 FROM capture_text WHERE rowid = ?", (seq,)).fetchone()
            seen.setdefault(capture_id, when)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = {capture_id for _, capture_id, *_ in captures}
        # And no file without its row (a kill between a file's rename and its
        # row's commit leaves one; the writer's start removes it).
        named = {r[0] for r in db.execute("SELECT path FROM images")}
        root = store.images_root
        on_disk = {p.relative_to(root).as_posix() for p in root.glob("[0-9]*/*/*/*.png")}
        assert on_disk == named, f"files without rows: {sorted(on_disk - named)[:3]}"
    assert committed <= ids, f"lost: {committed - ids}"
    assert not list((home / "images").rglob(f"{TMP_PREFIX}*"))
    return len(ids)
