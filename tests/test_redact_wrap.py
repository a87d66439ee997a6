"""Lines as written, not as wrapped, and pixels where text could not be
read: a terminal's rows as stored (noru.redact.wrap, noru.redact.unsure),
through the real redaction of a stored capture (``for_agent``).

The rows are what the terminal reader stores: text from the grid's first
column (indentation as spaces), a box of whole cells from the first inked
one, the grid's width in cells. The real terminals drawing wrapped secrets
are in test_redact_wrap_real.py.
"""

from __future__ import annotations

import base64
import json
import math
import random
from datetime import UTC, datetime

from noru.redact import policy
from noru.redact.apply import for_agent, span_box
from noru.redact.wrap import find_written, written
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine
from noru.store.records import Source
from tests.redaction_cases import ALNUM, leaked, pick

CELL_W, CELL_H = 9, 18
POLICY = policy.Policy.of(["secrets", "cards"])


def _rows(lines: list[str], columns: int) -> list[str]:
    """What a terminal ``columns`` wide shows of ``lines``: each cut at the
    last column onto as many rows as it takes."""
    rows = []
    for line in lines:
        rows += [line[i : i + columns] for i in range(0, len(line), columns)] or [""]
    return rows


def _stored(
    rows: list[str], columns: int | None, *, confidence: float = 0.99, at: int = 0
) -> list[OcrLine]:
    """The rows as the terminal reader stores them (empty rows are no lines);
    ``columns`` None: as stored before the grid's width was kept."""
    out = []
    for r, text in enumerate(rows):
        text = text.rstrip()
        if not text:
            continue
        lead = len(text) - len(text.lstrip(" "))
        box = (at + lead * CELL_W, 30 + r * CELL_H, (len(text) - lead) * CELL_W, CELL_H)
        out.append(OcrLine(text, box, confidence, columns))
    return out


def _record(lines: list[OcrLine], ax: tuple[AxLine, ...] = ()) -> CaptureRecord:
    image = ImageRecord(
        position=0, path="x.png", width=1600, height=1200, source=Source(), display_mode=None,
        ax_text="\n".join(line.text for line in ax) or None, ocr_lines=tuple(lines), ax_lines=ax,
    )  # fmt: skip
    return CaptureRecord(
        seq=1, id="c", captured_at=datetime(2026, 12, 5, tzinfo=UTC), origin="user", note=None,
        ocr_state="done", ocr_engine="t", ocr_version="1", ocr_confidence=None, ocr_error=None,
        imported=False, delivered=False, images=(image,),
    )  # fmt: skip


def _served(lines: list[OcrLine]) -> tuple[str, list[tuple[int, int, int, int]]]:
    seen = for_agent(_record(lines), POLICY)
    return seen.record.ocr_text, list(seen.boxes[0])


def _covered(boxes: list[tuple[int, int, int, int]], cell: tuple[int, int, int, int]) -> bool:
    x, y, w, h = cell
    return any(
        bx <= x and by <= y and x + w <= bx + bw and y + h <= by + bh for bx, by, bw, bh in boxes
    )


def _every_cell_filled(
    rows: list[str], columns: int, secret: str, boxes: list[tuple[int, int, int, int]]
) -> None:
    """Each cell of the secret, on whichever row it was drawn, lies in a
    filled box (the grid's own cells, not the boxes redaction found)."""
    whole = "".join(r.ljust(columns) for r in rows)
    start = whole.index(secret)
    for at in range(start, start + len(secret)):
        row, column = divmod(at, columns)
        cell = (column * CELL_W, 30 + row * CELL_H, CELL_W, CELL_H)
        assert _covered(boxes, cell), (row, column, secret)


def test_a_token_cut_at_the_last_column_is_found_whole_and_each_row_s_part_goes() -> None:
    rng = random.Random(3)
    token = "ghp_" + pick(rng, ALNUM, 36)
    lines = ["$ echo $SHELL", "/bin/bash", f"$ git push https://{token}@github.com/a/b"]
    for columns in (40, 32, 24):
        rows = _rows(lines, columns)
        text, boxes = _served(_stored(rows, columns))
        assert leaked(text, token) is None, (columns, text)
        assert "[redacted: github-token]" in text
        _every_cell_filled(rows, columns, token, boxes)
        assert "/bin/bash" in text  # the lines around are served as read


def test_a_long_anthropic_key_over_three_rows_and_a_service_account_s_key() -> None:
    rng = random.Random(4)
    key = "sk-ant-api03-" + pick(rng, ALNUM, 93) + "AA"
    body = base64.b64encode(rng.randbytes(1190)).decode()
    pem = "-----BEGIN PRIVATE KEY-----\n"
    pem += "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    pem += "\n-----END PRIVATE KEY-----\n"
    account = json.dumps(
        {
            "type": "service_account",
            "private_key_id": pick(rng, ALNUM, 40).lower(),
            "private_key": pem,
        }
    )[1:-1].split(", ")
    lines = ["$ cat .env", f"ANTHROPIC_API_KEY={key}", "$ cat sa.json", "{", *account, "}"]
    rows = _rows(lines, 80)
    assert sum(len(r) == 80 for r in rows) > 14  # the key alone takes more than 14 rows
    text, boxes = _served(_stored(rows, 80))
    assert leaked(text, key) is None
    _every_cell_filled(rows, 80, key, boxes)
    for line in body[64:].split("\n"):
        assert leaked(text, line[:40]) is None
    start = "".join(rows).index("MII" if "MII" in body else body[:8])
    value = "".join(rows)[start : "".join(rows).index("-----END")]
    assert leaked(text, value.replace("\\n", "")[:200]) is None
    _every_cell_filled(rows, 80, json.dumps(pem)[28:-28], boxes)
    assert '"type": "service_account"' in text


def test_a_pem_block_in_a_narrow_terminal_is_filled_on_every_row() -> None:
    body = base64.b64encode(random.Random(5).randbytes(400)).decode()
    lines = [
        "$ cat id_ed",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        *(body[i : i + 64] for i in range(0, len(body), 64)),
        "-----END OPENSSH PRIVATE KEY-----",
        "$ ls",
    ]
    rows = _rows(lines, 40)
    text, boxes = _served(_stored(rows, 40))
    for i in range(0, len(body) - 12, 12):
        assert body[i : i + 12] not in text.replace("\n", "")
    for part in (body[i : i + 64] for i in range(0, len(body), 64)):
        _every_cell_filled(rows, 40, part[:40], boxes)
    assert "-----END OPENSSH PRIVATE KEY-----" in text


def test_prose_that_reaches_the_last_column_is_not_joined_into_a_secret() -> None:
    # A sentence as wide as the terminal, and the next line starting at the
    # first column: joined (a terminal cannot tell), but prose stays prose.
    rows = [
        "Rotate the deploy token before Friday; the password manager has the key.",
        "Then restart the workers and check the dashboard for errors, please do.",
        "abcdef0123456789abcdef0123456789abcdef01 Merge pull request #88 from a/b",
        "ffeeddccbbaa99887766554433221100ffeeddcc Bump version",
    ]
    columns = len(rows[0])
    stored = _stored(rows, columns)
    text, boxes = _served(stored)
    assert text == "\n".join(rows) and boxes == []


def test_an_indented_next_row_is_no_continuation_and_a_short_row_is_not_continued() -> None:
    rng = random.Random(6)
    head = "export GITHUB_TOKEN=ghp_" + pick(rng, ALNUM, 16)
    rows = [head, "    ABCDEFGHIJKLMNOPQRSTU", head[:30], "ABCDEFGHIJKL"]
    stored = _stored(rows, len(head))
    assert written(stored) == [[0], [1], [2], [3]]
    # A row reaching the last column continued by one starting at the first:
    assert written(_stored([head, "ABCDEFGHIJKL"], len(head))) == [[0, 1]]
    # One space where the terminal cut the line (after a label's colon) is
    # the line's own, at the next row's start or in the row's last cell;
    # two are indentation.
    assert written(_stored([head, " ABCDEFGH"], len(head))) == [[0, 1]]
    assert written(_stored([head, "ABCDEFGH"], len(head) + 1)) == [[0, 1]]
    assert written(_stored([head, " ABCDEFGH"], len(head) + 1)) == [[0], [1]]
    assert written(_stored([head, "  ABCDEFGH"], len(head))) == [[0], [1]]
    assert written(_stored([head, "ABCDEFGH"], len(head) + 2)) == [[0], [1]]
    # The next row must be the next one down, on the same grid.
    apart = _stored([head, "", "ABCDEFGHIJKL"], len(head))
    assert written(apart) == [[0], [1]]
    other = _stored([head], len(head)) + _stored(["", "ABCDEFGHIJKL"], len(head), at=500)
    assert written(other) == [[0], [1]]


def test_a_token_after_a_space_the_terminal_cut_at_is_found_on_the_next_row() -> None:
    rng = random.Random(11)
    token = pick(rng, ALNUM, 40)
    head = 'curl -s -H "Authorization: Bearer'
    for columns in (len(head) + 1, len(head)):
        rows = [head, token + '" https://api.internal/v2/jobs'] if columns > len(head) else [
            head, " " + token + '" https://api.internal/v2/jobs'
        ]  # fmt: skip
        text, boxes = _served(_stored(["$ ls", *rows], columns))
        assert leaked(text, token) is None, (columns, text)
        assert "[redacted: bearer-token]" in text
        assert text.split("\n")[1] == head  # the label's row is served as read
        first = rows[1].index(token)
        for column in range(first, first + len(token)):
            cell = (column * CELL_W, 30 + 2 * CELL_H, CELL_W, CELL_H)
            assert _covered(boxes, cell), (columns, column)


def test_a_false_join_only_widens_what_is_redacted() -> None:
    # A line exactly as wide as the terminal, then a line of its own: joined,
    # and the next row's secret is still found as on its own.
    rng = random.Random(7)
    first = "AWS_ACCESS_KEY_ID=AKIA" + "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)
    )
    second = "DB_PASSWORD=" + pick(rng, ALNUM, 14)
    found, groups = find_written(_stored([first, second], len(first)), {"secrets"})
    assert groups == [[0, 1]]
    assert found[0] and found[1]
    assert found[1][0].end == len(second)


def test_rows_stored_before_the_grid_width_was_kept_take_the_widest_row_as_the_edge() -> None:
    rng = random.Random(8)
    token = "glpat-" + pick(rng, ALNUM, 20)
    rows = _rows(
        ["$ ls", "README.md  src", f"git remote add o https://oauth2:{token}@gitlab.com/x"], 40
    )
    text, boxes = _served(_stored(rows, None))
    assert leaked(text, token) is None, text
    _every_cell_filled(rows, 40, token, boxes)


def test_span_boxes_of_a_continued_row_are_its_cells_and_a_quarter_cell_around() -> None:
    box = (0, 30, 40 * CELL_W, CELL_H)
    bleed = math.ceil(CELL_W / 4)  # a glyph's ink a pixel or two out of its cell
    assert span_box(box, "x" * 40, 30, 40, grid=True) == (
        30 * CELL_W - bleed,
        30,
        10 * CELL_W + 2 * bleed,
        CELL_H,
    )
    assert span_box(box, "x" * 40, 0, 4, grid=True) == (0, 30, 4 * CELL_W + bleed, CELL_H)


def test_an_unsure_row_beside_a_secret_or_its_label_is_filled_whole() -> None:
    rng = random.Random(9)
    token = "ghp_" + pick(rng, ALNUM, 36)
    rows = [
        "$ gh auth status",
        f"  - Token: {token[:10]} {token[10:]}",  # a space read inside it
        "  - Token scopes: 'gist', 'read:org', 'repo'",
        "$ cat notes.txt",
        "ff oA TSE ESR ere",  # a highlighted token, misread
        "the meeting moved to 3pm",
    ]
    stored = _stored(rows, 80)
    unsure = {1, 4, 5}
    stored = [
        OcrLine(line.text, line.box, 0.2 if i in unsure else 0.99, 80)
        for i, line in enumerate(stored)
    ]
    # Row 4 lies beside nothing secret: served as read, unsure or not.
    stored[3] = OcrLine("password:", stored[3].box, 0.99, 80)
    text, boxes = _served(stored)
    served = text.split("\n")
    assert served[1] == "  [redacted: unsure]"
    assert served[4] == "[redacted: unsure]"  # under a label
    assert served[5] == "the meeting moved to 3pm"  # an unsure row beside nothing secret
    for row in (1, 4):  # the row's box whole (and a little round it)
        x, y, w, h = stored[row].box
        assert any(
            a <= x and b <= y and a + c >= x + w and b + d >= y + h for a, b, c, d in boxes
        ), (row, boxes)
    assert leaked(text, token) is None
    seen = for_agent(_record(stored), POLICY)
    assert "unsure" in seen.kinds
    # Without the secrets category, nothing is filled for being unsure.
    cards_only = for_agent(_record(stored), policy.Policy.of(["cards"]))
    assert "unsure" not in cards_only.kinds


def test_a_line_an_app_wraps_softly_is_whole_in_its_accessibility_text_and_goes_from_ocr() -> None:
    rng = random.Random(10)
    token = (
        "xoxb-" + "".join(rng.choice("0123456789") for _ in range(11)) + "-" + pick(rng, ALNUM, 24)
    )
    whole = f"Paste this into the bot settings: SLACK_BOT_TOKEN={token} and restart it"
    # An editor's text field, proportional type, wrapped softly at a word:
    # the token's part on the second row is too short for any rule.
    cut = whole.index(token) + 14
    rows = [whole[:cut], whole[cut:]]
    ocr = [
        OcrLine(text, (40, 100 + 24 * r, 7 * len(text), 22), 0.98) for r, text in enumerate(rows)
    ]
    ax = (AxLine(whole, (30, 95, 700, 60), "text"),)
    plain = for_agent(_record(ocr), POLICY)
    assert leaked(plain.record.ocr_text, token) is not None  # OCR alone leaves a part
    seen = for_agent(_record(ocr, ax), POLICY)
    assert leaked(seen.record.ocr_text, token) is None, seen.record.ocr_text
    assert leaked(seen.record.ax_text, token) is None
    assert "and restart it" in seen.record.ocr_text
    # The second row's part is filled where it was read, and the widget whole.
    assert any(x <= 40 < x + w and y <= 124 and y + h >= 146 for x, y, w, h in seen.boxes[0])
    assert ax[0].box in seen.boxes[0]
