"""The official MCP JSON Schemas, when this machine has them.

They are not part of the repository: a clone validates every response with
``mcp.types`` and Noru's per-revision rules (``tests.mcp_rules``) alone. Where
the schemas are available, every response is also validated against the
negotiated revision's schema twice: as published, and strictly (an object the
schema describes may carry only the members that revision defines).

Where they are looked for (``locate``):

- ``NORU_MCP_SCHEMAS=DIR``: that directory, which must hold
  ``2024-11-05.json``, ``2025-03-26.json`` and ``2025-06-18.json`` (anything
  else is a usage error: the run was asked for them and would otherwise
  quietly check less).
- ``NORU_MCP_SCHEMAS=`` (set, empty): off; not even the default is looked at.
- unset: ``mcp-schema/`` in a ``shared/`` directory beside the checkout, if
  there is one (this project's own machines and CI have it).
"""

from __future__ import annotations

import copy
import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from tests.mcp_rules import REVISIONS

__all__ = ["ENV", "Located", "locate", "validate"]

ENV = "NORU_MCP_SCHEMAS"
BESIDE = Path(__file__).resolve().parents[2] / "shared" / "mcp-schema"

# Schema parts that are themselves open-ended by design.
_OPEN = {"inputSchema", "outputSchema", "_meta", "structuredContent", "experimental"}


@dataclass(frozen=True)
class Located:
    """Where the schemas are (``directory``, None without them), or why not.

    ``error`` is set when a place that should hold them does not hold all
    three: the run must stop (``tests/conftest.py`` makes it a usage error).
    """

    directory: Path | None
    why: str = ""
    error: str | None = None

    def summary(self) -> str:
        """The line the test run ends with, so that CI's log shows what ran."""
        if self.directory is not None:
            return f"official MCP schemas: {self.directory}"
        return (
            f"official MCP schemas: {self.why}; "
            "validated with mcp.types and Noru's per-revision rules"
        )


def _at(directory: Path, origin: str) -> Located:
    missing = [r for r in REVISIONS if not (directory / f"{r}.json").is_file()]
    if missing:
        names = ", ".join(f"{r}.json" for r in missing)
        return Located(None, "unusable", f"{origin}: {directory} lacks {names}")
    return Located(directory.resolve())


def locate(environ: Mapping[str, str] | None = None) -> Located:
    """Find the schemas by the rules above (in ``environ``, default os.environ)."""
    env = os.environ if environ is None else environ
    if ENV in env:
        if not env[ENV]:
            return Located(None, f"off ({ENV} is empty)")
        return _at(Path(env[ENV]), ENV)
    if BESIDE.is_dir():
        return _at(BESIDE, "the schemas beside the checkout")
    return Located(None, "not found")


@functools.cache
def _definitions(directory: Path, revision: str) -> dict[str, Any]:
    doc = json.loads((directory / f"{revision}.json").read_text())
    defs: dict[str, Any] = doc["definitions"]
    return defs


def _strict(node: Any, key: str | None = None) -> Any:
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    if key in _OPEN:
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "properties" and isinstance(v, dict):
            out[k] = {name: _strict(sub, name) for name, sub in v.items()}
        else:
            out[k] = _strict(v, None)
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@functools.cache
def _validator(
    directory: Path, revision: str, name: str, strict: bool
) -> jsonschema.Draft7Validator:
    defs = _definitions(directory, revision)
    if strict:
        defs = {k: _strict(v) for k, v in copy.deepcopy(defs).items()}
        # A member of Noru contract 4 on every revision, not only where the
        # MCP schema names it (see tests.mcp_rules, CallToolResult).
        defs["CallToolResult"]["properties"].setdefault("structuredContent", {"type": "object"})
    schema = {"$ref": f"#/definitions/{name}", "definitions": defs}
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def validate(directory: Path, instance: Any, revision: str, name: str) -> None:
    """``instance`` as the schema definition ``name`` of ``revision``, published then strict."""
    for strict in (False, True):
        errors = sorted(
            _validator(directory, revision, name, strict).iter_errors(instance), key=str
        )
        if errors:
            label = "strictly " if strict else ""
            raise AssertionError(
                f"not {label}a valid {name} for {revision} by the official schema: "
                f"{errors[0].message} at {list(errors[0].absolute_path)}\n"
                f"{json.dumps(instance)[:2000]}"
            )
