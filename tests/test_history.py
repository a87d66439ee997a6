"""The history tools and resources over the in-memory stream, on a real store."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from noru import appwire
from noru.access import set_control
from noru.store import CaptureRecord, NewImage, OcrLine, Store
from tests.history_data import Seeded, decode, png, redaction_off, source
from tests.socket_peer import OneShotApp
from tests.wire import MemoryClient


def app_status(*, ocr: appwire.OcrState) -> appwire.AppStatus:
    """What a running app says of itself, with the OCR state a test needs."""
    return appwire.AppStatus(
        "0",
        screen=appwire.ScreenAccess(appwire.ScreenState.GRANTED, "display :0 reachable"),
        ocr=ocr,
        hotkey=appwire.HotkeyState("ctrl+alt+n", grabbed=True),
        menu=appwire.MenuState(shown=True),
    )


def text(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is False and result["_meta"] == {"noru.contract": 4}
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def lines(answer: dict[str, Any]) -> list[str]:
    return text(answer).splitlines()


def capture_with_lines(home: Path, ocr_lines: list[OcrLine]) -> CaptureRecord:
    """A terminal capture whose text is ``ocr_lines``, as the OCR worker stores it."""
    with Store.open(home) as store:
        record = store.add_capture(
            [NewImage(png(800, 600), 800, 600, source("XTerm", "bash"), "800x600")],
            origin="user",
        )
        store.set_ocr(record.id, engine="tesseract", lines_per_image=[ocr_lines])
    return record


class TestList:
    def test_rows_are_newest_first_and_text_only(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        answer = session.call("list_captures")
        assert "structuredContent" not in answer["result"]
        rows = [line for line in lines(answer) if line[:2] in ("1.", "2.", "3.")]
        assert [row.split()[1] for row in rows] == [
            seeded.browser.id,
            seeded.terminal.id,
            seeded.editor.id,
        ]
        editor_row = rows[2]
        assert "1 image + text + note" in editor_row
        assert "app Code" in editor_row and "workspace repoB" in editor_row
        assert 'note: "the failing build"' in editor_row
        assert lines(answer)[-1] == "prov: !src ?ws"

    @pytest.mark.parametrize(
        ("arguments", "expected"),
        [
            ({"app": "code"}, ["editor"]),
            ({"app": "xterm"}, ["terminal"]),
            ({"workspace": "REPOB"}, ["editor"]),
            ({"display": 2}, ["terminal", "browser"]),
            ({"display": "hdmi"}, ["terminal", "browser"]),
            ({"display": "2"}, ["terminal", "browser"]),
            ({"origin": "agent"}, ["browser"]),
            ({"since": "1h"}, ["terminal", "browser"]),
            ({"before": "1h"}, ["editor"]),
            ({"order": "oldest_first"}, ["editor", "terminal", "browser"]),
            ({"limit": 1}, ["browser"]),
        ],
    )
    def test_filters_narrow_the_rows(
        self,
        session: MemoryClient,
        seeded: Seeded,
        arguments: dict[str, Any],
        expected: list[str],
    ) -> None:
        ids = {name: getattr(seeded, name).id for name in ("editor", "terminal", "browser")}
        body = text(session.call("list_captures", arguments))
        found = [name for name, cid in ids.items() if cid in body]
        order = sorted(found, key=lambda name: body.index(ids[name]))
        if arguments.get("order") != "oldest_first" and "limit" not in arguments:
            expected = sorted(expected, key=lambda n: -getattr(seeded, n).captured_at.timestamp())
        assert order == expected

    def test_a_cursor_gives_the_next_page(self, session: MemoryClient, seeded: Seeded) -> None:
        first = text(session.call("list_captures", {"limit": 2}))
        cursor = first.split('cursor "')[1].split('"')[0]
        second = text(session.call("list_captures", {"limit": 2, "cursor": cursor}))
        assert seeded.editor.id in second and seeded.browser.id not in second
        assert "cursor" not in second

    def test_the_header_counts_every_match_and_a_page_says_how_many_it_shows(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        # Like `noru list`: the total the filters match, not the page size.
        assert lines(session.call("list_captures", {"limit": 1}))[0] == (
            "Noru history: 3 captures, newest first; filters: none. This page shows 1."
        )
        first = text(session.call("list_captures", {"display": 2, "limit": 1}))
        assert first.splitlines()[0].startswith("Noru history: 2 captures, newest first;")
        cursor = first.split('cursor "')[1].split('"')[0]
        second = lines(session.call("list_captures", {"display": 2, "limit": 1, "cursor": cursor}))
        assert second[0].startswith("Noru history: 2 captures,")
        assert second[0].endswith("This page shows 1.")
        whole = lines(session.call("list_captures", {"display": 2}))[0]
        assert whole.startswith("Noru history: 2 captures,") and "This page" not in whole

    @pytest.mark.parametrize("cursor", ["garbage", "eyJrIjoic2VhcmNoIn0=", "%%%"])
    def test_a_foreign_cursor_is_invalid_params(
        self, session: MemoryClient, seeded: Seeded, cursor: str
    ) -> None:
        answer = session.call("list_captures", {"cursor": cursor})
        assert answer["error"]["code"] == -32602 and "`cursor`" in answer["error"]["message"]

    def test_no_match_names_the_filters_and_the_values_present(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        body = lines(session.call("list_captures", {"app": "Figma"}))
        assert body[0] == "Noru no match: no capture matches the filters"
        assert body[1] == "Active filters: app=Figma."
        assert "apps Code, XTerm" in body[2]
        assert "workspaces noru, repoB" in body[2]
        assert "displays 1 (DP-1), 2 (HDMI-1)" in body[2]
        assert body[-1].startswith("Next: ")


class TestSearch:
    def test_a_match_row_names_the_layer_with_a_snippet(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        body = lines(session.call("search_captures", {"query": "frobnicate"}))
        assert seeded.editor.id in body[1]
        assert body[2].startswith("   matched ocr: ") and "«frobnicate»" in body[2]
        assert body[-1] == "prov: !src ?ws ?rec"

    def test_the_retired_name_searches_too(self, session: MemoryClient, seeded: Seeded) -> None:
        assert seeded.editor.id in text(session.call("search_history", {"query": "frobnicate"}))

    def test_filters_apply_to_search(self, session: MemoryClient, seeded: Seeded) -> None:
        answer = session.call("search_captures", {"query": "frobnicate", "app": "xterm"})
        assert lines(answer)[0].startswith("Noru no match: no capture contains 'frobnicate'")

    @pytest.mark.parametrize("query", ['"', "NEAR(", "*", "a -b", "x:y", "'"])
    def test_operators_in_the_query_never_fail(
        self, session: MemoryClient, seeded: Seeded, query: str
    ) -> None:
        answer = session.call("search_captures", {"query": query})
        assert "result" in answer


class TestGetCapture:
    def test_a_capture_by_id_has_the_contract_shape(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        result = session.call("get_capture", {"id": seeded.editor.id})["result"]
        kinds = [b["type"] for b in result["content"]]
        assert kinds == ["text", "text", "image", "text", "text", "text"]
        assert result["content"][1]["text"] == (
            'Image 1 of 1: window "main.py - repoB - Visual Studio Code", served at 1568x980 px '
            "(downscaled from 2560x1600 px)."
        )
        assert decode(base64.b64decode(result["content"][2]["data"])).size == (1568, 980)
        assert result["structuredContent"] == {
            "id": seeded.editor.id,
            "uri": f"noru-capture://{seeded.editor.id}",
            "captured_at": seeded.editor.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "ocr_pending": False,
            "images": [
                {"served_width": 1568, "served_height": 980, "downscaled_from": [2560, 1600]}
            ],
            "sources": [
                {
                    "display_index": 1,
                    "display_name": "DP-1",
                    "app_id": "code",
                    "app_name": "Code",
                    "window_title": "main.py - repoB - Visual Studio Code",
                    "workspace_hint": "repoB",
                }
            ],
        }
        last = result["content"][-1]["text"].splitlines()[-1]
        assert (
            last
            == "prov: !px !dm(2560x1600) !src -ax(not read when captured) ?rec(tesseract 0.91) ?ws"
        )

    def test_index_counts_over_the_filtered_set(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        assert seeded.browser.id in text(
            session.call("get_capture", {"index": 1, "text_only": True})
        )
        answer = session.call("get_capture", {"index": 1, "app": "xterm", "text_only": True})
        assert answer["result"]["structuredContent"]["id"] == seeded.terminal.id
        answer = session.call("get_capture", {"index": 2, "display": 2, "text_only": True})
        assert answer["result"]["structuredContent"]["id"] == seeded.terminal.id

    def test_filters_alone_mean_the_newest_match(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        answer = session.call("get_capture", {"workspace": "repob", "text_only": True})
        assert answer["result"]["structuredContent"]["id"] == seeded.editor.id

    def test_text_only_sends_no_pixels(self, session: MemoryClient, seeded: Seeded) -> None:
        result = session.call("get_capture_text", {"id": seeded.editor.id})["result"]
        assert all(b["type"] == "text" for b in result["content"])
        assert result["structuredContent"]["images"] == []
        assert "-px(text only)" in result["content"][-1]["text"]

    def test_the_text_names_the_lines_the_reader_is_unsure_of_after_it(
        self, session: MemoryClient, home: Path
    ) -> None:
        confidences = [0.999, 0.62, 0.995, 0.4, 0.98, 1.0]
        record = capture_with_lines(
            home,
            [
                OcrLine(f"line {n}", (0, 20 * n, 200, 18), confidence)
                for n, confidence in enumerate(confidences, 1)
            ],
        )
        said = text(session.call("get_capture_text", {"id": record.id})).splitlines()
        at = said.index("line 6")
        assert said[at - 5 : at + 2] == [
            *(f"line {n}" for n in range(1, 7)),
            "(Noru: the reader is unsure of lines 2, 4-5 above; check them against the image.)",
        ]

    def test_text_the_reader_is_sure_of_has_no_line_after_it(
        self, session: MemoryClient, home: Path
    ) -> None:
        record = capture_with_lines(home, [OcrLine("all sure", (0, 0, 200, 18), 0.999)])
        said = text(session.call("get_capture_text", {"id": record.id}))
        assert "all sure" in said and "unsure" not in said

    def test_a_bundle_serves_one_image_and_one_source_per_display(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        redaction_off(home)  # its OCR failed: with redaction on it is held back
        result = session.call("get_capture", {"id": seeded.browser.id})["result"]
        assert [b["type"] for b in result["content"]].count("image") == 2
        structured = result["structuredContent"]
        assert [i["served_width"] for i in structured["images"]] == [1568, 1280]
        assert [s["display_index"] for s in structured["sources"]] == [1, 2]
        assert "On-screen text could not be recognised: engine crashed." in text({"result": result})
        assert "-rec(failed: engine crashed)" in result["content"][-1]["text"]

    def test_pending_ocr_is_reported_with_the_next_step_while_the_app_reads_it(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        redaction_off(home)  # with it on, a capture not read yet is held back
        reading = OneShotApp(
            home, appwire.encode(app_status(ocr=appwire.OcrState(True, "tesseract")))
        )
        try:
            result = session.call("get_capture", {"id": seeded.terminal.id})["result"]
        finally:
            reading.close()
        assert result["structuredContent"]["ocr_pending"] is True
        closing = result["content"][-1]["text"]
        assert f"Call get_capture with id {seeded.terminal.id} a moment later" in closing
        assert "-rec(pending)" in closing and "!ax" in closing

    def test_pending_ocr_that_nothing_reads_is_not_pending_and_asks_no_retry(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        result = session.call("get_capture", {"id": seeded.terminal.id})["result"]
        assert result["structuredContent"]["ocr_pending"] is False
        closing = result["content"][-1]["text"]
        assert "a moment later" not in closing
        assert "-rec(not recognised yet: the Noru app is not running)" in closing

    def test_an_app_that_cannot_read_text_is_named_as_the_reason(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        broken = appwire.OcrState(False, "nonsense", problem="unknown OCR engine 'nonsense'")
        reading = OneShotApp(home, appwire.encode(app_status(ocr=broken)))
        try:
            result = session.call("get_capture", {"id": seeded.terminal.id})["result"]
        finally:
            reading.close()
        assert result["structuredContent"]["ocr_pending"] is False
        assert (
            "the Noru app cannot recognise text (unknown OCR engine 'nonsense')"
            in (result["content"][-1]["text"])
        )

    def test_layers_choose_what_is_sent(self, session: MemoryClient, seeded: Seeded) -> None:
        result = session.call("get_capture", {"id": seeded.editor.id, "layers": ["note"]})["result"]
        body = text({"result": result})
        assert "the failing build" in body and "frobnicate" not in body
        assert result["structuredContent"]["images"] == []

    def test_regions_come_as_one_text_block_in_served_pixels(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        result = session.call("get_capture", {"id": seeded.editor.id, "layers": ["regions"]})[
            "result"
        ]
        blocks = [b["text"] for b in result["content"] if b["text"].startswith("Regions")]
        assert len(blocks) == 1
        # 2560 -> 1568 px (x0.6125): 100,200,900,30 becomes 61,123,551,18 (122.5 rounds up)
        assert "  61 123 551 18 (0.93) ModuleNotFoundError" in blocks[0]
        assert "regions" not in str(result["structuredContent"])

    def test_fields_project_the_structured_content_without_pixels(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        result = session.call("get_capture", {"id": seeded.editor.id, "fields": ["id", "sources"]})[
            "result"
        ]
        assert set(result["structuredContent"]) == {"id", "sources"}
        assert all(b["type"] == "text" for b in result["content"])

    def test_fields_with_the_image_layer_send_pixels(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        result = session.call(
            "get_capture",
            {"id": seeded.editor.id, "fields": ["images"], "layers": ["image"]},
        )["result"]
        assert result["structuredContent"] == {
            "images": [
                {"served_width": 1568, "served_height": 980, "downscaled_from": [2560, 1600]}
            ]
        }

    def test_a_region_is_cut_from_the_original_pixels(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        # The blue block fills the last 40x20 original pixels of the 2560x1600 image;
        # in served pixels (x0.6125) the bottom-right 49x24 area holds it.
        result = session.call(
            "get_capture", {"id": seeded.editor.id, "region": [1519, 956, 49, 24]}
        )["result"]
        image = decode(base64.b64decode(result["content"][2]["data"]))
        assert image.size == (80, 40)  # native resolution, not the served scale
        assert image.getpixel((79, 39)) == (0, 0, 255)
        assert image.getpixel((0, 0)) == (240, 240, 240)
        assert result["structuredContent"]["images"] == [
            {"served_width": 80, "served_height": 40, "downscaled_from": None}
        ]

    @pytest.mark.parametrize("region", [[1560, 0, 10, 10], [0, 975, 10, 10], [0, 0, 0, 5]])
    def test_a_region_outside_the_served_image_is_invalid_params(
        self, session: MemoryClient, seeded: Seeded, region: list[int]
    ) -> None:
        answer = session.call("get_capture", {"id": seeded.editor.id, "region": region})
        assert answer["error"]["code"] == -32602 and "1568x980" in answer["error"]["message"]

    def test_a_missing_layer_is_steered_to_the_layers_present(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        body = lines(session.call("get_capture", {"id": seeded.editor.id, "layers": ["ax"]}))
        assert body[0] == f"Noru layer absent: capture {seeded.editor.id} has no ax layer"
        assert body[1] == "Layers it carries: image, ocr, regions, note."

    def test_an_unknown_id_is_no_match(self, session: MemoryClient, seeded: Seeded) -> None:
        body = lines(session.call("get_capture", {"id": "capture_2001-01-01_000000"}))
        assert body[0] == "Noru no match: no capture capture_2001-01-01_000000"

    @pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18"])
    def test_a_resolved_capture_carries_structured_content_on_every_revision(
        self, client: MemoryClient, seeded: Seeded, revision: str
    ) -> None:
        # Contract 4's result, not the MCP revision's: the same on each.
        client.initialize(revision)
        result = client.call("get_capture", {"id": seeded.editor.id})["result"]
        assert result["structuredContent"]["id"] == seeded.editor.id
        assert result["structuredContent"]["sources"][0]["app_name"] == "Code"
        assert result["content"][-1]["text"].splitlines()[-1].startswith("prov: ")


class TestRevoke:
    def test_every_history_tool_is_refused_while_revoked_and_files_are_kept(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        set_control(home, "revoke")
        for name, arguments in [
            ("list_captures", {}),
            ("search_captures", {"query": "frobnicate"}),
            ("get_capture", {"id": seeded.editor.id}),
        ]:
            body = lines(session.call(name, arguments))
            assert body[0].startswith("Noru history revoked")
            assert seeded.editor.id not in "\n".join(body)
        assert len(list((home / "images").rglob("*.png"))) == 4
        set_control(home, "allow")
        assert seeded.editor.id in text(session.call("list_captures"))


class TestResources:
    def test_list_has_a_uri_and_description_per_capture(
        self, session: MemoryClient, seeded: Seeded
    ) -> None:
        resources = session.request("resources/list")["result"]["resources"]
        assert [r["uri"] for r in resources] == [
            f"noru-capture://{c.id}" for c in (seeded.browser, seeded.terminal, seeded.editor)
        ]
        assert all(r["description"] and r["mimeType"] == "image/png" for r in resources)

    def test_list_is_paginated_with_next_cursor(self, session: MemoryClient, home: Path) -> None:
        from datetime import timedelta

        from noru.store import NewImage, Store
        from tests.history_data import NOW, png

        with Store.open(home) as store:
            for i in range(55):
                store.add_capture(
                    [NewImage(png(32, 32), 32, 32)],
                    origin="user",
                    captured_at=NOW - timedelta(minutes=i),
                )
        first = session.request("resources/list")["result"]
        assert len(first["resources"]) == 50
        second = session.request("resources/list", {"cursor": first["nextCursor"]})["result"]
        assert len(second["resources"]) == 5 and "nextCursor" not in second
        uris = {r["uri"] for r in first["resources"] + second["resources"]}
        assert len(uris) == 55
        bad = session.request("resources/list", {"cursor": "nope"})
        assert bad["error"]["code"] == -32602

    def test_templates_name_the_capture_address(self, session: MemoryClient) -> None:
        templates = session.request("resources/templates/list")["result"]["resourceTemplates"]
        assert [t["uriTemplate"] for t in templates] == ["noru-capture://{id}"]

    def test_read_returns_png_blobs_and_the_text_with_its_provenance(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        redaction_off(home)  # its OCR failed: with redaction on it is held back
        uri = f"noru-capture://{seeded.browser.id}"
        contents = session.request("resources/read", {"uri": uri})["result"]["contents"]
        # The text first: a client that cuts a resource's one text keeps its head.
        assert [c["mimeType"] for c in contents] == ["text/plain", "image/png", "image/png"]
        assert decode(base64.b64decode(contents[1]["blob"])).size == (1568, 882)
        assert contents[0]["text"].splitlines()[-1].startswith("prov: !px")

    @pytest.mark.parametrize(
        "uri",
        [
            "noru-capture://capture_2001-01-01_000000",
            "noru-capture://../../etc/passwd",
            "file:///etc/passwd",
            "noru-capture://",
            "noru-capture://capture_x",
            42,
            "noru-capture://capture_2026-08-12_141502/../../x",
            "NORU-CAPTURE://capture_2026-08-12_141502",
        ],
    )
    def test_a_bad_or_unknown_uri_is_invalid_params(
        self, session: MemoryClient, seeded: Seeded, uri: Any
    ) -> None:
        answer = session.request("resources/read", {"uri": uri})
        assert answer["error"]["code"] == -32602

    def test_while_revoked_list_is_empty_and_read_is_blocked(
        self, session: MemoryClient, seeded: Seeded, home: Path
    ) -> None:
        set_control(home, "revoke")
        assert session.request("resources/list")["result"] == {"resources": []}
        answer = session.request("resources/read", {"uri": f"noru-capture://{seeded.editor.id}"})
        assert answer["error"]["code"] == -32001
