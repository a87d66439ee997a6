"""Agents' search index (noru.redact.index): an agent's search reads the text
as agents get it, kept in history by the person's side, so how long a search
takes cannot tell whether a guessed word is hidden in a secret. What a search
does is counted (the captures it had to make ``seen`` one by one, the slow
way whose time depends on the hidden text), never timed. A real store, the
real tools over our in-memory stream, the app's real writer thread."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from noru.cli import main
from noru.redact import index, policy
from noru.redact.apply import search_text
from noru.store import CaptureRecord, Filters, NewImage, OcrLine, Reader, Store
from tests.history_data import NOW
from tests.redaction_cases import ORDINARY, planted
from tests.wire import MemoryClient

CASES = planted()
ON = ("secrets", "cards")
PASSWORD = next(secret for _, secret, kind in CASES if kind == "password")


def _png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (400, 300), (250, 250, 250)).save(out, format="PNG")
    return out.getvalue()


def _capture(store: Store, lines: list[str], *, ocr: bool = True, note: str | None = None) -> str:
    record = store.add_capture(
        [NewImage(_png(), 400, 300)], origin="user", captured_at=NOW, note=note
    )
    if ocr:
        ocr_lines = [OcrLine(text, (0, 20 * row, 390, 18), 0.95) for row, text in enumerate(lines)]
        store.set_ocr(record.id, engine="tesseract", version="5.5.4", lines_per_image=[ocr_lines])
    return record.id


class Counted:
    """``Reading.search``'s ``seen`` under the default policy, counting the
    captures it is asked about (each one made seen the slow way)."""

    def __init__(self, categories: tuple[str, ...] = ON) -> None:
        self.policy = policy.Policy.of(categories)
        self.fingerprint = index.fingerprint(self.policy)
        self.calls = 0

    def __call__(self, record: CaptureRecord) -> tuple[str, str, str] | None:
        self.calls += 1
        return search_text(record, self.policy)


def _search(
    home: Path, query: str, seen: Counted, *, indexed: bool = True
) -> list[tuple[str, str]]:
    with Reader.open(home) as reader:
        hits, _ = reader.search(
            query,
            Filters(),
            now=NOW,
            seen=seen,
            indexed=seen.fingerprint if indexed else None,
        )
    return [(hit.row.id, hit.snippet) for hit in hits]


@pytest.fixture
def history(home: Path) -> dict[str, str]:
    """Three captures: a screen with every planted secret, one of ordinary
    lines, and one whose text is not read yet (its note only)."""
    with Store.open(home) as store:
        return {
            "secrets": _capture(store, [line for line, _, _ in CASES] + ORDINARY[:3]),
            "ordinary": _capture(store, ORDINARY),
            "pending": _capture(store, [], ocr=False, note="quarterly figures"),
        }


def _has(text: str, capture_id: str) -> bool:
    """Whether ``text`` names ``capture_id`` (not one of the same second's, ``-2``)."""
    return re.search(re.escape(capture_id) + r"(?![-0-9])", text) is not None


def _refresh(home: Path, categories: tuple[str, ...] = ON) -> int:
    with Store.open(home) as store:
        return index.refresh(store, categories)


def _indexed(home: Path) -> dict[str, int]:
    with Reader.open(home) as reader:
        rows = reader.db.execute("SELECT id, agent_indexed FROM captures").fetchall()
    return {row["id"]: row["agent_indexed"] for row in rows}


def test_an_indexed_history_is_searched_without_reading_what_redaction_hides(
    home: Path, history: dict[str, str]
) -> None:
    assert _refresh(home) == 3
    for query in (PASSWORD, "billing printer", "quarterly"):
        seen = Counted()
        _search(home, query, seen)
        assert seen.calls == 0, query
    # Not even history's own index is asked while every capture is indexed.
    statements: list[str] = []
    with Reader.open(home) as reader:
        reader.db.set_trace_callback(statements.append)
        seen = Counted()
        reader.search(PASSWORD, Filters(), now=NOW, seen=seen, indexed=seen.fingerprint)
    assert statements and not any("capture_text" in sql for sql in statements)
    # The slow way has to look at the capture holding the guessed password.
    seen = Counted()
    assert _search(home, PASSWORD, seen, indexed=False) == []
    assert seen.calls == 1


def test_the_index_answers_as_the_slow_way_does(home: Path, history: dict[str, str]) -> None:
    _refresh(home)
    words = ["billing", "noru", "password", "token", "quarterly", "GITHUB_TOKEN", PASSWORD]
    words += [secret for _, secret, _ in CASES[:6]]
    for query in words:
        fast = _search(home, query, Counted())
        slow = _search(home, query, Counted(), indexed=False)
        assert fast == slow, query
    assert _search(home, PASSWORD, Counted()) == []
    assert [found for found, _ in _search(home, "billing", Counted())] == [
        history["ordinary"],
        history["secrets"],
    ]


def test_a_capture_whose_text_changed_is_found_the_slow_way_until_indexed_again(
    home: Path, history: dict[str, str]
) -> None:
    _refresh(home)
    with Store.open(home) as store:
        store.set_note(history["ordinary"], "migration plan")
        store.set_ocr(
            history["pending"],
            engine="tesseract",
            lines_per_image=[[OcrLine("zanzibar 4471 settled", (0, 0, 300, 18), 0.9)]],
        )
    assert _indexed(home) == {history["secrets"]: 1, history["ordinary"]: 0, history["pending"]: 0}
    seen = Counted()
    assert [found for found, _ in _search(home, "migration", seen)] == [history["ordinary"]]
    assert [found for found, _ in _search(home, "zanzibar", seen)] == [history["pending"]]
    assert seen.calls == 2  # only the two not indexed, each once
    assert _refresh(home) == 2
    seen = Counted()
    assert [found for found, _ in _search(home, "migration", seen)] == [history["ordinary"]]
    assert seen.calls == 0


def test_another_policy_is_searched_the_slow_way_until_the_index_is_made_again(
    home: Path, history: dict[str, str]
) -> None:
    _refresh(home, ("secrets",))
    seen = Counted(("secrets", "cards"))  # the person turned cards on since
    card = next(secret for _, secret, kind in CASES if kind == "card")
    assert _search(home, card.split()[0], seen) == []
    assert seen.calls > 0
    assert _refresh(home, ("secrets", "cards")) == 3  # the whole index again
    with Reader.open(home) as reader:
        assert reader.agents_fingerprint() == seen.fingerprint
    seen.calls = 0
    assert _search(home, card.split()[0], seen) == []
    assert seen.calls == 0


def test_a_value_the_person_allows_is_found_by_agents_once_indexed_again(
    home: Path, history: dict[str, str]
) -> None:
    _refresh(home)
    token = PASSWORD  # an agent searching for it finds nothing: it is redacted
    assert _search(home, token, Counted()) == []
    policy.allow(home, token)  # `noru redact allow`: the person says it is no secret
    allowed = policy.load(home, ON)
    # Another policy: the index made under the old one is not used, then made again.
    assert index.fingerprint(allowed) != Counted().fingerprint
    assert _refresh(home) == 3
    with Reader.open(home) as reader:
        assert reader.agents_fingerprint() == index.fingerprint(allowed)
        hits, _ = reader.search(
            token,
            Filters(),
            now=NOW,
            seen=lambda record: search_text(record, allowed),
            indexed=index.fingerprint(allowed),
        )
    assert [hit.row.id for hit in hits] == [history["secrets"]]


def test_with_redaction_off_or_unreadable_rules_nothing_is_indexed(
    home: Path, history: dict[str, str]
) -> None:
    assert _refresh(home, ()) == 0
    (home / policy.FILE).write_text("{damaged")
    assert _refresh(home) == 0
    assert set(_indexed(home).values()) == {0}


def test_a_deleted_capture_leaves_nothing_in_the_index(home: Path, history: dict[str, str]) -> None:
    _refresh(home)
    with Store.open(home) as store:
        assert store.delete(history["ordinary"])
        seqs = {row[0] for row in store.db.execute("SELECT rowid FROM agent_text")}
        left = {row[0] for row in store.db.execute("SELECT seq FROM captures")}
    assert seqs == left and len(seqs) == 2


def test_an_agents_search_tool_reads_the_index(
    session: MemoryClient, home: Path, history: dict[str, str]
) -> None:
    """The index holds the text as agents get it, ``[redacted: KIND]`` and
    all: a search for "redacted" finds the capture there, and only there."""
    _refresh(home)
    found = str(session.call("search_captures", {"query": "billing"})["result"])
    assert _has(found, history["ordinary"]) and _has(found, history["secrets"])
    assert PASSWORD not in found
    guessed = str(session.call("search_captures", {"query": PASSWORD})["result"])
    assert "no capture contains" in guessed
    marked = str(session.call("search_captures", {"query": "redacted"})["result"])
    assert _has(marked, history["secrets"]) and not _has(marked, history["ordinary"])
    assert _search(home, "redacted", Counted(), indexed=False) == []


def test_the_persons_note_command_indexes_the_capture(home: Path, history: dict[str, str]) -> None:
    _refresh(home)
    result = CliRunner().invoke(main, ["note", history["ordinary"], "migration plan"])
    assert result.exit_code == 0, result.output
    assert _indexed(home)[history["ordinary"]] == 1
    seen = Counted()
    assert [found for found, _ in _search(home, "migration", seen)] == [history["ordinary"]]
    assert seen.calls == 0


def _until(done: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the indexer did not get there"
        time.sleep(0.05)


def test_the_apps_indexer_indexes_history_and_what_changes_in_it(
    home: Path, history: dict[str, str]
) -> None:
    from noru.app.indexer import Indexer
    from noru.app.writer import Writer
    from noru.config import load_config

    writer = Writer(home)
    indexer = Indexer(lambda: load_config(home), writer)
    try:
        indexer.start()
        _until(lambda: indexer.runs >= 1)
        assert set(_indexed(home).values()) == {1} and indexer.indexed == 3
        writer.call(lambda store: store.set_note(history["secrets"], "rotated"))
        assert _indexed(home)[history["secrets"]] == 0
        indexer.wake()
        _until(lambda: _indexed(home)[history["secrets"]] == 1)
    finally:
        indexer.close()
        writer.close()


def test_the_doctor_says_how_much_of_history_agents_index_holds(
    home: Path, history: dict[str, str]
) -> None:
    def said() -> str:
        result = CliRunner().invoke(main, ["doctor"])
        line = next(ln for ln in result.output.splitlines() if "agents' search index" in ln)
        return line

    assert "3 of 3 captures not indexed yet" in said()
    _refresh(home)
    assert "holds every capture" in said()
    (home / "config.toml").write_text('redact = ["secrets"]\n')  # another policy than its own
    assert "3 of 3 captures not indexed yet" in said()


def test_the_persons_import_and_reocr_leave_what_they_read_indexed(
    home: Path, tmp_path: Path
) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "shot.png").write_bytes(_png())
    for args in (["import", "--no-ocr", str(shots / "shot.png")], ["import", str(shots)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    assert set(_indexed(home).values()) == {1} and len(_indexed(home)) == 2
    result = CliRunner().invoke(main, ["reocr", "--all"])
    assert result.exit_code == 0, result.output
    assert set(_indexed(home).values()) == {1}
