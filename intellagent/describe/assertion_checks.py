"""Whether a compiled assertion may stand: its names fit together, its values fit their columns, and the policy's
own words bear it out.

The answer's schema already keeps every name among the domain's; what it cannot say is checked here:

- **Types.** An argument belongs to the tool called, a key and a column to one table; an order (`lt`, `ge`,
  ...) compares numbers, `within_days` a date, a value fits its column; a JSON column is never compared;
  a length is a list's, a confirmation is wanted before a tool that changes the world.
- **Evidence.** A model that cannot place a rule still answers in the right shape, so an assertion is kept
  only when the policy's text bears it out: its rationale is the policy's words, each tool it names is
  named by them (a word of the tool's name, or three words of what its description says it does), each
  text value is in them or among the values its column or argument describes, each number is one they
  state (five, 24 hours as one day, at most five as fewer than six). A careless answer then compiles into
  nothing, not into checks that fault every dialog.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from intellagent.artifacts import (
    Assertion,
    BoundAssertion,
    Condition,
    ConfirmationAssertion,
    ForbiddenAssertion,
    OrderAssertion,
    Policy,
    PreconditionAssertion,
)
from intellagent.checks.values import moment, number, plain
from intellagent.describe.passages import stems
from intellagent.describe.vocabulary import Name, Vocabulary

ORDERS = ("lt", "le", "gt", "ge")
DESCRIBED_TOOL = 3
"""Words of a tool's description the policy must share when it does not name the tool: `refuel_data` for a rule
on the extra data of a line in a billing month, which the tool's description says it adds; not `enable_roaming`,
whose description shares only "line" and "data" with it."""
MIN_RATIONALE = 0.5
"""The share of the rationale's words the policy must hold: the rationale quotes the rule."""

# Words of a tool's name that say nothing of what it acts on.
_GENERIC = frozenset({"get", "list", "all", "find", "search", "details", "info", "data", "for", "the", "and", "by",
                      "to", "of", "new", "item", "items"})
_NUMBER_WORDS = {word: n for n, word in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"[a-z]+")


def problems(assertion: Assertion, vocabulary: Vocabulary, policy: Policy) -> list[str]:
    """Why `assertion` cannot stand, in a few words each (none: it stands)."""
    found = list(_type_problems(assertion, vocabulary))
    return found or list(_evidence_problems(assertion, vocabulary, policy))


def _type_problems(assertion: Assertion, vocabulary: Vocabulary) -> Iterator[str]:
    match assertion:
        case OrderAssertion():
            if assertion.before == assertion.then:
                yield "a tool cannot come before itself"
            if assertion.same is not None:
                yield from _argument(vocabulary, assertion.before, assertion.same.before)
                yield from _argument(vocabulary, assertion.then, assertion.same.then)
        case PreconditionAssertion():
            for condition in assertion.any_of:
                yield from _condition(vocabulary, assertion.tool, condition)
        case BoundAssertion():
            yield from _bound(vocabulary, assertion)
        case ForbiddenAssertion():
            if assertion.argument is not None:
                unknown = list(_argument(vocabulary, assertion.tool, assertion.argument))
                yield from unknown
                if not unknown and (assertion.value is None or not _fits(assertion.value, _arg(vocabulary, assertion))):
                    yield f"{assertion.tool}.{assertion.argument} cannot hold {assertion.value!r}"
        case ConfirmationAssertion():
            if not vocabulary.tools[assertion.tool].writes:
                yield f"{assertion.tool} changes nothing, so no yes is wanted before it"


def _arg(vocabulary: Vocabulary, assertion: ForbiddenAssertion) -> Name:
    return vocabulary.tools[assertion.tool].arguments[assertion.argument or ""]


def _argument(vocabulary: Vocabulary, tool: str, argument: str) -> Iterator[str]:
    if argument not in vocabulary.tools[tool].arguments:
        yield f"{argument} is not an argument of {tool}"


def _condition(vocabulary: Vocabulary, tool: str, condition: Condition) -> Iterator[str]:
    yield from _argument(vocabulary, tool, condition.argument)
    columns = vocabulary.tables.get(condition.table, {})
    for name in (condition.key, condition.column, condition.since_column):
        if name is not None and name not in columns:
            yield f"{name} is not a column of {condition.table}"
    if condition.key not in columns or condition.column not in columns:
        return
    tested, key = columns[condition.column], columns[condition.key]
    argument = vocabulary.tools[tool].arguments.get(condition.argument)
    if key.kind in ("list", "object") or (argument is not None and argument.kind in ("list", "object")):
        yield f"{condition.table}.{condition.key} cannot name rows by {condition.argument}"
    if tested.kind in ("list", "object"):
        yield f"{condition.table}.{condition.column} holds JSON, which is not compared"
    elif condition.op in ORDERS and (tested.kind != "number" or number(condition.value) is None):
        yield f"{condition.op} compares numbers, and {condition.table}.{condition.column} is {tested.kind}"
    elif condition.op == "within_days":
        yield from _window(condition, tested, columns)
    elif condition.op in ("in", "not_in", "eq", "ne"):
        values = condition.value if isinstance(condition.value, list) else [condition.value]
        if not values or (condition.op in ("eq", "ne") and isinstance(condition.value, list)):
            yield f"{condition.op} wants {'one value' if condition.op in ('eq', 'ne') else 'values'}"
        if any(not _fits(value, tested) for value in values):
            yield f"{condition.table}.{condition.column} is {tested.kind}, not {condition.value!r}"


def _window(condition: Condition, tested: Name, columns: dict[str, Name]) -> Iterator[str]:
    days = number(condition.value)
    if days is None or days <= 0:
        yield "within_days wants a number of days"
    if tested.kind != "text":
        yield f"within_days reads a date, and {condition.table}.{condition.column} is {tested.kind}"
    if (condition.since is None) == (condition.since_column is None):
        yield "within_days counts from one moment: since or since_column"
    elif condition.since is not None and moment(condition.since) is None:
        yield f"{condition.since!r} is not a date"
    elif condition.since_column is not None and columns[condition.since_column].kind != "text":
        yield f"{condition.table}.{condition.since_column} holds no date"


def _bound(vocabulary: Vocabulary, assertion: BoundAssertion) -> Iterator[str]:
    yield from _argument(vocabulary, assertion.tool, assertion.argument)
    argument = vocabulary.tools[assertion.tool].arguments.get(assertion.argument)
    if argument is None:
        return
    if assertion.measure == "length" and argument.kind != "list":
        yield f"{assertion.tool}.{assertion.argument} is {argument.kind}, which has no length"
    elif assertion.measure == "value" and argument.kind != "number":
        yield f"{assertion.tool}.{assertion.argument} is {argument.kind}, not a number"
    elif assertion.measure == "rows":
        columns = vocabulary.tables.get(assertion.table or "", {})
        if assertion.key not in columns:
            yield "rows are counted by a column that names the argument's entity"
        elif argument.kind in ("list", "object"):
            yield f"{assertion.tool}.{assertion.argument} names no rows"


def _fits(value: object, name: Name) -> bool:
    """Whether a value can be one of a column's or an argument's."""
    if name.kind == "number":
        return number(value) is not None
    if name.kind == "bool":
        return isinstance(value, bool) or plain(value) in (0.0, 1.0, "true", "false")
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _evidence_problems(assertion: Assertion, vocabulary: Vocabulary, policy: Policy) -> Iterator[str]:
    said = stems(assertion.rationale)
    if len(said) < 2 or len(said & stems(policy.text)) < MIN_RATIONALE * len(said):
        yield "its rationale is not the policy's words"
    words = _WORD.findall(policy.text.lower())
    for tool in _tools(assertion):
        named = [part for part in tool.split("_") if len(part) > 2 and part not in _GENERIC]
        if not any(word.startswith(part[:5]) or part.startswith(word) for part in named for word in words
                   if len(word) > 2) and len(stems(vocabulary.tools[tool].description) & stems(policy.text)) < \
                DESCRIBED_TOOL:
            yield f"the policy does not speak of {tool}"
    for value, name in _values(assertion, vocabulary):
        if not _stated(value, name, policy.text, days=_in_days(assertion)):
            yield f"the policy does not state {value!r}"


def _tools(assertion: Assertion) -> list[str]:
    if isinstance(assertion, OrderAssertion):
        return [assertion.before, assertion.then]
    return [assertion.tool]


def _values(assertion: Assertion, vocabulary: Vocabulary) -> Iterator[tuple[object, Name]]:
    """The values an assertion compares with, each with the column or argument it is compared to."""
    if isinstance(assertion, PreconditionAssertion):
        for condition in assertion.any_of:
            column = vocabulary.tables[condition.table][condition.column]
            yield from ((value, column) for value in (condition.value if isinstance(condition.value, list)
                                                      else [condition.value]))
    elif isinstance(assertion, BoundAssertion):
        yield assertion.value, Name(kind="number")
    elif isinstance(assertion, ForbiddenAssertion) and assertion.argument is not None:
        yield assertion.value, _arg(vocabulary, assertion)


def _in_days(assertion: Assertion) -> bool:
    return isinstance(assertion, PreconditionAssertion) and any(c.op == "within_days" for c in assertion.any_of)


def _stated(value: object, name: Name, text: str, *, days: bool) -> bool:
    """Whether the policy's text, or the values its column or argument describes, hold `value`."""
    found = number(value)
    if found is not None and (name.kind == "number" or not isinstance(value, str) or days):
        numbers = {float(n) for n in _DIGITS.findall(text)} | {
            float(_NUMBER_WORDS[w]) for w in _WORD.findall(text.lower()) if w in _NUMBER_WORDS}
        near = {found, found - 1, found + 1} | ({found * 24, found / 7} if days else set())
        return bool(near & numbers)
    wanted = plain(value)
    if not isinstance(wanted, str) or not wanted:
        return False
    described = [plain(text), plain(name.description), *(plain(choice) for choice in name.choices)]
    return any(isinstance(known, str) and wanted in known for known in described)
