"""tools/list and tools/call over the in-memory stream (no app, empty store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from noru.access import set_control
from noru.errors import InvalidParams
from noru.mcp.tools.catalog import RETIRED, TOOLS
from noru.mcp.tools.schema import check_arguments
from tests.wire import MemoryClient

SIX = [
    "get_latest_capture",
    "observe_screen",
    "list_captures",
    "search_captures",
    "get_capture",
    "get_status",
]


def tools_for(client: MemoryClient, version: str) -> list[dict[str, Any]]:
    client.initialize(version)
    tools: list[dict[str, Any]] = client.request("tools/list")["result"]["tools"]
    return tools


def first_line(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is False
    assert result["_meta"] == {"noru.contract": 4}
    text: str = result["content"][0]["text"]
    return text.splitlines()[0]


class TestListing:
    def test_the_six_tools_are_listed_and_retired_names_are_not(self, client: MemoryClient) -> None:
        names = [t["name"] for t in tools_for(client, "2025-06-18")]
        assert names == SIX
        assert not set(RETIRED) & set(names)

    def test_2024_11_05_gets_neither_annotations_nor_title(self, client: MemoryClient) -> None:
        for tool in tools_for(client, "2024-11-05"):
            assert set(tool) == {"name", "description", "inputSchema"}

    def test_2025_03_26_gets_read_only_annotations_but_no_title(self, client: MemoryClient) -> None:
        for tool in tools_for(client, "2025-03-26"):
            assert set(tool) == {"name", "description", "inputSchema", "annotations"}
            assert tool["annotations"]["readOnlyHint"] is True

    def test_2025_06_18_gets_title_and_annotations_and_no_output_schema(
        self, client: MemoryClient
    ) -> None:
        for tool in tools_for(client, "2025-06-18"):
            assert set(tool) == {
                "name", "title", "description", "inputSchema", "annotations", "_meta"
            }  # fmt: skip
            assert tool["annotations"]["readOnlyHint"] is True
            assert tool["annotations"]["destructiveHint"] is False
            # The words people use, for a client that defers tools behind a search.
            assert set(tool["_meta"]) == {"anthropic/searchHint"}
            assert "screen" in tool["_meta"]["anthropic/searchHint"]

    def test_input_schemas_are_strict_valid_json_schemas(self, client: MemoryClient) -> None:
        for tool in tools_for(client, "2025-06-18"):
            schema = tool["inputSchema"]
            jsonschema.Draft7Validator.check_schema(schema)
            assert schema["type"] == "object"
            assert schema["additionalProperties"] is False
            for name, prop in schema["properties"].items():
                assert prop.get("description"), f"{tool['name']}.{name} has no description"

    def test_search_requires_a_query(self) -> None:
        assert TOOLS["search_captures"].input_schema["required"] == ["query"]

    def test_every_argument_has_one_type_or_an_any_of_with_one_type_each(
        self, client: MemoryClient
    ) -> None:
        # A type list (["integer", "string"]) draws the MCP Inspector's
        # portability warning and is flattened to `number` by some clients.
        for tool in tools_for(client, "2025-06-18"):
            for name, prop in tool["inputSchema"]["properties"].items():
                branches = prop.get("anyOf", [prop])
                assert all(isinstance(b.get("type"), str) for b in branches), (tool["name"], name)
                assert not any("description" in b for b in prop.get("anyOf", [])), name

    def test_a_display_filter_is_an_index_or_a_name(self) -> None:
        assert TOOLS["list_captures"].input_schema["properties"]["display"]["anyOf"] == [
            {"type": "integer", "minimum": 1, "maximum": 64},
            {"type": "string", "minLength": 1, "maxLength": 200},
        ]


# (tool, arguments, the argument the error must name)
BAD_ARGUMENTS = [
    ("get_capture", {"index": "1"}, "index"),
    ("get_capture", {"index": 0}, "index"),
    ("get_capture", {"index": True}, "index"),
    ("get_capture", {"id": "capture_../../etc/passwd"}, "id"),
    ("get_capture", {"id": "capture_2026-08-12_141502/../x"}, "id"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "layers": ["pixels"]}, "layers[0]"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "layers": []}, "layers"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "layers": ["ocr", "ocr"]}, "layers"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "region": [0, 0, 10]}, "region"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "region": [0, -1, 10, 10]}, "region[1]"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "fields": ["pid"]}, "fields[0]"),
    ("get_capture", {"id": "capture_2026-08-12_141502", "text_only": "yes"}, "text_only"),
    ("list_captures", {"limit": 201}, "limit"),
    ("list_captures", {"limit": 0}, "limit"),
    ("list_captures", {"limit": 2.5}, "limit"),
    ("list_captures", {"order": "random"}, "order"),
    ("list_captures", {"origin": "robot"}, "origin"),
    ("list_captures", {"display": 0}, "display"),
    ("list_captures", {"display": 65}, "display"),
    ("list_captures", {"display": ""}, "display"),
    ("list_captures", {"display": "x" * 201}, "display"),
    ("list_captures", {"display": True}, "display"),
    ("list_captures", {"display": 1.5}, "display"),
    ("search_captures", {"query": "x", "display": None}, "display"),
    ("get_capture", {"display": ["HDMI"]}, "display"),
    ("list_captures", {"app": 7}, "app"),
    ("list_captures", {"sort": "x"}, "sort"),
    ("list_captures", {"since": "yesterday-ish"}, "since"),
    ("list_captures", {"since": "1h", "before": "2h"}, "since"),
    ("search_captures", {}, "query"),
    ("search_captures", {"query": ""}, "query"),
    ("search_captures", {"query": "x" * 501}, "query"),
    ("observe_screen", {"target": "mouse"}, "target"),
    ("observe_screen", {"target": "window", "display": 1}, "display"),
    ("get_status", {"verbose": True}, "verbose"),
    ("get_latest_capture", {"text_only": 1}, "text_only"),
]


@pytest.mark.parametrize(("tool", "arguments", "argument"), BAD_ARGUMENTS)
def test_arguments_that_break_the_schema_are_invalid_params_naming_the_argument(
    session: MemoryClient, tool: str, arguments: dict[str, Any], argument: str
) -> None:
    answer = session.call(tool, arguments)
    assert answer["error"]["code"] == -32602
    assert f"`{argument}`" in answer["error"]["message"]


def test_arguments_that_are_not_an_object_are_invalid_params(session: MemoryClient) -> None:
    answer = session.request("tools/call", {"name": "get_status", "arguments": [1]})
    assert answer["error"]["code"] == -32602


@pytest.mark.parametrize(
    ("display", "rule"),
    [
        (0, "must be >= 1"),
        (65, "must be <= 64"),
        ("", "must be at least 1 characters"),
        ("x" * 201, "must be at most 200 characters"),
        (True, "must be of type integer or string"),
        (1.5, "must be of type integer or string"),
        ({"index": 1}, "must be of type integer or string"),
    ],
)
def test_a_bad_display_says_what_an_index_or_a_name_must_be(
    session: MemoryClient, display: Any, rule: str
) -> None:
    answer = session.call("list_captures", {"display": display})
    assert answer["error"] == {"code": -32602, "message": f"Invalid arguments: `display` {rule}"}


@pytest.mark.parametrize("display", [1, 64, 2.0, "1", "HDMI-1", "x" * 200])
def test_a_display_index_or_name_is_accepted(session: MemoryClient, display: Any) -> None:
    assert "error" not in session.call("list_captures", {"display": display})


@pytest.mark.parametrize("name", ["nope", "get_screen", "GET_STATUS", "tools.v2-beta"])
def test_an_unknown_tool_is_invalid_params_naming_it(session: MemoryClient, name: str) -> None:
    answer = session.call(name, {})
    assert answer["error"] == {"code": -32602, "message": f"Unknown tool: {name}"}


@pytest.mark.parametrize("name", ["", "/etc/passwd", "../../x", "a b", "x" * 65, "\u202eobserve"])
def test_an_unknown_tool_name_that_is_not_an_identifier_is_not_echoed(
    session: MemoryClient, name: str
) -> None:
    error = session.call(name, {})["error"]
    assert error["code"] == -32602 and error["message"].startswith("Unknown tool (name not shown")
    assert name not in error["message"] or name == ""


def test_a_tool_name_that_is_not_a_string_is_invalid_params(session: MemoryClient) -> None:
    answer = session.request("tools/call", {"name": 7})
    assert answer["error"]["code"] == -32602


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"id": "capture_2026-08-12_141502", "index": 1},
        {"id": "capture_2026-08-12_141502", "app": "Editor"},
        {"text_only": True},
    ],
)
def test_get_capture_needs_exactly_one_addressing_mode(
    session: MemoryClient, arguments: dict[str, Any]
) -> None:
    answer = session.call("get_capture", arguments)
    assert answer["error"]["code"] == -32602
    assert "exactly one" in answer["error"]["message"]


class TestLiveTargetsWithoutTheApp:
    @pytest.mark.parametrize(
        ("name", "arguments"),
        [
            ("get_latest_capture", {}),
            ("get_latest_capture", {"text_only": True}),
            ("observe_screen", {}),
            ("observe_screen", {"target": "display", "display": 2}),
            ("observe_screen", {"target": "all_displays"}),
            ("get_latest_capture_text", {}),
            ("observe_window", {}),
        ],
    )
    def test_a_live_target_answers_app_not_running_steering(
        self, session: MemoryClient, name: str, arguments: dict[str, Any]
    ) -> None:
        answer = session.call(name, arguments)
        assert first_line(answer).startswith("Noru app not running")
        text = answer["result"]["content"][0]["text"]
        assert "\nNext: " in text and "noru app" in text
        assert "structuredContent" not in answer["result"]

    @pytest.mark.parametrize("controls", [(), ("allow",), ("allow", "pause"), ("revoke",)])
    def test_app_not_running_comes_before_any_access_answer(
        self, session: MemoryClient, home: Path, controls: tuple[str, ...]
    ) -> None:
        # Never allowed, allowed, paused, revoked: with no app, the answer is the app.
        for control in controls:
            set_control(home, control)
        for name in ("observe_screen", "get_latest_capture"):
            assert first_line(session.call(name)).startswith("Noru app not running")

    def test_a_stale_socket_file_means_the_app_is_not_running(
        self, session: MemoryClient, home: Path
    ) -> None:
        (home / "app.sock").write_bytes(b"")
        assert first_line(session.call("get_latest_capture")).startswith("Noru app not running")


class TestHistoryOnAnEmptyStore:
    @pytest.mark.parametrize(
        ("name", "arguments"),
        [
            ("list_captures", {}),
            ("search_captures", {"query": "hello"}),
            ("search_history", {"query": "hello"}),
            ("get_capture", {"index": 1}),
            ("get_capture_text", {"id": "capture_2026-08-12_141502"}),
        ],
    )
    def test_history_tools_say_the_history_is_empty(
        self, session: MemoryClient, name: str, arguments: dict[str, Any]
    ) -> None:
        answer = session.call(name, arguments)
        assert first_line(answer) == "Noru no match: history is empty"

    def test_history_tools_answer_revoked_while_revoked(
        self, session: MemoryClient, home: Path
    ) -> None:
        set_control(home, "revoke")
        for name, arguments in [
            ("list_captures", {}),
            ("get_capture", {"index": 1}),
            ("search_captures", {"query": "x"}),
        ]:
            assert first_line(session.call(name, arguments)).startswith("Noru history revoked")

    def test_a_revoke_applies_to_the_next_request_of_a_running_session(
        self, session: MemoryClient, home: Path
    ) -> None:
        assert first_line(session.call("list_captures")).startswith("Noru no match")
        set_control(home, "revoke")
        assert first_line(session.call("list_captures")).startswith("Noru history revoked")
        set_control(home, "allow")
        assert first_line(session.call("list_captures")).startswith("Noru no match")


def test_get_status_is_text_only_and_says_what_is_allowed(
    session: MemoryClient, home: Path
) -> None:
    answer = session.call("get_status")
    result = answer["result"]
    assert [block["type"] for block in result["content"]] == ["text"]
    assert "structuredContent" not in result
    text = result["content"][0]["text"]
    assert "App running: no" in text
    assert "Authorized for live requests: no" in text
    assert "Captures in history: 0" in text
    assert "Handoff window: 10 minutes" in text
    set_control(home, "revoke")
    text = session.call("get_status")["result"]["content"][0]["text"]
    assert "History revoked: yes" in text
    assert "Captures in history" not in text


# --- the argument checker agrees with jsonschema on the tools' own schemas ---

CASES: list[tuple[str, Any]] = [(tool, args) for tool, args, _ in BAD_ARGUMENTS] + [
    ("get_capture", {"id": "capture_2026-08-12_141502-2", "layers": ["image", "regions"]}),
    ("get_capture", {"index": 3, "app": "Editor", "region": [0, 0, 100, 50]}),
    ("get_capture", {"index": 3.0}),
    ("list_captures", {"display": 2, "limit": 200, "order": "oldest_first", "cursor": "abc"}),
    ("list_captures", {"display": "HDMI", "workspace": "repoB", "origin": "agent"}),
    ("list_captures", {"display": 64}),
    ("list_captures", {"display": 2.0}),
    ("search_captures", {"query": "x", "display": "1"}),
    ("get_capture", {"display": "x" * 200}),
    ("search_captures", {"query": '"quoted" NEAR * -x', "since": "2d"}),
    ("observe_screen", {"target": "display", "display": 1, "text_only": True}),
    ("get_status", {}),
    ("get_status", None),
]


@pytest.mark.parametrize(("tool", "arguments"), CASES)
def test_the_argument_checker_agrees_with_jsonschema(tool: str, arguments: Any) -> None:
    # Includes the anyOf of `display` (integer or string, each with its bounds).
    schema = TOOLS[tool].input_schema
    expected = jsonschema.Draft7Validator(schema).is_valid(arguments or {})
    try:
        check_arguments(arguments, schema)
        ours = True
    except InvalidParams:
        ours = False
    assert ours == expected


# anyOf beyond `display`: inside array items, and with branches of one type.
ANY_OF = {
    "type": "object",
    "properties": {
        "x": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["a", "b"]}]},
        "ys": {
            "type": "array",
            "items": {"anyOf": [{"type": "integer", "maximum": 9}, {"type": "null"}]},
        },
        "z": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "string", "pattern": "^q"}]},
    },
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "arguments",
    [
        {"x": 1},
        {"x": 0},
        {"x": "a"},
        {"x": "c"},
        {"x": None},
        {"x": 2.0},
        {"ys": [1, None, 9]},
        {"ys": [10]},
        {"ys": ["a"]},
        {"z": "ab"},
        {"z": "quiet"},
        {"z": "abc"},
    ],
)
def test_the_argument_checker_agrees_with_jsonschema_on_any_of(arguments: Any) -> None:
    expected = jsonschema.Draft7Validator(ANY_OF).is_valid(arguments)
    try:
        check_arguments(arguments, ANY_OF)
        ours = True
    except InvalidParams:
        ours = False
    assert ours == expected
