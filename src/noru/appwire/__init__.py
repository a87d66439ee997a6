"""The app's one wire: how ``noru mcp`` and the person's CLI talk to the
running app (its socket), and how the app talks to its OCR child (its pipe).

Both speak the same way. Every message is a typed value (the socket's:
``messages``; the pipe's: ``ocr_pipe``) and only ``codec`` turns them into
bytes and back, checking every field (``fields``: the one validator); the app
(``noru.app.server``, ``noru.app.ocr_worker``), the child
(``noru.app.ocr_process``) and the socket's client (``client``:
``AppClient``) never build or read a dict themselves. A message is one JSON
object on one line, carrying the protocol version ``PROTOCOL``; binary it
carries follows the line, raw, in order, each piece as long as the line
says (``png_bytes`` for a served image's PNG, ``rows_bytes`` for a grab's
rows): a served screen is about a megabyte, and base64 inside JSON cost the
app and ``noru mcp`` about 5 ms per answer to write, escape-check, parse and
decode (docs/performance.md). This package is named for what it is, the
app's wire, apart from the MCP tools that ask the app
(``noru.mcp.tools.live``).

::

    request   {"noru": PROTOCOL, "request": NAME, ...fields}  [the binary it carries]
    reply     {"noru": PROTOCOL, "reply": NAME, ...fields}    [the binary it carries]

The socket: one Unix socket in the data dir (mode 0600); one request and one
reply per connection.

=============  ===================================  ==========================
request        asked by                             answered by
=============  ===================================  ==========================
``Ping``       tests, a client checking versions    ``Pong``
``GetStatus``  ``get_status``, ``noru status``,     ``AppStatus``
               ``noru doctor``, a refusal whose
               remedy is the Noru menu
``Capture``    ``noru capture``                     ``Captured``
``Latest``     ``get_latest_capture``               ``Delivered`` (served PNGs)
``Observe``    ``observe_screen``                   ``Delivered`` (served PNGs)
=============  ===================================  ==========================

Any request may instead be answered by ``Refused`` (a contract-4 refusal,
carried whole: tag, summary, details and next action, so that the
platform's own words for granting screen access reach the agent), by
``Failed`` (the app could not do it; its words, never a path or a trace), or
by ``Mismatch`` (the app speaks another protocol version: the person must
restart it). The version is checked on every request, so an app and a
``noru mcp`` of different versions say so instead of misreading each other.
A missing, refusing or stale socket means the app is not running; that is
the answer, never a fallback to history.

The OCR pipe: the child's standard input and output, one job at a time.

=============================  ===========================================
the app writes                 the child answers
=============================  ===========================================
(the child starts)             ``Ready`` (its hello: engine, version) or
                               ``Fatal`` (its engine did not start)
``Recognise`` (a capture id;   ``Recognised`` (each image's lines) or
its grabbed rows, if any)      ``Unreadable`` (why, stored with it)
=============================  ===========================================

A job that is no job of this protocol is answered ``Fatal`` (one of another
version ``Mismatch``) and the child ends: what follows it can no longer be
read. The app reads the child's hello as it reads every answer: a child of
another version (the installed Noru changed under the running app) is
stopped and not asked again, its captures wait, and the app's status says to
restart it; an answer that is not one (``Malformed``) fails that capture
with what was wrong, and the next job has a fresh child
(``noru.app.ocr_worker`` says what each outcome does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noru.appwire import codec, messages
from noru.appwire.codec import *  # noqa: F403  (the codec's calls are the package's)
from noru.appwire.messages import *  # noqa: F403  (so is every socket message)

if TYPE_CHECKING:
    from noru.appwire.client import AppClient


def __getattr__(name: str) -> Any:
    # The socket's client loads on first use: the OCR child, which reads its
    # jobs with the codec and has no socket, does not load it.
    if name == "AppClient":
        from noru.appwire.client import AppClient

        return AppClient
    raise AttributeError(f"module 'noru.appwire' has no attribute {name!r}")


__all__ = ["AppClient"]
__all__ += codec.__all__
__all__ += messages.__all__
