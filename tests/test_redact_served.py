"""Redaction in what agents receive, through the real tools over our in-memory
stream: a real store holding captures whose text (recorded by the store's
own writer, as the OCR worker does) has planted secrets drawn in its pixels.

The real-client tests (a real xterm, `noru app`, `noru mcp`, the real
engine) are in test_redact_real.py; these check every tool and shape fast.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw

from noru import accesslog
from noru.cli import main
from noru.redact import policy
from noru.store import AxLine, Filters, NewImage, OcrLine, Reader, Store
from tests.history_data import NOW, decode, redaction_off, source
from tests.redaction_cases import ORDINARY, leaked, planted
from tests.wire import MemoryClient

WIDTH, HEIGHT = 1200, 700
CELL_W, CELL_H, TOP = 10, 20, 40  # a grid of 10x20 cells, rows from y = 40
# The grid's width in cells, as the terminal reader records it: wider than
# every row here, so none runs on to the next (noru.redact.wrap).
COLUMNS = 160

CASES = planted()
ROWS = [line for line, _, _ in CASES] + list(ORDINARY[:6])


def _grid_line(row: int, text: str) -> OcrLine:
    """A row as the terminal reader gives it: its box whole cells from its
    first inked column (indentation is leading spaces before the box), and
    its grid's width."""
    lead = len(text) - len(text.lstrip(" "))
    box = (lead * CELL_W, TOP + row * CELL_H, (len(text) - lead) * CELL_W, CELL_H)
    return OcrLine(text, box, 0.95, COLUMNS)


def _screen(rows: list[str]) -> bytes:
    """Every character drawn as a dark block in its cell: where the span's box
    is filled, no dark pixel of the row is left."""
    image = Image.new("RGB", (WIDTH, HEIGHT), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    for row, text in enumerate(rows):
        for column, char in enumerate(text):
            if char != " ":
                x, y = column * CELL_W, TOP + row * CELL_H
                draw.rectangle((x + 2, y + 4, x + 7, y + 15), fill=(30, 30, 30))
    return _png(image)


def _png(image: Image.Image) -> bytes:
    import io

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _capture(home: Path, rows: list[str], *, ocr: bool = True, ax: bool = False) -> str:
    with Store.open(home) as store:
        ax_lines = (
            tuple(
                AxLine(line.text, line.box, "text")
                for line in map(_grid_line, range(len(rows)), rows)
            )
            if ax
            else ()
        )
        record = store.add_capture(
            [
                NewImage(
                    _screen(rows),
                    WIDTH,
                    HEIGHT,
                    source("XTerm", "env - xterm"),
                    f"{WIDTH}x{HEIGHT}",
                    ax_lines=ax_lines,
                )
            ],
            origin="user",
            captured_at=NOW,
        )
        if ocr:
            store.set_ocr(
                record.id,
                engine="tesseract",
                lines_per_image=[[_grid_line(r, t) for r, t in enumerate(rows)]],
                version="5.5.4",
            )
    return record.id


def _texts(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def _images(result: dict[str, Any]) -> list[Image.Image]:
    return [decode(base64.b64decode(b["data"])) for b in result["content"] if b["type"] == "image"]


def _dark(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Pixels of ``box`` (x0, y0, x1, y1) drawn as ink (not the paper, not the fill)."""
    crop = image.convert("RGB").crop(box)
    return sum(1 for p in crop.tobytes()[::3] if 20 < p < 100)


def _has(text: str, capture_id: str) -> bool:
    """Whether ``text`` names ``capture_id`` (not one of the same second's, ``-1``)."""
    return re.search(re.escape(capture_id) + r"(?![-0-9])", text) is not None


def _call(session: MemoryClient, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    answer = session.call(tool, args)
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    assert result["isError"] is False
    return result


class TestServedText:
    def test_no_secret_reaches_any_text_and_ordinary_words_stay(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        result = _call(session, "get_capture", {"id": capture_id, "layers": ["ocr", "regions"]})
        served = _texts(result) + json.dumps(result.get("structuredContent"))
        for _, secret, _ in CASES:
            assert leaked(served, secret) is None, secret
        for line in ORDINARY[:6]:
            assert line in served  # nothing ordinary redacted
        assert "AWS_ACCESS_KEY_ID=[redacted: aws-key]" in served

    def test_the_provenance_line_says_how_many_and_which_kinds(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        closing = _call(session, "get_capture", {"id": capture_id})["content"][-1]["text"]
        prov = closing.splitlines()[-1]
        assert prov.startswith("prov: ")
        token = prov.split("!redact(")[1].split(")")[0]
        count, kinds = token.split(": ")
        assert int(count) == len(CASES)
        assert set(kinds.split(", ")) == {kind for _, _, kind in CASES}

    def test_accessibility_text_is_redacted_too(self, session: MemoryClient, home: Path) -> None:
        capture_id = _capture(home, ROWS, ax=True)
        result = _call(session, "get_capture", {"id": capture_id, "layers": ["ax"]})
        served = _texts(result)
        assert "[redacted: aws-key]" in served
        for _, secret, _ in CASES:
            assert leaked(served, secret) is None, secret

    def test_a_resource_read_is_redacted(self, session: MemoryClient, home: Path) -> None:
        capture_id = _capture(home, ROWS)
        answer = session.request("resources/read", {"uri": f"noru-capture://{capture_id}"})
        contents = answer["result"]["contents"]
        text = contents[0]["text"]
        for _, secret, _ in CASES:
            assert leaked(text, secret) is None, secret
        assert "!redact(" in text
        blob = decode(base64.b64decode(contents[1]["blob"]))
        assert _dark(blob, _served_box(blob, 0, "AWS_ACCESS_KEY_ID=")) == 0


def _served_box(
    image: Image.Image, row: int, label: str, value: str | None = None
) -> tuple[int, int, int, int]:
    """Where a row's ``value`` after ``label`` (all the rest, by default)
    lies in a served image (scaled from WIDTH)."""
    text = ROWS[row]
    scale = image.width / WIDTH
    start = len(label)
    end = start + len(value) if value is not None else len(text)
    y = TOP + row * CELL_H
    return (
        round(start * CELL_W * scale),
        round((y + 4) * scale),
        round(end * CELL_W * scale),
        round((y + 15) * scale),
    )


class TestServedPixels:
    def test_each_secret_is_filled_and_its_label_is_not(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        (image,) = _images(_call(session, "get_capture", {"id": capture_id}))
        redaction_off(home)
        (raw,) = _images(_call(session, "get_capture", {"id": capture_id}))
        for row, (line, secret, _) in enumerate(CASES):
            label = line[: line.index(secret)]
            value = _served_box(image, row, label, secret)
            assert _dark(raw, value) > 0  # the secret is drawn there
            assert _dark(image, value) == 0, line  # and filled where it was
            if label.strip():
                before = (0, value[1], max(1, value[0] - 4), value[3])
                assert _dark(image, before) == _dark(raw, before)  # its label kept
        # Ordinary rows are as they were.
        for row in range(len(CASES), len(ROWS)):
            y = round((TOP + row * CELL_H) * image.width / WIDTH)
            band = (0, y + 1, image.width, y + 10)
            assert image.crop(band).tobytes() == raw.crop(band).tobytes()

    def test_a_region_at_native_resolution_is_filled(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        region = [0, TOP, 600, CELL_H * 3]
        (image,) = _images(_call(session, "get_capture", {"id": capture_id, "region": region}))
        assert image.size == (600, CELL_H * 3)  # native pixels
        label = "AWS_ACCESS_KEY_ID="
        value = (len(label) * CELL_W, 4, len(ROWS[0]) * CELL_W, 15)
        assert _dark(image, value) == 0
        assert _dark(image, (0, 4, len(label) * CELL_W - 2, 15)) > 0


class TestSearch:
    def test_the_agent_cannot_find_a_capture_by_its_secret(
        self, session: MemoryClient, home: Path
    ) -> None:
        _capture(home, ROWS)
        aws_key = CASES[0][1]
        answer = session.call("search_captures", {"query": aws_key})
        assert answer["result"]["content"][0]["text"].startswith("Noru no match")
        # The person's own search (the same history, unredacted) finds it.
        with Reader.open(home) as reader:
            hits, _ = reader.search(aws_key, Filters(), now=NOW)
        assert len(hits) == 1 and aws_key in hits[0].snippet

    def test_ordinary_words_still_find_it_and_the_snippet_is_redacted(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        text = _texts(_call(session, "search_captures", {"query": "AWS_ACCESS_KEY_ID"}))
        assert capture_id in text
        assert leaked(text, CASES[0][1]) is None

    def test_a_page_is_filled_past_captures_matched_only_by_a_secret(
        self, session: MemoryClient, home: Path
    ) -> None:
        word = "Kx7pLr9Qw"
        kept = [_capture(home, [f"build {word} passed"]) for _ in range(3)]
        # Newer, so ranked first: matched by the word only inside a password.
        hidden = [_capture(home, [f"password = alpha-{word}"]) for _ in range(3)]
        page = _texts(_call(session, "search_captures", {"query": word, "limit": 2}))
        assert sum(_has(page, capture_id) for capture_id in kept) == 2
        assert not any(_has(page, capture_id) for capture_id in hidden)
        cursor = page.split('cursor "')[1].split('"')[0]  # a full page, and one more
        rest = _texts(_call(session, "search_captures", {"query": word, "cursor": cursor}))
        assert sum(_has(rest, capture_id) for capture_id in kept) == 1
        assert not any(_has(rest, capture_id) for capture_id in hidden)


class TestFailClosed:
    def test_a_capture_not_read_yet_serves_no_pixels_and_no_text(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS, ocr=False, ax=True)
        result = _call(session, "get_capture", {"id": capture_id})
        assert _images(result) == []
        text = _texts(result)
        for _, secret, _ in CASES:
            assert leaked(text, secret) is None
        assert "holds back this capture's pixels and text" in text
        assert "Next:" in text
        assert "-px(held back until checked for secrets)" in text
        # Nor does search give away its accessibility text.
        answer = session.call("search_captures", {"query": "AWS_ACCESS_KEY_ID"})
        assert answer["result"]["content"][0]["text"].startswith("Noru no match")

    def test_a_failed_reading_is_held_back_for_good(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS, ocr=False)
        with Store.open(home) as store:
            store.set_ocr(capture_id, engine="tesseract", version="5", error="engine crashed")
        result = _call(session, "get_capture", {"id": capture_id, "text_only": True})
        text = _texts(result)
        assert _images(result) == [] and "could not be recognised (engine crashed)" in text

    @pytest.mark.parametrize("damage", ["{not json", '{"patterns": [{"pattern": "("}]}', "[]"])
    def test_damaged_rules_serve_nothing(
        self, session: MemoryClient, home: Path, damage: str
    ) -> None:
        capture_id = _capture(home, ROWS)
        (home / policy.FILE).write_text(damage)
        result = _call(session, "get_capture", {"id": capture_id})
        text = _texts(result)
        assert _images(result) == [] and "noru doctor" in text
        for _, secret, _ in CASES:
            assert leaked(text, secret) is None
        answer = session.call("search_captures", {"query": "AWS_ACCESS_KEY_ID"})
        assert answer["error"]["code"] == -32603
        assert "noru doctor" in answer["error"]["message"]


class TestSettings:
    def test_redaction_off_serves_the_capture_as_taken_and_says_so(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        redaction_off(home)
        text = _texts(_call(session, "get_capture", {"id": capture_id, "layers": ["ocr"]}))
        assert CASES[0][1] in text and "!redact" not in text
        status = _texts(_call(session, "get_status", {}))
        assert "Redacted in what agents get: off" in status

    def test_get_status_names_what_is_on(self, session: MemoryClient, home: Path) -> None:
        status = _texts(_call(session, "get_status", {}))
        assert "Redacted in what agents get: secrets, cards" in status

    def test_emails_are_redacted_only_when_asked(self, session: MemoryClient, home: Path) -> None:
        capture_id = _capture(home, ["reviewer: jane.doe@example.org"])
        asked = {"id": capture_id, "layers": ["ocr"]}
        assert "jane.doe@example.org" in _texts(_call(session, "get_capture", asked))
        (home / "config.toml").write_text('redact = ["secrets", "cards", "emails"]\n')
        text = _texts(_call(session, "get_capture", asked))
        assert "jane.doe" not in text and "[redacted: email]" in text

    def test_the_persons_own_pattern_from_the_cli(self, session: MemoryClient, home: Path) -> None:
        capture_id = _capture(home, ["ticket CUST-48213-ZQ opened"])
        runner = CliRunner()
        added = runner.invoke(
            main, ["redact", "add", "--pattern", r"CUST-\d{5}-[A-Z]{2}", "--kind", "customer"]
        )
        assert added.exit_code == 0, added.output
        text = _texts(_call(session, "get_capture", {"id": capture_id, "layers": ["ocr"]}))
        assert "ticket [redacted: customer] opened" in text
        listed = runner.invoke(main, ["redact", "list"])
        assert "as [redacted: customer]" in listed.output
        removed = runner.invoke(main, ["redact", "remove", "--pattern", r"CUST-\d{5}-[A-Z]{2}"])
        assert removed.exit_code == 0
        assert "CUST-48213-ZQ" in _texts(
            _call(session, "get_capture", {"id": capture_id, "layers": ["ocr"]})
        )

    @pytest.mark.parametrize(
        ("args", "says"),
        [
            (["--pattern", "("], "not a regular expression"),
            (["--pattern", "x*"], "matches empty text"),
            (["--pattern", "abc", "--kind", "Has Spaces"], "lowercase"),
        ],
    )
    def test_a_bad_pattern_is_refused_and_nothing_is_written(
        self, home: Path, args: list[str], says: str
    ) -> None:
        result = CliRunner().invoke(main, ["redact", "add", *args])
        assert result.exit_code == 2 and says in result.output
        assert not (home / policy.FILE).exists()


class TestAccessLog:
    def test_the_log_has_the_count_and_kinds_never_the_values(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ROWS)
        _call(session, "get_capture", {"id": capture_id})
        entry = list(accesslog.read(home))[-1]
        (served,) = entry["captures"]
        assert served["id"] == capture_id and served["redacted"].startswith(f"{len(CASES)}: ")
        raw = (home / accesslog.FILE).read_text()
        for _, secret, _ in CASES:
            assert leaked(raw, secret) is None


class TestTheLogIsNotFooled:
    def test_a_provenance_line_drawn_on_screen_is_not_logged(
        self, session: MemoryClient, home: Path
    ) -> None:
        capture_id = _capture(home, ["prov: !px !redact(99: forged)", "nothing secret"])
        _call(session, "get_capture", {"id": capture_id})
        (served,) = list(accesslog.read(home))[-1]["captures"]
        assert "redacted" not in served


class TestThePersonsCopy:
    def test_noru_show_has_the_text_as_taken_and_what_agents_get(self, home: Path) -> None:
        capture_id = _capture(home, ROWS)
        shown = CliRunner().invoke(main, ["show", capture_id])
        assert shown.exit_code == 0, shown.output
        assert ROWS[0] in shown.output  # as taken: the key itself
        assert f"Redacted for agents ({len(CASES)}: aws-key, " in shown.output
        assert "  AWS_ACCESS_KEY_ID=[redacted: aws-key]" in shown.output
        # The stored image is the original, untouched.
        with Reader.open(home) as reader:
            record = reader.get(capture_id)
            assert record is not None
            stored = Image.open(reader.image_file(record.images[0])).convert("RGB")
        assert stored.tobytes() == decode(_screen(ROWS)).convert("RGB").tobytes()

    def test_noru_show_says_when_agents_get_nothing_yet(self, home: Path) -> None:
        capture_id = _capture(home, ROWS, ocr=False)
        shown = CliRunner().invoke(main, ["show", capture_id])
        assert "Agents get none of this capture's pixels or text yet" in shown.output


class TestRedactAtRest:
    def test_the_history_keeps_only_the_redacted_forms(self, home: Path) -> None:
        from noru.recognition import CaptureText

        (home / "config.toml").write_text("redact_at_rest = true\n")
        capture_id = _capture(home, ROWS, ocr=False)
        lines = tuple(_grid_line(r, t) for r, t in enumerate(ROWS))
        with Store.open(home) as store:
            assert CaptureText(capture_id, "tesseract", "5.5.4", (lines,)).save(store)
            record = store.get(capture_id)
            assert record is not None
            stored = Image.open(store.image_file(record.images[0])).convert("RGB")
            hits, _ = store.search(CASES[0][1], Filters(), now=NOW)
        for _, secret, _ in CASES:
            assert leaked(record.ocr_text, secret) is None, secret
        assert "AWS_ACCESS_KEY_ID=[redacted: aws-key]" in record.ocr_text
        assert hits == []  # not even the person's search finds it now
        label = len("AWS_ACCESS_KEY_ID=")
        value = (label * CELL_W, TOP + 4, len(ROWS[0]) * CELL_W, TOP + 15)
        assert _dark(stored, value) == 0
        assert _dark(stored, (0, TOP + 4, label * CELL_W - 2, TOP + 15)) > 0
        for row in range(len(CASES), len(ROWS)):  # ordinary rows untouched
            band = (0, TOP + row * CELL_H, WIDTH, TOP + (row + 1) * CELL_H)
            assert (
                stored.crop(band).tobytes()
                == decode(_screen(ROWS)).convert("RGB").crop(band).tobytes()
            )

    def test_off_by_default_the_history_keeps_the_capture_as_taken(self, home: Path) -> None:
        from noru.recognition import CaptureText

        capture_id = _capture(home, ROWS, ocr=False)
        lines = tuple(_grid_line(r, t) for r, t in enumerate(ROWS))
        with Store.open(home) as store:
            assert CaptureText(capture_id, "tesseract", "5.5.4", (lines,)).save(store)
            record = store.get(capture_id)
        assert record is not None and CASES[0][1] in record.ocr_text


class TestWhereASpanLies:
    """Boxes of spans in proportional text, measured against a real font's
    advances (DejaVu Sans through FreeType, as Pillow draws it)."""

    LINES: ClassVar[list[str]] = [
        "AWS_SECRET_ACCESS_KEY=WJALRXUTNFEMIK7MDENGBPXRFICYEXAMPLEKEY1 is listed in the file",
        "export GITHUB_TOKEN=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 then it will fill",
        "iiii lll password: WMWMWMWMQQ0011 and a tail of lowercase words",
        "api_key = 'sk-proj-MWMWMWMWMWMWMWMWMWMWMW' ; till it is filled in",
    ]

    @pytest.mark.parametrize("text", LINES)
    def test_a_secret_in_a_proportional_font_lies_inside_its_box(self, text: str) -> None:
        from PIL import ImageFont

        from noru.redact import find
        from noru.redact.apply import span_box

        font = ImageFont.truetype("DejaVuSans.ttf", 16)
        x0, width = 40, round(font.getlength(text))
        box = (x0, 100, width, 20)
        (finding,) = find(text)
        left, _, w, _ = span_box(box, text, finding.start, finding.end)
        ink_left = x0 + font.getlength(text[: finding.start])
        ink_right = x0 + font.getlength(text[: finding.end])
        assert left <= ink_left and left + w >= ink_right, (left, left + w, ink_left, ink_right)

    def test_one_line_of_whole_cells_by_chance_is_no_grid(self, home: Path) -> None:
        from noru.redact.apply import for_agent, span_box

        text = "password: hunter2hunter2"  # 24 characters over 240 px: 10 px each
        capture_id = _capture(home, ["x"], ocr=False)
        with Store.open(home) as store:
            store.set_ocr(
                capture_id, engine="t", lines_per_image=[[OcrLine(text, (0, 0, 240, 20), 0.9)]]
            )
            record = store.get(capture_id)
        assert record is not None
        ((box,),) = for_agent(record, policy.Policy.of(["secrets"])).boxes
        start = text.index("hunter2")
        cells = span_box((0, 0, 240, 20), text, start, len(text), grid=True)
        assert box != cells and box[0] + box[2] >= 240  # to the line's end, not the cells'

    def test_a_secret_in_accessibility_text_fills_its_widgets_whole_box(self, home: Path) -> None:
        from noru.redact.apply import for_agent

        with Store.open(home) as store:
            record = store.add_capture(
                [
                    NewImage(
                        _screen(["x"]), WIDTH, HEIGHT,
                        ax_lines=(AxLine(AX_KEY, (100, 200, 1000, 30), "text"),),
                    )
                ],
                origin="user",
            )  # fmt: skip
            store.set_ocr(record.id, engine="t", lines_per_image=[[]])
            record = store.get(record.id)
        assert record is not None
        ((box,),) = for_agent(record, policy.Policy.of(["secrets"])).boxes
        assert box == (100, 200, 1000, 30)


AX_KEY = "API key: sk-proj-abcdefghijklmnopqrstuvwx"


class TestTitles:
    TITLE = "psql postgresql://admin:S3cr3tPassw0rd@db.internal/prod - xterm"

    def _titled(self, home: Path, *, ocr: bool = True) -> str:
        with Store.open(home) as store:
            record = store.add_capture(
                [NewImage(_screen(["select 1;"]), WIDTH, HEIGHT, source("XTerm", self.TITLE))],
                origin="user",
            )
            if ocr:
                store.set_ocr(record.id, engine="t", lines_per_image=[[_grid_line(0, "select 1;")]])
        return record.id

    @pytest.mark.parametrize("ocr", [True, False])
    def test_a_secret_in_a_window_title_reaches_no_agent(
        self, session: MemoryClient, home: Path, ocr: bool
    ) -> None:
        capture_id = self._titled(home, ocr=ocr)
        answers = [
            session.call("get_capture", {"id": capture_id}),
            session.call("list_captures", {}),
            session.call("search_captures", {"query": "select"}) if ocr else {},
            session.request("resources/list", {}),
            session.request("resources/read", {"uri": f"noru-capture://{capture_id}"}),
        ]
        served = json.dumps(answers)
        assert "S3cr3tPassw0rd" not in served and "Passw0rd" not in served
        assert "postgresql://admin:[redacted: url-password]@db.internal" in served


class TestSearchOrder:
    def test_an_agents_search_is_newest_first(self, session: MemoryClient, home: Path) -> None:
        older = _capture(home, ["deploy deploy deploy deploy"])
        newer = _capture(home, ["deploy once"])
        text = _texts(_call(session, "search_captures", {"query": "deploy"}))
        assert "newest first" in text

        def place(capture_id: str) -> int:
            found = re.search(re.escape(capture_id) + r"(?![-0-9])", text)
            assert found is not None
            return found.start()

        assert place(newer) < place(older)


class TestAtRestFailsClosed:
    def test_unreadable_rules_store_no_text(self, home: Path) -> None:
        from noru.errors import OcrError
        from noru.recognition import CaptureText

        (home / "config.toml").write_text("redact_at_rest = true\n")
        capture_id = _capture(home, ROWS, ocr=False)
        (home / policy.FILE).write_text("{damaged")
        lines = tuple(_grid_line(r, t) for r, t in enumerate(ROWS))
        with Store.open(home) as store:
            with pytest.raises(OcrError, match="redact_at_rest"):
                CaptureText(capture_id, "tesseract", "5.5.4", (lines,)).save(store)
            record = store.get(capture_id)
        assert record is not None and record.ocr_state == "pending" and record.ocr_text == ""


class TestAccessibilityAtRest:
    def test_kept_lines_are_redacted_and_unreadable_rules_keep_none(self, home: Path) -> None:
        from noru.redact.at_rest import ax_at_rest

        lines = (AxLine(AX_KEY, (0, 0, 400, 20), "text"), AxLine("Save", (0, 30, 40, 20), "button"))
        kept = ax_at_rest(lines, policy.Policy.of(["secrets"]))
        assert [line.text for line in kept] == ["API key: [redacted: openai-key]", "Save"]
        assert ax_at_rest(lines, policy.Policy(frozenset({"secrets"}), problem="damaged")) == ()
