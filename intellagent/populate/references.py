"""Foreign keys a row leaves open: filled by a row it may refer to, the event's own rows first.

A reservation whose user is not given refers to the event's user; a segment whose flight is not given
(or given only as a symbol no row defines) refers to an existing flight of the background world, one
that agrees with whatever part of the reference is fixed (the date, say).
"""

from __future__ import annotations

import random
from typing import Any

from intellagent.populate.tables import TableInfo, Tables
from intellagent.populate.world import BackgroundWorld

Referred = tuple[str, dict[str, Any]]
"""A row a new row refers to: its table's name and its values."""


def resolve_references(
    table: TableInfo,
    values: dict[str, Any],
    *,
    tables: Tables,
    planned: list[Referred],
    world: BackgroundWorld,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """Fill the open columns of each foreign key of a row, in place; return the rows it refers to.

    The referred rows come in order of meaning: first what the row is about (rows named by columns
    outside its key, e.g. its flight) and the rows those refer to, then its owners (rows named by key
    columns, e.g. its reservation) and theirs, so that a column inherited from them (a segment's
    origin) comes from the row that defines it.

    Args:
        table: the row's table.
        values: the row's values so far; open foreign-key columns are set here.
        tables: every table, to follow references of the referred rows.
        planned: (table, values) of the event's rows before this one, preferred over existing rows.
        world: the existing rows.
        rng: the seeded choice among existing rows.
    """
    about: list[Referred] = []
    owners: list[Referred] = []
    for fk in table.foreign_keys:
        fixed = {target: values[local] for local, target in zip(fk.columns, fk.target_columns, strict=True)
                 if local in values}
        candidates = _candidates(fk.target, fixed, planned, world)
        if not candidates:
            continue
        target = candidates[0]
        if len(fixed) < len(fk.columns):
            if not _is_planned(target, planned):
                target = rng.choice(candidates)
            for local, column in zip(fk.columns, fk.target_columns, strict=True):
                values.setdefault(local, target[column])
        owning = any(table.columns[column].key for column in fk.columns)
        (owners if owning else about).append((fk.target, target))
    found: list[Referred] = []
    for group in (about, owners):
        frontier = [row for row in group if not any(row[1] is other[1] for other in found)]
        while frontier:
            found += frontier
            frontier = [row for row in _referred_by(frontier, tables, planned, world)
                        if not any(row[1] is other[1] for other in found)]
    return [row for _, row in found]


def _referred_by(
    rows: list[Referred], tables: Tables, planned: list[Referred], world: BackgroundWorld
) -> list[Referred]:
    """The rows that `rows` refer to directly."""
    found: list[Referred] = []
    for name, row in rows:
        for fk in tables[name].foreign_keys:
            match = dict(zip(fk.target_columns, (row.get(c) for c in fk.columns), strict=True))
            candidates = _candidates(fk.target, match, planned, world)
            if candidates and not any(candidates[0] is other for _, other in found):
                found.append((fk.target, candidates[0]))
    return found


def _candidates(
    table: str, match: dict[str, Any], planned: list[Referred], world: BackgroundWorld
) -> list[dict[str, Any]]:
    own = [row for name, row in planned if name == table and all(row.get(k) == v for k, v in match.items())]
    return own or world.matching(table, match)


def _is_planned(row: dict[str, Any], planned: list[Referred]) -> bool:
    return any(row is values for _, values in planned)
