"""A symbolic plan: the rows a scenario needs, written with symbols, in the order they are inserted."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.completion import (
    add_acted_on,
    add_forgotten_parents,
    add_missing_parts,
    add_named_owners,
    drop_copies,
    merge_duplicates,
    separate_shared_keys,
)
from intellagent.populate.row_models import given
from intellagent.populate.symbols import Symbol, looks_like_symbol
from intellagent.populate.tables import Column, Tables


@dataclass
class PlannedRow:
    """A row to insert: its label (users_1), table, and the cells the plan fixed (values or symbols)."""

    label: str
    table: str
    cells: dict[str, Any]

    def symbols(self) -> dict[str, str]:
        """Column → symbol, for the cells that hold a symbol."""
        return {column: cell.name for column, cell in self.cells.items() if isinstance(cell, Symbol)}


@dataclass
class Asked:
    """The slots a values or repair answer has: columns per row label, and symbols."""

    rows: dict[str, tuple[str, tuple[str, ...]]]
    symbols: dict[str, tuple[Column, str]]

    @property
    def empty(self) -> bool:
        """Whether there is nothing to ask."""
        return not self.rows and not self.symbols


@dataclass
class Plan:
    """What a scenario needs in the database before the conversation starts."""

    rows: list[PlannedRow]
    entities: dict[str, str] = field(default_factory=dict)
    scenario: str = ""
    expected_behaviour: str = ""

    @classmethod
    def from_answer(cls, answer: BaseModel, tables: Tables, world: BackgroundWorld, *,
                    acted_on: Iterable[str] = ()) -> Plan:
        """The plan of a `SymbolicPlan` answer, made whole, rows sorted parents first and labelled per table.

        A cell counts as a symbol when the plan declared it as an entity, or when it is written like
        one (U2), since small models often use a symbol without declaring it. Copies of a row are dropped, a
        symbol keying two tables is split, repeated rows are merged, and forgotten parents, the records the
        entitled change acts on (`acted_on`: its arguments), missing parts and owners are added (see `completion`).
        """
        entities = {entity.symbol: entity.description for entity in answer.entities}  # type: ignore[attr-defined]
        drafts = [
            (row.table, {column: Symbol(value) if _names_symbol(value, entities) else value
                         for column, value in given(row.values).items()})
            for row in answer.rows  # type: ignore[attr-defined]
        ]
        # Forgotten parents first: a symbol one keys may key another table too (split next), and they get
        # their parts and owners like any planned row.
        drafts = separate_shared_keys(add_forgotten_parents(drop_copies(drafts, entities, tables), entities, tables),
                                      entities, tables)
        # After the forgotten parents: a booking the plan names only in its segments is the one the change acts on.
        drafts = add_acted_on(drafts, acted_on, entities, tables)
        drafts = add_missing_parts(merge_duplicates(drafts, tables), entities, tables, world)
        drafts = add_named_owners(drafts, entities, tables, world)
        counts: dict[str, int] = {}
        rows = []
        for table, cells in sorted(drafts, key=lambda draft: tables.order(draft[0])):
            counts[table] = counts.get(table, 0) + 1
            rows.append(PlannedRow(label=f"{table}_{counts[table]}", table=table, cells=cells))
        return cls(
            rows=rows,
            entities=entities,
            scenario=getattr(answer, "scenario", ""),
            expected_behaviour=getattr(answer, "expected_behaviour", ""),
        )

    @property
    def labels(self) -> list[str]:
        """The row labels, in insertion order."""
        return [row.label for row in self.rows]

    def asked_values(self, tables: Tables, constraints: Constraints) -> Asked:
        """What the values step asks: the columns some rule governs, and the symbols in them or in references.

        Everything else is generated, so a model cannot fill columns no rule is about with guesses. The
        key of a new row is never asked either: it is generated in the shape of existing keys and never
        collides with one (a small model readily answers 'gold' for a user id).
        """
        slots = self._slots(tables)
        new_keys = {name for name, columns in slots.items() if any(c.key and c.references is None for c in columns)}
        wanted = {name for name, columns in slots.items() if all(c.references is not None for c in columns)}
        rows: dict[str, tuple[str, tuple[str, ...]]] = {}
        for row in self.rows:
            held = row.symbols()
            governed = constraints.governed(row.label)
            wanted.update(held[column] for column in governed if column in held)
            asked = tuple(column for column in governed if column not in held)
            if asked:
                rows[row.label] = (row.table, asked)
        symbols = {name: slot for name, slot in self.symbols(tables).items() if name in wanted - new_keys}
        return Asked(rows=rows, symbols=symbols)

    def asked_repairs(self, tables: Tables, labels: list[str], constraints: Constraints) -> Asked:
        """What a repair asks: the columns of the rejected rows that a rule governs, and the symbols in them.

        Those are the scenario's facts; every other value of a rejected row is left to generation,
        which fits by construction, so no call is spent on it.
        """
        rows: dict[str, tuple[str, tuple[str, ...]]] = {}
        symbols: dict[str, tuple[Column, str]] = {}
        known = self.symbols(tables, labels)
        for row in self.rows:
            if row.label not in labels:
                continue
            table, held = tables[row.table], row.symbols()
            governed = [name for name in constraints.governed(row.label) if table.columns[name].generated]
            asked = tuple(name for name in governed if name not in held)
            if asked:
                rows[row.label] = (row.table, asked)
            for name in governed:
                if name in held and not (table.columns[name].key and table.columns[name].references is None):
                    symbols[held[name]] = known[held[name]]
        return Asked(rows=rows, symbols=symbols)

    def _slots(self, tables: Tables) -> dict[str, list[Column]]:
        """Symbol → the columns it fills."""
        slots: dict[str, list[Column]] = {}
        for row in self.rows:
            for column, symbol in row.symbols().items():
                slots.setdefault(symbol, []).append(tables[row.table].columns[column])
        return slots

    def symbols(self, tables: Tables, labels: list[str] | None = None) -> dict[str, tuple[Column, str]]:
        """Symbol → (the first column it fills, its description), over all rows or the labelled ones.

        Declared entities used in no row (named in the text only) are included, as text, when all rows are
        asked for.
        """
        found: dict[str, tuple[Column, str]] = {}
        for row in self.rows:
            if labels is not None and row.label not in labels:
                continue
            for column, symbol in row.symbols().items():
                found.setdefault(symbol, (tables[row.table].columns[column], self.entities.get(symbol, "")))
        if labels is None:
            for symbol, description in self.entities.items():
                found.setdefault(symbol, (_text_column(symbol), description))
        return found

    def describe(self) -> str:
        """The plan as the model reads it in later steps."""
        lines = ["Entities:"]
        lines += [f"- {symbol}: {description}" for symbol, description in self.entities.items()] or ["- (none)"]
        lines.append("Rows to insert:")
        for row in self.rows:
            cells = ", ".join(f"{column}={_show(value)}" for column, value in row.cells.items())
            lines.append(f"- {row.label} (table {row.table}): {cells or 'no fixed values'}")
        lines.append(f"Scenario: {self.scenario}")
        lines.append(f"Expected behaviour: {self.expected_behaviour}")
        return "\n".join(lines)


def _names_symbol(value: Any, entities: dict[str, str]) -> bool:
    """Whether a planned cell holds a symbol: text naming a declared entity, or written like a symbol (a JSON
    column's list or object is a value, whatever it holds)."""
    return isinstance(value, str) and (value in entities or looks_like_symbol(value))


def _show(value: Any) -> str:
    return value.name if isinstance(value, Symbol) else json.dumps(value, ensure_ascii=False)


def _text_column(symbol: str) -> Column:
    return Column(
        table="", name=symbol, annotation=str, kind="text", nullable=True, key=False, unique=False,
        description="", references=None,
    )


@dataclass
class Constraints:
    """The rules each planned row's columns must follow, and the details the scenario lacked."""

    rules: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)

    @classmethod
    def from_answer(cls, answer: BaseModel, plan: Plan) -> Constraints:
        """The constraints of a `RowConstraints` answer on `plan`.

        A rule that only restates the value the plan gave its column (the rule "12345678" for a
        last_four of 12345678) is dropped: a small model writes one for every value it planned, and
        such a rule would shield a value a validator rejects from being generated again.
        """
        per_row = answer.constraints  # type: ignore[attr-defined]
        planned = {row.label: row.cells for row in plan.rows}

        def restates(label: str, column: str, rule: str) -> bool:
            value = planned.get(label, {}).get(column)
            return value is not None and not isinstance(value, Symbol) and rule.strip() == str(value).strip()

        rules: dict[str, list[tuple[str, str]]] = {}
        for name, info in type(per_row).model_fields.items():
            label = info.alias or name
            rules[label] = [(r.column, r.rule) for r in getattr(per_row, name) if not restates(label, r.column, r.rule)]
        return cls(rules=rules, details=list(answer.details))  # type: ignore[attr-defined]

    def governed(self, label: str) -> list[str]:
        """The columns of a row that some rule is about, in the order the rules name them."""
        return list(dict.fromkeys(column for column, _ in self.rules.get(label, [])))

    def describe_rules(self) -> str:
        """The rules as the model reads them, one per line."""
        lines = [f"- {label}.{column}: {rule}" for label, rules in self.rules.items() for column, rule in rules]
        return "\n".join(lines) or "- (none)"

    def describe_details(self) -> str:
        """The details as the model reads them."""
        return "\n".join(f"- {detail}" for detail in self.details) or "- (none)"
