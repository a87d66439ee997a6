"""What a store must look like after any fault: whole captures only, nothing lost."""

from __future__ import annotations

from pathlib import Path

from noru.store import Store
from noru.store.files import TMP_PREFIX

__all__ = ["check_store"]


def check_store(home: Path, committed: set[str]) -> int:
    """The store opens; every capture has all its files and its text row; nothing
    committed is missing; no temp file is left. Returns the capture count."""
    with Store.open(home) as store:  # a writer start also cleans temp files
        db = store.db
        captures = db.execute("SELECT seq, id, image_count FROM captures").fetchall()
        for seq, capture_id, count in captures:
            rows = db.execute(
                "SELECT path FROM images WHERE capture_seq = ? ORDER BY position", (seq,)
            ).fetchall()
            assert len(rows) == count, f"half a capture: {capture_id}"
            for (relative,) in rows:
                assert (store.images_root / relative).is_file(), f"missing file of {capture_id}"
            assert db.execute("SELECT 1 FROM capture_text WHERE rowid = ?", (seq,)).fetchone()
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = {capture_id for _, capture_id, _ in captures}
        # And no file without its row (a kill between a file's rename and its
        # row's commit leaves one; the writer's start removes it).
        named = {r[0] for r in db.execute("SELECT path FROM images")}
        root = store.images_root
        on_disk = {p.relative_to(root).as_posix() for p in root.glob("[0-9]*/*/*/*.png")}
        assert on_disk == named, f"files without rows: {sorted(on_disk - named)[:3]}"
    assert committed <= ids, f"lost: {committed - ids}"
    assert not list((home / "images").rglob(f"{TMP_PREFIX}*"))
    return len(ids)
