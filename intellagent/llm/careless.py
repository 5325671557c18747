"""The careless test double: answers valid against the request's JSON schema, arbitrary in content.

A weak or confused model answers in the right shape and says nothing sensible: ids that name no
row, strings of the wrong form, numbers from nowhere, lists cut short. A stage must survive any such
answer with valid artifacts and honest statuses, so tests put it through this double as well as
through sensible scripts. Each answer is drawn from a seed and the request itself, so the same run
gets the same answers whatever order concurrent requests arrive in.

    script = ScriptedLLM().on(reply=careless_answers(seed=3))
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Callable
from typing import Any

import rstr

from intellagent.llm.scripted import Request

# Lists are drawn no longer than this when the schema allows more: long enough to hold several rows.
MAX_DRAWN_ITEMS = 4

_WORDS = ("gold", "yes", "maybe", "none", "ok", "blue", "tomorrow", "x", "row", "N/A", "U1", "users_1")


def careless_answers(*, seed: int = 0) -> Callable[[Request], str | dict[str, Any]]:
    """A reply for `ScriptedLLM.on(reply=...)` that answers every request carelessly.

    A request with a response schema gets a JSON object drawn at random from that schema; any other
    request (a user turn, a chatbot turn with tools) gets a few random words.

    Args:
        seed: the run of answers; the same seed and request give the same answer.
    """

    def reply(request: Request) -> str | dict[str, Any]:
        digest = hashlib.sha256(json.dumps([seed, request.body], sort_keys=True).encode()).hexdigest()
        rng = random.Random(digest)
        schema = (request.body.get("response_format") or {}).get("json_schema", {}).get("schema")
        if schema is None:
            return " ".join(_text(rng) for _ in range(rng.randint(1, 6)))
        return draw(schema, rng, definitions=schema.get("$defs", {}))

    return reply


def draw(schema: dict[str, Any], rng: random.Random, *, definitions: dict[str, Any]) -> Any:
    """A value valid against `schema` (the JSON Schema subset pydantic emits), chosen at random.

    Args:
        schema: the schema, or a part of it.
        rng: the source of every choice.
        definitions: the root's `$defs`, which `$ref`s point into.
    """
    if "$ref" in schema:
        return draw(definitions[schema["$ref"].rsplit("/", 1)[-1]], rng, definitions=definitions)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return draw(rng.choice(schema[union]), rng, definitions=definitions)
    if "allOf" in schema:
        return draw(schema["allOf"][0], rng, definitions=definitions)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind is None:
        kind = rng.choice(["string", "integer", "null"])
    return _DRAWERS[kind](schema, rng, definitions)


def _object(schema: dict[str, Any], rng: random.Random, definitions: dict[str, Any]) -> dict[str, Any]:
    required = set(schema.get("required", []))
    drawn = {
        name: draw(part, rng, definitions=definitions)
        for name, part in schema.get("properties", {}).items()
        if name in required or rng.random() < 0.5
    }
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and not schema.get("properties"):
        for _ in range(rng.randint(0, 2)):
            drawn[_text(rng)] = draw(extra, rng, definitions=definitions)
    return drawn


def _array(schema: dict[str, Any], rng: random.Random, definitions: dict[str, Any]) -> list[Any]:
    low = schema.get("minItems", 0)
    high = min(schema.get("maxItems", MAX_DRAWN_ITEMS), max(low, MAX_DRAWN_ITEMS))
    items = schema.get("items", {})
    return [draw(items, rng, definitions=definitions) for _ in range(rng.randint(low, high))]


def _string(schema: dict[str, Any], rng: random.Random, definitions: dict[str, Any]) -> str:
    if "pattern" in schema:
        return rstr.Rstr(rng).xeger(schema["pattern"])
    text = _text(rng)
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    text = text.ljust(low, "x")
    return text[:high] if high is not None else text


def _integer(schema: dict[str, Any], rng: random.Random, definitions: dict[str, Any]) -> int:
    low = schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else schema.get("minimum", -20)
    high = schema["exclusiveMaximum"] - 1 if "exclusiveMaximum" in schema else schema.get("maximum", 10**6)
    # The edges, anywhere between, or a small number: where careless answers tend to land.
    return rng.choice([low, high, rng.randint(low, high), rng.randint(max(low, -3), min(high, 12))])


def _number(schema: dict[str, Any], rng: random.Random, definitions: dict[str, Any]) -> float:
    return round(rng.uniform(schema.get("minimum", -1e3), schema.get("maximum", 1e5)), rng.randint(0, 3))


def _text(rng: random.Random) -> str:
    """A string a careless model might write: a word, an id-like code, digits, or nothing."""
    shapes: list[Callable[[], str]] = [
        lambda: rng.choice(_WORDS),
        lambda: "".join(rng.choice(string.ascii_uppercase) for _ in range(3)) + str(rng.randint(0, 999)),
        lambda: str(rng.randint(0, 10**8)),
        lambda: "".join(rng.choice(string.ascii_letters + " -_:") for _ in range(rng.randint(1, 24))),
        lambda: "",
    ]
    return rng.choice(shapes)()


_DRAWERS: dict[str, Callable[[dict[str, Any], random.Random, dict[str, Any]], Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda schema, rng, definitions: rng.random() < 0.5,
    "null": lambda schema, rng, definitions: None,
}
