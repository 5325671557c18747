"""Rules and dialogs written as a rules file writes them, for the tests of each kind."""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import TypeAdapter

from intellagent.artifacts import Finding, Rule
from intellagent.artifacts.rules import Example
from intellagent.checks.compiled_checks import breaches
from intellagent.environment import Environment
from intellagent.rules.examples import example_trace

_RULE: TypeAdapter[Rule] = TypeAdapter(Rule)
CITE = {"passage": "L1", "words": "Online store agent"}


def rule(text: str) -> Rule:
    """A rule from its YAML (its citation filled in when not given)."""
    fields: dict[str, Any] = yaml.safe_load(text)
    return _RULE.validate_python({"id": "r1", "cite": CITE, **fields})


def findings(written: Rule, environment: Environment, dialog: str, *, world: str = "{}", ended: str | None = None
             ) -> list[Finding]:
    """What the rule finds in a dialog given as an example's YAML steps, on the rows given."""
    example = Example(dialog=yaml.safe_load(dialog), world=yaml.safe_load(world),
                      ended=None if ended is None else yaml.safe_load(ended))
    return list(breaches(written, example_trace(example, environment)))
