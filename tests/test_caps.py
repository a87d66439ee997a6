"""Caps on what one answer can carry: rows, images, region size, text size."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from noru.present import MAX_IMAGES, MAX_TEXT
from noru.store import NewImage, OcrLine, Store
from tests.history_data import png, redaction_off, seed
from tests.wire import MemoryClient, answer_text


def test_list_and_search_never_return_more_than_200_rows(session: MemoryClient, home: Path) -> None:
    with Store.open(home) as store:
        for _ in range(205):
            store.add_capture([NewImage(png(16, 16), 16, 16)], origin="user", note="same words")
    for name, extra in (("list_captures", {}), ("search_captures", {"query": "same words"})):
        body = answer_text(session.call(name, {**extra, "limit": 200}))
        rows = [line for line in body.splitlines() if line.split(".")[0].isdigit()]
        assert len(rows) == 200 and "cursor" in body
        assert session.call(name, {**extra, "limit": 201})["error"]["code"] == -32602


def test_a_capture_with_more_displays_than_the_cap_sends_the_first_ones_and_says_so(
    session: MemoryClient, home: Path
) -> None:
    count = MAX_IMAGES + 3
    redaction_off(home)  # not read by OCR: with redaction on it is held back
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(32, 20), 32, 20) for _ in range(count)], origin="agent"
        )
    answer = session.call("get_capture", {"id": record.id})
    blocks = answer["result"]["content"]
    assert [b["type"] for b in blocks].count("image") == MAX_IMAGES
    assert len(answer["result"]["structuredContent"]["images"]) == MAX_IMAGES
    assert f"holds {count} images; the first {MAX_IMAGES} are sent" in answer_text(answer)


def test_a_region_as_large_as_the_image_is_still_served_within_the_long_edge(
    session: MemoryClient, home: Path
) -> None:
    seeded = seed(home)
    answer = session.call("get_capture", {"id": seeded.editor.id, "region": [0, 0, 1568, 980]})
    image = Image.open(io.BytesIO(base64.b64decode(answer["result"]["content"][2]["data"])))
    assert max(image.size) == 1568
    assert answer["result"]["structuredContent"]["images"][0]["downscaled_from"] == [2560, 1600]


def test_a_huge_text_layer_is_cut_and_the_cut_is_announced(
    session: MemoryClient, home: Path
) -> None:
    line = "word " * 2000  # 10,000 characters
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(32, 20), 32, 20)], origin="user", note="n" * (MAX_TEXT + 50)
        )
        store.set_ocr(
            record.id,
            engine="tesseract",
            lines_per_image=[[OcrLine(line, (0, 0, 10, 10), 0.9)] * 15],
        )
    answer = session.call("get_capture", {"id": record.id, "text_only": True})
    blocks = [b["text"] for b in answer["result"]["content"]]
    ocr = next(b for b in blocks if b.startswith("On-screen text"))
    # The text cut at MAX_TEXT, with the layer's intro and Noru's line naming
    # the lines it is unsure of.
    assert len(ocr) < MAX_TEXT + 300
    closing = blocks[-1]
    assert f"The OCR text was cut at {MAX_TEXT:,} of" in closing
    assert f"The note was cut at {MAX_TEXT:,} of {MAX_TEXT + 50:,} characters." in closing
