"""The app protocol: how ``noru mcp`` and the person's CLI talk to the running app.

One Unix socket in the data dir (mode 0600); one request and one reply per
connection, each one JSON object on one line. A reply that carries served
images (``Delivered``) is followed by their PNG files, raw, in order, each
as long as its ``png_bytes`` says: a served screen is about a megabyte, and
base64 inside JSON cost the app and ``noru mcp`` about 5 ms per answer to
write, escape-check, parse and decode (docs/performance.md). Every request
and reply is a typed value (``messages``), and only ``codec`` turns them into
bytes and back; the app (``noru.app.server``) and its clients (``client``:
``AppClient``) never build or read a dict themselves. This package is named
for what it is, the app's wire, apart from the MCP tools that ask the app
(``noru.mcp.tools.live``).

::

    request   {"noru": PROTOCOL, "request": NAME, ...fields}
    reply     {"noru": PROTOCOL, "reply": NAME, ...fields}  [PNG bytes of each served image]

=============  ===================================  ==========================
request        asked by                             answered by
=============  ===================================  ==========================
``Ping``       tests, a client checking versions    ``Pong``
``GetStatus``  ``get_status``, ``noru status``,     ``AppStatus``
               ``noru doctor``, a refusal whose
               remedy is the Noru menu
``Capture``    ``noru capture``                     ``Captured``
``Latest``     ``get_latest_capture``               ``Delivered``
``Observe``    ``observe_screen``                   ``Delivered``
=============  ===================================  ==========================

Any request may instead be answered by ``Refused`` (a contract-4 refusal,
carried whole: tag, summary, details and next action, so that the
platform's own words for granting screen access reach the agent), by
``Failed`` (the app could not do it; its words, never a path or a trace), or
by ``Mismatch`` (the app speaks another protocol version: the person must
restart it). The version is checked on every request, so an app and a
``noru mcp`` of different versions say so instead of misreading each other.

A missing, refusing or stale socket means the app is not running; that is the
answer, never a fallback to history.
"""

from __future__ import annotations

from noru.appwire.client import AppClient
from noru.appwire.codec import blob_length, decode_reply, decode_request, encode
from noru.appwire.messages import (
    MAX_REPLY,
    MAX_REQUEST,
    PROTOCOL,
    SESSION_VARIABLES,
    AppSession,
    AppStatus,
    Capture,
    Captured,
    Delivered,
    Failed,
    GetStatus,
    HotkeyState,
    Latest,
    Malformed,
    MenuState,
    Mismatch,
    Observe,
    OcrState,
    Ping,
    Pong,
    Refused,
    Reply,
    Request,
    ScreenAccess,
    ScreenState,
)

__all__ = [
    "MAX_REPLY",
    "MAX_REQUEST",
    "PROTOCOL",
    "SESSION_VARIABLES",
    "AppClient",
    "AppSession",
    "AppStatus",
    "Capture",
    "Captured",
    "Delivered",
    "Failed",
    "GetStatus",
    "HotkeyState",
    "Latest",
    "Malformed",
    "MenuState",
    "Mismatch",
    "Observe",
    "OcrState",
    "Ping",
    "Pong",
    "Refused",
    "Reply",
    "Request",
    "ScreenAccess",
    "ScreenState",
    "blob_length",
    "decode_reply",
    "decode_request",
    "encode",
]
