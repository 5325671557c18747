"""Whether a rule's names fit the domain: each tool, argument, table and column exists, and fits its use.

- an argument belongs to the tool called, a key and a column to one table; a path goes into a column or an
  argument only where it holds JSON (a list or an object); an earlier call's `same` names its arguments or
  `result.<path>`;
- an order (`lt`, `ge`, ...) compares numbers (or, between two terms, dates), `within_days` a date, a value
  fits its column; a JSON column is never compared whole with a value;
- a length is a list's, a confirmation is wanted before a tool that changes the world, a procedure's steps
  call the domain's tools.

The compiled assertions are held to the same (`describe.assertion_checks`), and so is every rules file's
rule before a run uses it (`rules.review`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from intellagent.artifacts import (
    Bound,
    Compare,
    Condition,
    Confirmation,
    Disclosure,
    EarlierCall,
    Forbidden,
    Order,
    Precondition,
    Term,
)
from intellagent.artifacts.rules import Procedure
from intellagent.checks.terms import RESULT
from intellagent.checks.values import moment, number, plain
from intellagent.describe.vocabulary import Name, Vocabulary

ORDERS = ("lt", "le", "gt", "ge")
JSON = ("list", "object")


class Names:
    """The problems of one rule's names, told against a domain's vocabulary."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary

    def problems(self, body: Any, tools: Sequence[str] = ()) -> list[str]:
        """Why `body`'s names do not fit the domain (none: they fit); `tools` are its scope's."""
        unknown = [tool for tool in [*tools, *_tools(body)] if tool not in self.vocabulary.tools]
        if unknown:
            return [f"{tool} is not a tool of the domain" for tool in dict.fromkeys(unknown)]
        return list(dict.fromkeys(self._kind(body)))

    def _kind(self, body: Any) -> Iterator[str]:
        match body:
            case Order():
                if body.before == body.then:
                    yield "a tool cannot come before itself"
                if body.same is not None:
                    yield from self.argument(body.before, body.same.before)
                    yield from self.argument(body.then, body.same.then)
            case Precondition():
                for condition in body.any_of:
                    yield from self.condition(body.tool, condition)
            case Bound():
                yield from self.bound(body)
            case Forbidden():
                yield from self.forbidden(body)
            case Confirmation():
                if not self.vocabulary.tools[body.tool].writes:
                    yield f"{body.tool} changes nothing, so no yes is wanted before it"
                for name in body.arguments:
                    yield from self.argument(body.tool, name)
            case Disclosure():
                yield from self.disclosure(body)
            case Procedure():
                if not body.steps:
                    yield f"the procedure of {body.flow} has no step"

    def argument(self, tool: str, argument: str) -> Iterator[str]:
        """A problem if `argument` (dotted into a JSON argument) is not one of `tool`'s."""
        first, _, path = argument.partition(".")
        found = self.vocabulary.tools[tool].arguments.get(first)
        if found is None:
            yield f"{argument} is not an argument of {tool}"
        elif path and found.kind not in JSON:
            yield f"{tool}.{first} is {found.kind}, which holds no {path}"

    def column(self, table: str, column: str) -> Iterator[str]:
        """A problem if `column` (dotted into a JSON column) is not one of `table`'s."""
        columns = self.vocabulary.tables.get(table)
        if columns is None:
            yield f"{table} is not a table of the domain"
            return
        first, _, path = column.partition(".")
        if first not in columns:
            yield f"{column} is not a column of {table}"
        elif path and columns[first].kind not in JSON:
            yield f"{table}.{first} is {columns[first].kind}, which holds no {path}"

    def condition(self, tool: str, condition: Condition | Compare | EarlierCall) -> Iterator[str]:
        """The problems of one condition of a call of `tool`."""
        if isinstance(condition, Compare):
            yield from self.compare(tool, condition)
        elif isinstance(condition, EarlierCall):
            yield from self.earlier(condition, lambda term: self.term(tool, term))
        else:
            yield from self.row_condition(tool, condition)

    def term(self, tool: str | None, term: Term, *, table: str | None = None) -> Iterator[str]:
        """The problems of a term about a call of `tool` (or, with `table`, about a row of it)."""
        if term.arg is not None:
            if table is not None:
                yield from self.column(table, term.arg)
            elif tool is not None:
                yield from self.argument(tool, term.arg)
        elif term.rows is not None:
            yield from self.column(term.rows, term.column or "")
            for column, inner in term.where.items():
                yield from self.column(term.rows, column)
                yield from self.term(tool, inner, table=table)
        elif term.result is not None:
            named = term.result.split(".")[0]
            if named not in self.vocabulary.tools:
                yield f"{named} is not a tool of the domain"

    def compare(self, tool: str, comparison: Compare) -> Iterator[str]:
        """The problems of a comparison: its terms' names, and an order between values that are no numbers."""
        yield from self.term(tool, comparison.left)
        yield from self.term(tool, comparison.right)
        if comparison.op in ORDERS:
            for term in (comparison.left, comparison.right):
                if term.value is not None and number(term.value) is None and moment(term.value) is None:
                    yield f"{comparison.op} orders numbers or dates, not {term.value!r}"

    def earlier(self, earlier: EarlierCall, subject: Any) -> Iterator[str]:
        """The problems of an earlier call: its tool, the arguments its `same` names, and the subject's terms."""
        if earlier.call not in self.vocabulary.tools:
            yield f"{earlier.call} is not a tool of the domain"
            return
        for name, term in earlier.same.items():
            if not name.startswith(RESULT):
                yield from self.argument(earlier.call, name)
            yield from subject(term)

    def row_condition(self, tool: str, condition: Condition) -> Iterator[str]:
        """The problems of a condition on the rows an argument names."""
        yield from self.argument(tool, condition.argument)
        columns = self.vocabulary.tables.get(condition.table)
        if columns is None:
            yield f"{condition.table} is not a table of the domain"
            return
        for name in (condition.key, condition.column, condition.since_column):
            if name is not None and name not in columns:
                yield f"{name} is not a column of {condition.table}"
        if condition.key not in columns or condition.column not in columns:
            return
        tested, key = columns[condition.column], columns[condition.key]
        argument = self.vocabulary.tools[tool].arguments.get(condition.argument)
        if key.kind in JSON or (argument is not None and argument.kind in JSON):
            yield f"{condition.table}.{condition.key} cannot name rows by {condition.argument}"
        if tested.kind in JSON:
            yield f"{condition.table}.{condition.column} holds JSON, which is not compared"
        elif condition.op in ORDERS and (tested.kind != "number" or number(condition.value) is None):
            yield f"{condition.op} compares numbers, and {condition.table}.{condition.column} is {tested.kind}"
        elif condition.op == "within_days":
            yield from _window(condition, tested, columns)
        elif condition.op in ("in", "not_in", "eq", "ne"):
            values = condition.value if isinstance(condition.value, list) else [condition.value]
            if not values or (condition.op in ("eq", "ne") and isinstance(condition.value, list)):
                yield f"{condition.op} wants {'one value' if condition.op in ('eq', 'ne') else 'values'}"
            if any(not fits(value, tested) for value in values):
                yield f"{condition.table}.{condition.column} is {tested.kind}, not {condition.value!r}"

    def bound(self, body: Bound) -> Iterator[str]:
        """The problems of a bound: the argument measured, and the rows counted."""
        yield from self.argument(body.tool, body.argument)
        argument = self.vocabulary.tools[body.tool].arguments.get(body.argument)
        if argument is None:
            return
        if body.measure == "length" and argument.kind != "list":
            yield f"{body.tool}.{body.argument} is {argument.kind}, which has no length"
        elif body.measure == "value" and argument.kind != "number":
            yield f"{body.tool}.{body.argument} is {argument.kind}, not a number"
        elif body.measure == "rows":
            columns = self.vocabulary.tables.get(body.table or "", {})
            if body.key not in columns:
                yield "rows are counted by a column that names the argument's entity"
            elif argument.kind in JSON:
                yield f"{body.tool}.{body.argument} names no rows"

    def forbidden(self, body: Forbidden) -> Iterator[str]:
        """The problems of a forbidden call: the argument and value it forbids, and its state's conditions."""
        if body.argument is not None:
            unknown = list(self.argument(body.tool, body.argument))
            yield from unknown
            named = self.vocabulary.tools[body.tool].arguments.get(body.argument)
            if not unknown and named is not None and (body.value is None or not fits(body.value, named)):
                yield f"{body.tool}.{body.argument} cannot hold {body.value!r}"
        for condition in body.when:
            yield from self.condition(body.tool, condition)

    def disclosure(self, body: Disclosure) -> Iterator[str]:
        """The problems of a disclosure: its table's columns, and the calls that entitle it."""
        for column in [body.key, *body.fields]:
            yield from self.column(body.table, column)
        for earlier in body.after:
            yield from self.earlier(earlier, lambda term: self.term(None, term, table=body.table))


def _tools(body: Any) -> list[str]:
    """The tools a rule names itself (its earlier calls' are checked where they are read)."""
    if isinstance(body, Order):
        return [body.before, body.then]
    if isinstance(body, Procedure):
        return [step.tool for step in body.steps if step.tool]
    if isinstance(body, Disclosure):
        return []
    return [body.tool]


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


def fits(value: object, name: Name) -> bool:
    """Whether a value can be one of a column's or an argument's."""
    if name.kind == "number":
        return number(value) is not None
    if name.kind == "bool":
        return isinstance(value, bool) or plain(value) in (0.0, 1.0, "true", "false")
    return isinstance(value, str | int | float) and not isinstance(value, bool)
