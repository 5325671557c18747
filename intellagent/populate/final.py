"""The final scenario: texts with every symbol replaced by its value, and the rows the user knows of."""

from __future__ import annotations

from typing import Any

from sqlmodel import SQLModel

from intellagent.artifacts import Scenario
from intellagent.populate.plan import Constraints, Plan
from intellagent.populate.symbols import SymbolTable


def final_texts(scenario: Scenario, plan: Plan, constraints: Constraints, symbols: SymbolTable) -> tuple[str, str]:
    """The scenario and expected behaviour with values in place of symbols (no LLM call).

    The plan's rewritten texts are used when it gave them, the scenario's own otherwise; the details
    decided for the scenario are added to its description, since the user may need them.
    """
    description = symbols.substitute(plan.scenario.strip() or scenario.description)
    if constraints.details:
        description += "\n\nDetails:\n" + "\n".join(f"- {symbols.substitute(d)}" for d in constraints.details)
    expected = symbols.substitute(plan.expected_behaviour.strip() or scenario.expected_behaviour)
    return description, expected


def user_rows(inserted: list[SQLModel]) -> dict[str, list[dict[str, Any]]]:
    """The event's own rows, per table, as the simulated user may know them (empty values left out).

    Only the rows planned for the scenario (the user's profile, their bookings), never the
    background world, which the user has no reason to know.
    """
    known: dict[str, list[dict[str, Any]]] = {}
    for row in inserted:
        values = {name: value for name, value in row.model_dump(mode="json").items() if value is not None}
        known.setdefault(row.__tablename__, []).append(values)  # type: ignore[arg-type]
    return known
