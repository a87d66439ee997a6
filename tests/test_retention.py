"""Retention: pruning by age and disk budget, keeping forever, complete deletes
(rows, text, files, folders), kill -9 in the middle of a prune, a full disk
refusing a capture whole, and disk use said by status and doctor. Real SQLite,
real files, the real `noru` CLI and app."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PIL import Image

from noru.access import set_control
from noru.config import load_config
from noru.errors import NoRoom
from noru.store import Filters, NewImage, OcrLine, Reader, Store
from noru.store.files import relative_path
from noru.store.writer import TIDY_AFTER
from tests.app_process import running_app, wait_until
from tests.history_data import bulk, png
from tests.noru_cli import noru, noru_command
from tests.wire import MemoryClient

if TYPE_CHECKING:
    from tests.xserver import XServer

NOW = datetime.now(UTC).replace(microsecond=0)
PNG = png(120, 80)


def fill(
    store: Store, days_ago: list[float], *, images: int = 1, word: str = "ledger"
) -> list[str]:
    """Captures taken ``days_ago`` (each with OCR text and a note), oldest first."""
    ids = []
    for n, ago in enumerate(days_ago):
        record = store.add_capture(
            [NewImage(PNG, 120, 80) for _ in range(images)],
            origin="user",
            captured_at=NOW - timedelta(days=ago, seconds=n),
            note=f"note {word} {n}",
        )
        store.set_ocr(
            record.id,
            engine="tesseract",
            lines_per_image=[[OcrLine(f"{word} line {n}", (0, 0, 50, 10), 0.9)]] * images,
        )
        ids.append(record.id)
    return ids


def on_disk(home: Path) -> set[str]:
    root = home / "images"
    return {str(p.relative_to(root)) for p in root.rglob("*.png")} if root.exists() else set()


def paths_in(home: Path, table: str) -> set[str]:
    """The ``path`` column of ``table`` (images, doomed), read with SQLite itself."""
    db = sqlite3.connect(f"file:{home / 'noru.sqlite3'}?mode=ro", uri=True)
    try:
        return {r[0] for r in db.execute(f"SELECT path FROM {table}")}
    finally:
        db.close()


def rows_paths(home: Path) -> set[str]:
    return paths_in(home, "images")


def doomed_paths(home: Path) -> set[str]:
    return paths_in(home, "doomed")


def assert_whole_but(home: Path, extra: Path) -> None:
    """``assert_whole`` but for one file no row names."""
    assert rows_paths(home) | {str(extra.relative_to(home / "images"))} == on_disk(home)


def assert_whole(home: Path) -> None:
    """Every row's file exists, every file has its row, every capture its text row."""
    assert rows_paths(home) == on_disk(home)
    db = sqlite3.connect(f"file:{home / 'noru.sqlite3'}?mode=ro", uri=True)
    try:
        captures = {r[0] for r in db.execute("SELECT seq FROM captures")}
        texts = {r[0] for r in db.execute("SELECT rowid FROM capture_text")}
        images = {r[0] for r in db.execute("SELECT DISTINCT capture_seq FROM images")}
        doomed = db.execute("SELECT count(*) FROM doomed").fetchone()[0]
    finally:
        db.close()
    assert texts == captures and images == captures and doomed == 0


# --- pruning, store level ------------------------------------------------------------


def test_age_pruning_deletes_rows_text_files_and_empty_folders_and_passes_kept_ones(
    home: Path,
) -> None:
    with Store.open(home) as store:
        ids = fill(store, [40, 35, 31, 20, 1], word="quartz")
        assert store.set_kept(ids[1], True)
        plan = store.prune_plan(keep_days=30, max_disk=0)
        assert [d.id for d in plan.doomed] == [ids[0], ids[2]]
        assert {d.reason for d in plan.doomed} == {"age"}
        assert plan.frees == 2 * len(PNG)
        folders = {store.image_file(store.get(i).images[0]).parent for i in (ids[0], ids[2])}  # type: ignore[union-attr]
        assert store.prune(plan) == 2
        assert store.get(ids[0]) is None and store.get(ids[2]) is None
        assert store.get(ids[1]) is not None  # kept forever, though 35 days old
        hits, _ = store.search("quartz", Filters(), now=NOW)
        assert sorted(h.row.id for h in hits) == sorted([ids[1], ids[3], ids[4]])
        assert store.usage().images == 3 * len(PNG)
    assert_whole(home)
    assert not any(folder.exists() for folder in folders)  # their day folders went too


def test_budget_pruning_takes_the_oldest_until_it_fits_but_never_the_newest_or_kept(
    home: Path,
) -> None:
    with Store.open(home) as store:
        ids = fill(store, [9, 8, 7, 6, 5, 4], images=2)
        store.set_kept(ids[0], True)
        per_capture = 2 * len(PNG)
        database = store.usage().database
        # Room for the database and three captures: the three oldest unkept go.
        budget = database + 3 * per_capture + per_capture // 2
        plan = store.prune_plan(keep_days=0, max_disk=budget)
        assert [d.id for d in plan.doomed] == [ids[1], ids[2], ids[3]]
        assert all(d.reason == "budget" for d in plan.doomed) and not plan.unreachable
        store.prune(plan)
        assert store.all_ids() == [ids[0], ids[4], ids[5]] and plan.after <= budget
        # A budget that deleting cannot meet (the kept one alone exceeds it):
        # nothing is taken for it, rather than all history but the newest.
        tiny = store.prune_plan(keep_days=0, max_disk=database + per_capture // 2)
        assert tiny.unreachable and tiny.doomed == ()
        # Deleting all but the newest would meet it: then that is what goes.
        store.set_kept(ids[0], False)
        last = store.prune_plan(keep_days=0, max_disk=database + per_capture + 1)
        assert [d.id for d in last.doomed] == [ids[0], ids[4]]
        store.prune(last)
        assert store.all_ids() == [ids[5]]
    assert_whole(home)


def test_a_capture_kept_after_the_plan_was_made_is_still_passed_by(home: Path) -> None:
    with Store.open(home) as store:
        ids = fill(store, [50, 40, 30])
        plan = store.prune_plan(keep_days=10, max_disk=0)
        assert len(plan.doomed) == 3
        store.set_kept(ids[1], True)  # the person, between plan and prune
        assert store.prune(plan) == 2
        assert store.all_ids() == [ids[1]]
        assert store.kept_ids() == [ids[1]]


def test_a_plan_never_deletes_a_new_capture_that_took_a_deleted_one_s_number(
    home: Path,
) -> None:
    with Store.open(home) as store:
        ids = fill(store, [50, 40])
        plan = store.prune_plan(keep_days=30, max_disk=0)
        store.delete(ids[1])  # meanwhile, the person (another process, in life)
        new = store.add_capture([NewImage(PNG, 120, 80)], origin="user")
        assert new.seq == plan.doomed[1].seq  # SQLite gave its number again
        assert store.prune(plan) == 1
        assert store.all_ids() == [new.id]


def test_a_file_a_killed_capture_left_without_its_row_is_removed_at_the_next_start(
    home: Path,
) -> None:
    with Store.open(home) as store:
        (kept,) = fill(store, [1])
        folder = store.image_file(store.get(kept).images[0]).parent  # type: ignore[union-attr]
    # What a kill between the rename and the commit leaves: the file, no row.
    orphan = folder / ("capture_" + "-".join(folder.parts[-3:]) + "_235959-1.png")
    orphan.write_bytes(PNG)
    with Store.open(home):
        pass
    assert not orphan.exists()
    assert_whole(home)  # the capture with its row kept its file


def test_a_capture_whose_commit_a_kill_cut_short_never_shows_up_later_without_its_file(
    home: Path,
) -> None:
    with Store.open(home) as store:
        fill(store, [1])
    # Someone else has the history open across the kill (an agent's `noru
    # mcp`, the app's OCR process not yet gone): SQLite recovers its log only
    # at an open no other connection shares.
    holder = Reader.open(home)
    try:
        holder.count()
        index = home / "noru.sqlite3-shm"
        before = index.read_bytes()
        with Store.open(home) as store:
            store.add_capture([NewImage(PNG, 120, 80)], origin="user")
        # What kill -9 between the log's sync and the log's index leaves: the
        # commit whole in the log, the index as it was (written in place: the
        # holder has it mapped).
        with index.open("r+b") as shared:
            shared.write(before)
        with Store.open(home):  # the next writer's start, the holder still there
            pass
    finally:
        holder.close()
    # Whether the cut capture is kept or not, it is whole: a file for each row.
    assert_whole(home)


class _Hurried(Store):
    """The writer, waiting a tenth of a second for readers at its start
    rather than the lock's 15 s."""

    settle_wait = 0.1


def test_orphans_wait_for_a_start_whose_log_no_reader_keeps_from_being_emptied(
    home: Path,
) -> None:
    """A file no row names may belong to a commit that only the log holds
    while a reader reads on (``Store._settle_log``): a start that cannot
    empty the log leaves every file, and a later start removes the orphan."""
    with Store.open(home) as store:
        (first,) = fill(store, [1])
        folder = store.image_file(store.get(first).images[0]).parent  # type: ignore[union-attr]
    orphan = folder / ("capture_" + "-".join(folder.parts[-3:]) + "_235959-1.png")
    orphan.write_bytes(PNG)
    agent = Reader.open(home)  # an agent's `noru mcp`, a real second connection
    try:
        with Store.open(home) as store:  # its start empties the log: no reader in a read
            fill(store, [0.5])
        assert not orphan.exists()
        orphan.write_bytes(PNG)
        # The agent reads on, from a snapshot that includes the log's last commit.
        agent.db.execute("BEGIN")
        assert agent.count() == 2
        with _Hurried.open(home) as store:
            assert store.count() == 2
            # Only the start is hurried: its writes wait for the lock as long as ever.
            assert store.db.execute("PRAGMA busy_timeout").fetchone()[0] == 15_000
        assert orphan.exists()
        assert_whole_but(home, orphan)
        agent.db.execute("COMMIT")
    finally:
        agent.close()
    with Store.open(home):
        pass
    assert not orphan.exists()
    assert_whole(home)


def test_an_empty_history_over_its_budget_plans_nothing(home: Path) -> None:
    with Store.open(home) as store:
        plan = store.prune_plan(keep_days=30, max_disk=1)
        assert plan.doomed == () and plan.usage.captures == 0


def test_a_listed_file_that_cannot_be_removed_stays_listed_and_blocks_nothing(
    home: Path,
) -> None:
    with Store.open(home) as store:
        ids = fill(store, [2, 1])
        blocked = store.image_file(store.get(ids[0]).images[0])  # type: ignore[union-attr]
        assert store.delete(ids[0])
        blocked.mkdir(parents=True)  # a folder where the file was: it cannot be unlinked
        (blocked / "inside").write_text("x")
        store.db.execute(
            "INSERT INTO doomed (path) VALUES (?)", (str(blocked.relative_to(store.images_root)),)
        )
        assert store.delete(ids[1])  # the other files still go
    with Store.open(home) as store:  # and the store still opens, the path still listed
        assert store.count() == 0
    assert doomed_paths(home) == {str(blocked.relative_to(home / "images"))}


def test_sizes_missing_from_an_older_history_are_measured_by_the_next_writer(home: Path) -> None:
    with Store.open(home) as store:
        fill(store, [3, 2, 1], images=2)
        store.db.execute("UPDATE captures SET bytes = NULL")
        # A reader meanwhile measures the files themselves.
        assert store.usage().images == 6 * len(PNG)
    with Store.open(home) as store:
        sizes = [r[0] for r in store.db.execute("SELECT bytes FROM captures")]
    assert sizes == [2 * len(PNG)] * 3


def test_a_new_capture_taking_a_deleted_one_s_id_keeps_its_file(home: Path) -> None:
    """Two captures in one second share an id once the first is deleted; the
    old file still listed for removal must not take the new one with it."""
    moment = NOW - timedelta(hours=1)
    same_id = moment.astimezone().strftime("capture_%Y-%m-%d_%H%M%S")
    with Store.open(home) as store:
        relative = relative_path(same_id, 1)
        leftover = home / "images" / relative
        leftover.parent.mkdir(parents=True)
        leftover.write_bytes(b"the deleted capture's image")
        store.db.execute("INSERT INTO doomed (path) VALUES (?)", (relative,))
        record = store.add_capture([NewImage(PNG, 120, 80)], origin="user", captured_at=moment)
        assert record.id == same_id
        other = store.add_capture([NewImage(PNG, 120, 80)], origin="user")
        store.delete(other.id)  # removes whatever is listed now
        assert store.image_file(record.images[0]).read_bytes() == PNG
    assert_whole(home)


def test_a_large_prune_leaves_the_search_index_merged_and_search_right(home: Path) -> None:
    bulk(home, [f"window pane {'kettle' if n % 2 else 'spoon'}" for n in range(TIDY_AFTER + 300)])
    with Store.open(home) as store:
        old = TIDY_AFTER + 100
        store.db.execute(
            "UPDATE captures SET captured_ts = captured_ts - 100 * 86400 WHERE seq <= ?", (old,)
        )
        assert store.prune(store.prune_plan(keep_days=30, max_disk=0)) == old
        assert store.tidy_search() is False  # nothing left to merge
        hits, _ = store.search("kettle", Filters(), now=NOW, limit=200)
        assert len(hits) == 100 and all(int(h.row.id[-6:]) >= old for h in hits)


# --- the person's commands -----------------------------------------------------------


def test_noru_prune_dry_run_changes_nothing_then_prune_deletes_what_it_said(home: Path) -> None:
    with Store.open(home) as store:
        ids = fill(store, [100, 90, 2])
    (home / "config.toml").write_text("keep_days = 30\n")
    before = on_disk(home)
    dry = noru("prune", "--dry-run", home=home)
    assert dry.returncode == 0, dry.stderr
    assert "Would delete 2 captures (2 older than 30 days)" in dry.stdout
    assert on_disk(home) == before
    done = noru("prune", home=home)
    assert done.returncode == 0, done.stderr
    assert "Deleted 2 captures (2 older than 30 days)" in done.stdout
    with Reader.open(home) as reader:
        assert reader.all_ids() == [ids[2]]
    assert_whole(home)


def test_noru_keep_lists_keeps_and_unkeep_lets_go(home: Path) -> None:
    with Store.open(home) as store:
        ids = fill(store, [100, 90])
    (home / "config.toml").write_text("keep_days = 30\n")
    assert noru("keep", ids[0], home=home).returncode == 0
    assert noru("keep", home=home).stdout.split() == [ids[0]]
    missing = noru("keep", "capture_2020-01-01_000000", home=home)
    assert missing.returncode == 1 and "not found: capture_2020-01-01_000000" in missing.stderr
    noru("prune", home=home)
    with Reader.open(home) as reader:
        assert reader.all_ids() == [ids[0]]
    assert noru("unkeep", ids[0], home=home).returncode == 0
    assert noru("keep", home=home).stdout == ""
    noru("prune", home=home)
    with Reader.open(home) as reader:
        assert reader.all_ids() == []
    assert on_disk(home) == set()


def test_noru_delete_removes_the_files_and_leaves_no_list_behind(home: Path) -> None:
    with Store.open(home) as store:
        ids = fill(store, [1, 0], images=2)
    done = noru("delete", "--yes", ids[0], home=home)
    assert done.returncode == 0, done.stderr
    assert_whole(home)
    assert len(on_disk(home)) == 2


# --- kill -9 in the middle of a prune --------------------------------------------------


def test_kill_9_during_a_prune_leaves_no_orphan_and_loses_nothing_else(home: Path) -> None:
    with Store.open(home) as store:
        old = fill(store, [400 - n / 100 for n in range(1500)], images=2)
        young = fill(store, [1, 0.5], images=2)
        store.set_kept(old[700], True)
        spared = {old[700], *young}
        digests = {
            capture_id: [
                hashlib.sha256(store.image_file(i).read_bytes()).hexdigest()
                for i in store.get(capture_id).images  # type: ignore[union-attr]
            ]
            for capture_id in spared
        }
    (home / "config.toml").write_text("keep_days = 30\n")
    env = {**os.environ, "NORU_HOME": str(home)}
    for extra in (0.0, 0.02, 0.08):
        with Reader.open(home) as reader:
            start = reader.count()
        if start == len(spared):
            break
        proc = subprocess.Popen(
            [*noru_command(), "prune"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            # Once its first batch has committed, it is in the middle.
            with Reader.open(home) as reader:
                wait_until(
                    lambda: reader.count() < start or proc.poll() is not None,  # noqa: B023
                    "the prune's first batch",
                    seconds=60,
                )
            time.sleep(extra)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
            assert proc.stdout and proc.stderr
            proc.stdout.close()
            proc.stderr.close()
        # Right after the kill: no row points at a missing file, and every file
        # without a row is listed for removal.
        assert rows_paths(home) <= on_disk(home)
        assert on_disk(home) - rows_paths(home) <= doomed_paths(home)
        with Store.open(home):  # the next writer finishes what the killed one listed
            pass
        assert_whole(home)
    done = noru("prune", home=home)
    assert done.returncode == 0, done.stderr
    assert_whole(home)
    with Reader.open(home) as reader:
        assert set(reader.all_ids()) == spared
        for capture_id in spared:
            record = reader.get(capture_id)
            assert record is not None
            got = [
                hashlib.sha256(reader.image_file(i).read_bytes()).hexdigest() for i in record.images
            ]
            assert got == digests[capture_id]


# --- a capture that cannot be written --------------------------------------------------


def test_a_capture_that_would_fill_the_disk_past_min_free_is_refused_whole(home: Path) -> None:
    with Store.open(home, min_free=10**18) as store:
        with pytest.raises(NoRoom, match=r"not kept: the disk holding the history has .* free"):
            store.add_capture([NewImage(PNG, 120, 80)], origin="user")
        assert store.count() == 0
    assert on_disk(home) == set()


def test_a_write_the_system_refuses_leaves_nothing_half_written(home: Path) -> None:
    # A real failing write: a file-size limit below the image's size (EFBIG).
    script = f"""
import resource, signal, sys
from pathlib import Path
from noru.errors import StoreError
from noru.store import NewImage, Store
from tests.history_data import bulk, png
store = Store.open(Path({str(home)!r}))
big = png(1200, 900) + bytes(300_000)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.RLIM_INFINITY))
try:
    store.add_capture([NewImage(big, 1200, 900)], origin="user")
except StoreError as exc:
    print(exc)
    sys.exit(3)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "the capture was not kept: File too large; nothing of it was written" in done.stdout
    with Store.open(home) as store:
        assert store.count() == 0
        store.add_capture([NewImage(PNG, 120, 80)], origin="user")  # and it still works
    assert_whole(home)
    assert not any(p.name.startswith(".tmp-") for p in (home / "images").rglob("*"))


# --- what the person sees ----------------------------------------------------------------


def test_status_and_doctor_show_disk_use_and_warn_before_anything_stops(home: Path) -> None:
    with Store.open(home) as store:
        fill(store, [2, 1])
    total = settled_total(home)
    # At 95 % of the budget: said, and pruning (not refusal) is what happens.
    (home / "config.toml").write_text(f"max_disk = {int(total / 0.95)}\nkeep_days = 90\n")
    status = noru("status", home=home).stdout
    assert "History on disk:" in status and "(max_disk), 95 %" in status
    assert "Kept: 90 days (keep_days); 0 kept forever" in status
    assert "Warning: the history is at 95 % of its budget" in status
    # Kept captures alone over the budget: said, and that nothing goes for it.
    (home / "config.toml").write_text("max_disk = 1000\n")
    status = noru("status", home=home).stdout
    assert "alone exceed the budget, so pruning deletes nothing for it" in status
    doctor = noru("doctor", home=home).stdout
    assert "ok   history disk:" in doctor and "nearly at its budget" in doctor
    # A disk nearly full (free below twice min_free): captures still work, a warning.
    free = shutil.disk_usage(home).free
    (home / "config.toml").write_text(f"min_free = {free * 3 // 4}\n")
    doctor = noru("doctor", home=home).stdout
    (line,) = [li for li in doctor.splitlines() if "history disk:" in li]
    assert line.startswith("WARN history disk:") and "the disk is nearly full" in line, doctor
    # Below min_free: doctor fails, naming what to do.
    (home / "config.toml").write_text('min_free = "1000TB"\n')
    status = noru("status", home=home).stdout
    assert "Warning: the disk is full" in status
    doctor = noru("doctor", home=home)
    assert "FAIL history disk:" in doctor.stdout and "captures are refused" in doctor.stdout
    # A damaged exclusions file refuses every capture: doctor says so.
    (home / "exclusions.json").write_text("{not json")
    doctor = noru("doctor", home=home)
    assert "FAIL exclusions: exclusions.json is damaged" in doctor.stdout, doctor.stdout
    assert doctor.returncode == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [('"20GB"', 20 * 10**9), ('"1.5 GiB"', int(1.5 * 2**30)), ('"500mb"', 500 * 10**6), ("0", 0)],
)
def test_max_disk_reads_sizes_like_a_person_writes_them(
    tmp_path: Path, text: str, expected: int
) -> None:
    (tmp_path / "config.toml").write_text(f"max_disk = {text}\n")
    config = load_config(tmp_path)
    assert config.max_disk == expected and not config.problems


@pytest.mark.parametrize("text", ['"lots"', '"20 parsecs"', "-1", "true", '"-5GB"'])
def test_a_bad_size_is_a_problem_and_the_default_budget_stays(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.toml").write_text(f"max_disk = {text}\nkeep_days = -3\n")
    config = load_config(tmp_path)
    assert config.max_disk == 20 * 10**9 and config.keep_days == 0
    assert [p.split(" ")[0] for p in config.problems] == ["max_disk", "keep_days"]


# --- the app ---------------------------------------------------------------------------


def noise(side: int = 1000) -> NewImage:
    """An image PNG cannot compress (about 3 MB): its size dwarfs the database's."""
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return NewImage(out.getvalue(), side, side)


def big_captures(home: Path, days_ago: list[float]) -> list[str]:
    with Store.open(home) as store:
        return [
            store.add_capture([noise()], origin="user", captured_at=NOW - timedelta(days=ago)).id
            for ago in days_ago
        ]


def settled_total(home: Path) -> int:
    """Images plus database, measured with no writer open (its log folded in)."""
    with Reader.open(home) as reader:
        return reader.usage().total


def test_the_app_prunes_by_age_and_budget_in_the_background_from_its_start(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    ids = big_captures(home, [60, 50, 3, 2, 1])
    with Store.open(home) as store:
        store.set_kept(ids[0], True)
    one = len(noise().png)
    # Age takes the 50-day-old one; the budget then one more, the oldest unkept.
    budget = settled_total(home) - int(1.5 * one)
    (home / "config.toml").write_text(f"keep_days = 30\nmax_disk = {budget}\n")
    with running_app(home, desktop.env, tmp_path / "app.log"), Reader.open(home) as reader:
        wait_until(lambda: ids[2] not in reader.all_ids(), "pruning at start")
        assert reader.all_ids() == [ids[0], ids[3], ids[4]]
    assert_whole(home)


def test_the_pruner_wakes_when_a_capture_takes_the_history_over_its_budget(
    home: Path,
) -> None:
    from noru.app.pruner import Pruner
    from noru.app.writer import Writer
    from noru.config import Config

    ids = big_captures(home, [3, 2])
    budget = settled_total(home) + len(noise().png) // 2
    writer = Writer(home)
    pruner = Pruner(home, lambda: Config(max_disk=budget), writer)
    try:
        pruner.start()
        wait_until(lambda: pruner.runs == 1, "the pruner's first run")
        assert pruner.deleted == 0  # within the budget
        image = noise()
        new = writer.call(lambda store: store.add_capture([image], origin="user").id)
        pruner.added(len(image.png))  # what the app does after each capture
        wait_until(lambda: pruner.runs == 2, "the pruner woken by the capture")
        with Reader.open(home) as reader:
            assert reader.all_ids() == [ids[1], new]
    finally:
        pruner.close()
        writer.close()
    assert_whole(home)


def test_the_pruner_applies_changed_settings_at_the_next_capture_without_a_restart(
    home: Path,
) -> None:
    from noru.app.pruner import Pruner
    from noru.app.writer import Writer
    from noru.config import load_config, set_values
    from noru.errors import NoRoom

    ids = big_captures(home, [5, 3])
    writer = Writer(home)
    pruner = Pruner(home, lambda: load_config(home), writer)
    try:
        pruner.start()
        wait_until(lambda: pruner.runs == 1, "the pruner's first run")
        assert pruner.deleted == 0  # no age limit, a 20 GB budget
        set_values(home, {"keep_days": 4})  # as `noru retention` and the console do
        image = noise()
        new = writer.call(lambda store: store.add_capture([image], origin="user").id)
        pruner.added(len(image.png))  # the capture: config.toml changed, so a run
        wait_until(lambda: pruner.runs == 2, "the pruner woken by the changed settings")
        with Reader.open(home) as reader:
            assert reader.all_ids() == [ids[1], new]  # the 5-day-old one went
        set_values(home, {"min_free": "1000TB"})
        pruner.added(len(image.png))
        wait_until(lambda: pruner.runs == 3, "the pruner's next run")
        with pytest.raises(NoRoom):
            writer.call(lambda store: store.add_capture([noise()], origin="user"))
    finally:
        pruner.close()
        writer.close()
    assert_whole(home)


def test_the_app_refuses_a_capture_it_cannot_keep_and_goes_on(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    (home / "config.toml").write_text('min_free = "1000TB"\n')
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log") as app:
        done = noru("capture", "--display", "1", home=home, env=desktop.env)
        assert done.returncode == 1
        assert "the capture was not kept: the disk holding the history has" in done.stderr
        assert str(home) not in done.stderr
        client = MemoryClient(home)
        try:
            client.initialize("2025-06-18")
            answer = client.call("observe_screen", {"target": "display"})
            assert answer["error"]["code"] == -32603
            assert "the capture was not kept" in answer["error"]["message"]
            status = client.call("get_status", {})
            assert "App running: yes" in status["result"]["content"][0]["text"]
        finally:
            client.close()
        assert app.proc.poll() is None
    with Reader.open(home) as reader:
        assert reader.count() == 0
    assert on_disk(home) == set()
