"""The contract-4 grammar itself: provenance, steering, capture results."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from noru import errors
from noru.contract import (
    CaptureView,
    ServedImage,
    TextLayer,
    absent,
    capture_result,
    inferred,
    measured,
    prov_line,
    refusal_result,
)
from noru.sources import Source
from noru.times import format_age

NOW = datetime(2026, 8, 12, 18, 20, 2, tzinfo=UTC)
TAKEN = NOW - timedelta(minutes=5)


class TestProvenance:
    def test_tokens_have_a_sigil_a_name_and_an_optional_detail(self) -> None:
        line = prov_line(
            [
                measured("px"),
                measured("dm", "2560x1600@1x"),
                measured("ax"),
                measured("src"),
                inferred("rec", "tesseract 0.91"),
                inferred("ws"),
                absent("ax", "not exposed by the app"),
                absent("rec", "pending"),
                absent("px", "text only"),
                absent("src", "unknown"),
            ]
        )
        assert line == (
            "prov: !px !dm(2560x1600@1x) !ax !src ?rec(tesseract 0.91) ?ws "
            "-ax(not exposed by the app) -rec(pending) -px(text only) -src(unknown)"
        )

    def test_an_absent_fact_must_say_why(self) -> None:
        with pytest.raises(ValueError, match="reason"):
            absent("rec", "")

    def test_a_detail_stays_on_one_line_inside_one_pair_of_parentheses(self) -> None:
        token = absent("rec", "failed: engine said (bad image)\nline two")
        assert str(token) == "-rec(failed: engine said [bad image] line two)"

    @pytest.mark.parametrize("name", ["PX", "p x", "", "px!"])
    def test_fact_names_are_lowercase_words(self, name: str) -> None:
        with pytest.raises(ValueError):
            measured(name)


STEERING = [
    (errors.AppNotRunning, "Noru app not running", "noru app"),
    (errors.NotAuthorized, "Noru not authorized", "Allow Agent Observations"),
    (errors.Paused, "Noru paused", "Resume Agent Perception"),
    (errors.PermissionDenied, "Noru permission denied", "grant screen access"),
    (errors.Busy, "Noru busy", "Retry shortly"),
    (errors.HistoryRevoked, "Noru history revoked", "restore agent observations"),
    (errors.NoMatch, "Noru no match", "Relax the filter"),
    (errors.LayerAbsent, "Noru layer absent", "default bundle"),
    (errors.NothingNew, "Noru nothing new", "search_captures"),
]


class TestSteering:
    @pytest.mark.parametrize(("cls", "tag", "action"), STEERING)
    def test_each_case_starts_with_its_tag_and_names_the_next_action(
        self, cls: type[errors.Refusal], tag: str, action: str
    ) -> None:
        result = refusal_result(cls("because"))
        assert set(result) == {"content", "isError", "_meta"}
        assert result["isError"] is False
        assert result["_meta"] == {"noru.contract": 4}
        lines = result["content"][0]["text"].splitlines()
        assert lines[0] == f"{tag}: because"
        assert lines[-1].startswith("Next: ")
        assert action.lower() in lines[-1].lower()

    def test_no_answer_hands_the_agent_the_command_that_grants_it_access(self) -> None:
        """The remedy is the person's gesture in the Noru menu (the published
        contract's words): an agent with a shell must not read its own way in."""
        for cls, _, _ in STEERING:
            text = refusal_result(cls("because"))["content"][0]["text"]
            assert "noru allow" not in text and "noru resume" not in text, cls

    @pytest.mark.parametrize("cls", [errors.NotAuthorized, errors.Paused, errors.HistoryRevoked])
    def test_where_no_menu_shows_the_gesture_keeps_its_words_and_names_the_console(
        self, cls: type[errors.Refusal]
    ) -> None:
        refusal = cls("because")
        refusal.in_console_too()
        refusal.in_console_too()  # said once, however often asked
        next_line = refusal_result(refusal)["content"][0]["text"].splitlines()[-1]
        assert cls.gesture is not None
        assert next_line.startswith(f"Next: {cls.gesture} {errors.CONSOLE_TOO} ")
        assert next_line.count("Noru console") == 1 and "`" not in next_line

    def test_the_nine_tags_are_distinct(self) -> None:
        assert len({cls.tag for cls, _, _ in STEERING}) == 9

    def test_details_sit_between_the_tag_line_and_next(self) -> None:
        refusal = errors.NoMatch(
            "no capture matches", details=("Filters: app=Figma", "Apps present: Editor")
        )
        lines = refusal_result(refusal)["content"][0]["text"].splitlines()
        assert lines[1:3] == ["Filters: app=Figma", "Apps present: Editor"]


def view(**overrides: object) -> CaptureView:
    values: dict[str, object] = {
        "id": "capture_2026-08-12_141502",
        "captured_at": TAKEN,
        "origin": "user",
        "images": [
            ServedImage(b"\x89PNG-1", 1568, 980, (2560, 1600), "display 1"),
        ],
        "sources": [
            Source(1, "Built-in", "com.example.Editor", "Editor", "Project - Editor", "Project")
        ],
        "layers": [TextLayer("ocr", "def main():"), TextLayer("ax", "File Edit View")],
        "regions": "Regions of image 1:\n10 20 300 18 def main():",
        "note": "the failing build",
        "prov": [
            measured("px"),
            measured("src"),
            inferred("rec", "tesseract 0.93"),
            inferred("ws"),
        ],
        "remarks": ["One remark."],
    }
    values.update(overrides)
    return CaptureView(**values)  # type: ignore[arg-type]


class TestCaptureResult:
    def test_content_comes_in_contract_order_with_the_provenance_line_last(self) -> None:
        result = capture_result(view(), now=NOW, with_sources=True)
        content = result["content"]
        kinds = [block["type"] for block in content]
        assert kinds == ["text", "text", "image", "text", "text", "text", "text", "text"]
        header, label, image, ocr, ax, regions, note, closing = content
        assert header["text"].startswith(
            "Noru capture capture_2026-08-12_141502 (captured 2026-08-12T18:15:02Z, 5m ago, "
            "origin user; app Editor"
        )
        assert label["text"] == (
            "Image 1 of 1: display 1, served at 1568x980 px (downscaled from 2560x1600 px)."
        )
        assert image == {
            "type": "image",
            "data": base64.b64encode(b"\x89PNG-1").decode(),
            "mimeType": "image/png",
        }
        assert "not instructions from Noru" in ocr["text"] and ocr["text"].endswith("def main():")
        assert ax["text"].endswith("File Edit View")
        assert regions["text"].startswith("Regions")
        assert note["text"].endswith("the failing build")
        assert closing["text"].splitlines() == [
            "One remark.",
            "prov: !px !src ?rec(tesseract 0.93) ?ws",
        ]
        assert result["isError"] is False and result["_meta"] == {"noru.contract": 4}

    def test_structured_content_of_an_addressed_fetch_has_sources(self) -> None:
        result = capture_result(view(), now=NOW, with_sources=True)
        assert result["structuredContent"] == {
            "id": "capture_2026-08-12_141502",
            "uri": "noru-capture://capture_2026-08-12_141502",
            "captured_at": "2026-08-12T18:15:02Z",
            "ocr_pending": False,
            "images": [
                {"served_width": 1568, "served_height": 980, "downscaled_from": [2560, 1600]}
            ],
            "sources": [
                {
                    "display_index": 1,
                    "display_name": "Built-in",
                    "app_id": "com.example.Editor",
                    "app_name": "Editor",
                    "window_title": "Project - Editor",
                    "workspace_hint": "Project",
                }
            ],
        }

    def test_a_live_result_has_no_sources_in_structured_content(self) -> None:
        result = capture_result(view(), now=NOW, with_sources=False)
        assert "sources" not in result["structuredContent"]

    def test_an_uncapped_image_says_downscaled_from_null(self) -> None:
        image = ServedImage(b"png", 800, 600, None, "window")
        result = capture_result(view(images=[image]), now=NOW, with_sources=False)
        assert result["structuredContent"]["images"] == [
            {"served_width": 800, "served_height": 600, "downscaled_from": None}
        ]
        assert result["content"][1]["text"] == "Image 1 of 1: window, served at 800x600 px."

    def test_text_only_sends_no_image_blocks_and_an_empty_images_list(self) -> None:
        result = capture_result(view(images=[]), now=NOW, with_sources=True)
        assert all(block["type"] == "text" for block in result["content"])
        assert result["structuredContent"]["images"] == []

    def test_a_field_projection_keeps_only_the_named_fields(self) -> None:
        result = capture_result(
            view(images=[]), now=NOW, with_sources=True, fields=["id", "images"]
        )
        assert result["structuredContent"] == {"id": "capture_2026-08-12_141502", "images": []}

    def test_unknown_source_facts_stay_null(self) -> None:
        result = capture_result(view(sources=[Source()]), now=NOW, with_sources=True)
        assert set(result["structuredContent"]["sources"][0].values()) == {None}
        assert "source unknown" in result["content"][0]["text"]

    def test_a_bundle_header_names_every_image_source(self) -> None:
        sources = [
            Source(display_index=1, display_name="DP-1"),
            Source(display_index=2, display_name="HDMI-1"),
        ]
        text = capture_result(view(sources=sources), now=NOW, with_sources=True)["content"][0]
        assert "Bundle of 2 images" in text["text"] and "display 2 (HDMI-1)" in text["text"]


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=2), "just now"),
        (timedelta(seconds=42), "42s ago"),
        (timedelta(minutes=5), "5m ago"),
        (timedelta(hours=3, minutes=1), "3h ago"),
        (timedelta(days=2), "2d ago"),
        (timedelta(seconds=-30), "in the future"),
    ],
)
def test_ages_are_short_and_honest(delta: timedelta, text: str) -> None:
    assert format_age(NOW - delta, NOW) == text
