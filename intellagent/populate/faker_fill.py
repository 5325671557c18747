"""Values for the columns no plan, constraint or answer governs: seeded, and shaped like the column's data.

Each column is filled by the first rule that applies:

1. a column declared to inherit (`generation(inherit=True)`) takes the same-named column of a row it
   refers to (an order line's price is its variant's), whatever else would apply;
2. what the domain declares for the column (`generation(...)`: choices, a date format, a Faker
   provider);
3. a reference left open by reference resolution stays empty; an optional column stays empty when the
   row imitated (the template) leaves it empty, or when the table has no existing rows to imitate;
4. a JSON column gets a value of the shape its existing values show (those of the row's siblings
   first: the variants of the same product), never one copied whole (see `json_shapes`);
5. people's names, addresses, phone numbers and birth dates come from Faker, when the column's name
   calls for it and its values agree (see `people`);
6. a key gets a new value shaped like existing ones, never one already taken; a position counts on;
7. a column named like another table's key refers to one of its rows (a payment's `payment_id`); a
   same-named column is never copied otherwise, since the name alone does not say the two mean the
   same (a referral's specialty is not its writer's);
8. otherwise the template's value, imitated (digits redrawn, names inside ids re-derived);
9. otherwise one of the column's known choices, a date in its format, days, hours and step, a
   number in its range, or a value shaped like the description's example, learnt from this column
   or a same-named one;
10. otherwise a neutral value of the column's type.

The template is an existing row of the same table that agrees with the row on most fixed values, so
that columns which go together (a card's brand and its source) stay consistent, and that has children
in the tables where the event gives the row some (an order the event ships imitates one that shipped,
so its status is one a shipment allows).
"""

from __future__ import annotations

import random
import threading
import typing
from collections import Counter
from collections.abc import Iterable
from typing import Any

from faker import Faker

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.json_shapes import draw_new, learn
from intellagent.populate.people import BIRTH_DATES
from intellagent.populate.shapes import (
    Derivation,
    birth_date_shape,
    derives_from_row,
    hints,
    imitate,
)
from intellagent.populate.tables import Column, ForeignKey, TableInfo
from intellagent.value_shapes import date_format_of

ORDINALS = {"position", "index", "idx", "order", "rank", "seq", "sequence"}

KEY_ATTEMPTS = 50
SIBLINGS = 2
"""Existing rows sharing a reference with a new row that a JSON value is learnt from, at least, rather than
from the whole column."""


_THREAD = threading.local()


def _faker() -> Faker:
    """This thread's Faker: making one takes milliseconds, and every value seeds it before drawing, so
    one per thread serves every event."""
    if not hasattr(_THREAD, "faker"):
        _THREAD.faker = Faker("en_US")
    return _THREAD.faker


class ValueFiller:
    """Fills the missing columns of one event's rows, deterministically from the seed."""

    def __init__(self, world: BackgroundWorld, *, seed: str, reserved: Iterable[Any] = ()) -> None:
        """Args:
        world: the background rows to imitate and not collide with.
        seed: the event's seed; each cell draws from `seed:label:column`, so a cell keeps its value
            when a repair changes other cells.
        reserved: values the model already chose for symbols: a generated key never takes one.
        """
        self.world = world
        self.seed = seed
        self.reserved = {value for value in reserved if not isinstance(value, dict | list)}  # a JSON value is no key
        self.faker = _faker()

    def fill(
        self,
        table: TableInfo,
        values: dict[str, Any],
        *,
        label: str,
        planned: list[tuple[str, dict[str, Any]]],
        referenced: list[dict[str, Any]],
        children: frozenset[tuple[str, ForeignKey]] = frozenset(),
    ) -> None:
        """Give every generated column of `values` that has none a value, in place.

        Args:
            table: the row's table.
            values: the row's values so far (from the plan, the answers and resolved references).
            label: the row's label, part of each cell's seed.
            planned: (table, values) of the event's rows before this one.
            referenced: the rows this row refers to, nearest first, for inherited columns.
            children: the tables (and foreign keys) of the event's rows that will name this one: the row
                imitates an existing row that has such children too (an order with a shipment, a shipped one).
        """
        rng = random.Random(f"{self.seed}:{label}:template")
        template = self._template(table, values, rng, self.world.parents(table.name, children) if children else None)
        missing = [column for column in table.generated_columns() if column.name not in values]
        # Keys last: they may be derived from the row's other columns (a name inside a user id).
        for column in sorted(missing, key=lambda c: c.key or c.unique):
            rng = random.Random(f"{self.seed}:{label}:{column.name}")
            self.faker.seed_instance(f"{self.seed}:{label}:{column.name}")
            values[column.name] = self._value(table, column, values, template, planned, referenced, rng)

    def _value(
        self,
        table: TableInfo,
        column: Column,
        row: dict[str, Any],
        template: dict[str, Any] | None,
        planned: list[tuple[str, dict[str, Any]]],
        referenced: list[dict[str, Any]],
        rng: random.Random,
    ) -> Any:
        if column.generation.inherit:
            inherited = next((r[column.name] for r in referenced if r.get(column.name) is not None), None)
            if inherited is not None:
                return inherited
        declared = self._declared(column, rng)
        if declared is not None:
            return declared
        if column.references is not None:
            return None  # references are resolved before filling: one still open refers to nothing
        if column.nullable and (template is None or template.get(column.name) is None):
            return None
        if column.kind == "structured":
            return self._structured(table, column, row, rng)
        personal = self._personal(column, rng)
        if personal is not None:
            return personal
        if column.key or column.unique:
            return self._new_key(table, column, row, template, planned, rng)
        if column.kind == "integer" and column.name.lower() in ORDINALS:
            return self._next_position(table, column, row, planned)
        named = self._named_reference(table, column, planned, referenced)
        if named is not None:
            return named
        if template is not None:
            return self._imitated(column, template, row, rng)
        return self._from_evidence(column, row, rng)

    def _declared(self, column: Column, rng: random.Random) -> Any:
        """A value made the way the domain declared for the column, if it declared one."""
        declared = column.generation
        if declared.choices:
            return rng.choice(declared.choices)
        if declared.faker is not None:
            return getattr(self.faker, declared.faker)()
        shape = self.world.date_shape(column) if declared.date_format else None
        return shape.draw(rng) if shape is not None else None

    def _structured(self, table: TableInfo, column: Column, row: dict[str, Any], rng: random.Random) -> Any:
        """A JSON value shaped like the row's siblings' (rows sharing a reference with it: the product's other
        variants) and equal to none of them; else like the column's values of the siblings' keys, else like
        any of the column's. A row with no siblings gets a value equal to no existing one, when a few draws
        find one."""
        siblings = self._siblings(table, column, row)
        seen = self.world.values(column)
        skeletons = [list(value) for value in siblings if isinstance(value, dict)]
        alike = [value for value in seen if isinstance(value, dict) and list(value) in skeletons]
        shapes = [learn(population, column.name) for population in (siblings, alike) if population]
        shapes += [shape] if (shape := self.world.json_shape(column)) is not None else []
        avoided = siblings or seen
        value: Any = {} if typing.get_origin(column.annotation) is dict else []
        for shape in shapes:  # siblings may hold every combination of their values: others have more
            value = draw_new(shape, avoided, rng, self.faker)
            if value not in avoided:
                break
        return value

    def _siblings(self, table: TableInfo, column: Column, row: dict[str, Any]) -> list[Any]:
        """The column's values in existing rows that share the row's first required reference, when at least
        `SIBLINGS` do (the options of the product's other variants)."""
        for fk in table.foreign_keys:
            if any(table.columns[name].nullable or row.get(name) is None for name in fk.columns):
                continue
            siblings = self.world.matching(table.name, {name: row[name] for name in fk.columns})
            found = [sibling[column.name] for sibling in siblings if sibling.get(column.name) is not None]
            if len(found) >= SIBLINGS:
                return found
        return []

    def _personal(self, column: Column, rng: random.Random) -> Any:
        if column.kind != "text":
            return None
        if column.name.lower() in BIRTH_DATES:
            form = date_format_of(self.world.values(column)) or hints(column.description).date_format or "%Y-%m-%d"
            return birth_date_shape(form).draw(rng)
        provider = self.world.faker_provider(column)
        return str(getattr(self.faker, provider)()) if provider else None

    def _named_reference(
        self,
        table: TableInfo,
        column: Column,
        planned: list[tuple[str, dict[str, Any]]],
        referenced: list[dict[str, Any]],
    ) -> Any:
        """The value of a column named like another table's own key, though no foreign key says so.

        Such a column points at a row of that table (a payment's `payment_id`): the event's own rows
        first, then existing ones, keeping only rows whose references agree with the rows this row
        refers to (a payment method of the reservation's owner).
        """
        if column.references is not None:
            return None
        for other in self.world.tables:
            if other.name == table.name or column.name not in other.key or other.columns[column.name].references:
                continue
            shared = [name for fk in other.foreign_keys for name in fk.columns]
            candidates = [values for name, values in planned if name == other.name] + self.world.rows(other.name)
            for candidate in candidates:
                if all(candidate.get(name) == row[name] for row in referenced for name in shared if name in row):
                    return candidate.get(column.name)
        return None

    def _new_key(
        self,
        table: TableInfo,
        column: Column,
        row: dict[str, Any],
        template: dict[str, Any] | None,
        planned: list[tuple[str, dict[str, Any]]],
        rng: random.Random,
    ) -> Any:
        if column.kind == "integer":
            others = [name for name in table.key if name != column.name]
            if others:
                return self._next_position(table, column, row, planned, group=others)
            existing = [v for v in self._taken(table, column, planned) if isinstance(v, int)]
            return max(existing, default=0) + 1
        taken = self._taken(table, column, planned)
        examples = self.world.values(column) or list(hints(column.description).examples)
        model = template[column.name] if template else (rng.choice(examples) if examples else None)
        derivation = Derivation(template=template or {}, row=row)
        for attempt in range(KEY_ATTEMPTS):
            if isinstance(model, str):
                candidate: Any = imitate(model, rng, derivation=derivation, letters=attempt >= KEY_ATTEMPTS // 2)
            else:
                candidate = "".join(rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(8))
            if candidate not in taken:
                return candidate
        raise ValueError(f"no free value for {table.name}.{column.name} after {KEY_ATTEMPTS} attempts")

    def _next_position(
        self,
        table: TableInfo,
        column: Column,
        row: dict[str, Any],
        planned: list[tuple[str, dict[str, Any]]],
        group: list[str] | None = None,
    ) -> int:
        """The next free position among rows sharing this row's parent (its other key or foreign-key columns)."""
        if group is None:
            group = [name for fk in table.foreign_keys for name in fk.columns]
        match = {name: row.get(name) for name in group}
        siblings = self.world.matching(table.name, match) + [
            values for name, values in planned
            if name == table.name and all(values.get(k) == v for k, v in match.items())
        ]
        used = [sibling[column.name] for sibling in siblings if isinstance(sibling.get(column.name), int)]
        return max(used) + 1 if used else 0

    def _imitated(self, column: Column, template: dict[str, Any], row: dict[str, Any], rng: random.Random) -> Any:
        value = template[column.name]
        if column.kind != "text" or self.world.choices(column) or date_format_of([value]):
            return value
        derivation = Derivation(template=template, row=row)
        if derives_from_row(value, derivation) or any(ch.isdigit() for ch in value):
            return imitate(value, rng, derivation=derivation)
        return value

    def _from_evidence(self, column: Column, row: dict[str, Any], rng: random.Random) -> Any:
        """A value for a column of a table with no existing rows, from what is known of similar columns."""
        described = hints(column.description)
        choices = self.world.choices(column) or list(described.choices)
        if choices:
            return rng.choice(choices)
        dates = self.world.date_shape(column)
        if dates is not None:
            return dates.draw(rng)
        numbers = self.world.numbers(column)
        if column.kind in ("integer", "number") and numbers:
            if column.kind == "integer" or all(isinstance(v, int) for v in numbers):
                return rng.randint(int(min(numbers)), int(max(numbers)))
            return round(rng.uniform(min(numbers), max(numbers)), 2)
        if column.kind == "text" and described.examples:
            return imitate(rng.choice(described.examples), rng)
        if column.kind == "text" and "email" in column.name.lower():
            return self._email(row, rng)
        return {"text": lambda: self.faker.word(), "integer": lambda: 0, "number": lambda: 0,
                "boolean": lambda: False}.get(column.kind, lambda: None)()

    def _email(self, row: dict[str, Any], rng: random.Random) -> str:
        first, last = row.get("first_name"), row.get("last_name")
        if isinstance(first, str) and isinstance(last, str):
            handle = ".".join("".join(ch for ch in part.lower() if ch.isalnum()) for part in (first, last))
            return f"{handle}{rng.randint(10, 9999)}@example.com"
        return f"{self.faker.user_name()}@example.com"

    def _taken(self, table: TableInfo, column: Column, planned: list[tuple[str, dict[str, Any]]]) -> set[Any]:
        taken = set(self.world.values(column)) | self.reserved
        taken.update(values.get(column.name) for name, values in planned if name == table.name)
        return taken

    def _template(self, table: TableInfo, values: dict[str, Any], rng: random.Random,
                  eligible: set[int] | None) -> dict[str, Any] | None:
        """An existing row of the table that agrees with `values` on the most non-key columns, among the
        `eligible` positions when some are (the rows with the children the new row will have)."""
        rows = self.world.rows(table.name)
        if not rows:
            return None
        fixed = {
            name: value for name, value in values.items()
            if name in table.columns and not table.columns[name].key and table.columns[name].references is None
        }
        scores = Counter(position for name, value in fixed.items()
                         for position in self.world.positions(table.name, name, value)
                         if not eligible or position in eligible)
        # A row named by the key of an existing row, and agreeing with it, is that row: keep its values.
        if all(name in values for name in table.key):
            same = [row for row in self.world.matching(table.name, {name: values[name] for name in table.key})
                    if all(row.get(name) == value for name, value in fixed.items())]
            if same:
                return same[0]
        best = max(scores.values(), default=0)
        if best == 0:
            return rows[rng.choice(sorted(eligible))] if eligible else rng.choice(rows)
        return rows[rng.choice(sorted(position for position, score in scores.items() if score == best))]
