"""The values a rule's terms stand for in a dialog, and how two of them compare.

A term (`artifacts.assertions.Term`) is read against a subject, the thing the rule is about: a call (its
arguments, and the calls made before it) or, in a disclosure, a row (its columns, and the calls made up to
the message that spoke of it). A term stands for every value it reaches: the rows a `where` selects are
many, a path through a JSON list reaches each item. An empty reach is a value no one can tell (an id that
names no row), and a comparison of it is never a breach.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from intellagent.artifacts import Compare, Condition, EarlierCall, Term
from intellagent.checks.trace import Call
from intellagent.checks.values import compare, moment, number, plain, within_days

Rows = Mapping[str, list[dict[str, Any]]]
RESULT = "result."
"""How an earlier call's `same` key names a path into what it returned: `result.customer_id`."""


@dataclass(frozen=True)
class Subject:
    """What a rule is about: `values` are a call's arguments (or a row's columns), `earlier` the calls made
    before it, `world` the rows a `rows` term reads."""

    values: Mapping[str, Any]
    earlier: Sequence[Call]
    world: Rows


def reached(value: Any, path: Iterable[str]) -> list[Any]:
    """The values a dotted path reaches from `value`: into objects by key, through lists item by item, into a
    text that holds JSON (a tool's result)."""
    found = [value]
    for part in path:
        found = [inner for item in found for inner in _step(_parsed(item), part)]
    return [item for value in found for item in _flat(_parsed(value))]


def _parsed(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _step(value: Any, part: str) -> list[Any]:
    if isinstance(value, list):
        return [inner for item in value for inner in _step(_parsed(item), part)]
    if isinstance(value, dict) and part in value:
        return [value[part]]
    return []


def _flat(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for item in value:
            yield from _flat(item)
    elif value is not None:
        yield value


def values(term: Term, subject: Subject) -> list[Any] | None:
    """The values `term` stands for about `subject` (None: it reaches none, so nothing can be told)."""
    if term.arg is not None:
        name, *path = term.arg.split(".")
        found = reached(subject.values.get(name), path)
    elif term.result is not None:
        tool, *path = term.result.split(".")
        last = next((call for call in reversed(subject.earlier) if call.name == tool and not call.failed), None)
        found = [] if last is None else reached(last.result, path)
    elif term.rows is not None:
        found = _column(term, subject)
    else:
        found = list(_flat(term.value))
    if term.measure == "count":
        return [len(found)]
    if not found:
        return None
    if term.measure == "sum":
        numbers = [number(value) for value in found]
        return None if any(n is None for n in numbers) else [sum(n for n in numbers if n is not None)]
    return found


def _column(term: Term, subject: Subject) -> list[Any]:
    """The column of the rows of `term.rows` whose columns equal its `where` terms (none when one reaches none)."""
    wanted: list[tuple[list[str], set[object]]] = []
    for column, inner in term.where.items():
        found = values(inner, subject)
        if found is None:
            return []
        wanted.append((column.split("."), {plain(value) for value in found}))
    table, path = subject.world.get(term.rows or "", []), (term.column or "").split(".")
    rows = [row for row in table if all({plain(v) for v in reached(row, where)} & allowed for where, allowed in wanted)]
    return [value for row in rows for value in reached(row, path)]


def related(op: str, left: list[Any], right: list[Any]) -> bool | None:
    """Whether two lists of values stand in the relation `op` (see `artifacts.assertions.Relation`)."""
    ours, theirs = [plain(value) for value in left], [plain(value) for value in right]
    if op == "eq":
        return set(ours) == set(theirs)
    if op in ("in", "subset"):
        return set(ours) <= set(theirs)
    if op in ("ne", "not_in"):
        return not set(ours) & set(theirs)
    if op == "different":
        if len(ours) == len(theirs):
            return all(a != b for a, b in zip(ours, theirs, strict=True))
        return not set(ours) & set(theirs)
    told = [_ordered(op, a, b) for a in left for b in right]
    return None if None in told else all(told)


def _ordered(op: str, left: Any, right: Any) -> bool | None:
    """`left op right` for an order (lt, le, gt, ge) between numbers, or between dates."""
    if number(left) is not None and number(right) is not None:
        return compare(op, left, right)
    first, second = moment(left), moment(right)
    if first is None or second is None:
        return None
    return {"lt": first < second, "le": first <= second, "gt": first > second, "ge": first >= second}[op]


def _shown(found: list[Any] | None) -> str:
    shown = ", ".join(repr(value) for value in (found or []))
    return shown if len(found or []) == 1 else f"[{shown}]"


def matched(earlier: EarlierCall, subject: Subject) -> bool | None:
    """Whether a successful call made before the subject is `earlier`'s, with its values (None: the subject's side
    of a match reaches no value)."""
    wanted: list[tuple[str, set[object]]] = []
    for name, term in earlier.same.items():
        found = values(term, subject)
        if found is None:
            return None
        wanted.append((name, {plain(value) for value in found}))
    return any(call.name == earlier.call and not call.failed and all(
        {plain(value) for value in _made(call, name)} & allowed for name, allowed in wanted)
        for call in subject.earlier)


def _made(call: Call, name: str) -> list[Any]:
    """An earlier call's value: an argument (dotted into it), or `result.<path>` into what it returned."""
    if name.startswith(RESULT):
        return reached(call.result, name[len(RESULT):].split("."))
    first, *path = name.split(".")
    return reached(call.arguments.get(first), path)


def row_condition(condition: Condition, subject: Subject) -> tuple[bool | None, str]:
    """Whether every row the call's argument names meets the condition (None: no row, or it cannot be told), and
    the first row that does not, as evidence."""
    given = subject.values.get(condition.argument)
    wanted = plain(given) if given is not None else None
    rows = [row for row in subject.world.get(condition.table, []) if wanted is not None
            and plain(row.get(condition.key)) == wanted]
    if not rows:
        return None, ""
    for row in rows:
        actual = row.get(condition.column)
        if condition.op == "within_days":
            reference = condition.since if condition.since_column is None else row.get(condition.since_column)
            met = within_days(actual, reference, float(condition.value))  # type: ignore[arg-type]
        else:
            met = compare(condition.op, actual, condition.value)
        if met is None:
            return None, ""
        if not met:
            return False, f"{condition.table} row ({condition.key}={row.get(condition.key)!r}): {condition.column} " \
                          f"is {actual!r}"
    return True, ""


def condition_holds(condition: Condition | Compare | EarlierCall, subject: Subject) -> tuple[bool | None, str]:
    """Whether one condition of a precondition (or of a forbidden state) holds about `subject`, with evidence when
    it does not."""
    if isinstance(condition, Condition):
        return row_condition(condition, subject)
    if isinstance(condition, Compare):
        left, right = values(condition.left, subject), values(condition.right, subject)
        held = None if left is None or right is None else related(condition.op, left, right)
        return held, "" if held is not False else (f"{condition.left.text()} is {_shown(left)}, "
                                                   f"{condition.right.text()} is {_shown(right)}")
    held = matched(condition, subject)
    return held, "" if held is not False else f"no {condition.text()}"
