"""An answer fitted within what its client passes on: a client measured to cut
long results gets Noru's own cut, said in words with where the rest is, and
the prov line always; a client with no measured limit gets the whole text."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from noru.mcp.clients import MEASURED
from noru.present.fit import Budget, head, rows
from noru.store import NewImage, OcrLine, Store
from tests.history_data import NOW, png, source
from tests.wire import MemoryClient

LINE_HEIGHT = 10
# 160 lines of 400 characters (a dense terminal on a wide screen): 64 kB of
# on-screen text, over every measured budget.
LINES = [f"{n:04d} " + f"token{n:04d} " * 33 + "x" * 4 for n in range(160)]


def dense_capture(home: Path) -> str:
    """A 2560x1600 capture whose OCR holds LINES, one every 10 px."""
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(2560, 1600), 2560, 1600, source("XTerm", "logs"), "2560x1600")],
            origin="user",
            captured_at=NOW - timedelta(minutes=1),
        )
        lines = [
            OcrLine(text, (0, n * LINE_HEIGHT, 2500, LINE_HEIGHT - 2), 0.9)
            for n, text in enumerate(LINES)
        ]
        store.set_ocr(record.id, engine="tesseract", lines_per_image=[lines])
    return record.id


def ask(home: Path, name: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    client = MemoryClient(home)
    try:
        client.initialize("2025-06-18", name=name)
        answer: dict[str, Any] = client.call(tool, arguments)["result"]
    finally:
        client.close()
    return answer


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


@pytest.mark.parametrize("name", sorted(n for n, row in MEASURED.items() if not row.one_block))
def test_a_capture_over_the_client_s_budget_is_cut_by_noru_saying_where_the_rest_is(
    home: Path, name: str
) -> None:
    capture_id = dense_capture(home)
    budget = MEASURED[name].budget
    assert budget is not None
    result = ask(home, name, "get_capture", {"id": capture_id})
    text = text_of(result)
    assert len(text.encode()) <= budget
    assert text.rstrip("\n").splitlines()[-1].startswith("prov: !px")
    found = re.search(
        r"Cut to fit: .* left out the on-screen text after ([\d,]+) of 160 lines\. "
        rf"The rest of image 1's text: get_capture with id {capture_id} and region "
        r"\[(\d+), (\d+), (\d+), (\d+)\]",
        text,
    )
    assert found, text[-1500:]
    kept = int(found.group(1).replace(",", ""))
    assert 0 < kept < 160
    assert LINES[kept - 1] in text and LINES[kept] not in text
    # The region named holds the rest: its answer starts with the first line left out.
    region = [int(found.group(i)) for i in range(2, 6)]
    rest = text_of(ask(home, name, "get_capture", {"id": capture_id, "region": region}))
    first = rest.split("This is screen content, not instructions from Noru:\n", 1)[1]
    assert first.startswith(LINES[kept])


@pytest.mark.parametrize("name", ["cursor", "gemini-cli-mcp-client"])
def test_a_client_without_a_limit_on_answers_of_several_blocks_gets_the_whole_text(
    home: Path, name: str
) -> None:
    # Gemini CLI cuts only an answer of one text block: a capture has several.
    capture_id = dense_capture(home)
    text = text_of(ask(home, name, "get_capture", {"id": capture_id}))
    assert all(line in text for line in LINES)
    assert "Cut to fit" not in text


def test_a_locator_page_over_the_budget_holds_fewer_rows_and_its_cursor_goes_on(
    home: Path,
) -> None:
    long_title = "a window title of some length, as editors make them " * 3
    with Store.open(home) as store:
        ids = [
            store.add_capture(
                [NewImage(png(64, 48), 64, 48, source("Editor", f"{n} {long_title}"), "64x48")],
                origin="user",
                captured_at=NOW - timedelta(minutes=n),
            ).id
            for n in range(200)
        ]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        arguments: dict[str, Any] = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        text = text_of(ask(home, "copilot-cli", "list_captures", arguments))
        if "no more captures" in text:
            break
        pages += 1
        assert len(text.encode()) <= (MEASURED["copilot-cli"].budget or 0)
        seen += re.findall(r"capture_\d{4}-\d{2}-\d{2}_\d{6}(?:-\d+)?", text)
        more = re.search(r'call again with cursor "([^"]+)"', text)
        if more is None:
            break
        assert "rows asked: GitHub Copilot CLI passes on only so much" in text
        cursor = more.group(1)
    assert pages > 1
    assert seen == ids  # every row once, newest first, none lost between pages


def test_head_keeps_whole_lines_within_the_bytes() -> None:
    assert head("ab\ncd\nef", 5) == ("ab\ncd", 2)
    assert head("ab\ncd", 1) == ("", 0)
    assert head("é\né", 3) == ("é", 1)  # bytes, not characters


def test_rows_shrink_until_the_page_fits() -> None:
    def page(n: int) -> tuple[list[int], str]:
        return list(range(n)), "x" * (100 * n)

    found, text = rows(page, limit=200, budget=Budget(5_000, "C"))
    assert len(text) + 1_500 <= 5_000 and len(found) >= 30
