"""How many tokens a structured answer can need at most, read from its JSON schema.

Every structured request carries this bound as `max_tokens`, so a model that loses its way (a string
that never closes, a list that never ends) stops where no valid answer could still be going, instead
of writing until a timeout. The bound is generous: an answer the schema allows is never cut short
by it, except for free text longer than `FREE_TEXT_TOKENS` tokens per string.
"""

from __future__ import annotations

from typing import Any

FREE_TEXT_TOKENS = 160
"""Tokens allowed for a string the schema does not bound (a description, a message)."""

UNBOUNDED_ITEMS = 12
"""Items counted for a list the schema does not bound."""

_SCALAR = {"integer": 8, "number": 10, "boolean": 2, "null": 2}


def token_bound(schema: dict[str, Any]) -> int:
    """The most tokens an answer valid against `schema` plausibly takes, JSON punctuation included."""
    return _bound(schema, schema.get("$defs", {}), depth=0) + 8


def _bound(schema: dict[str, Any], definitions: dict[str, Any], *, depth: int) -> int:
    if depth > 12:  # a recursive schema: deeper levels are not expected in a real answer
        return FREE_TEXT_TOKENS
    nested = depth + 1
    if "$ref" in schema:
        return _bound(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions, depth=nested)
    if "const" in schema or "enum" in schema:
        values = schema.get("enum", [schema.get("const")])
        return max(len(str(value)) // 3 + 3 for value in values)
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            return max(_bound(part, definitions, depth=nested) for part in schema[union])
    kind = schema.get("type")
    if isinstance(kind, list):
        return max(_bound({**schema, "type": one}, definitions, depth=nested) for one in kind)
    if kind == "object":
        fields = schema.get("properties", {})
        total = sum(len(name) // 3 + 3 + _bound(part, definitions, depth=nested) for name, part in fields.items())
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not fields:
            total += UNBOUNDED_ITEMS * (8 + _bound(extra, definitions, depth=nested))
        return total + 2
    if kind == "array":
        items = schema.get("maxItems", UNBOUNDED_ITEMS)
        return items * (_bound(schema.get("items", {}), definitions, depth=nested) + 1) + 2
    if kind == "string":
        if "maxLength" in schema:
            return schema["maxLength"] // 2 + 3
        return 12 if "pattern" in schema else FREE_TEXT_TOKENS
    return _SCALAR.get(kind or "", FREE_TEXT_TOKENS)
