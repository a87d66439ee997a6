"""Argument checking against the tools' own JSON Schemas.

The tools' input schemas use a small, fixed part of JSON Schema (type, enum,
bounds, lengths, pattern, items, uniqueItems, required, additionalProperties
false, anyOf). This checker covers exactly that part, so that an agent's bad argument
is answered -32602 with the argument's name and the broken rule, without the
import cost of a general validator on every ``noru mcp`` start. The test suite
checks it agrees with ``jsonschema`` on the tools' schemas.
"""

from __future__ import annotations

import re
from typing import Any

from noru.errors import InvalidParams

__all__ = ["check_arguments"]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def _fail(where: str, rule: str) -> InvalidParams:
    return InvalidParams(f"Invalid arguments: `{where}` {rule}")


def _types(schema: dict[str, Any]) -> list[str]:
    types = schema.get("type", [])
    return [types] if isinstance(types, str) else list(types)


def _check_any(value: Any, options: list[dict[str, Any]], where: str) -> None:
    """``value`` must satisfy one of ``options``; else the clearest reason why not."""
    failures: list[tuple[dict[str, Any], InvalidParams]] = []
    for option in options:
        try:
            _check(value, option, where)
        except InvalidParams as exc:
            failures.append((option, exc))
        else:
            return
    # A value of one option's type broke that option's rule (`display` 0 is
    # an integer below 1): that rule is what the agent needs to hear.
    for option, failure in failures:
        if any(_is(value, name) for name in _types(option)):
            raise failure
    names = [name for option in options for name in _types(option)]
    raise _fail(where, f"must be of type {' or '.join(names)}")


def _check(value: Any, schema: dict[str, Any], where: str) -> None:
    if "anyOf" in schema:
        _check_any(value, schema["anyOf"], where)
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, n) for n in names):
            raise _fail(where, f"must be of type {' or '.join(names)}")
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        raise _fail(where, f"must be one of {allowed}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise _fail(where, f"must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise _fail(where, f"must be <= {schema['maximum']}")
    if isinstance(value, str):
        _check_length(value, schema, where, ("minLength", "maxLength"), "characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise _fail(where, f"must match {schema['pattern']}")
    if isinstance(value, list):
        _check_length(value, schema, where, ("minItems", "maxItems"), "items")
        if schema.get("uniqueItems"):
            seen: list[Any] = []
            for item in value:
                if any(item == s and type(item) is type(s) for s in seen):
                    raise _fail(where, "must not repeat an item")
                seen.append(item)
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], f"{where}[{i}]")
    if isinstance(value, dict):
        _check_object(value, schema, where)


def _check_length(
    value: str | list[Any], schema: dict[str, Any], where: str, keys: tuple[str, str], unit: str
) -> None:
    low, high = keys
    if low in schema and len(value) < schema[low]:
        raise _fail(where, f"must be at least {schema[low]} {unit}")
    if high in schema and len(value) > schema[high]:
        raise _fail(where, f"must be at most {schema[high]} {unit}")


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str) -> None:
    props: dict[str, Any] = schema.get("properties", {})
    prefix = f"{where}." if where else ""
    for name in schema.get("required", []):
        if name not in value:
            raise _fail(prefix + name, "is required")
    for name, item in value.items():
        if name in props:
            _check(item, props[name], prefix + name)
        elif schema.get("additionalProperties") is False:
            known = ", ".join(props) or "none"
            raise _fail(prefix + name, f"is not a known argument (known: {known})")


def check_arguments(arguments: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """Return the arguments if they satisfy ``schema``, else raise InvalidParams."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidParams("Invalid arguments: `arguments` must be an object")
    _check_object(arguments, schema, "")
    normalised: dict[str, Any] = _normalise(arguments)
    return normalised


def _normalise(value: Any) -> Any:
    """Integral floats (3.0) pass an integer rule; hand the tools real ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value
