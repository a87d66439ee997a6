"""Secrets on screen, kept from agents: found, replaced in text, filled in pixels.

What an agent is shown of a capture is text the screen held: a terminal's
`cat .env`, an `Authorization: Bearer` header in shell history, a connection
string with its password, a card number on a checkout page.

- ``detect``: ``find_lines`` finds, in a capture's lines (as read by OCR, or
  from accessibility), each secret value's span (the value only:
  ``AWS_SECRET_ACCESS_KEY=`` stays, what follows goes) and its kind
  (``aws-key``, ``password``, ``card``, ...), by the rules of ``rules``
  (ours, one table: a library that fits was looked for and none did;
  docs/security.md, "Secrets on screen"). OCR misreads a character now and
  then, so the fixed parts of a key's format take the characters the
  engine confuses; what a rule's value must then pass (Luhn for a card, a
  label before a password) keeps ordinary text out. Pure Python.
- ``policy``: what is redacted: the ``redact`` setting's categories and the
  person's own patterns (``redactions.json``), failing closed on a file
  that cannot be read.
- ``apply``: ``for_agent`` gives a stored capture as an agent may see it:
  its text with ``[redacted: KIND]`` for each span, and each span's box in
  the image's pixels for ``noru.present`` to fill.
"""

from __future__ import annotations

from noru.redact.detect import Finding, find, find_lines
from noru.redact.policy import Pattern, Policy

# ``apply`` reads the store's records: imported by those that serve captures.
__all__ = ["Finding", "Pattern", "Policy", "find", "find_lines"]
