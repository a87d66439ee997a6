"""The response validator itself: wrong responses are rejected, right ones pass,
with and without the official MCP schemas; and its per-revision table agrees
with those schemas wherever they are available."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp.types as sdk
import pytest

from tests import mcp_rules, official_schemas
from tests.wire import OFFICIAL, RESULT_TYPES, REVISIONS, sdk_check, validate_response

OLDEST, MIDDLE, NEWEST = REVISIONS


def official_dir() -> Path:
    if OFFICIAL.directory is None:
        # The official schemas are an extra check where they are (this project's
        # machines), not a part a clone must have: a person's clone runs
        # `CI=true make test` without them and passes on mcp.types and Noru's rules.
        pytest.skip(f"needs the official MCP schemas ({OFFICIAL.summary()})")
    return OFFICIAL.directory


def answer(result: dict[str, Any], request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error(body: dict[str, Any], request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}
TOOL = {"name": "get_status", "description": "What Noru allows now.", "inputSchema": SCHEMA}
HINTS = {"title": "Status", "readOnlyHint": True, "destructiveHint": False}
TOOL_BY_REVISION = {
    OLDEST: TOOL,
    MIDDLE: {**TOOL, "annotations": HINTS},
    NEWEST: {**TOOL, "title": "Status", "annotations": HINTS},
}
TEXT = {"type": "text", "text": "Noru status"}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
META = {"noru.contract": 4}
STRUCTURED = {"id": "capture_2026-08-12_141502", "images": []}
CALLED = {"content": [TEXT, IMAGE], "isError": False, "_meta": META}
INITIALIZED = {
    "protocolVersion": OLDEST,
    "capabilities": {
        "tools": {},
        "resources": {},
        "experimental": {"noru.contract": {"version": 4}},
    },
    "serverInfo": {"name": "noru", "version": "0.1"},
    "instructions": "Routing: ...",
}
RESOURCE = {
    "uri": "noru-capture://capture_2026-08-12_141502",
    "name": "capture",
    "mimeType": "image/png",
}
TEMPLATE = {"uriTemplate": "noru-capture://{id}", "name": "capture", "mimeType": "image/png"}
BLOB = {"uri": RESOURCE["uri"], "mimeType": "image/png", "blob": "iVBORw0KGgo="}
PLAIN = {"uri": RESOURCE["uri"], "mimeType": "text/plain", "text": "prov: !px"}


def right_responses(revision: str) -> list[tuple[str | None, dict[str, Any]]]:
    """(method, response): answers of the shapes Noru sends, for ``revision``."""
    return [
        ("initialize", answer({**INITIALIZED, "protocolVersion": revision})),
        ("ping", answer({})),
        ("tools/list", answer({"tools": [TOOL_BY_REVISION[revision]]})),
        ("tools/call", answer(CALLED)),
        # A resolved capture carries structuredContent on every revision (contract 4).
        ("tools/call", answer({**CALLED, "structuredContent": STRUCTURED})),
        ("resources/list", answer({"resources": [RESOURCE], "nextCursor": "abc"})),
        ("resources/templates/list", answer({"resourceTemplates": [TEMPLATE]})),
        ("resources/read", answer({"contents": [BLOB, PLAIN]})),
        (None, error({"code": -32700, "message": "Parse error"}, None)),
        ("tools/call", error({"code": -32602, "message": "Unknown tool: x", "data": {"n": 1}})),
    ]


@pytest.mark.parametrize("revision", REVISIONS)
def test_right_responses_pass_without_the_official_schemas(revision: str) -> None:
    for method, response in right_responses(revision):
        validate_response(response, revision, method, directory=None)


@pytest.mark.parametrize("revision", REVISIONS)
def test_right_responses_pass_with_the_official_schemas(revision: str) -> None:
    directory = official_dir()
    for method, response in right_responses(revision):
        validate_response(response, revision, method, directory=directory)


@dataclass(frozen=True)
class Wrong:
    """A response that must be rejected; ``why`` is in the rejection without the
    official schemas; ``official`` says whether those schemas alone reject it too."""

    id: str
    revision: str
    method: str | None
    response: dict[str, Any]
    why: str
    official: bool = True


def tools(*listed: dict[str, Any]) -> dict[str, Any]:
    return answer({"tools": list(listed)})


WRONG = [
    # --- members a revision does not define -----------------------------------
    Wrong(
        "an unknown member on a 2024-11-05 tool",
        OLDEST,
        "tools/list",
        tools({**TOOL, "icon": "x.png"}),
        "`icon`, which 2024-11-05 does not define",
    ),
    Wrong(
        "annotations on a 2024-11-05 tool",
        OLDEST,
        "tools/list",
        tools(TOOL_BY_REVISION[MIDDLE]),
        "`annotations`, which 2024-11-05 does not define",
    ),
    Wrong(
        "title on a 2025-03-26 tool",
        MIDDLE,
        "tools/list",
        tools({**TOOL_BY_REVISION[MIDDLE], "title": "Status"}),
        "`title`, which 2025-03-26 does not define",
    ),
    Wrong(
        "outputSchema on a 2025-03-26 tool",
        MIDDLE,
        "tools/list",
        tools({**TOOL, "outputSchema": SCHEMA}),
        "`outputSchema`, which 2025-03-26 does not define",
    ),
    Wrong(
        "an unknown tool annotation",
        NEWEST,
        "tools/list",
        tools({**TOOL, "annotations": {**HINTS, "safe": True}}),
        "`safe`, which 2025-06-18 does not define",
    ),
    Wrong(
        "a title on 2025-03-26 serverInfo",
        MIDDLE,
        "initialize",
        answer({**INITIALIZED, "serverInfo": {"name": "noru", "version": "1", "title": "Noru"}}),
        "`title`, which 2025-03-26 does not define",
    ),
    Wrong(
        "a 2025-03-26 capability on a 2024-11-05 server",
        OLDEST,
        "initialize",
        answer({**INITIALIZED, "capabilities": {"tools": {}, "completions": {}}}),
        "`completions`, which 2024-11-05 does not define",
    ),
    Wrong(
        "an unknown tools capability setting",
        NEWEST,
        "initialize",
        answer({**INITIALIZED, "capabilities": {"tools": {"listChanged": False, "x": 1}}}),
        "`x`, which 2025-06-18 does not define",
    ),
    Wrong(
        "a title on a 2025-03-26 resource",
        MIDDLE,
        "resources/list",
        answer({"resources": [{**RESOURCE, "title": "Capture"}]}),
        "`title`, which 2025-03-26 does not define",
    ),
    Wrong(
        "_meta on a 2024-11-05 resource template",
        OLDEST,
        "resources/templates/list",
        answer({"resourceTemplates": [{**TEMPLATE, "_meta": {}}]}),
        "`_meta`, which 2024-11-05 does not define",
    ),
    Wrong(
        "_meta on 2025-03-26 resource contents",
        MIDDLE,
        "resources/read",
        answer({"contents": [{**BLOB, "_meta": {}}]}),
        "`_meta`, which 2025-03-26 does not define",
    ),
    Wrong(
        "lastModified in 2025-03-26 annotations of a text block",
        MIDDLE,
        "tools/call",
        answer({"content": [{**TEXT, "annotations": {"lastModified": "2026-01-01"}}]}),
        "`lastModified`, which 2025-03-26 does not define",
    ),
    Wrong(
        "an audio block on 2024-11-05",
        OLDEST,
        "tools/call",
        answer({"content": [{**IMAGE, "type": "audio", "mimeType": "audio/wav"}]}),
        "AudioContent, which 2024-11-05 does not have",
    ),
    Wrong(
        "a resource link on 2025-03-26",
        MIDDLE,
        "tools/call",
        answer({"content": [{"type": "resource_link", "uri": "a:b", "name": "n"}]}),
        "ResourceLink, which 2025-03-26 does not have",
    ),
    Wrong(
        "a member only the SDK's newest revisions know, on a result",
        NEWEST,
        "tools/call",
        answer({**CALLED, "resultType": "complete"}),
        "`resultType`, which 2025-06-18 does not define",
    ),
    Wrong(
        "an extra member on ping's result",
        OLDEST,
        "ping",
        answer({"pong": True}),
        "`pong`, which 2024-11-05 does not define",
        official=False,  # the schemas' Result is open
    ),
    # --- members missing or malformed ---------------------------------------------
    Wrong(
        "a content block without type",
        NEWEST,
        "tools/call",
        answer({"content": [{"text": "hello"}]}),
        "content block without a known `type`",
    ),
    Wrong(
        "a content block of an unknown type",
        NEWEST,
        "tools/call",
        answer({"content": [{"type": "html", "text": "<b>"}]}),
        "content block without a known `type`: 'html'",
    ),
    Wrong(
        "an image block without mimeType",
        OLDEST,
        "tools/call",
        answer({"content": [{"type": "image", "data": "iVBORw0KGgo="}]}),
        "lacks `mimeType`",
    ),
    Wrong(
        "a tool result without content",
        OLDEST,
        "tools/call",
        answer({"isError": False, "_meta": META}),
        "lacks `content`",
    ),
    Wrong(
        "content that is not a list",
        NEWEST,
        "tools/call",
        answer({"content": TEXT}),
        "content must be a list",
    ),
    Wrong(
        "isError as a string",
        NEWEST,
        "tools/call",
        answer({**CALLED, "isError": "false"}),
        "by mcp.types: Input should be a valid boolean at isError",
    ),
    Wrong(
        "structuredContent that is not an object, on 2024-11-05",
        OLDEST,
        "tools/call",
        answer({**CALLED, "structuredContent": [STRUCTURED]}),
        "structuredContent must be an object",
    ),
    Wrong(
        "a tool's input schema under its Python name",
        NEWEST,
        "tools/list",
        tools({"name": "get_status", "input_schema": SCHEMA}),
        "lacks `inputSchema`",
    ),
    Wrong(
        "an input schema that is not of an object",
        OLDEST,
        "tools/list",
        tools({**TOOL, "inputSchema": {"type": "array"}}),
        'inputSchema must have "type": "object"',
    ),
    Wrong(
        "an initialize result without serverInfo",
        NEWEST,
        "initialize",
        answer({k: v for k, v in INITIALIZED.items() if k != "serverInfo"}),
        "lacks `serverInfo`",
    ),
    Wrong(
        "resource contents with both text and blob",
        OLDEST,
        "resources/read",
        answer({"contents": [{**BLOB, "text": "x"}]}),
        "neither or both of `text` and `blob`",
    ),
    Wrong(
        "a resource without a uri",
        NEWEST,
        "resources/list",
        answer({"resources": [{"name": "capture"}]}),
        "lacks `uri`",
    ),
    # --- JSON-RPC envelopes ---------------------------------------------------------
    Wrong(
        "an error without code",
        OLDEST,
        None,
        error({"message": "Invalid request"}),
        "lacks `code`",
    ),
    Wrong(
        "an error code as a string",
        NEWEST,
        None,
        error({"code": "-32600", "message": "Invalid request"}),
        "by mcp.types: Input should be a valid integer at error.code",
    ),
    Wrong(
        "an error without message",
        MIDDLE,
        None,
        error({"code": -32600}),
        "lacks `message`",
    ),
    Wrong(
        "an error object with a stack",
        NEWEST,
        None,
        error({"code": -32603, "message": "Internal error", "stack": "..."}),
        "`stack`, which 2025-06-18 does not define",
    ),
    Wrong(
        "an answer with both result and error",
        OLDEST,
        "ping",
        {**answer({}), "error": {"code": -32603, "message": "Internal error"}},
        "`result`, which 2024-11-05 does not define",
    ),
    Wrong(
        "an answer without id",
        MIDDLE,
        "ping",
        {"jsonrpc": "2.0", "result": {}},
        "lacks `id`",
    ),
    Wrong(
        "a boolean id",
        NEWEST,
        "ping",
        answer({}, True),
        "by mcp.types: Input should be a valid integer at id.int",
    ),
    Wrong(
        "a JSON-RPC 1.0 answer",
        OLDEST,
        "ping",
        {**answer({}), "jsonrpc": "1.0"},
        "by mcp.types: Input should be '2.0' at jsonrpc",
    ),
]


@pytest.mark.parametrize("wrong", WRONG, ids=[w.id for w in WRONG])
def test_a_wrong_response_is_rejected_without_the_official_schemas(wrong: Wrong) -> None:
    with pytest.raises(AssertionError, match=re.escape(wrong.why)):
        validate_response(wrong.response, wrong.revision, wrong.method, directory=None)


@pytest.mark.parametrize("wrong", WRONG, ids=[w.id for w in WRONG])
def test_a_wrong_response_is_rejected_with_the_official_schemas(wrong: Wrong) -> None:
    directory = official_dir()
    with pytest.raises(AssertionError):
        validate_response(wrong.response, wrong.revision, wrong.method, directory=directory)


@pytest.mark.parametrize(
    "wrong", [w for w in WRONG if w.official], ids=[w.id for w in WRONG if w.official]
)
def test_the_official_schemas_alone_reject_a_wrong_response(wrong: Wrong) -> None:
    directory = official_dir()
    response, revision = wrong.response, wrong.revision
    with pytest.raises(AssertionError, match="by the official schema"):
        if "error" in response:
            official_schemas.validate(directory, response, revision, "JSONRPCError")
        else:
            official_schemas.validate(directory, response, revision, "JSONRPCResponse")
            assert wrong.method is not None
            result = response["result"]
            official_schemas.validate(directory, result, revision, RESULT_TYPES[wrong.method])


# --- each of the two clone-side checks catches what the other cannot -------------


@pytest.mark.parametrize(
    ("revision", "kind", "instance"),
    [
        (OLDEST, "Tool", TOOL_BY_REVISION[MIDDLE]),
        (MIDDLE, "Tool", TOOL_BY_REVISION[NEWEST]),
        (NEWEST, "CallToolResult", {"content": [{"text": "no type"}]}),
        (NEWEST, "CallToolResult", {**CALLED, "resultType": "complete"}),
        (NEWEST, "ListToolsResult", {"tools": [TOOL], "ttlMs": 0}),
        (MIDDLE, "Implementation", {"name": "noru", "version": "1", "title": "Noru"}),
    ],
)
def test_the_per_revision_rules_reject_what_the_sdk_types_let_through(
    revision: str, kind: str, instance: dict[str, Any]
) -> None:
    sdk_check(getattr(sdk, kind), instance)  # the SDK's models take it
    assert mcp_rules.problems(instance, revision, kind)


@pytest.mark.parametrize(
    ("kind", "instance"),
    [
        ("CallToolResult", {**CALLED, "isError": "false"}),
        ("CallToolResult", {"content": [{**TEXT, "text": 7}]}),
        ("Resource", {**RESOURCE, "size": "12"}),
        ("ListResourcesResult", {"resources": [RESOURCE], "nextCursor": 5}),
    ],
)
def test_the_sdk_types_reject_what_the_per_revision_rules_do_not_look_at(
    kind: str, instance: dict[str, Any]
) -> None:
    assert mcp_rules.problems(instance, OLDEST, kind) == []  # the rules take it
    with pytest.raises(AssertionError, match=re.escape("by mcp.types")):
        sdk_check(getattr(sdk, kind), instance)


def test_a_member_the_sdk_knows_under_its_python_name_is_refused() -> None:
    with pytest.raises(
        AssertionError, match=re.escape("by mcp.types: Field required at inputSchema")
    ):
        sdk_check(sdk.Tool, {"name": "get_status", "input_schema": SCHEMA})


def test_structured_content_is_a_contract_member_on_every_revision() -> None:
    for revision in REVISIONS:
        shape = mcp_rules.members("CallToolResult", revision)
        assert shape is not None and "structuredContent" in shape[1], revision


# --- where the official schemas come from ----------------------------------------


def test_an_empty_noru_mcp_schemas_turns_the_official_schemas_off() -> None:
    located = official_schemas.locate({official_schemas.ENV: ""})
    assert located.directory is None and located.error is None
    assert located.summary() == (
        "official MCP schemas: off (NORU_MCP_SCHEMAS is empty); "
        "validated with mcp.types and Noru's per-revision rules"
    )


def test_noru_mcp_schemas_names_the_directory_to_use(tmp_path: Path) -> None:
    for revision in REVISIONS:
        (tmp_path / f"{revision}.json").write_text("{}")
    located = official_schemas.locate({official_schemas.ENV: str(tmp_path)})
    assert located.directory == tmp_path.resolve()
    assert located.summary() == f"official MCP schemas: {tmp_path.resolve()}"


def test_a_named_directory_without_all_three_schemas_is_an_error(tmp_path: Path) -> None:
    (tmp_path / f"{OLDEST}.json").write_text("{}")
    located = official_schemas.locate({official_schemas.ENV: str(tmp_path)})
    assert located.directory is None
    assert located.error == (f"NORU_MCP_SCHEMAS: {tmp_path} lacks {MIDDLE}.json, {NEWEST}.json")


# --- the table, read against the official schemas --------------------------------

# Where a kind is defined in the schemas, when not under its own name.
PLACES = {
    "ErrorObject": ("JSONRPCError", "error"),
    "EmptyResult": ("Result",),
    "PromptsCapability": ("ServerCapabilities", "prompts"),
    "ResourcesCapability": ("ServerCapabilities", "resources"),
    "ToolsCapability": ("ServerCapabilities", "tools"),
    # Inline in 2024-11-05, its own definition (referred to from here) later.
    "Annotations": ("TextContent", "annotations"),
}


def schema_members(defs: dict[str, Any], kind: str) -> tuple[set[str], set[str]] | None:
    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref")
        resolved: dict[str, Any] = defs[ref.rsplit("/", 1)[1]] if ref else node
        return resolved

    first, *rest = PLACES.get(kind, (kind,))
    if first not in defs:
        return None
    node = resolve(defs[first])
    for name in rest:
        node = resolve(node["properties"][name])
    required = set(node.get("required", []))
    return required, set(node.get("properties", {})) - required


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_per_revision_table_matches_the_official_schemas(revision: str) -> None:
    defs = json.loads((official_dir() / f"{revision}.json").read_text())["definitions"]
    for kind in mcp_rules.KINDS:
        ours = mcp_rules.members(kind, revision)
        theirs = schema_members(defs, kind)
        if kind == "CallToolResult" and revision < "2025-06-18":
            # The one deliberate difference: contract 4's structuredContent.
            assert theirs is not None and ours is not None
            assert ours == (theirs[0], theirs[1] | {"structuredContent"}), kind
            continue
        assert ours == theirs, (kind, revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_content_block_types_match_the_official_schemas(revision: str) -> None:
    defs = json.loads((official_dir() / f"{revision}.json").read_text())["definitions"]
    items = defs["CallToolResult"]["properties"]["content"]["items"]
    if "$ref" in items:  # 2025-06-18 names the union ContentBlock
        items = defs[items["$ref"].rsplit("/", 1)[1]]
    names = {ref["$ref"].rsplit("/", 1)[1] for ref in items["anyOf"]}
    ours = {
        kind
        for kind in mcp_rules.CONTENT_BLOCKS.values()
        if mcp_rules.members(kind, revision) is not None
    }
    assert ours == names
    for tag, kind in mcp_rules.CONTENT_BLOCKS.items():
        if kind in names:
            assert defs[kind]["properties"]["type"]["const"] == tag


def test_an_images_base64_is_put_in_the_line_as_it_is_and_the_line_is_the_same_json() -> None:
    """``Base64`` text is spliced into the JSON line, not scanned by the
    encoder: the line is byte for byte what json.dumps writes, text beside
    it escaped as ever, the message itself left as it was."""
    import base64
    import os

    from noru.contract import Base64
    from noru.mcp import session

    data = os.urandom(30_000)
    blob = Base64.of(data)
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [
                {"type": "text", "text": 'a "quoted" line\nand ünïcode \u2028'},
                {"type": "image", "data": blob, "mimeType": "image/png"},
                {"type": "image", "data": Base64.of(b"\x89PNG"), "mimeType": "image/png"},
            ]
        },
    }
    line = session._dump(message)
    assert line == json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    back = json.loads(line)
    assert base64.b64decode(back["result"]["content"][1]["data"]) == data
    assert message["result"]["content"][1]["data"] is blob  # not changed in place
    # The placeholder itself in the text (it is random per process: only by
    # reading it from here) is never taken for an image.
    tricky = {"text": session._BLOB_TEXT, "data": Base64.of(b"x")}
    assert json.loads(session._dump(tricky)) == {"text": session._BLOB_TEXT, "data": "eA=="}
