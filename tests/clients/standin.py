"""A stand-in for a model's API on 127.0.0.1: the one fake of the client harness.

A real agent client is pointed at ``StandIn.url`` through its own base-URL
setting. The stand-in plays a model that follows a script: at each turn of
the conversation it answers with the next ``Call`` (a tool call, as the
client names its tools) and, once the script is done, with a final text.
Which turn it is comes from the conversation itself (how many of the
script's calls already have their results in the request), so a retried
request gets the same answer. Every request is recorded: what the model
would have received is in them.

Each API is a ``Dialect``: how a main turn is told from the client's side
requests (a title, a router, a token count), how a call and a text are
streamed as the client expects them, and how the tool results the client
passed on are read back out of a request (``Received``: their text and their
images, decoded). The dialects here are the Anthropic Messages API (Claude
Code), the OpenAI Responses API (Codex CLI), the Gemini API (Gemini CLI) and
the OpenAI Chat Completions API (opencode through an OpenAI-compatible
provider).
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = [
    "Anthropic",
    "Call",
    "ChatCompletions",
    "Dialect",
    "Gemini",
    "Received",
    "Request",
    "Responses",
    "StandIn",
]

FINAL = "That is what I found."


@dataclass(frozen=True)
class Call:
    """One tool call the scripted model makes: ``name`` as the client exposes
    the tool to its model (``namespace`` where the API has one), ``arguments``,
    and ``before``, run once just before the call is answered (the person
    pausing Noru between two looks, say). ``kind`` is ``"function"``, or a
    client's own search of its deferred tools where the API has a kind for it."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    namespace: str | None = None
    kind: str = "function"
    before: Callable[[], None] | None = None


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class Received:
    """One tool result as the model received it: its text parts, in order,
    and its images, decoded (PNG or JPEG bytes), with the raw form kept."""

    texts: tuple[str, ...]
    images: tuple[bytes, ...]
    raw: Any

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


def _decoded(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def _data_url(url: str) -> bytes | None:
    head, _, data = url.partition(",")
    if not head.startswith("data:image/") or not head.endswith(";base64"):
        return None
    return _decoded(data)


class Dialect:
    """How one API speaks; subclasses fill these in."""

    name = "api"

    def main_turn(self, path: str, body: Any) -> bool:
        """Whether this request is the conversation's turn (not a side request)."""
        raise NotImplementedError

    def side_answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        """The answer to a side request: (status, content type, body)."""
        return 404, "application/json", b'{"error": {"message": "not here"}}'

    def answered(self, body: Any) -> int:
        """How many tool calls of the conversation already have their results."""
        raise NotImplementedError

    def call(self, call: Call, serial: int, body: Any) -> tuple[str, bytes]:
        """The streamed turn that makes ``call``: (content type, body)."""
        raise NotImplementedError

    def text(self, text: str, serial: int, body: Any) -> tuple[str, bytes]:
        raise NotImplementedError

    def results(self, body: Any) -> list[Received]:
        """Every tool result in the conversation of ``body``, in order."""
        raise NotImplementedError

    def told(self, body: Any) -> str:
        """Everything the model was told besides the conversation's turns: the
        system prompt, and each tool's name and description."""
        raise NotImplementedError

    def tools(self, body: Any) -> list[str]:
        """The names of the tools the model may call in this turn."""
        raise NotImplementedError


def _sse(events: Sequence[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


# --- Anthropic Messages (Claude Code) ----------------------------------------------


class Anthropic(Dialect):
    name = "anthropic-messages"

    def main_turn(self, path: str, body: Any) -> bool:
        # Claude Code's side requests (a title, a summary) carry no tools.
        return path.split("?")[0].endswith("/v1/messages") and bool(body.get("tools"))

    def side_answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if path.split("?")[0].endswith("/count_tokens"):
            # What a real count would be near enough: 4 characters a token,
            # an image ~1,600 (Claude Code's own estimate).
            tokens = _rough_tokens(body.get("messages", [])) + _rough_tokens(body.get("system"))
            return 200, "application/json", json.dumps({"input_tokens": tokens}).encode()
        if path.split("?")[0].endswith("/v1/messages"):
            return 200, *self.text("OK", 0, body)
        return super().side_answer(path, body)

    def answered(self, body: Any) -> int:
        return sum(
            1
            for message in body.get("messages", [])
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )

    def _stream(
        self, block: dict[str, Any], stop: str, serial: int, body: Any
    ) -> tuple[str, bytes]:
        message = {
            "id": f"msg_{serial:04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events: list[tuple[str | None, Any]] = [
            ("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        return "text/event-stream", _sse(events)

    def call(self, call: Call, serial: int, body: Any) -> tuple[str, bytes]:
        block = {
            "type": "tool_use",
            "id": f"toolu_{serial:04d}",
            "name": call.name,
            "input": call.arguments,
        }
        return self._stream(block, "tool_use", serial, body)

    def text(self, text: str, serial: int, body: Any) -> tuple[str, bytes]:
        return self._stream({"type": "text", "text": text}, "end_turn", serial, body)

    def results(self, body: Any) -> list[Received]:
        found = []
        for message in body.get("messages", []):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(self._received(block))
        return found

    @staticmethod
    def _received(block: dict[str, Any]) -> Received:
        content = block.get("content")
        texts: list[str] = []
        images: list[bytes] = []
        if isinstance(content, str):
            texts.append(content)
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "text":
                texts.append(part["text"])
            elif part.get("type") == "image":
                data = _decoded(part.get("source", {}).get("data", ""))
                if data is not None:
                    images.append(data)
            elif part.get("type") == "tool_reference":
                texts.append(f"[tool_reference {part.get('tool_name')}]")
        return Received(tuple(texts), tuple(images), block)

    def told(self, body: Any) -> str:
        parts = [_plain(body.get("system"))]
        # Claude Code puts the environment, the deferred tools' names and the
        # servers' instructions in a system message among the turns.
        parts += [
            _plain(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system"
        ]
        first = next((m for m in body.get("messages", []) if m.get("role") == "user"), None)
        if first is not None:
            parts.append(_plain(first.get("content")))
        for tool in body.get("tools", []):
            parts.append(f"{tool.get('name')}: {tool.get('description', '')}")
        return "\n".join(parts)

    def tools(self, body: Any) -> list[str]:
        return [str(t.get("name")) for t in body.get("tools", [])]


def _plain(content: Any) -> str:
    """The text of a system prompt or message content, whatever its form."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_plain(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text", ""))
    return str(content)


def _rough_tokens(value: Any) -> int:
    if isinstance(value, dict):
        if value.get("type") == "image":
            return 1600
        return sum(_rough_tokens(v) for k, v in value.items() if k != "data")
    if isinstance(value, list):
        return sum(_rough_tokens(v) for v in value)
    if isinstance(value, str):
        return len(value) // 4
    return 0


# --- OpenAI Responses (Codex CLI) --------------------------------------------------

_RESPONSE_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


class Responses(Dialect):
    name = "openai-responses"

    def main_turn(self, path: str, body: Any) -> bool:
        return path.split("?")[0].endswith("/responses")

    def answered(self, body: Any) -> int:
        return sum(
            1
            for item in body.get("input", [])
            if isinstance(item, dict) and item.get("type") in _RESPONSE_OUTPUTS
        )

    def _stream(self, item: dict[str, Any], serial: int) -> tuple[str, bytes]:
        response = f"resp_{serial:04d}"
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        events: list[tuple[str | None, Any]] = [
            ("response.created", {"type": "response.created", "response": {"id": response}}),
            ("response.output_item.done",
             {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed",
             {"type": "response.completed", "response": {"id": response, "usage": usage}}),
        ]  # fmt: skip
        return "text/event-stream", _sse(events)

    def call(self, call: Call, serial: int, body: Any) -> tuple[str, bytes]:
        if call.kind == "tool_search":
            # The model's own search of the deferred tools, run by the client.
            item: dict[str, Any] = {
                "type": "tool_search_call",
                "id": f"tsc_{serial:04d}",
                "call_id": f"ts_{serial:04d}",
                "status": "completed",
                "execution": "client",
                "arguments": call.arguments,
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{serial:04d}",
                "call_id": f"call_{serial:04d}",
                "status": "completed",
                "name": call.name,
                "arguments": json.dumps(call.arguments),
            }
            if call.namespace:
                item["namespace"] = call.namespace
        return self._stream(item, serial)

    def text(self, text: str, serial: int, body: Any) -> tuple[str, bytes]:
        item = {
            "type": "message",
            "id": f"msg_{serial:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return self._stream(item, serial)

    def results(self, body: Any) -> list[Received]:
        found = []
        for item in body.get("input", []):
            if not isinstance(item, dict) or item.get("type") not in _RESPONSE_OUTPUTS:
                continue
            if item["type"] == "tool_search_output":
                names = [
                    f"{ns.get('name')}.{tool.get('name')}"
                    for ns in item.get("tools", [])
                    for tool in ns.get("tools", [ns])
                ]
                found.append(Received(tuple(f"[tool {n}]" for n in names), (), item))
                continue
            output = item.get("output")
            texts: list[str] = []
            images: list[bytes] = []
            if isinstance(output, str):
                texts.append(output)
            for part in output if isinstance(output, list) else ():
                if part.get("type") == "input_text":
                    texts.append(part["text"])
                elif part.get("type") == "input_image":
                    data = _data_url(str(part.get("image_url", "")))
                    if data is not None:
                        images.append(data)
            found.append(Received(tuple(texts), tuple(images), item))
        return found

    def told(self, body: Any) -> str:
        parts = [str(body.get("instructions") or "")]
        for item in body.get("input", []):
            if item.get("type") == "message" and item.get("role") in ("developer", "system"):
                parts.append(_plain([c.get("text", "") for c in item.get("content", [])]))
            if item.get("type") == "tool_search_output":
                parts.append(json.dumps(item.get("tools")))
        parts.append(json.dumps(body.get("tools", [])))
        return "\n".join(parts)

    def tools(self, body: Any) -> list[str]:
        names = []
        for tool in body.get("tools", []):
            if tool.get("type") == "namespace":
                names += [f"{tool['name']}.{t.get('name')}" for t in tool.get("tools", [])]
            else:
                names.append(str(tool.get("name")))
        return names


# --- Gemini (Gemini CLI) -----------------------------------------------------------


class Gemini(Dialect):
    name = "gemini"

    def main_turn(self, path: str, body: Any) -> bool:
        return ":streamGenerateContent" in path and bool(body.get("tools"))

    def side_answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if ":countTokens" in path:
            tokens = _rough_tokens(body)
            return 200, "application/json", json.dumps({"totalTokens": tokens}).encode()
        if ":generateContent" in path or ":streamGenerateContent" in path:
            # The router's question (how complex is the prompt) wants JSON of
            # its schema; anything else a plain text.
            config = body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            text = json.dumps(_stub(schema)) if schema else "OK"
            answer = {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                                      "finishReason": "STOP", "index": 0}],
                      "usageMetadata": _GEMINI_USAGE}  # fmt: skip
            if ":streamGenerateContent" in path:
                return 200, "text/event-stream", _sse([(None, answer)])
            return 200, "application/json", json.dumps(answer).encode()
        return super().side_answer(path, body)

    def answered(self, body: Any) -> int:
        return sum(
            1
            for content in body.get("contents", [])
            for part in content.get("parts", [])
            if "functionResponse" in part
        )

    def _stream(self, part: dict[str, Any]) -> tuple[str, bytes]:
        chunk = {
            "candidates": [
                {"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": _GEMINI_USAGE,
        }
        return "text/event-stream", _sse([(None, chunk)])

    def call(self, call: Call, serial: int, body: Any) -> tuple[str, bytes]:
        return self._stream({"functionCall": {"name": call.name, "args": call.arguments}})

    def text(self, text: str, serial: int, body: Any) -> tuple[str, bytes]:
        return self._stream({"text": text})

    def results(self, body: Any) -> list[Received]:
        found: list[Received] = []
        for content in body.get("contents", []):
            parts = content.get("parts", [])
            for i, part in enumerate(parts):
                response = part.get("functionResponse")
                if response is None:
                    continue
                texts = []
                output = response.get("response", {})
                for key in ("output", "error", "content"):
                    if key in output:
                        value = output[key]
                        texts.append(value if isinstance(value, str) else json.dumps(value))
                # The image follows its functionResponse as inlineData parts
                # (or, for some models, inside it).
                images = [
                    data
                    for inline in [*response.get("parts", []), *parts[i + 1 :]]
                    if "inlineData" in inline
                    for data in [_decoded(inline["inlineData"].get("data", ""))]
                    if data is not None
                ]
                found.append(Received(tuple(texts), tuple(images), part))
        return found

    def told(self, body: Any) -> str:
        parts = [_plain((body.get("systemInstruction") or {}).get("parts"))]
        first = next(iter(body.get("contents", [])), None)
        if first is not None:
            parts.append(_plain(first.get("parts")))
        for tool in body.get("tools", []):
            for decl in tool.get("functionDeclarations", []):
                parts.append(f"{decl.get('name')}: {decl.get('description', '')}")
        return "\n".join(parts)

    def tools(self, body: Any) -> list[str]:
        return [
            str(decl.get("name"))
            for tool in body.get("tools", [])
            for decl in tool.get("functionDeclarations", [])
        ]


_GEMINI_USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def _stub(schema: Any) -> Any:
    """A small value of a JSON schema (the router's answer)."""
    if not isinstance(schema, dict):
        return "stub"
    kind = str(schema.get("type", "")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        return {k: _stub(v) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 10
    if kind == "boolean":
        return False
    return "stub"


# --- OpenAI Chat Completions (opencode) --------------------------------------------


class ChatCompletions(Dialect):
    name = "openai-chat-completions"

    def main_turn(self, path: str, body: Any) -> bool:
        return path.split("?")[0].endswith("/chat/completions") and bool(body.get("tools"))

    def side_answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if path.split("?")[0].endswith("/chat/completions"):
            return 200, *self.text("A title", 0, body)  # a title or summary
        return super().side_answer(path, body)

    def answered(self, body: Any) -> int:
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")

    def _stream(
        self, delta: dict[str, Any], finish: str, serial: int, body: Any
    ) -> tuple[str, bytes]:
        def chunk(d: dict[str, Any], reason: str | None) -> dict[str, Any]:
            return {
                "id": f"chatcmpl-{serial:04d}",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body.get("model", "model"),
                "choices": [{"index": 0, "delta": d, "finish_reason": reason}],
            }

        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        events: list[tuple[str | None, Any]] = [
            (None, chunk({"role": "assistant", **delta}, None)),
            (None, {**chunk({}, finish), "usage": usage}),
        ]
        return "text/event-stream", _sse(events) + b"data: [DONE]\n\n"

    def call(self, call: Call, serial: int, body: Any) -> tuple[str, bytes]:
        tool_call = {
            "index": 0,
            "id": f"call_{serial:04d}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        return self._stream(
            {"content": None, "tool_calls": [tool_call]}, "tool_calls", serial, body
        )

    def text(self, text: str, serial: int, body: Any) -> tuple[str, bytes]:
        return self._stream({"content": text}, "stop", serial, body)

    def results(self, body: Any) -> list[Received]:
        found = []
        messages = body.get("messages", [])
        for i, message in enumerate(messages):
            if message.get("role") != "tool":
                continue
            texts = [_plain(message.get("content"))]
            images = []
            for part in message.get("content") if isinstance(message.get("content"), list) else ():
                if part.get("type") == "image_url":
                    data = _data_url(str(part.get("image_url", {}).get("url", "")))
                    if data is not None:
                        images.append(data)
            # Some clients pass a tool's images on in user messages after it
            # (opencode in one, Copilot CLI one per image).
            for after in messages[i + 1 :]:
                content = after.get("content")
                if after.get("role") != "user" or not isinstance(content, list):
                    break
                for part in content:
                    if part.get("type") == "image_url":
                        data = _data_url(str(part.get("image_url", {}).get("url", "")))
                        if data is not None:
                            images.append(data)
            found.append(Received(tuple(t for t in texts if t), tuple(images), message))
        return found

    def told(self, body: Any) -> str:
        parts = [
            _plain(m.get("content")) for m in body.get("messages", []) if m["role"] == "system"
        ]
        for tool in body.get("tools", []):
            function = tool.get("function", {})
            parts.append(f"{function.get('name')}: {function.get('description', '')}")
        return "\n".join(parts)

    def tools(self, body: Any) -> list[str]:
        return [str(t.get("function", {}).get("name")) for t in body.get("tools", [])]


# --- the server --------------------------------------------------------------------


class StandIn:
    """The scripted model on 127.0.0.1: ``url`` is its base, ``requests`` every
    request it got, ``turns`` the main turns among them."""

    def __init__(self, dialect: Dialect, script: Sequence[Call], *, final: str = FINAL) -> None:
        self.dialect = dialect
        self.script = list(script)
        self.final = final
        self.requests: list[Request] = []
        self.turns: list[Request] = []
        self.failures: list[str] = []
        self._done: set[int] = set()  # the calls whose ``before`` has run
        self._lock = threading.Lock()
        self._serial = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    @property
    def last(self) -> Any:
        """The body of the last main turn: the whole conversation the model saw."""
        assert self.turns, f"the client never asked the model (requests: {self.paths()})"
        return self.turns[-1].body

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def received(self) -> list[Received]:
        """The tool results the model received, in the order of the calls."""
        return self.dialect.results(self.last)

    def _answer(self, path: str, headers: dict[str, str], body: Any) -> tuple[int, str, bytes]:
        with self._lock:
            self._serial += 1
            serial = self._serial
            request = Request(path, headers, body)
            self.requests.append(request)
            if not isinstance(body, dict) or not self.dialect.main_turn(path, body):
                return self.dialect.side_answer(path, body if isinstance(body, dict) else {})
            self.turns.append(request)
            done = self.dialect.answered(body)
            if done >= len(self.script):
                return 200, *self.dialect.text(self.final, serial, body)
            call = self.script[done]
            if call.before is not None and done not in self._done:
                self._done.add(done)
                call.before()
            return 200, *self.dialect.call(call, serial, body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # requests are recorded, not printed

            def _reply(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                stand_in.requests.append(Request(self.path, dict(self.headers), None))
                self._reply(404, "application/json", b'{"error": {"message": "not here"}}')

            do_HEAD = do_GET

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                try:
                    status, kind, data = stand_in._answer(self.path, dict(self.headers), body)
                except Exception as exc:  # a fault of the script: told to the test
                    stand_in.failures.append(f"{type(exc).__name__}: {exc}")
                    status, kind, data = 500, "application/json", b'{"error": "stand-in"}'
                self._reply(status, kind, data)

        return Handler
