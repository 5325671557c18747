"""Whether a compiled assertion may stand: its names fit together, its values fit their columns, and the policy's
own words bear it out.

The answer's schema already keeps every name among the domain's; what it cannot say is checked here:

- **Types**, as every rule's (`describe.name_checks`): an argument belongs to the tool called, a key and a column to
  one table; an order compares numbers, `within_days` a date, a value fits its column; a JSON column is
  never compared; a length is a list's, a confirmation is wanted before a tool that changes the world.
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
    ForbiddenAssertion,
    OrderAssertion,
    Policy,
    PreconditionAssertion,
)
from intellagent.checks.values import number, plain
from intellagent.describe.name_checks import Names
from intellagent.describe.passages import stems
from intellagent.describe.vocabulary import Name, Vocabulary

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
    found = Names(vocabulary).problems(assertion)
    return found or list(_evidence_problems(assertion, vocabulary, policy))


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
            if not isinstance(condition, Condition):  # compiled preconditions are conditions on rows only
                continue
            column = vocabulary.tables[condition.table][condition.column]
            yield from ((value, column) for value in (condition.value if isinstance(condition.value, list)
                                                      else [condition.value]))
    elif isinstance(assertion, BoundAssertion):
        yield assertion.value, Name(kind="number")
    elif isinstance(assertion, ForbiddenAssertion) and assertion.argument is not None:
        yield assertion.value, vocabulary.tools[assertion.tool].arguments[assertion.argument]


def _in_days(assertion: Assertion) -> bool:
    return isinstance(assertion, PreconditionAssertion) and any(
        isinstance(c, Condition) and c.op == "within_days" for c in assertion.any_of)


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
