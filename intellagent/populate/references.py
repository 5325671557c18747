"""Foreign keys a row leaves open: filled by a row it may refer to, the event's own rows first.

A reservation whose user is not given refers to the event's user; a segment whose flight is not given
(or given only as a symbol no row defines) refers to an existing flight of the background world, one
that agrees with whatever part of the reference is fixed (the date, say). A fixed part that names no
row (an id the model made up) is dropped, and the reference resolved as if it had not been given.

Among existing rows, a reference prefers those that the table's own existing rows refer to, since
the background world is valid (a referral is written by one of the doctors who write referrals), and
those that agree with the row's other references (an appointment's referral is its patient's). An
optional reference points at one of the event's own rows, or at nothing.
"""

from __future__ import annotations

import random
from typing import Any

from intellagent.populate.tables import ForeignKey, TableInfo, Tables
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
    dropped: list[str] | None = None,
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
        dropped: where a note is added for each fixed part that named no row and was dropped.
    """
    about: list[Referred] = []
    owners: list[Referred] = []
    # Required references first: an optional one is chosen to agree with them.
    for fk in sorted(table.foreign_keys, key=lambda fk: all(table.columns[c].nullable for c in fk.columns)):
        fixed = {target: values[local] for local, target in zip(fk.columns, fk.target_columns, strict=True)
                 if values.get(local) is not None}
        candidates = _candidates(fk.target, fixed, planned, world)
        if not candidates and fixed:
            shown = ", ".join(f"{local}={values.pop(local)!r}" for local in fk.columns if local in values)
            if dropped is not None:
                dropped.append(f"{table.name}: {shown} named no row of {fk.target}; another was chosen")
            fixed = {}
            candidates = _candidates(fk.target, fixed, planned, world)
        optional = all(table.columns[local].nullable for local in fk.columns)
        if not fixed:
            candidates = _preferred(table, fk, values, candidates, planned, world, optional=optional)
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


def _preferred(
    table: TableInfo,
    fk: ForeignKey,
    values: dict[str, Any],
    candidates: list[dict[str, Any]],
    planned: list[Referred],
    world: BackgroundWorld,
    *,
    optional: bool,
) -> list[dict[str, Any]]:
    """The candidates an open reference should choose from, best first (see the module's docstring)."""
    required = _agreement(world.tables[fk.target], table, values)
    if required is None:
        agreeing = []
    elif required:
        agreeing = [row for row in candidates if all(row.get(c) == v for c, v in required.items())]
    else:
        agreeing = candidates
    # The candidates are the event's own rows or existing ones, never both (see `_candidates`).
    own = agreeing if candidates and _is_planned(candidates[0], planned) else []
    if optional or own:
        return own
    referred = world.referred(table.name, fk)  # existing rows: an event's own would have been chosen above
    learnt = [row for row in agreeing if id(row) in referred]
    return learnt or agreeing or candidates


def _agreement(target: TableInfo, table: TableInfo, values: dict[str, Any]) -> dict[str, Any] | None:
    """The values a candidate row of `target` must hold for its references to agree with the row's references
    to the same tables (None: no row can, as two of them name different rows through one column)."""
    required: dict[str, Any] = {}
    for theirs in target.foreign_keys:
        for ours in table.foreign_keys:
            if ours.target != theirs.target or ours.target_columns != theirs.target_columns:
                continue
            mine = [values.get(column) for column in ours.columns]
            if None in mine:
                continue
            for column, value in zip(theirs.columns, mine, strict=True):
                if required.setdefault(column, value) != value:
                    return None
    return required


def _candidates(
    table: str, match: dict[str, Any], planned: list[Referred], world: BackgroundWorld
) -> list[dict[str, Any]]:
    own = [row for name, row in planned if name == table and all(row.get(k) == v for k, v in match.items())]
    return own or world.matching(table, match)


def _is_planned(row: dict[str, Any], planned: list[Referred]) -> bool:
    return any(row is values for _, values in planned)
