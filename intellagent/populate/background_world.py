"""The background world as the generator sees it: existing rows to refer to, imitate and not collide with.

Loaded once per run from the background database (read-only afterwards, so concurrent events share
it), and shown to the model as a short description of the tables and a few sample rows.
"""

from __future__ import annotations

import json
import random
from collections.abc import Hashable, Iterable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlmodel import select

from intellagent.populate.json_shapes import JsonShape, learn
from intellagent.populate.people import faker_provider
from intellagent.populate.shapes import DateShape, choices_of, date_shape, hints
from intellagent.populate.tables import Column, ForeignKey, TableInfo, Tables
from intellagent.value_shapes import date_format_of

if TYPE_CHECKING:
    from intellagent.environment import Environment

MAX_ROWS_PER_TABLE = 20_000
"""Rows of a table kept in memory; a larger background is only partly imitated and referred to."""

_KIND_NAMES = {"text": "text", "integer": "integer", "number": "number", "boolean": "true/false", "structured": "JSON"}


class BackgroundWorld:
    """The rows of the background world, by table, in primary-key order."""

    def __init__(self, tables: Tables, rows: dict[str, list[dict[str, Any]]]) -> None:
        self.tables = tables
        self._rows = rows
        self._values: dict[Column, list[Any]] = {}
        self._numbers: dict[Column, list[int | float]] = {}
        self._positions: dict[tuple[str, str], dict[Any, list[int]]] = {}
        self._choices: dict[Column, list[Any]] = {}
        self._dates: dict[Column, DateShape | None] = {}
        self._providers: dict[Column, str | None] = {}
        self._json: dict[Column, JsonShape | None] = {}
        self._referred: dict[tuple[str, ForeignKey], set[int]] = {}
        self.learnt: dict[Hashable, Any] = {}
        """What populate's parts learn of the world once and keep, by a key of their own."""

    @classmethod
    def load(cls, env: Environment, path: Path, tables: Tables) -> BackgroundWorld:
        """Read the background database at `path`."""
        rows: dict[str, list[dict[str, Any]]] = {}
        with env.session(path) as session:
            for table in tables:
                model = table.model
                order = [getattr(model, name) for name in table.key]
                found = session.exec(select(model).order_by(*order).limit(MAX_ROWS_PER_TABLE)).all()
                rows[table.name] = [row.model_dump() for row in found]
        return cls(tables, rows)

    def rows(self, table: str) -> list[dict[str, Any]]:
        """The existing rows of a table."""
        return self._rows.get(table, [])

    def values(self, column: Column) -> list[Any]:
        """The non-empty values of a column (read once; the list is shared, not to be changed)."""
        if column not in self._values:
            self._values[column] = [row[column.name] for row in self.rows(column.table)
                                    if row.get(column.name) is not None]
        return self._values[column]

    def numbers(self, column: Column) -> list[int | float]:
        """The numbers in a column, then in the columns named like it (see `sources`); read once."""
        if column not in self._numbers:
            self._numbers[column] = [value for source in self.sources(column) for value in self.values(source)
                                     if isinstance(value, int | float) and not isinstance(value, bool)]
        return self._numbers[column]

    def positions(self, table: str, column: str, value: Any) -> list[int]:
        """Where in `rows(table)` the rows whose `column` equals `value` are, in order.

        Every event looks rows up by value; indexed once per column, a lookup costs the rows it finds,
        not the world's (a scan of a table of thousands of rows per lookup was most of an event's CPU).
        """
        if (table, column) not in self._positions:
            index: dict[Any, list[int]] = {}
            for position, row in enumerate(self.rows(table)):
                found = row.get(column)
                if _hashable(found):
                    index.setdefault(found, []).append(position)
            self._positions[(table, column)] = index
        if not _hashable(value):
            return [position for position, row in enumerate(self.rows(table)) if row.get(column) == value]
        return self._positions[(table, column)].get(value, [])

    def matching(self, table: str, match: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows of `table` whose values equal `match` on every given column."""
        rows = self.rows(table)
        if not match:
            return list(rows)
        first, *others = match
        found = (rows[position] for position in self.positions(table, first, match[first]))
        return [row for row in found if all(row.get(k) == match[k] for k in others)]

    @cached_property
    def moment_span(self) -> tuple[datetime, datetime] | None:
        """The span of every date in the world: where a new moment with no other evidence falls."""
        spans = []
        for table in self.tables:
            for column in table.columns.values():
                values = self.values(column) if column.kind == "text" else []
                form = date_format_of(values)
                shape = date_shape(values, form) if form and "%Y" in form else None
                if shape:
                    spans.append((shape.low, shape.high))
        return (min(low for low, _ in spans), max(high for _, high in spans)) if spans else None

    def referred(self, table: str, fk: ForeignKey) -> set[int]:
        """The rows of `fk`'s target that existing rows of `table` name through `fk` (the rows such a reference
        is seen to choose), by identity: each reference compares thousands of candidates with them."""
        if (table, fk) not in self._referred:
            keys = {tuple(row.get(c) for c in fk.columns) for row in self.rows(table)}
            self._referred[(table, fk)] = {id(row) for row in self.rows(fk.target)
                                           if tuple(row.get(c) for c in fk.target_columns) in keys}
        return self._referred[(table, fk)]

    def parents(self, table: str, children: frozenset[tuple[str, ForeignKey]]) -> set[int]:
        """The positions in `rows(table)` of the rows that some row of each child table names through its
        foreign key (the orders that have a shipment), learnt once per set of children."""
        key = ("parents", table, children)
        if key not in self.learnt:
            named = set.intersection(*(self.referred(child, fk) for child, fk in children))
            self.learnt[key] = {position for position, row in enumerate(self.rows(table)) if id(row) in named}
        return self.learnt[key]

    def choices(self, column: Column) -> list[Any]:
        """The values a column takes, when they are few: declared, else seen in it or a same-named column."""
        if column not in self._choices:
            self._choices[column] = list(column.generation.choices) or next(
                (distinct for source in self.sources(column) if (distinct := choices_of(self.values(source)))), []
            )
        return self._choices[column]

    def faker_provider(self, column: Column) -> str | None:
        """The Faker provider that makes a text column's values, when its name suggests one and its values
        agree (see `people`)."""
        if column not in self._providers:
            values = [value for source in self.sources(column) for value in self.values(source)]
            self._providers[column] = faker_provider(column.name, values, choices=bool(self.choices(column)))
        return self._providers[column]

    def json_shape(self, column: Column) -> JsonShape | None:
        """The shape of a JSON column's values, learnt from it or a same-named column (none: no value seen)."""
        if column not in self._json:
            values = next((found for source in self.sources(column) if (found := self.values(source))), [])
            self._json[column] = learn(values, column.name) if values else None
        return self._json[column]

    def date_shape(self, column: Column) -> DateShape | None:
        """How a date or time column is written and where its values fall, if it is one.

        Learnt from the column's own values (or a same-named column's); a format declared by the
        domain or quoted in the description ('YYYY-MM-DD') falls within the span of the world's dates.
        """
        if column not in self._dates:
            self._dates[column] = self._learn_date_shape(column)
        return self._dates[column]

    def _learn_date_shape(self, column: Column) -> DateShape | None:
        declared = column.generation.date_format
        for source in self.sources(column):
            values = self.values(source)
            form = date_format_of(values)
            if form and (declared is None or form == declared):
                return date_shape(values, form)
        form = declared or hints(column.description).date_format
        span = self.moment_span
        if form is None or span is None:
            return None
        return DateShape(form, *span)

    def sources(self, column: Column) -> list[Column]:
        """The column, then columns of other tables named like it: where its shape is learnt from."""
        return [column, *self.same_named(column)]

    def same_named(self, column: Column) -> Iterable[Column]:
        """Columns of other tables with the same name, then with a name that extends it (price → price_economy)."""
        others = [other for table in self.tables if table.name != column.table for other in table.columns.values()]
        yield from (other for other in others if other.name == column.name)
        yield from (
            other for other in others
            if other.name != column.name
            and (other.name.startswith(column.name + "_") or other.name.endswith("_" + column.name))
        )


def _hashable(value: Any) -> bool:
    return not isinstance(value, dict | list)  # the only unhashable values a JSON-ready row holds


def describe_tables(tables: Tables) -> str:
    """The tables as the model reads them: each column with its type, key, reference and description."""
    blocks = []
    for table in tables:
        summary = (table.model.__doc__ or "").strip().splitlines()
        lines = [f"Table {table.name}" + (f": {summary[0]}" if summary else "")]
        lines += [f"- {_describe_column(table, column)}" for column in table.generated_columns()]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def describe_counts(world: BackgroundWorld) -> str:
    """How many rows each table of the background world holds (the rows themselves are shown later)."""
    counts = [f"{table.name} ({len(world.rows(table.name))} rows)" for table in world.tables if world.rows(table.name)]
    return ", ".join(counts) if counts else "none: the database starts empty"


def example_names(tables: Tables) -> dict[str, str]:
    """Names for the plan prompt's example, from the domain's first reference: a parent row and a child of it.

    The example then teaches the answer's structure on real tables, without a made-up domain whose
    words a small model would copy.
    """
    child = next((table for table in tables if table.foreign_keys), next(iter(tables)))
    reference = child.foreign_keys[0] if child.foreign_keys else None
    parent = tables[reference.target] if reference else child
    child_ref = reference.columns[0] if reference else child.key[0]
    child_key = next((name for name in child.key if name != child_ref), child_ref)
    parent_symbol = _initials(parent.name) + "1"
    child_symbol = _initials(child.name) + ("1" if _initials(child.name) != _initials(parent.name) else "2")
    return {"parent": parent.name, "parent_key": (reference.target_columns[0] if reference else parent.key[0]),
            "child": child.name, "child_key": child_key, "child_ref": child_ref,
            "parent_symbol": parent_symbol, "child_symbol": child_symbol}


def _initials(table: str) -> str:
    return "".join(word[0] for word in table.split("_") if word)[:3].upper()


def describe_samples(world: BackgroundWorld, *, per_table: int, seed: str) -> str:
    """A few existing rows of each table that new rows may refer to, as JSON lines (empty values left out)."""
    blocks = []
    for table in world.tables.referenced():
        rows = world.rows(table.name)
        if not rows or per_table == 0:
            continue
        picked = sorted(random.Random(f"{seed}:{table.name}").sample(range(len(rows)), min(per_table, len(rows))))
        shown = [_compact(table, rows[index]) for index in picked]
        blocks.append(f"Table {table.name} ({len(rows)} rows), for example:\n" + "\n".join(shown))
    return "\n\n".join(blocks) if blocks else "(The database starts empty.)"


def _describe_column(table: TableInfo, column: Column) -> str:
    traits = [_KIND_NAMES[column.kind]]
    if column.key:
        traits.append("key")
    if column.references is not None:
        fk = column.references
        target = fk.target_columns[fk.columns.index(column.name)]
        others = [c for c in fk.columns if c != column.name]
        together = f" (together with {', '.join(others)})" if others else ""
        traits.append(f"refers to {fk.target}.{target}{together}")
    if column.nullable:
        traits.append("optional")
    text = f"{column.name} ({', '.join(traits)})"
    return f"{text}: {column.description}" if column.description else text


def _compact(table: TableInfo, row: dict[str, Any]) -> str:
    shown = {name: row[name] for name in table.columns if row.get(name) is not None}
    return json.dumps(shown, ensure_ascii=False, default=str)
