"""Secrets in on-screen text, found with their spans and their kinds.

What an agent is shown of a capture is text the screen held: a terminal's
`cat .env`, an `Authorization: Bearer` header in shell history, a connection
string with its password, a card number on a checkout page. ``find_lines``
finds, in a capture's lines (as read by OCR, or from accessibility), each
secret value's span (the value only: ``AWS_SECRET_ACCESS_KEY=`` stays, what
follows goes) and its kind (``aws-key``, ``password``, ``card``, ...).

Rules are ours (``noru.redact.rules``), one table: a library that fits was
looked for and none did (docs/security.md, "Secrets on screen"). OCR misreads
a character now and then (``0`` for ``O``, ``1`` for ``l``), so the fixed
parts of a key's format (its prefix, its alphabet) take the characters the
engine confuses; what a rule's value must then pass (Luhn for a card, a
label before a password) keeps ordinary text out.

Pure Python; nothing here knows pixels or the store.
"""

from __future__ import annotations

from noru.redact.detect import Finding, find, find_lines

__all__ = ["Finding", "find", "find_lines"]
