"""Where a row's references meet: the rows it names, the rows those name, and whether they must agree.

A row's lineage is every row it reaches by following foreign keys, a few steps deep: an order line's
order, product and variant, and the order's customer and the variant's product. Two references meet
where their lineages reach the same table by the same columns (a line's product, and its variant's
product; a payment's order's customer, and its payment method's customer). Whether they must agree
there is learnt from the background world's rows, which are valid: references of a table meet at
one row in (nearly) every existing row, or they may differ (a transfer's two accounts belong to two
customers). A table with no existing rows shows nothing against agreement, so its references agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.tables import ForeignKey, TableInfo, Tables

Referred = tuple[str, dict[str, Any]]
"""A row a new row refers to: its table's name and its values."""

Meeting = tuple[str, tuple[str, ...]]
"""A place references meet: a table and the columns a foreign key names it by."""

DEPTH = 3
"""Foreign keys followed from a row, at most, to find where its references meet."""

EVIDENCE_ROWS = 200
"""Existing rows of a table read, at most, to learn whether its references agree where they meet."""

AGREEMENT = 0.9
"""The share of existing rows whose references agree at a meeting, at least, for new rows' to have to."""

CONFLICT = object()
"""The value of a meeting that a row's references reach with two different values."""


@dataclass
class Lineage:
    """The rows a row's references reach: the rows named (`direct`) and the rows those name (`derived`),
    as meeting → values (or `CONFLICT`)."""

    direct: dict[Meeting, Any] = field(default_factory=dict)
    derived: dict[Meeting, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, named: list[tuple[ForeignKey, dict[str, Any]]], *, tables: Tables, planned: list[Referred],
           world: BackgroundWorld) -> Lineage:
        """The lineage of a row that names `named` (each with the foreign key that names it)."""
        lineage = cls()
        for fk, row in named:
            lineage._meet(lineage.direct, (fk.target, fk.target_columns), tuple(row[c] for c in fk.target_columns))
            lineage._follow(fk.target, row, tables=tables, planned=planned, world=world, depth=DEPTH)
        return lineage

    def required(self, table: str, target: TableInfo, fk: ForeignKey, *, world: BackgroundWorld,
                 tables: Tables) -> dict[str, Any] | None:
        """The values a row of `target` must hold to be the row's reference through `fk`: it agrees with the
        lineage at every meeting where the background shows `table`'s references agree (None: no row can, as
        two meetings ask different values of one column)."""
        places = [(g.columns, (g.target, g.target_columns), source)
                  for g in target.foreign_keys for source in (self.direct, self.derived)]
        # The candidate itself meets only rows reached through others: two references to one table (a
        # transfer's two accounts) may name two rows.
        places.append((fk.target_columns, (target.name, fk.target_columns), self.derived))
        required: dict[str, Any] = {}
        for columns, meeting, source in places:
            values = source.get(meeting)
            if values is None or values is CONFLICT or not agrees(table, meeting, world, tables):
                continue
            for column, value in zip(columns, values, strict=True):
                if required.setdefault(column, value) != value:
                    return None
        return required

    def _follow(self, name: str, row: dict[str, Any], *, tables: Tables, planned: list[Referred],
                world: BackgroundWorld, depth: int) -> None:
        if depth == 0:
            return
        for g in tables[name].foreign_keys:
            values = tuple(row.get(c) for c in g.columns)
            if None in values:
                continue
            self._meet(self.derived, (g.target, g.target_columns), values)
            found = named_row(g.target, dict(zip(g.target_columns, values, strict=True)), planned, world)
            if found is not None:
                self._follow(g.target, found, tables=tables, planned=planned, world=world, depth=depth - 1)

    @staticmethod
    def _meet(into: dict[Meeting, Any], meeting: Meeting, values: tuple[Any, ...]) -> None:
        if into.setdefault(meeting, values) != values:
            into[meeting] = CONFLICT


def named_row(
    table: str, match: dict[str, Any], planned: list[Referred], world: BackgroundWorld
) -> dict[str, Any] | None:
    """The row `match` names: one of the event's own rows first, else an existing one (None: no row)."""
    own = next((row for name, row in planned if name == table and all(row.get(k) == v for k, v in match.items())),
               None)
    if own is not None:
        return own
    found = world.matching(table, match)
    return found[0] if found else None


def agrees(table: str, meeting: Meeting, world: BackgroundWorld, tables: Tables) -> bool:
    """Whether `table`'s references agree at `meeting` in the background world (see the module's docstring)."""
    key = ("references agree", table, meeting)
    if key not in world.learnt:
        rows = world.rows(table)[:EVIDENCE_ROWS]
        met = [values for row in rows if len(values := _reached(table, row, meeting, tables, world)) > 1]
        agreeing = sum(len(set(values)) == 1 for values in met)
        world.learnt[key] = not met or agreeing >= AGREEMENT * len(met)
    return world.learnt[key]


def _reached(table: str, row: dict[str, Any], meeting: Meeting, tables: Tables,
             world: BackgroundWorld) -> list[tuple[Any, ...]]:
    """The values at `meeting` of each of an existing row's references that reaches it."""
    found: list[tuple[Any, ...]] = []
    for fk in tables[table].foreign_keys:
        values = tuple(row.get(c) for c in fk.columns)
        if None in values:
            continue
        if (fk.target, fk.target_columns) == meeting:
            found.append(values)
        target = named_row(fk.target, dict(zip(fk.target_columns, values, strict=True)), [], world)
        if target is not None:
            branch = Lineage()
            branch._follow(fk.target, target, tables=tables, planned=[], world=world, depth=DEPTH - 1)
            reached = branch.derived.get(meeting)
            if reached is not None and reached is not CONFLICT:
                found.append(reached)
    return found
