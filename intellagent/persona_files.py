"""The personas a run can give its simulated users: the built-in ones and the user's own.

The built-ins are YAML files under prompts/simulate/personas/, one per persona, named by the file: data a
user reads and copies. A user's own are written the same way under `simulate.personas` in the config, or
in a YAML file that key names (a mapping of name → persona); one of them may replace a built-in of the
same name. `simulate.persona_mix` weighs the personas a run's scenarios are given (see
`intellagent.describe.persona_mix`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from intellagent.artifacts import Persona
from intellagent.bundled import bundled

BUILTIN_FOLDER = bundled("prompts") / "simulate" / "personas"

COOPERATIVE = "cooperative"
"""The persona a scenario falls back to when the mix has no other that fits it."""

DEFAULT_MIX: dict[str, float] = {
    COOPERATIVE: 9, "impatient": 1, "vague": 1, "talkative": 1, "pressure": 1, "false_claim": 1, "authority": 1,
    "exception_seeking": 1, "injection": 1, "escalation": 1,
}
"""Half the scenarios cooperative, the other half spread over the other built-ins but `other_language`, whose
language is the user's to choose."""


@cache
def builtin_personas() -> dict[str, Persona]:
    """The built-in personas, by name (the name of their file)."""
    return {path.stem: _persona(path.stem, yaml.safe_load(path.read_text(encoding="utf-8")), origin=str(path))
            for path in sorted(BUILTIN_FOLDER.glob("*.yml"))}


def own_personas(definitions: Mapping[str, Any]) -> dict[str, Persona]:
    """A user's personas from their definitions (name → the fields of a built-in's file).

    Raises:
        ValueError: a definition is not a valid persona; the message names it and its first problem.
    """
    return {name: _persona(name, value, origin=f"persona {name}") for name, value in definitions.items()}


def read_persona_file(path: Path) -> dict[str, Any]:
    """The persona definitions of a YAML file: a mapping of name → persona.

    Raises:
        ValueError: the file is missing, not YAML, or not a mapping of personas.
    """
    if not path.is_file():
        raise ValueError(f"file {path} not found; fix the path")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ValueError(f"{path} is not valid YAML ({getattr(error, 'problem', error)})") from None
    if not isinstance(data, dict) or not all(isinstance(value, dict) for value in data.values()):
        raise ValueError(f"{path} must map each persona's name to its fields, as prompts/simulate/personas/*.yml do")
    return data


def _persona(name: str, fields: Any, *, origin: str) -> Persona:
    if isinstance(fields, Persona):
        return fields.model_copy(update={"name": name})
    if not isinstance(fields, dict):
        raise ValueError(f"{origin}: give the persona's fields (description, instructions, ...)")
    try:
        return Persona.model_validate({**fields, "name": name})
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ValueError(f"{origin}: {where + ': ' if where else ''}{problem['msg'].removeprefix('Value error, ')}"
                         ) from None
