"""The rule language run as checks: each rule finds its breaches in a dialog's trace, with the call and row at fault.

A rule (a body of `intellagent.artifacts.assertions`, carried by an assertion compiled in the run or by a
rules file's rule) becomes a `Check` named for it (`compiled <id>`, `rule <id>`), whose rule is the policy's
words it encodes, so it runs, is mapped to its policies and is reported like any other check. Each reads only
what its kind needs: the calls, the user's yes before a call (`consent`), the rows a term reaches (`terms`)
in the world the chatbot found; a condition the dialog itself made true before it ended (a bill paid before
the line is resumed) counts as held. What cannot be told (an id that names no row, a date no one can read)
is never a breach. A check of a rule rules in a dialog only where its subject came up: a call of its tool, a
row it is about, a step of its procedure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from intellagent.artifacts import (
    Assertion,
    Body,
    Bound,
    Compare,
    Condition,
    Confirmation,
    Disclosure,
    Finding,
    Forbidden,
    Order,
    PolicyCatalog,
    Precondition,
)
from intellagent.artifacts.rules import Procedure, Rule
from intellagent.checks.consent import confirmation_breaches
from intellagent.checks.disclosure import disclosure_breaches, disclosures
from intellagent.checks.procedure_steps import procedure_breaches, procedure_seen
from intellagent.checks.terms import Rows, Subject, condition_holds
from intellagent.checks.trace import Call, Trace
from intellagent.checks.values import compare, plain
from intellagent.environment.checks import Check, Needs

Spoken = Body | Procedure
"""Whatever a rule says: one of the kinds of `artifacts.assertions`, or a procedure."""

PROCEDURE = "procedure "
"""How the check of a flow's procedure with required steps is named: `procedure F2`."""


def catalog_checks(catalog: PolicyCatalog) -> list[Check[Trace]]:
    """The run's programs besides the domain's own checks: its compiled assertions, its rules file's rules, and the
    procedures of its flows that have required steps."""
    procedures = [rule_check(PROCEDURE + flow.id, flow.name, Procedure(flow=flow.name, steps=flow.sop.steps,
                                                                        edges=flow.sop.edges))
                  for flow in catalog.flows if flow.sop is not None and any(step.required for step in flow.sop.steps)]
    return [*compiled_checks(catalog.assertions), *rules_checks(held.rule for held in catalog.rules), *procedures]


def compiled_checks(assertions: Iterable[Assertion]) -> list[Check[Trace]]:
    """One check per compiled assertion, named `compiled <id>`, whose rule is the words of the policy it encodes."""
    return [rule_check(assertion.check, assertion.rationale, assertion) for assertion in assertions]


def rules_checks(rules: Iterable[Rule]) -> list[Check[Trace]]:
    """One check per rule of a rules file, named `rule <id>`, whose rule is the passage's words it cites."""
    return [rule_check(rule.check, rule.cite.words, rule, tools=rule.scope.tools) for rule in rules]


def rule_check(name: str, words: str, body: Spoken, *, tools: Iterable[str] = ()) -> Check[Trace]:
    """A check of `body`, which rules in a dialog where one of `tools` (by default its own) was called, or where
    its subject otherwise came up."""
    scope = set(tools) or subject_tools(body)
    return Check(name=name, rule=words, function=lambda trace: breaches(body, trace), needs=needs(body),
                 applies=lambda trace: applies(body, trace, scope))


def subject_tools(body: Spoken) -> set[str]:
    """The tools whose calls a rule is about."""
    if isinstance(body, Order):
        return {body.then}
    if isinstance(body, Disclosure):
        return set()
    if isinstance(body, Procedure):
        return {step.tool for step in body.steps if step.tool}
    return {body.tool}


def applies(body: Spoken, trace: Trace, tools: set[str]) -> bool:
    """Whether a rule had something to rule on in the dialog: a call of one of `tools`, a row it is about spoken
    of, a step of its procedure taken."""
    if any(call.name in tools for call in (*trace.calls, *trace.user_calls)):
        return True
    if isinstance(body, Disclosure):
        return next(disclosures(body, trace), None) is not None
    return isinstance(body, Procedure) and procedure_seen(body, trace)


def needs(body: Spoken) -> Needs:
    """What a rule needs to be decided: one that reads rows (a condition on them, a bound on the rows left, a
    term that reaches rows, a disclosure of a row) needs the world; the others read only the dialog."""
    if isinstance(body, Disclosure) or (isinstance(body, Bound) and body.measure == "rows"):
        return "world"
    conditions = body.any_of if isinstance(body, Precondition) else body.when if isinstance(body, Forbidden) else []
    return "world" if any(_reads_rows(condition) for condition in conditions) else "trace"


def _reads_rows(condition: Any) -> bool:
    if isinstance(condition, Condition):
        return True
    if isinstance(condition, Compare):
        return _term_reads_rows(condition.left) or _term_reads_rows(condition.right)
    return any(_term_reads_rows(term) for term in condition.same.values())


def _term_reads_rows(term: Any) -> bool:
    return term.rows is not None or any(_term_reads_rows(inner) for inner in term.where.values())


def breaches(body: Spoken, trace: Trace) -> Iterator[Finding]:
    """The rule's findings on `trace` (without the check's name)."""
    match body:
        case Order():
            return _order(body, trace)
        case Precondition():
            return _precondition(body, trace)
        case Bound():
            return _bound(body, trace)
        case Forbidden():
            return _forbidden(body, trace)
        case Confirmation():
            return confirmation_breaches(body, trace)
        case Disclosure():
            return disclosure_breaches(body, trace)
        case Procedure():
            return procedure_breaches(body, trace)
    raise TypeError(f"no rule of kind {type(body).__name__}")


def _subject(call: Call, trace: Trace, world: Rows) -> Subject:
    """A call as its rule's terms read it: its arguments, the chatbot's calls before it, the world."""
    position = next(index for index, made in enumerate(trace.calls) if made is call)
    return Subject(values=call.arguments, earlier=trace.calls[:position], world=world)


def _order(rule: Order, trace: Trace) -> Iterator[Finding]:
    earlier: list[Call] = []  # the successful calls of `before` so far: a lookup that failed established nothing
    for call in trace.calls:
        if call.name == rule.then and not any(_same_entity(rule, first, call) for first in earlier):
            entity = ""
            if rule.same is not None:
                entity = f" with {rule.same.before} {call.arguments.get(rule.same.then)!r}"
            yield Finding(message=f"{call.name} was called before any successful {rule.before}{entity}",
                          turn=call.turn, call=call.shown())
        if call.name == rule.before and not call.failed:
            earlier.append(call)


def _same_entity(rule: Order, first: Call, then: Call) -> bool:
    if rule.same is None:
        return True
    value = then.arguments.get(rule.same.then)
    return value is not None and plain(first.arguments.get(rule.same.before)) == plain(value)


def _precondition(rule: Precondition, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != rule.tool:
            continue
        found = [condition_holds(condition, _subject(call, trace, trace.before)) for condition in rule.any_of]
        if any(holds is not False for holds, _ in found):  # one held, or one cannot be told
            continue
        # The world as the dialog left it: a condition the dialog made true (a bill paid first) held too.
        if trace.database is not None or trace.ended is not None:
            after = _subject(call, trace, trace.after)
            if any(condition_holds(condition, after)[0] for condition in rule.any_of):
                continue
        evidence = found[0][1]
        yield Finding(message=f"{call.name} was called, allowed only when {rule.wanted()}: {evidence}",
                      turn=call.turn, call=call.shown(), row=evidence.split(":")[0] if " row (" in evidence else None)


def _bound(rule: Bound, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != rule.tool:
            continue
        given = call.arguments.get(rule.argument)
        if rule.measure == "length":
            measured: Any = len(given) if isinstance(given, list) else None
        elif rule.measure == "value":
            measured = given
        elif call.failed or rule.table is None or rule.key is None:
            continue  # a refused call left nothing behind
        else:
            measured = sum(plain(row.get(rule.key)) == plain(given) for row in trace.after.get(rule.table, []))
        if compare(rule.op, measured, rule.value) is False:
            what = {"length": f"{rule.argument} holds {measured} items",
                    "value": f"{rule.argument} is {measured!r}",
                    "rows": f"{measured} {rule.table} rows are left for {rule.argument} {given!r}",
                    }[rule.measure]
            yield Finding(message=f"{call.name}: {what}; the limit is {rule.op} {rule.value:g}",
                          turn=call.turn, call=call.shown())


def _forbidden(rule: Forbidden, trace: Trace) -> Iterator[Finding]:
    for call in trace.calls:
        if call.name != rule.tool:
            continue
        if rule.argument is not None and compare("eq", call.arguments.get(rule.argument), rule.value) is not True:
            continue
        subject = _subject(call, trace, trace.before)
        if rule.when and not all(condition_holds(condition, subject)[0] is True for condition in rule.when):
            continue
        condition = "" if rule.argument is None else f" with {rule.argument} {rule.value!r}"
        state = "" if not rule.when else " when " + " and ".join(c.text() for c in rule.when)
        yield Finding(message=f"{call.name} was called{condition}{state}, which the policy forbids",
                      turn=call.turn, call=call.shown())
