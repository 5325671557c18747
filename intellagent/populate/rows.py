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

from pydantic import TypeAdapter, ValidationError

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.faker_fill import ValueFiller
from intellagent.populate.plan import Plan, PlannedRow
from intellagent.populate.references import resolve_references
from intellagent.populate.row_models import ValuesAnswer
from intellagent.populate.symbols import Symbol, SymbolTable, looks_like_symbol
from intellagent.populate.tables import Column, ForeignKey, TableInfo, Tables
from intellagent.value_shapes import named_cell


@dataclass
class Assignment:
    """The values the model chose, per symbol and per row; each repair answer updates it."""

    symbols: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    def update(self, answer: ValuesAnswer, *, labels: Collection[str] = (), empty_clears: bool = False) -> bool:
        """Take the values an answer gives; return whether anything changed.

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
        self.symbols.update({name: value for name, value in answer.symbols.items() if chosen(value)})
        for label, section in answer.rows.items():
            for slot, column in type(section).model_fields.items():
                value = getattr(section, slot)
                emptied = empty_clears and _blank(value) and slot in section.model_fields_set
                if chosen(value) or emptied:  # emptied: only where the column can be empty (see assemble)
                    self.rows.setdefault(label, {})[column.alias or slot] = None if emptied else value
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
) -> Assembly:
    """The plan's rows with real values, the value of every symbol, and what could not be kept.

    The framework owns an event's structure: the key of a new row is always generated in the shape
    of the table's keys (whatever value the model gave its symbol), a key written as a plain value
    stands for the existing row it names or is generated anew, and a reference names a planned or
    an existing row (a value that names none is dropped and the reference resolved).

    Args:
        plan: the rows, with symbols.
        assignment: the values the model chose.
        tables: the domain's tables.
        world: the existing rows (referred to, imitated, never collided with).
        seed: the event's seed; the same inputs give the same rows.
    """
    symbols = SymbolTable()
    dropped: list[str] = []
    filler = ValueFiller(world, seed=seed, reserved=assignment.symbols.values())
    rows: list[AssembledRow] = []
    planned: list[tuple[str, dict[str, Any]]] = []
    renamed: dict[tuple[str, str, Any], Any] = {}  # a new row's key the plan wrote as a value → the key it got
    children = _children(plan, tables)
    for row in plan.rows:
        table = tables[row.table]
        values, replaced = _given_values(row, table, assignment, symbols, world, dropped)
        for fk in table.foreign_keys:
            for local, target in zip(fk.columns, fk.target_columns, strict=True):
                key = (fk.target, target, values.get(local))  # a reference's values are never lists or objects
                if key in renamed:
                    values[local] = renamed[key]
        rng = random.Random(f"{seed}:{row.label}:references")
        referenced = resolve_references(table, values, tables=tables, planned=planned, world=world, rng=rng,
                                        dropped=dropped)
        filler.fill(table, values, label=row.label, planned=planned, referenced=referenced,
                    children=children.get(row.label, frozenset()))
        held = row.symbols()
        for name, symbol in held.items():
            symbols.set(symbol, values[name])
        rows.append(AssembledRow(label=row.label, table=row.table, values=values, symbols=held))
        planned.append((row.table, values))
        renamed.update({(table.name, name, value): values[name] for name, value in replaced.items()})
    for name, value in assignment.symbols.items():
        symbols.set(name, value)  # a symbol named in the texts only keeps the model's value
    return Assembly(rows=rows, symbols=symbols, dropped=dropped)


@dataclass
class Assembly:
    """An event's rows as assembled, its symbols, and notes of the model's values that were dropped."""

    rows: list[AssembledRow]
    symbols: SymbolTable
    dropped: list[str]


def _children(plan: Plan, tables: Tables) -> dict[str, frozenset[tuple[str, ForeignKey]]]:
    """For each planned row, the tables (and foreign keys) of the planned rows that will name it: by its cells,
    or by a required reference left open, which names the first planned row of its table (see `references`)."""
    found: dict[str, set[tuple[str, ForeignKey]]] = {}
    for child in plan.rows:
        table = tables[child.table]
        for fk in table.foreign_keys:
            named = [child.cells.get(column) for column in fk.columns]
            parents = [row for row in plan.rows if row.table == fk.target]
            if all(value is None for value in named) and not any(table.columns[c].nullable for c in fk.columns):
                parents = parents[:1]
            else:
                parents = [row for row in parents if named == [row.cells.get(c) for c in fk.target_columns]]
            for parent in parents:
                found.setdefault(parent.label, set()).add((child.table, fk))
    return {label: frozenset(kinds) for label, kinds in found.items()}


def _given_values(
    row: PlannedRow, table: TableInfo, assignment: Assignment, symbols: SymbolTable, world: BackgroundWorld,
    dropped: list[str],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The values the plan and the answers give a row, before references and generation fill the rest; and
    the key the plan wrote as values that name no existing row, which is generated anew (the rows that name
    it by those values then name the new key)."""
    values: dict[str, Any] = {}
    for name, cell in row.cells.items():
        column = table.columns[name]
        if not isinstance(cell, Symbol):
            values[name] = coerce(column, cell)
        elif cell.name in symbols:
            values[name] = coerce(column, symbols[cell.name])
        elif cell.name in assignment.symbols and not _new_key(column):
            values[name] = coerce(column, assignment.symbols[cell.name])
    for name, value in assignment.rows.get(row.label, {}).items():
        column = table.columns.get(name)
        if column is not None and (value is not None or column.nullable):
            values[name] = coerce(column, value)
    plain_key = [name for name in table.key if not isinstance(row.cells.get(name), Symbol)
                 and table.columns[name].references is None and values.get(name) is not None]
    replaced: dict[str, Any] = {}
    if plain_key and not world.matching(table.name, {name: values[name] for name in table.key if name in values}):
        replaced = {name: values.pop(name) for name in plain_key}
        shown = ", ".join(f"{name}={value!r}" for name, value in replaced.items())
        dropped.append(f"{row.label}: {shown} names no existing row; a new key was generated")
    return values, replaced


def _new_key(column: Column) -> bool:
    """Whether a column is (part of) the key of the rows it is in, and refers to nothing: a new entity's id."""
    return column.key and column.references is None


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


def fall_back(
    plan: Plan, assignment: Assignment, *, rejections: dict[str, list[str]], tables: Tables
) -> list[str]:
    """Give up what the model said about rejected rows, at no call; return a note for each fact given up.

    A rejected row that still holds values the model chose loses them all, and is then made of
    references and generated values only, which fit by construction. A rejected row that holds
    none is dropped from the plan, with the rows that depend on it. The event stays valid, poorer by
    the facts noted, instead of being lost. Changes `plan` and `assignment` in place; an empty
    list means nothing was left to give up.

    Args:
        plan: the plan; its rows' plain values, or the rows themselves, are removed.
        assignment: the model's values, removed for the rejected rows.
        rejections: the messages of each rejected row, by label.
        tables: the domain's tables.
    """
    notes: list[str] = []
    given_up: set[str] = set()
    for row in plan.rows:
        if row.label not in rejections:
            continue
        reason = "; ".join(rejections[row.label])
        chosen = _model_values(row, assignment, tables)
        if chosen:
            notes.append(f"{row.label}: {_show_values(chosen)} given up ({reason})")
            row.cells = {name: cell for name, cell in row.cells.items() if isinstance(cell, Symbol)}
            assignment.rows.pop(row.label, None)
            for symbol in set(row.symbols().values()) & set(assignment.symbols):
                del assignment.symbols[symbol]
        else:
            given_up.add(row.label)
    left_out = _with_dependents(plan, given_up, tables)
    for label in left_out:
        notes.append(f"{label}: row left out ({'; '.join(rejections.get(label, ['a row it refers to was left out']))})")
    plan.rows = [row for row in plan.rows if row.label not in left_out]
    return notes


def draw_anew(plan: Plan, assignment: Assignment, *, failure: str, tables: Tables) -> list[str]:
    """Give up the model's values that a failed change's `failure` names, at no call; return a note for each row.

    A change the user is entitled to can be impossible on the rows as planned: a small model plans the order to
    cancel as delivered already, or the item to change on a date already past. The tool's error or the broken
    rule names the value at fault; given up, it is generated or picked among existing rows instead (the caller
    draws the event anew under another seed). A row's own key stays, since it says which record the change is
    about; its references do not, since a reference is what a failure most often names.

    Args:
        plan: the plan; the named plain values of its rows are removed.
        assignment: the model's values, the named ones removed.
        failure: why the change failed, as its run said it.
        tables: the domain's tables.
    """
    notes: list[str] = []
    for row in plan.rows:
        table = tables[row.table]
        named = {name: value for name, value in _model_values(row, assignment, tables).items()
                 if name not in table.own_key and named_cell(failure, value)}
        if not named:
            continue
        notes.append(f"{row.label}: {_show_values(named)} drawn anew ({failure})")
        row.cells = {name: cell for name, cell in row.cells.items() if name not in named or isinstance(cell, Symbol)}
        values = assignment.rows.get(row.label, {})
        for name in named.keys() & values.keys():
            del values[name]
        for name, symbol in row.symbols().items():
            if name in named:
                assignment.symbols.pop(symbol, None)
    return notes


def _model_values(row: PlannedRow, assignment: Assignment, tables: Tables) -> dict[str, Any]:
    """The values of a row that the model chose: its plain cells, its answered values, its symbols' values."""
    chosen = {name: cell for name, cell in row.cells.items() if not isinstance(cell, Symbol)}
    chosen.update(assignment.rows.get(row.label, {}))
    for name, symbol in row.symbols().items():
        if symbol in assignment.symbols and not _new_key(tables[row.table].columns[name]):
            chosen[name] = assignment.symbols[symbol]
    return chosen


def _with_dependents(plan: Plan, labels: set[str], tables: Tables) -> list[str]:
    """The labels, and those of rows referring to their rows by a symbol they key, transitively."""
    found = list(dict.fromkeys(row.label for row in plan.rows if row.label in labels))
    keyed = {symbol for row in plan.rows if row.label in found for name, symbol in row.symbols().items()
             if _new_key(tables[row.table].columns[name])}
    for row in plan.rows:
        if row.label in found:
            continue
        table = tables[row.table]
        if any(symbol in keyed for name, symbol in row.symbols().items() if table.columns[name].references):
            found.append(row.label)
            keyed |= {symbol for name, symbol in row.symbols().items() if _new_key(table.columns[name])}
    return found


def _show_values(values: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


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
