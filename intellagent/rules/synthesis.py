"""Examples made from a compiled rule itself: a dialog that keeps it and one that breaks it.

A model that compiles a rule is not asked for examples: they are made here, from what the rule says, so that
a person reviewing a proposed rule sees at once what it passes and what it fails, and so that a rule no dialog
can break (or none can keep) is refused. Each kind gets the smallest dialog that shows it:

- order: the first tool, then the second (keeps); the second alone (breaks);
- precondition: a call whose rows meet the first condition (keeps); one whose rows meet none (breaks);
- bound: a call at the limit (keeps); one past it (breaks);
- forbidden: a dialog with no such call (keeps); the call (breaks);
- confirmation: the action named, a yes, the call (keeps); the call with no yes (breaks).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from intellagent.artifacts import Bound, Condition, Confirmation, Forbidden, Order, Precondition
from intellagent.artifacts.rules import Example, Examples, Turn
from intellagent.checks.values import moment, number

ENTITY = "E1001"
"""The value an example's arguments name their entity by."""
OTHER = "zz-other"
"""A text no column of a rule is compared with."""
HELLO = [Turn(user="Hello, I have a question."), Turn(chatbot="Of course, what is it?")]


def synthesized_examples(body: Any) -> Examples:
    """A keeping and a breaking example of a rule of the compiled kinds (none for another kind)."""
    match body:
        case Order():
            same = {} if body.same is None else {body.same.before: ENTITY}
            then = {} if body.same is None else {body.same.then: ENTITY}
            return _pair([Turn(call=body.before, args=same), Turn(call=body.then, args=then)],
                         [Turn(call=body.then, args=then)])
        case Precondition():
            return _precondition(body)
        case Bound():
            return _bound(body)
        case Forbidden():
            args = {} if body.argument is None else {body.argument: body.value}
            return _pair(HELLO, [Turn(call=body.tool, args=args)])
        case Confirmation():
            named = " ".join(f"{name} {ENTITY}" for name in body.arguments)
            args = {name: ENTITY for name in body.arguments}
            asked = f"I am about to {' '.join(body.words[:1]) or body.tool.replace('_', ' ')} {named}. Shall I?"
            return _pair([Turn(user="Please do it."), Turn(chatbot=asked), Turn(user="Yes, go ahead."),
                          Turn(call=body.tool, args=args)],
                         [Turn(user="Please do it."), Turn(call=body.tool, args=args)])
    return Examples()


def _pair(keeps: list[Turn], breaks: list[Turn], *, kept: dict[str, list[dict[str, Any]]] | None = None,
          broken: dict[str, list[dict[str, Any]]] | None = None) -> Examples:
    return Examples(keeps=[Example(note="made from the rule", world=kept or {}, dialog=keeps)],
                    breaks=[Example(note="made from the rule", world=broken or {}, dialog=breaks)])


def _precondition(body: Precondition) -> Examples:
    conditions = [condition for condition in body.any_of if isinstance(condition, Condition)]
    if not conditions or any(condition.value in ([], "") for condition in conditions):
        return Examples()  # nothing to meet: the rule is refused for want of examples
    args = {condition.argument: ENTITY for condition in conditions}
    kept, broken = _rows(conditions, keep=conditions[0]), _rows(conditions, keep=None)
    call = [Turn(call=body.tool, args=args)]
    return _pair(call, call, kept=kept, broken=broken)


def _rows(conditions: list[Condition], *, keep: Condition | None) -> dict[str, list[dict[str, Any]]]:
    """One row per table the conditions read, named by the example's entity, meeting `keep` and no other."""
    rows: dict[str, dict[str, Any]] = {}
    for condition in conditions:
        row = rows.setdefault(condition.table, {condition.key: ENTITY})
        met = condition is keep
        row[condition.column], since = _value(condition, met=met)
        if condition.since_column is not None:
            row[condition.since_column] = since
    return {table: [row] for table, row in rows.items()}


def _value(condition: Condition, *, met: bool) -> tuple[Any, Any]:
    """A value of the condition's column that meets it (or not), and the moment it counts from, for within_days."""
    value, op = condition.value, condition.op
    if op == "within_days":
        start = moment(condition.since) or datetime(2024, 1, 1)
        days = number(value) or 1
        moment_given = start if met else start - timedelta(days=days + 1)
        return moment_given.isoformat(), start.isoformat()
    options = value if isinstance(value, list) else [value]
    if op in ("eq", "in"):
        return (options[0] if met else _unlike(options)), None
    if op in ("ne", "not_in"):
        return (_unlike(options) if met else options[0]), None
    return _beside(op, float(number(value) or 0), met=met), None


def _unlike(options: list[Any]) -> Any:
    """A value equal to none of `options`, of their type."""
    numbers = [number(option) for option in options]
    if all(found is not None for found in numbers):
        return max(found for found in numbers if found is not None) + 1
    return OTHER


def _beside(op: str, limit: float, *, met: bool) -> float:
    """A number that meets `op limit` (or not), at the limit where one does."""
    at_limit = {"le": True, "ge": True, "eq": True, "lt": False, "gt": False, "ne": False}[op]
    if met:
        return limit if at_limit else limit - 1 if op == "lt" else limit + 1
    return limit + 1 if op in ("le", "lt", "eq") else limit - 1 if op in ("ge", "gt") else limit


def _bound(body: Bound) -> Examples:
    kept, broken = _beside(body.op, body.value, met=True), _beside(body.op, body.value, met=False)
    if body.measure == "length":
        if kept < 0 or broken < 0:
            return Examples()
        return _pair([Turn(call=body.tool, args={body.argument: [ENTITY] * int(kept)})],
                     [Turn(call=body.tool, args={body.argument: [ENTITY] * int(broken)})])
    if body.measure == "value":
        return _pair([Turn(call=body.tool, args={body.argument: kept})],
                     [Turn(call=body.tool, args={body.argument: broken})])
    if body.table is None or body.key is None or kept < 0 or broken < 0:
        return Examples()
    call = [Turn(call=body.tool, args={body.argument: ENTITY})]
    return Examples(
        keeps=[Example(note="made from the rule", ended={body.table: [{body.key: ENTITY}] * int(kept)}, dialog=call)],
        breaks=[Example(note="made from the rule", ended={body.table: [{body.key: ENTITY}] * int(broken)},
                        dialog=call)])
