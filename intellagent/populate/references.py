"""Foreign keys a row leaves open: filled by a row it may refer to, the event's own rows first.

A reservation whose user is not given refers to the event's user; a segment whose flight is not given
(or given only as a symbol no row defines) refers to an existing flight of the background world, one
that agrees with whatever part of the reference is fixed (the date, say). A fixed part that names no
row (an id the model made up) is dropped, and the reference resolved as if it had not been given.

References agree with each other by following the schema's foreign keys (see `lineage`): an order
line's variant is one of the line's product, a payment's method is one of its order's customer, and a
line that names a variant but no product gets the variant's product. A fixed reference that disagrees
with the references resolved before it is dropped too, and resolved again. References are resolved
in this order: required before optional (one chosen to agree with them), fixed before open, then as
the table declares them (the parent first, as a schema's author writes it).

Among existing rows, a reference prefers those that the table's own existing rows refer to, since
the background world is valid (a referral is written by one of the doctors who write referrals), and
those that agree with the row's other references. An optional reference points at one of the event's
own rows, or at nothing.
"""

from __future__ import annotations

import random
from typing import Any

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.lineage import Lineage, Referred
from intellagent.populate.tables import ForeignKey, TableInfo, Tables


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
        dropped: where a note is added for each fixed part that named no row, or a row that disagreed with
            the row's other references, and was dropped.
    """
    about: list[Referred] = []
    owners: list[Referred] = []
    named: list[tuple[ForeignKey, dict[str, Any]]] = []
    for fk in table.foreign_keys:  # first, so that a reference left open by it is resolved as an open one
        if (fixed := _fixed(fk, values)) and not _candidates(fk.target, fixed, planned, world):
            _drop(table, fk, values, dropped, "named no row of {target}; another was chosen")
    for fk in _in_resolution_order(table, values):
        fixed = _fixed(fk, values)
        candidates = _candidates(fk.target, fixed, planned, world)
        lineage = Lineage.of(named, tables=tables, planned=planned, world=world)
        required = lineage.required(table.name, tables[fk.target], fk, world=world, tables=tables)
        whole = len(fixed) == len(fk.columns)
        if whole and not _matches(candidates[0], required):
            _drop(table, fk, values, dropped, "is not the {target} row the row's other references name; "
                                              "another was chosen")
            fixed = {}
            candidates = _candidates(fk.target, fixed, planned, world)
        optional = all(table.columns[local].nullable for local in fk.columns)
        if not fixed:
            candidates = _preferred(table, fk, required, candidates, planned, world, optional=optional)
        elif not whole:
            candidates = [row for row in candidates if _matches(row, required)] or candidates
        if not candidates:
            continue
        target = candidates[0]
        if len(fixed) < len(fk.columns):
            if not _is_planned(target, planned):
                target = rng.choice(candidates)
            for local, column in zip(fk.columns, fk.target_columns, strict=True):
                values.setdefault(local, target[column])
        named.append((fk, target))
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


def _in_resolution_order(table: TableInfo, values: dict[str, Any]) -> list[ForeignKey]:
    """The row's foreign keys in the order they are resolved (see the module's docstring)."""
    declared = list(table.columns)

    def order(fk: ForeignKey) -> tuple[bool, bool, int]:
        optional = all(table.columns[c].nullable for c in fk.columns)
        open_ = all(values.get(c) is None for c in fk.columns)
        return optional, open_, declared.index(fk.columns[0])

    return sorted(table.foreign_keys, key=order)


def _fixed(fk: ForeignKey, values: dict[str, Any]) -> dict[str, Any]:
    """The target columns a row's values fix for `fk`, and their values."""
    return {target: values[local] for local, target in zip(fk.columns, fk.target_columns, strict=True)
            if values.get(local) is not None}


def _drop(table: TableInfo, fk: ForeignKey, values: dict[str, Any], dropped: list[str] | None, why: str) -> None:
    """Take a fixed reference out of the row, with a note saying why."""
    shown = ", ".join(f"{local}={values.pop(local)!r}" for local in fk.columns if local in values)
    if dropped is not None:
        dropped.append(f"{table.name}: {shown} {why.format(target=fk.target)}")


def _matches(row: dict[str, Any], required: dict[str, Any] | None) -> bool:
    return required is None or all(row.get(column) == value for column, value in required.items())


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
    required: dict[str, Any] | None,
    candidates: list[dict[str, Any]],
    planned: list[Referred],
    world: BackgroundWorld,
    *,
    optional: bool,
) -> list[dict[str, Any]]:
    """The candidates an open reference should choose from, best first (see the module's docstring): the
    event's own rows that agree, then existing ones that agree (those the table's rows refer to first), then
    any (`required` None: none can agree)."""
    own = [row for name, row in planned if name == fk.target and required is not None and _matches(row, required)]
    if optional or own:
        return own
    agreeing = world.matching(fk.target, required) if required is not None else []
    referred = world.referred(table.name, fk)
    learnt = [row for row in agreeing if id(row) in referred]
    return learnt or agreeing or candidates


def _candidates(
    table: str, match: dict[str, Any], planned: list[Referred], world: BackgroundWorld
) -> list[dict[str, Any]]:
    own = [row for name, row in planned if name == table and all(row.get(k) == v for k, v in match.items())]
    return own or world.matching(table, match)


def _is_planned(row: dict[str, Any], planned: list[Referred]) -> bool:
    return any(row is values for _, values in planned)
