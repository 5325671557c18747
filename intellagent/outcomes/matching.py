"""How calls are compared: by tool and arguments, each argument by its canonical JSON text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from intellagent.artifacts import ForbiddenCall


def canonical(value: Any) -> str:
    """A value as calls are compared: its JSON text with keys in order (so `1` and `1.0` differ, as τ-bench's
    grade has them)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def call_key(tool: str, arguments: Mapping[str, Any]) -> str:
    """A call as calls are matched: its tool and its arguments, canonical."""
    return tool + canonical(arguments)


def forbids(forbidden: ForbiddenCall, tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a call is the forbidden one: the same tool, and every argument the forbidden call names equal."""
    return forbidden.tool == tool and all(
        canonical(arguments.get(name)) == canonical(value) for name, value in (forbidden.arguments or {}).items())
