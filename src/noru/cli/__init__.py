"""The `noru` command: a thin click layer over the library, one module per job.

- ``base``: the group (``main``), its one error seam, its help (the commands
  by job, each with an example), typed options, the history filters and
  small helpers every command shares.
- ``output``: ``--json``, ``--nl`` and ``--csv`` for scripts.
- ``agents``: `noru mcp`, `noru config`, `noru log`.
- ``controls``: `noru allow`, `pause`, `resume`, `revoke`, `status`, `exclude`.
- ``redaction``: `noru redact add`, `remove`, `allow`, `list`.
- ``browsing``: `noru list`, `search`, `show`, `open`: the history read.
- ``editing``: `noru note`, `delete`, `keep`, `unkeep`: the person's edits.
- ``intake``: `noru import`, `reocr`, `ocr`: screenshots and their text brought in,
  and the OCR engine that reads it.
- ``retention``: `noru retention`, `noru prune`.
- ``running``: `noru app`, `capture`, `console`, `autostart`, `doctor`.

Heavy modules are imported inside the commands that need them, so that
`noru mcp` starts fast.
"""

from __future__ import annotations

# Each job's module adds its commands to ``main`` when imported.
from noru.cli import (  # noqa: F401
    agents,
    browsing,
    controls,
    editing,
    intake,
    redaction,
    retention,
    running,
)
from noru.cli.base import main

__all__ = ["main"]
