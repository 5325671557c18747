"""Tool calls compared as a person compares them: through the tool's own argument schema.

Two calls of a tool are the same call when their arguments mean the same thing, not when their JSON is the
same byte for byte. So each side's arguments are first read as the tool reads them — its arguments model
coerces types (`"1"` for a number argument is 1) and fills the defaults a call left out — and then each value
is put in a plain form: a number the same whether written `1` or `1.0`, text with its case and separators
(spaces, `_`, `-`) folded but never read as a number, so that an id of digits keeps its leading zeros (a call
whose id the tool did not know returned an error and matches nothing anyway), and every list compared as a
multiset (the order of passengers or items in one call is not the call's meaning).
Arguments the tool's model refuses are compared as they were given, in the same plain form.

A forbidden write matches a call when every argument it names has the call's plain value; an expected call
is credited per argument (the share of its arguments a made call of the same tool got right), so a report
can tell a call that missed one date from a call that was never made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from intellagent.artifacts import ForbiddenCall

if TYPE_CHECKING:
    from intellagent.environment import Environment

_SEPARATORS = re.compile(r"[\s_\-]+")


def plain_arguments(environment: Environment, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments as the tool reads them (types coerced, defaults filled), in plain form."""
    try:
        known = environment.tool(tool)
    except KeyError:  # a call of a tool the domain does not have: compared as given
        known = None
    read: Mapping[str, Any] = arguments
    if known is not None and set(arguments) <= set(known.arguments_model.model_fields):
        try:
            read = known.arguments_model.model_validate(dict(arguments)).model_dump(mode="json", by_alias=True)
        except ValidationError:
            read = arguments
    return {str(name): _plain(value) for name, value in read.items()}


def call_key(environment: Environment, tool: str, arguments: Mapping[str, Any]) -> str:
    """A call in plain form: two calls are the same when their keys are equal."""
    return tool + _text(plain_arguments(environment, tool, arguments))


def forbids(environment: Environment, forbidden: ForbiddenCall, tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a call of `tool` with `arguments` is the forbidden write: its tool, and every argument the forbidden
    write names with the same plain value (any call of the tool when it names none)."""
    if tool != forbidden.tool:
        return False
    if forbidden.arguments is None:
        return True
    made = plain_arguments(environment, tool, arguments)
    named = {name: _plain(value) for name, value in forbidden.arguments.items()}
    return all(name in made and _text(made[name]) == _text(value) for name, value in named.items())


def argument_credit(environment: Environment, tool: str, expected: Mapping[str, Any],
                    made: Mapping[str, Any]) -> float:
    """The share of the expected call's arguments that a made call of the same tool gave the same plain value
    (1.0 for a call with no arguments)."""
    wanted = plain_arguments(environment, tool, expected)
    given = plain_arguments(environment, tool, made)
    if not wanted:
        return 1.0
    return sum(name in given and _text(given[name]) == _text(value) for name, value in wanted.items()) / len(wanted)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return sorted((_plain(item) for item in value), key=_text)
    if isinstance(value, str):  # text stays text, however it reads: an id of digits keeps its leading zeros
        return " ".join(_SEPARATORS.split(value.strip().casefold())).strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
