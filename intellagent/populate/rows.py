"""From a plan and the model's chosen values to concrete rows: every symbol resolved, every column filled.

Per row, in insertion order: the plan's cells (symbols take their value), then the model's values,
then open foreign keys (the event's own rows first, else existing ones), then generated values for
the rest. A symbol takes the value of the first cell that fixes it, so every later occurrence agrees.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from intellagent.populate.faker_fill import ValueFiller
from intellagent.populate.plan import Plan
from intellagent.populate.references import resolve_references
from intellagent.populate.symbols import Symbol, SymbolTable, looks_like_symbol
from intellagent.populate.tables import Column, Tables
from intellagent.populate.world import BackgroundWorld


@dataclass
class Assignment:
    """The values the model chose, per symbol and per row; each repair answer updates it."""

    symbols: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    def update(self, answer: BaseModel, *, labels: Collection[str] = (), empty_clears: bool = False) -> bool:
        """Take the values a `values_model` answer gives; return whether anything changed.

        An absent or null value changes nothing, and neither does a symbol or a row label given as a
        value (U1 for U1, 'users_1' for a user id: common small-model answers); the value is then
        generated, rather than a key that reads 'U1'.

        Args:
            answer: a values or repair answer.
            labels: the plan's row labels.
            empty_clears: an explicit null empties an optional column (a repair told to leave a
                column empty), instead of leaving it to generation.
        """
        before = (dict(self.symbols), {label: dict(values) for label, values in self.rows.items()})
        chosen = _chosen(set(labels))
        data = answer.model_dump(by_alias=True)
        self.symbols.update({name: value for name, value in data["symbols"].items() if chosen(value)})
        rows = answer.rows  # type: ignore[attr-defined]
        for name, info in type(rows).model_fields.items():
            section = getattr(rows, name)
            for slot, column in type(section).model_fields.items():
                value = getattr(section, slot)
                emptied = empty_clears and _blank(value) and slot in section.model_fields_set
                if chosen(value) or emptied:  # emptied: only where the column can be empty (see assemble)
                    self.rows.setdefault(info.alias or name, {})[column.alias or slot] = None if emptied else value
        return before != (self.symbols, self.rows)


@dataclass
class AssembledRow:
    """A row with a value for every generated column, and which of its columns hold which symbol."""

    label: str
    table: str
    values: dict[str, Any]
    symbols: dict[str, str]


def assemble(
    plan: Plan, assignment: Assignment, *, tables: Tables, world: BackgroundWorld, seed: str
) -> tuple[list[AssembledRow], SymbolTable]:
    """The plan's rows with real values, and the value of every symbol.

    Args:
        plan: the rows, with symbols.
        assignment: the values the model chose.
        tables: the domain's tables.
        world: the existing rows (referred to, imitated, never collided with).
        seed: the event's seed; the same inputs give the same rows.
    """
    symbols = SymbolTable(assignment.symbols)
    filler = ValueFiller(world, seed=seed, reserved=assignment.symbols.values())
    rows: list[AssembledRow] = []
    planned: list[tuple[str, dict[str, Any]]] = []
    for row in plan.rows:
        table = tables[row.table]
        values: dict[str, Any] = {}
        for name, cell in row.cells.items():
            if not isinstance(cell, Symbol):
                values[name] = coerce(table.columns[name], cell)
            elif cell.name in symbols:
                values[name] = coerce(table.columns[name], symbols[cell.name])
        for name, value in assignment.rows.get(row.label, {}).items():
            column = table.columns.get(name)
            if column is not None and (value is not None or column.nullable):
                values[name] = coerce(column, value)
        rng = random.Random(f"{seed}:{row.label}:references")
        referenced = resolve_references(table, values, tables=tables, planned=planned, world=world, rng=rng)
        filler.fill(table, values, label=row.label, planned=planned, referenced=referenced)
        held = row.symbols()
        for name, symbol in held.items():
            symbols.set(symbol, values[name])
        rows.append(AssembledRow(label=row.label, table=row.table, values=values, symbols=held))
        planned.append((row.table, values))
    return rows, symbols


def _chosen(labels: set[str]) -> Callable[[Any], bool]:
    """Whether an answered value is a real choice: not empty, not a symbol, not a row label."""
    return lambda value: not _blank(value) and not looks_like_symbol(value) and not (
        isinstance(value, str) and value in labels
    )


def _blank(value: Any) -> bool:
    # A small model writes "" where it means "no value": a key of "" would then be inserted as one.
    return value is None or (isinstance(value, str) and not value.strip())


def loosen(
    plan: Plan, assignment: Assignment, *, rejected: dict[str, list[str]], governed: Callable[[str], list[str]],
    tables: Tables,
) -> bool:
    """Leave to generation the values of rejected rows that their messages name and no rule fixes.

    A small model writes plausible values into columns no rule is about, which then contradict a
    referenced row or a validator (a segment's origin that is not its flight's). Generated values are
    consistent by construction (inherited, imitated), so a rejected row first tries them, at no
    call. Only the columns a rejection message names are loosened, so the scenario's other values
    stay; keys and references are kept, since they say which rows the plan means. Returns whether
    anything was loosened.

    Args:
        plan: the plan, whose cells are changed in place.
        assignment: the model's values, changed in place.
        rejected: the messages of each rejected row, by label.
        governed: the columns a rule governs, by row label.
        tables: the domain's tables.
    """
    loosened = False
    for row in plan.rows:
        if row.label not in rejected:
            continue
        table = tables[row.table]
        text = " ".join(rejected[row.label])
        named = {name for name in table.columns if re.search(rf"\b{re.escape(name)}\b", text)}
        kept = set(governed(row.label)) | set(table.key) | {c for fk in table.foreign_keys for c in fk.columns}
        for cells in (row.cells, assignment.rows.get(row.label, {})):
            for name in [n for n, cell in cells.items() if n in named - kept and not isinstance(cell, Symbol)]:
                del cells[name]
                loosened = True
    return loosened


def coerce(column: Column, value: Any) -> Any:
    """A value converted to the column's type when it reads as one ("3" → 3); otherwise as given.

    A value that does not convert is kept, so that validation rejects it with a message naming it.
    """
    if column.kind == "text" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    try:
        return _adapter(column.annotation).validate_python(value)
    except ValidationError:
        return value


@cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation | None)
