"""The capture store: ids, files, durability order, read-only readers, migrations."""

from __future__ import annotations

import sqlite3
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from noru.errors import SchemaTooNew, StoreError
from noru.store import SEARCH_BOUND, Filters, NewImage, Reader, Store, fts_query
from noru.store.files import TMP_DIR, TMP_PREFIX, relative_path
from tests.history_data import NOW, bulk, decode, png, seed

ID = r"^capture_[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{6}(-[0-9]+)?$"


def one(width: int = 64, height: int = 48) -> list[NewImage]:
    return [NewImage(png(width, height), width, height)]


def test_ids_follow_the_pattern_and_a_second_capture_in_one_second_gets_a_suffix(
    home: Path,
) -> None:
    moment = datetime(2026, 8, 12, 18, 15, 2, tzinfo=UTC)
    with Store.open(home) as store:
        ids = [store.add_capture(one(), origin="user", captured_at=moment).id for _ in range(3)]
    local = moment.astimezone().strftime("capture_%Y-%m-%d_%H%M%S")
    assert ids == [local, f"{local}-2", f"{local}-3"]
    import re

    assert all(re.match(ID, i) for i in ids)


def test_the_data_dir_is_private_and_files_are_0600(home: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh-home"
    with Store.open(fresh) as store:
        record = store.add_capture(one(), origin="user")
        image_path = store.image_file(record.images[0])
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    assert stat.S_IMODE((fresh / "noru.sqlite3").stat().st_mode) == 0o600
    assert stat.S_IMODE(image_path.stat().st_mode) == 0o600


def test_originals_are_kept_lossless_at_full_resolution(home: Path) -> None:
    data = png(2560, 1600)
    with Store.open(home) as store:
        record = store.add_capture([NewImage(data, 2560, 1600)], origin="user")
        stored = store.image_file(record.images[0]).read_bytes()
    assert stored == data
    assert decode(stored).size == (2560, 1600)


def test_a_failed_insert_leaves_no_file_behind(home: Path) -> None:
    with Store.open(home) as store:
        with pytest.raises(ValueError):
            store.add_capture(one(), origin="robot")
        store.db.execute(
            "CREATE TRIGGER boom BEFORE INSERT ON images BEGIN SELECT RAISE(ABORT, 'x'); END"
        )
        with pytest.raises(StoreError, match="write the history"):
            store.add_capture(one(), origin="user")
        assert store.count() == 0
    assert not [p for p in (home / "images").rglob("*") if p.is_file()]


def test_temp_files_of_a_dead_writer_are_cleaned_at_the_next_start(home: Path) -> None:
    with Store.open(home) as store:
        store.add_capture(one(), origin="user")
    dead = home / "images" / TMP_DIR / f"{TMP_PREFIX}x.png.999999999"
    dead.write_bytes(b"half")
    Store.open(home).close()
    assert not dead.exists()


def test_delete_removes_rows_and_files(home: Path) -> None:
    seeded = seed(home)
    with Store.open(home) as store:
        paths = [store.image_file(i) for i in seeded.browser.images]
        assert all(p.exists() for p in paths)
        assert store.delete(seeded.browser.id)
        assert store.get(seeded.browser.id) is None
        assert not store.delete(seeded.browser.id)
        assert store.db.execute("SELECT count(*) FROM images").fetchone()[0] == 2
    assert not any(p.exists() for p in paths)


def test_the_reader_cannot_write(home: Path) -> None:
    seed(home)
    with Reader.open(home) as reader:
        before = reader.count()
        with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
            reader.db.execute("DELETE FROM captures")
        assert before > 0
    with Reader.open(home) as reader:
        assert reader.count() == before


def test_no_database_reads_as_an_empty_history_and_nothing_is_created(home: Path) -> None:
    with Reader.open(home) as reader:
        assert reader.count() == 0
        assert reader.list_rows(Filters()) == ([], None)
        assert reader.search("anything", Filters(), now=NOW) == ([], None)
        assert reader.get("capture_2026-08-12_141502") is None
        assert reader.present_values() == {"apps": [], "workspaces": [], "displays": []}
        with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
            reader.db.execute("DELETE FROM captures")
    assert list(home.iterdir()) == []


def test_migrations_are_recorded_by_name(home: Path) -> None:
    with Store.open(home) as store:
        names = [r[0] for r in store.db.execute("SELECT name FROM migrations")]
    assert names == [
        "0001_initial", "0002_window_rects", "0003_ocr_version", "0004_ax_layer", "0005_excluded",
        "0006_retention", "0007_agent_text", "0008_agent_sources", "0009_screen_rect",
        "0010_image_shows",
    ]  # fmt: skip


def test_a_reader_reads_a_history_no_writer_has_upgraded_yet(home: Path) -> None:
    """After an upgrade, `noru mcp` may meet the old schema before the app runs."""
    import sqlite3

    from noru.store import schema

    db = sqlite3.connect(home / "noru.sqlite3", isolation_level=None)
    db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    schema.MIGRATIONS[0][1](db)
    db.execute("INSERT INTO migrations VALUES ('0001_initial', '2026-01-01T00:00:00Z')")
    db.close()
    with Store.open(home) as store:
        pass  # the writer migrates ...
    with Store.open(home) as store:
        record = store.add_capture(one(), origin="user")
    db = sqlite3.connect(home / "noru.sqlite3", isolation_level=None)
    db.execute("DELETE FROM migrations WHERE name != '0001_initial'")
    db.execute("ALTER TABLE images DROP COLUMN windows")  # ... as if it never had
    db.execute("ALTER TABLE captures DROP COLUMN ocr_version")
    db.execute("ALTER TABLE images DROP COLUMN shows")
    db.close()
    with Reader.open(home) as reader:
        found = reader.get(record.id)
        rows, _ = reader.list_rows(Filters())
    assert found is not None and found.images[0].windows == ()
    assert found.ocr_version is None
    assert found.images[0].source.shows is None and rows[0].source.shows is None


def test_a_reader_refuses_a_schema_newer_than_it_knows(home: Path) -> None:
    with Store.open(home) as store:
        store.db.execute("INSERT INTO migrations VALUES ('0999_future', '2030-01-01T00:00:00Z')")
    with pytest.raises(SchemaTooNew, match="newer Noru"):
        Reader.open(home)
    with pytest.raises(SchemaTooNew):
        Store.open(home)


def test_path_tricks_never_resolve(home: Path) -> None:
    seed(home)
    with Reader.open(home) as reader:
        for trick in [
            "capture_../../etc/passwd",
            "../noru.sqlite3",
            "capture_2026-08-12_141502/../x",
            "capture_2026-08-12_141502\x00",
            "",
        ]:
            assert reader.get(trick) is None
    with pytest.raises(ValueError):
        relative_path("capture_../../x", 1)


def test_a_word_in_nearly_every_capture_is_ranked_by_recency_a_rarer_one_by_relevance(
    home: Path,
) -> None:
    # "window" is in every capture; "kettle" in one of ten, twice in capture 2000.
    texts = [
        "window pane" + (" kettle" if n % 10 == 0 else "") + (" kettle kettle" if n == 2000 else "")
        for n in range(2 * SEARCH_BOUND + 100)
    ]
    bulk(home, texts)
    with Reader.open(home) as reader:
        hits, _ = reader.search("window", Filters(), now=NOW)
        newest = [f"capture_2026-01-01_{n:06d}" for n in range(len(texts) - 1, len(texts) - 21, -1)]
        assert [h.row.id for h in hits] == newest
        hits, _ = reader.search("kettle", Filters(), now=NOW)
        assert hits[0].row.id == "capture_2026-01-01_002000"  # the most of it, though older


class TestHandoff:
    def test_the_newest_user_capture_is_delivered_once(self, home: Path) -> None:
        with Store.open(home) as store:
            store.add_capture(one(), origin="user", captured_at=NOW - timedelta(minutes=2))
            newest = store.add_capture(one(), origin="user", captured_at=NOW - timedelta(minutes=1))
            window = timedelta(minutes=10)
            assert store.claim_latest(now=NOW, window=window) == newest.id
            assert store.claim_latest(now=NOW, window=window) is None

    def test_captures_outside_the_window_agent_and_imported_ones_are_not_handed_off(
        self, home: Path
    ) -> None:
        with Store.open(home) as store:
            store.add_capture(one(), origin="user", captured_at=NOW - timedelta(minutes=11))
            window = timedelta(minutes=10)
            assert store.claim_latest(now=NOW, window=window) is None
            store.add_capture(one(), origin="agent", captured_at=NOW)
            store.add_capture(one(), origin="user", captured_at=NOW, imported=True)
            assert store.claim_latest(now=NOW, window=window) is None

    def test_delivery_survives_reopening_the_store(self, home: Path) -> None:
        with Store.open(home) as store:
            store.add_capture(one(), origin="user", captured_at=NOW)
            assert store.claim_latest(now=NOW, window=timedelta(minutes=10))
        with Store.open(home) as store:
            assert store.claim_latest(now=NOW, window=timedelta(minutes=10)) is None


class TestSearch:
    @pytest.mark.parametrize(
        "query",
        ['"unbalanced', "NEAR(a b)", "*", "-module", "a OR b AND", "col:x", "^x", "()", "'; DROP"],
    )
    def test_the_persons_text_is_taken_literally(self, home: Path, query: str) -> None:
        seed(home)
        with Reader.open(home) as reader:
            reader.search(query, Filters(), now=NOW)  # never an SQL error

    def test_all_words_must_appear_in_any_order(self, home: Path) -> None:
        seeded = seed(home)
        with Reader.open(home) as reader:
            hits, _ = reader.search("frobnicate module", Filters(), now=NOW)
            assert [h.row.id for h in hits] == [seeded.editor.id]
            assert hits[0].layer == "ocr" and "«" in hits[0].snippet
            hits, _ = reader.search("frobnicate banana", Filters(), now=NOW)
            assert hits == []

    def test_notes_and_accessibility_text_are_searched_and_named(self, home: Path) -> None:
        seeded = seed(home)
        with Reader.open(home) as reader:
            (hit,) = reader.search("failing build", Filters(), now=NOW)[0]
            assert (hit.row.id, hit.layer) == (seeded.editor.id, "note")
            (hit,) = reader.search("passed", Filters(), now=NOW)[0]
            assert (hit.row.id, hit.layer) == (seeded.terminal.id, "ax")

    def test_recency_breaks_ties_between_equally_relevant_captures(self, home: Path) -> None:
        with Store.open(home) as store:
            old = store.add_capture(
                one(), origin="user", captured_at=NOW - timedelta(days=60), note="invoice total"
            )
            new = store.add_capture(
                one(), origin="user", captured_at=NOW - timedelta(days=1), note="invoice total"
            )
        with Reader.open(home) as reader:
            hits, _ = reader.search("invoice", Filters(), now=NOW)
        assert [h.row.id for h in hits] == [new.id, old.id]

    def test_queries_without_words_match_nothing(self) -> None:
        assert fts_query("*** ---") is None
        assert fts_query('say "hi"') == '"say" "hi"'


def test_list_pages_with_a_cursor_never_repeat_or_skip(home: Path) -> None:
    with Store.open(home) as store:
        ids = [
            store.add_capture(one(), origin="user", captured_at=NOW - timedelta(seconds=i)).id
            for i in range(7)
        ]
    reader = Reader.open(home)
    seen: list[str] = []
    cursor = None
    with reader:
        while True:
            rows, cursor = reader.list_rows(Filters(), limit=3, cursor=cursor)
            seen += [r.id for r in rows]
            if cursor is None:
                break
    assert seen == ids


def test_a_failed_read_keeps_the_old_text_and_a_new_read_clears_the_failure(home: Path) -> None:
    from noru.store import OcrLine

    lines = [OcrLine("hello", (0, 0, 10, 10), 0.5), OcrLine("world", (0, 10, 10, 10), 1.0)]
    with Store.open(home) as store:
        capture_id = store.add_capture(one(), origin="user").id
        assert store.set_ocr(capture_id, engine="tesseract", version="5", lines_per_image=[lines])
        assert store.set_ocr(capture_id, engine="rapidocr", version="3", error="engine crashed")
        assert not store.set_ocr("capture_1999-01-01_000000", engine="x", error="none such")
    with Reader.open(home) as reader:
        failed = reader.get(capture_id)
        assert failed is not None
        assert (failed.ocr_state, failed.ocr_engine, failed.ocr_version) == (
            "failed",
            "rapidocr",
            "3",
        )
        assert (failed.ocr_error, failed.ocr_confidence) == ("engine crashed", None)
        assert failed.ocr_text == "hello\nworld"  # the old text stays
    with Store.open(home) as store:
        assert store.set_ocr(capture_id, engine="tesseract", version="5", lines_per_image=[lines])
    with Reader.open(home) as reader:
        done = reader.get(capture_id)
        assert done is not None
        assert (done.ocr_state, done.ocr_error, done.ocr_confidence) == ("done", None, 0.75)
