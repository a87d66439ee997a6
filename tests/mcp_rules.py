"""Noru's strict per-revision rules: which members each MCP object may carry.

The MCP Python SDK's types (``mcp.types``) model the newest revisions only, so
they cannot say that a 2024-11-05 tool has no ``annotations`` or that
``title`` arrived in 2025-06-18. This table says it, for every object Noru
sends. It was read off the official JSON Schemas of 2024-11-05, 2025-03-26
and 2025-06-18 (``properties`` and ``required`` of each definition) and is
written here as data, so that a clone with nothing beside it checks the same
rules; ``tests/test_wire.py`` compares it with the schemas whenever they are
available.

``MEMBERS[kind][revision]`` lists the members a revision adds to that kind
(so a kind's members in a revision are those of every earlier entry too);
``name?`` is optional, a bare name required. A kind with no entry at or before
a revision does not exist in it. ``check(instance, revision, kind)`` raises
AssertionError naming the first member out of place and where it is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KINDS", "MEMBERS", "OPEN", "RESULT_KINDS", "REVISIONS", "check", "members", "problems"]

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18")

MEMBERS: dict[str, dict[str, str]] = {
    # JSON-RPC envelopes: one response or one error, never both.
    "JSONRPCResponse": {"2024-11-05": "jsonrpc id result"},
    "JSONRPCError": {"2024-11-05": "jsonrpc id error"},
    "ErrorObject": {"2024-11-05": "code message data?"},
    # ping's result (the schemas' Result, of which every result is a kind).
    "EmptyResult": {"2024-11-05": "_meta?"},
    # initialize
    "InitializeResult": {
        "2024-11-05": "protocolVersion capabilities serverInfo instructions? _meta?",
    },
    "Implementation": {"2024-11-05": "name version", "2025-06-18": "title?"},
    "ServerCapabilities": {
        "2024-11-05": "experimental? logging? prompts? resources? tools?",
        "2025-03-26": "completions?",
    },
    "PromptsCapability": {"2024-11-05": "listChanged?"},
    "ResourcesCapability": {"2024-11-05": "subscribe? listChanged?"},
    "ToolsCapability": {"2024-11-05": "listChanged?"},
    # tools/list
    "ListToolsResult": {"2024-11-05": "tools nextCursor? _meta?"},
    "Tool": {
        "2024-11-05": "name inputSchema description?",
        "2025-03-26": "annotations?",
        "2025-06-18": "title? outputSchema? _meta?",
    },
    "ToolAnnotations": {
        "2025-03-26": "title? readOnlyHint? destructiveHint? idempotentHint? openWorldHint?",
    },
    # tools/call. structuredContent is in the 2025-06-18 schema only, but it is
    # also a member of Noru contract 4 ("a capture that resolves also adds
    # structuredContent"), which is not the MCP revision: it is allowed on
    # every revision (the older schemas allow extra result members).
    "CallToolResult": {"2024-11-05": "content isError? _meta? structuredContent?"},
    "TextContent": {"2024-11-05": "type text annotations?", "2025-06-18": "_meta?"},
    "ImageContent": {"2024-11-05": "type data mimeType annotations?", "2025-06-18": "_meta?"},
    "AudioContent": {"2025-03-26": "type data mimeType annotations?", "2025-06-18": "_meta?"},
    "EmbeddedResource": {"2024-11-05": "type resource annotations?", "2025-06-18": "_meta?"},
    "ResourceLink": {
        "2025-06-18": "type uri name title? description? mimeType? size? annotations? _meta?",
    },
    "Annotations": {"2024-11-05": "audience? priority?", "2025-06-18": "lastModified?"},
    # resources/list, resources/templates/list, resources/read
    "ListResourcesResult": {"2024-11-05": "resources nextCursor? _meta?"},
    "Resource": {
        "2024-11-05": "uri name description? mimeType? size? annotations?",
        "2025-06-18": "title? _meta?",
    },
    "ListResourceTemplatesResult": {"2024-11-05": "resourceTemplates nextCursor? _meta?"},
    "ResourceTemplate": {
        "2024-11-05": "uriTemplate name description? mimeType? annotations?",
        "2025-06-18": "title? _meta?",
    },
    "ReadResourceResult": {"2024-11-05": "contents _meta?"},
    "TextResourceContents": {"2024-11-05": "uri text mimeType?", "2025-06-18": "_meta?"},
    "BlobResourceContents": {"2024-11-05": "uri blob mimeType?", "2025-06-18": "_meta?"},
}

# What a member holds, where it is itself one of the kinds above: "Kind" for
# one object, "[Kind]" for a list of them. ContentBlock and ResourceContents
# are unions, told apart as the schemas do (by `type`; by `text` or `blob`).
CHILDREN: dict[str, dict[str, str]] = {
    "JSONRPCError": {"error": "ErrorObject"},
    "InitializeResult": {"capabilities": "ServerCapabilities", "serverInfo": "Implementation"},
    "ServerCapabilities": {
        "prompts": "PromptsCapability",
        "resources": "ResourcesCapability",
        "tools": "ToolsCapability",
    },
    "ListToolsResult": {"tools": "[Tool]"},
    "Tool": {"annotations": "ToolAnnotations"},
    "CallToolResult": {"content": "[ContentBlock]"},
    "TextContent": {"annotations": "Annotations"},
    "ImageContent": {"annotations": "Annotations"},
    "AudioContent": {"annotations": "Annotations"},
    "EmbeddedResource": {"resource": "ResourceContents", "annotations": "Annotations"},
    "ResourceLink": {"annotations": "Annotations"},
    "ListResourcesResult": {"resources": "[Resource]"},
    "Resource": {"annotations": "Annotations"},
    "ListResourceTemplatesResult": {"resourceTemplates": "[ResourceTemplate]"},
    "ResourceTemplate": {"annotations": "Annotations"},
    "ReadResourceResult": {"contents": "[ResourceContents]"},
}

CONTENT_BLOCKS = {
    "text": "TextContent",
    "image": "ImageContent",
    "audio": "AudioContent",
    "resource": "EmbeddedResource",
    "resource_link": "ResourceLink",
}

# Members that are JSON objects open by design (a JSON Schema, metadata, the
# contract's structured facts, capabilities without settings): their own
# members are not checked, but they must be objects.
OPEN = {"_meta", "structuredContent", "inputSchema", "outputSchema", "experimental"}
OPEN |= {"logging", "completions"}
# The schemas require a tool's input (and output) schema to describe an object.
_OBJECT_SCHEMAS = {"inputSchema", "outputSchema"}

RESULT_KINDS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
}

KINDS = tuple(MEMBERS)


def members(kind: str, revision: str) -> tuple[set[str], set[str]] | None:
    """(required, optional) members of ``kind`` in ``revision``; None if it has none."""
    if revision not in REVISIONS:
        raise ValueError(f"not a revision Noru implements: {revision!r}")
    entries = [words for since, words in MEMBERS[kind].items() if since <= revision]
    if not entries:
        return None
    required: set[str] = set()
    optional: set[str] = set()
    for words in entries:
        for word in words.split():
            if word.endswith("?"):
                optional.add(word[:-1])
            else:
                required.add(word)
    return required, optional


def _where(path: list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "the top"


def _union(kind: str, node: dict[str, Any]) -> str | None:
    """The kind a union member is, or None when it is none of them."""
    if kind == "ContentBlock":
        tag = node.get("type")
        return CONTENT_BLOCKS.get(tag) if isinstance(tag, str) else None
    if kind == "ResourceContents":
        if ("text" in node) == ("blob" in node):
            return None
        return "TextResourceContents" if "text" in node else "BlobResourceContents"
    return kind


def _walk(node: Any, revision: str, kind: str, path: list[str | int], out: list[str]) -> None:
    where = _where(path)
    if not isinstance(node, dict):
        out.append(f"{where} must be an object ({kind}), not {type(node).__name__}")
        return
    actual = _union(kind, node)
    if actual is None:
        if kind == "ContentBlock":
            out.append(f"{where} is a content block without a known `type`: {node.get('type')!r}")
        else:
            out.append(f"{where} is resource contents with neither or both of `text` and `blob`")
        return
    shape = members(actual, revision)
    if shape is None:
        out.append(f"{where} is a {actual}, which {revision} does not have")
        return
    required, optional = shape
    for name in sorted(required - set(node)):
        out.append(f"{where} ({actual}) lacks `{name}`, required in {revision}")
    for name in sorted(set(node) - required - optional):
        out.append(f"{where} ({actual}) has `{name}`, which {revision} does not define")
    for name, value in node.items():
        if name in OPEN and name in required | optional:
            if not isinstance(value, dict):
                out.append(f"{where}.{name} must be an object")
            elif name in _OBJECT_SCHEMAS and value.get("type") != "object":
                out.append(f'{where}.{name} must have "type": "object"')
            continue
        child = CHILDREN.get(actual, {}).get(name)
        if child is None:
            continue
        if child.startswith("["):
            if not isinstance(value, list):
                out.append(f"{where}.{name} must be a list")
                continue
            for i, item in enumerate(value):
                _walk(item, revision, child[1:-1], [*path, name, i], out)
        else:
            _walk(value, revision, child, [*path, name], out)


def problems(instance: Any, revision: str, kind: str) -> list[str]:
    """Every member out of place in ``instance`` as a ``kind`` of ``revision``."""
    found: list[str] = []
    _walk(instance, revision, kind, [], found)
    return found


def check(instance: Any, revision: str, kind: str) -> None:
    """Raise AssertionError when ``instance`` breaks the rules for ``kind`` in ``revision``."""
    found = problems(instance, revision, kind)
    if found:
        raise AssertionError(
            f"not a {kind} by Noru's rules for {revision}: {found[0]}"
            + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
        )
