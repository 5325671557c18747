"""Compiled assertions run as checks: each finds its breaches in a dialog's trace, with the call and row at fault.

An assertion (see `intellagent.artifacts.assertions`) becomes a `Check` named `compiled <id>`, whose rule
is the policy's words it encodes, so it runs, is mapped to its policy and is reported like any other
check. Each reads only what its kind needs: the calls, the user's yes before a call (the framework's own
confirmation logic), and the rows a call's argument names, in the world the chatbot found; a condition the
dialog itself made true before it ended (a bill paid before the line is resumed) counts as held. What
cannot be told (an id that names no row, a date no one can read) is never a breach.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from intellagent.artifacts import (
    Assertion,
    BoundAssertion,
    Condition,
    ConfirmationAssertion,
    Finding,
    ForbiddenAssertion,
    OrderAssertion,
    PreconditionAssertion,
)
from intellagent.checks.builtin import unconfirmed_calls
from intellagent.checks.trace import Call, Trace
from intellagent.checks.values import compare, plain, within_days
from intellagent.environment.checks import Check, Needs

Rows = Mapping[str, list[dict[str, Any]]]


def compiled_checks(assertions: Iterable[Assertion]) -> list[Check[Trace]]:
    """One check per assertion, named `compiled <id>`, whose rule is the words of the policy it encodes."""
    return [Check(name=assertion.check, rule=assertion.rationale, function=_finder(assertion), needs=needs(assertion))
            for assertion in assertions]


def needs(assertion: Assertion) -> Needs:
    """What an assertion needs to be decided: a precondition on rows, or a bound on the rows left, needs the
    world; the others read only the calls (and the user's yes before them)."""
    reads_rows = isinstance(assertion, PreconditionAssertion) or (
        isinstance(assertion, BoundAssertion) and assertion.measure == "rows")
    return "world" if reads_rows else "trace"


def breaches(assertion: Assertion, trace: Trace) -> Iterator[Finding]:
    """The assertion's findings on `trace` (without the check's name)."""
    match assertion:
        case OrderAssertion():
            return _order(assertion, trace)
        case PreconditionAssertion():
            return _precondition(assertion, trace)
        case BoundAssertion():
            return _bound(assertion, trace)
        case ForbiddenAssertion():
            return _forbidden(assertion, trace)
        case ConfirmationAssertion():
            return unconfirmed_calls(trace, {assertion.tool})


def _finder(assertion: Assertion) -> Any:
    return lambda trace: breaches(assertion, trace)


def _order(assertion: OrderAssertion, trace: Trace) -> Iterator[Finding]:
    earlier: list[Call] = []  # the successful calls of `before` so far: a lookup that failed established nothing
    for call in trace.calls:
        if call.name == assertion.then and not any(_same_entity(assertion, first, call) for first in earlier):
            entity = ""
            if assertion.same is not None:
                entity = f" with {assertion.same.before} {call.arguments.get(assertion.same.then)!r}"
            yield Finding(message=f"{call.name} was called before any successful {assertion.before}{entity}",
                          turn=call.turn, call=call.shown())
        if call.name == assertion.before and not call.failed:
            earlier.append(call)


def _same_entity(assertion: OrderAssertion, first: Call, then: Call) -> bool:
    if assertion.same is None:
        return True
    value = then.arguments.get(assertion.same.then)
    return value is not None and plain(first.arguments.get(assertion.same.before)) == plain(value)


def _precondition(assertion: PreconditionAssertion, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != assertion.tool:
            continue
        found = [_holds(condition, call, trace.before) for condition in assertion.any_of]
        if any(holds is not False for holds, _ in found):  # one held, or one cannot be told
            continue
        # The world as the dialog left it: a condition the dialog made true (a bill paid first) held too.
        if trace.database is not None and any(_holds(c, call, trace.after)[0] for c in assertion.any_of):
            continue
        row = found[0][1]
        yield Finding(message=f"{call.name} was called, allowed only when {assertion.wanted()}: {row}",
                      turn=call.turn, call=call.shown(), row=row.split(":")[0])


def _holds(condition: Condition, call: Call, world: Rows) -> tuple[bool | None, str]:
    """Whether every row the call's argument names meets the condition (None: no row, or it cannot be told), and
    the first row that does not, as evidence."""
    rows = _named_rows(world, condition.table, condition.key, call.arguments.get(condition.argument))
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


def _named_rows(world: Rows, table: str, key: str, value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    wanted = plain(value)
    return [row for row in world.get(table, []) if plain(row.get(key)) == wanted]


def _bound(assertion: BoundAssertion, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != assertion.tool:
            continue
        given = call.arguments.get(assertion.argument)
        if assertion.measure == "length":
            measured: Any = len(given) if isinstance(given, list) else None
        elif assertion.measure == "value":
            measured = given
        elif call.failed or assertion.table is None or assertion.key is None:
            continue  # a refused call left nothing behind
        else:
            measured = len(_named_rows(trace.after, assertion.table, assertion.key, given))
        if compare(assertion.op, measured, assertion.value) is False:
            what = {"length": f"{assertion.argument} holds {measured} items",
                    "value": f"{assertion.argument} is {measured!r}",
                    "rows": f"{measured} {assertion.table} rows are left for {assertion.argument} {given!r}",
                    }[assertion.measure]
            yield Finding(message=f"{call.name}: {what}; the limit is {assertion.op} {assertion.value:g}",
                          turn=call.turn, call=call.shown())


def _forbidden(assertion: ForbiddenAssertion, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != assertion.tool:
            continue
        if assertion.argument is not None and compare("eq", call.arguments.get(assertion.argument),
                                                      assertion.value) is not True:
            continue
        condition = "" if assertion.argument is None else f" with {assertion.argument} {assertion.value!r}"
        yield Finding(message=f"{call.name} was called{condition}, which the policy forbids", turn=call.turn,
                      call=call.shown())
