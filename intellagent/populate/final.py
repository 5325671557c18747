"""The final scenario: texts with every symbol replaced by its value, and the rows the user knows of."""

from __future__ import annotations

from typing import Any

from sqlmodel import SQLModel

from intellagent.artifacts import Scenario
from intellagent.environment import Environment
from intellagent.populate.plan import Constraints, Plan
from intellagent.populate.symbols import SymbolTable


def final_texts(scenario: Scenario, plan: Plan, constraints: Constraints, symbols: SymbolTable) -> tuple[str, str]:
    """The scenario and expected behaviour with values in place of symbols (no LLM call).

    The plan's rewritten texts are used when it gave them, the scenario's own otherwise. The
    description ends with the facts the user may need: each entity with its value, and the details
    decided for the scenario, so that a rewrite that dropped an id still leaves it known.
    """
    description = symbols.substitute(plan.scenario.strip() or scenario.description)
    facts = [f"{symbols[name]}: {symbols.substitute(meaning)}" for name, meaning in plan.entities.items()
             if name in symbols and meaning]
    facts += [symbols.substitute(detail) for detail in constraints.details]
    if facts:
        description += "\n\nFacts:\n" + "\n".join(f"- {fact}" for fact in facts)
    expected = symbols.substitute(plan.expected_behaviour.strip() or scenario.expected_behaviour)
    return description, expected


Rows = dict[str, list[dict[str, Any]]]


def user_rows(inserted: list[SQLModel]) -> tuple[Rows, Rows]:
    """The event's own rows, per table, as the simulated user may know them (empty values left out), and the
    rows of the user's own side in full.

    Only the rows planned for the scenario (the user's profile, their bookings), never the
    background world, which the user has no reason to know. A row of the user's side (its device,
    its app) is known by its key alone: the user sees its state only through its own tools, as a
    person sees their phone's settings only by looking, so a fault the scenario planted there is
    found, not told.
    """
    known: Rows = {}
    own_side: Rows = {}
    for row in inserted:
        values = {name: value for name, value in row.model_dump(mode="json").items() if value is not None}
        table = type(row)
        if Environment.side(table) == "user":
            own_side.setdefault(row.__tablename__, []).append(values)  # type: ignore[arg-type]
            key = {column.name for column in row.__table__.primary_key.columns}  # type: ignore[attr-defined]
            values = {name: value for name, value in values.items() if name in key}
        known.setdefault(row.__tablename__, []).append(values)  # type: ignore[arg-type]
    return known, own_side
