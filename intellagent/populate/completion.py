"""Making a plan whole: one row per entity, no entity with its lists left empty, no reference unmet.

A small model often plans the same row twice, or plans a booking but forgets its flight, its
passenger or the card that paid for it. Two planned rows of a table with the same key are merged; a new
top-level row (a user) that repeats another in all but its key, and that nothing names, is dropped. A
table keyed by a reference to a parent plus a position (`reservation_flights`: reservation, position)
holds the parent's list of parts; a planned parent with no part in such a list gets one (when the
part's other references can be resolved). So does a new parent of a table whose existing rows all have
children in another (every order has lines and a payment, every customer a payment method): a world
where one has none is one the domain never shows. A column named like another table's key that nothing
can satisfy gets the row it needs. A row whose owner (the row it belongs to: a part's parent, a line's
order) is named by a symbol no planned row of the owner's table holds gets that owner, keyed by the
symbol: otherwise the row would be rejected with nothing to refer to, and the event would lose the
record its scenario is about. A symbol naming a row the row is only about (a line's product) is left to
reference resolution, which chooses an existing row. A change the user is entitled to gets the record it acts
on when the plan forgot it. Added rows go through the constraints and values steps like any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.symbols import Symbol
from intellagent.populate.tables import Column, ForeignKey, TableInfo, Tables

Draft = tuple[str, dict[str, Any]]
"""A planned row before it is labelled: its table and its cells (values or symbols)."""

MIN_PARENTS = 3
"""Existing rows of a table needed, at least, to learn that each has children in another table."""

MAX_ADDED = 12
"""Parts and children added to one plan, at most: a chain of tables each always parented stops there."""


def separate_shared_keys(rows: list[Draft], entities: dict[str, str], tables: Tables) -> list[Draft]:
    """The rows, with a symbol used as the key of rows of two tables split into one symbol per table.

    One symbol is one value, and a reservation id cannot also be a payment id. The table the
    entity's description names keeps the symbol (else the first, in insertion order); another table's
    key gets a new symbol, and so do the references to that table.
    """
    keyed: dict[str, list[str]] = {}
    for table, cells in sorted(rows, key=lambda draft: tables.order(draft[0])):
        for column in tables[table].key:
            cell = cells.get(column)
            if isinstance(cell, Symbol) and tables[table].columns[column].references is None:
                keyed.setdefault(cell.name, [])
                if table not in keyed[cell.name]:
                    keyed[cell.name].append(table)
    renamed: dict[tuple[str, str], Symbol] = {}
    for name, owners in keyed.items():
        keeper = next((t for t in owners if _names_table(entities.get(name, ""), t)), owners[0])
        for table in owners:
            if table != keeper:
                renamed[(table, name)] = _new_symbol(table, entities, rows)
    for table, cells in rows:
        info = tables[table]
        for column, cell in list(cells.items()):
            if not isinstance(cell, Symbol):
                continue
            fk = info.columns[column].references
            target = fk.target if fk is not None else table if column in info.key else None
            if target is not None and (target, cell.name) in renamed:
                cells[column] = renamed[(target, cell.name)]
    return rows


def _names_table(description: str, table: str) -> bool:
    """Whether a description mentions the table's first word, singular or plural (a 'reservation')."""
    word = table.split("_")[0].lower()
    return bool(re.search(rf"\b{re.escape(word.removesuffix('s'))}s?\b", description.lower()))


def merge_duplicates(rows: list[Draft], tables: Tables) -> list[Draft]:
    """The rows, with a row whose table and full key repeat an earlier row's merged into it."""
    merged: list[Draft] = []
    for table, cells in rows:
        key = tables[table].key
        same = next(
            (kept for name, kept in merged
             if name == table and all(c in cells and c in kept and cells[c] == kept[c] for c in key)),
            None,
        )
        if same is None:
            merged.append((table, dict(cells)))
        else:
            for column, value in cells.items():
                same.setdefault(column, value)
    return merged


def drop_copies(rows: list[Draft], entities: dict[str, str], tables: Tables) -> list[Draft]:
    """The rows without copies: a new row of a table that refers to no other (a user, not a user's card) whose own
    key no other row names and whose other cells repeat an earlier row's. Its entity goes with it.

    The embedded model planned five users alike (John Doe, a silver member) for one customer. Nothing tells such
    copies apart or gives them a part to play, and each would get its parts like a real row, taking the budget of
    additions (`MAX_ADDED`) the record the change acts on needed for its own.
    """
    kept: list[Draft] = []
    held: list[tuple[str, dict[str, Any]]] = []  # each kept row's table and cells besides its own key
    for table, cells in rows:
        info = tables[table]
        keys = [cells.get(column) for column in info.own_key]
        rest = (table, {column: value for column, value in cells.items() if column not in info.own_key})
        new = bool(keys) and not info.foreign_keys and all(isinstance(key, Symbol) for key in keys)
        named = any(key in other.values() for _, other in rows if other is not cells for key in keys)
        if new and not named and rest in held:
            for key in keys:
                entities.pop(key.name, None)
            continue
        kept.append((table, cells))
        held.append(rest)
    return kept


def add_acted_on(rows: list[Draft], arguments: Iterable[str], entities: dict[str, str], tables: Tables) -> list[Draft]:
    """The rows, plus a new row of each table whose own key one of `arguments` names and the plan holds no row of.

    `arguments` are those the change the user is entitled to takes: a small model asked for a booking whose cabin
    changes planned five payment cards and no booking, and the change then had nothing to act on. The added row
    holds its new key alone; its owner (open) is resolved to the event's own row, and its parts are added next.
    """
    added: list[Draft] = []
    for argument in arguments:
        target = tables.keyed_by(argument)
        if target is None or any(name == target.name for name, _ in rows + added):
            continue
        symbol = _new_symbol(target.name, entities, rows + added)
        entities[symbol.name] = f"the {target.name} row the change acts on"
        added.append((target.name, {argument: symbol}))
    return rows + added


def add_forgotten_parents(rows: list[Draft], entities: dict[str, str], tables: Tables) -> list[Draft]:
    """The rows, plus one row for each owner that rows name by symbols no planned row of its table holds.

    The added row holds those symbols alone in the owner's columns, so that the rest is resolved and
    generated like any new row's (its open references name the event's own rows first). Rows naming the
    same symbols share it, and an added row's own owner, if forgotten too, is added in turn. Only an exact
    match of the symbols counts as planned. A symbol not declared is declared as the key of a new row of
    the owner's table.
    """
    added: list[Draft] = []
    for table, cells in _growing(rows, added):
        info = tables[table]
        for fk in info.foreign_keys:
            named = [cells.get(local) for local in fk.columns]
            if (len(added) >= MAX_ADDED or not all(isinstance(cell, Symbol) for cell in named)
                    or not _owned_through(info, fk) or _holds(fk.target, fk.target_columns, named, rows + added)):
                continue
            for symbol in named:
                _declare_new_key(symbol, fk.target, entities)
            added.append((fk.target, dict(zip(fk.target_columns, named, strict=True))))
    return rows + added


def _holds(table: str, columns: tuple[str, ...], values: list[Any], rows: list[Draft]) -> bool:
    """Whether a row of `table` holds `values` in `columns`."""
    return any(name == table and [cells.get(column) for column in columns] == values for name, cells in rows)


def add_missing_parts(
    rows: list[Draft], entities: dict[str, str], tables: Tables, world: BackgroundWorld
) -> list[Draft]:
    """The rows, plus one part for each list of a planned parent that the plan left empty, and one child
    of each kind a new parent always has (parts and children added get theirs too).

    A parent whose key a new part must refer to but that has no cell for it gets a new symbol there
    (declared in `entities`), so that the part and the parent agree.
    """
    added: list[Draft] = []
    for table, cells in _growing(rows, added):
        parts = _list_parts(tables[table], tables)
        if _is_new(tables[table], cells, world):
            parts += [child for child in _learnt_children(tables[table], tables, world) if child not in parts]
        for part, fk in parts:
            if (len(added) >= MAX_ADDED or _has_part(cells, part, fk, rows + added, rows, table)
                    or not _resolvable(part, fk, rows, world)):
                continue
            for target in fk.target_columns:
                if target not in cells:
                    cells[target] = _new_symbol(table, entities, rows + added)
            added.append((part.name, {local: cells[target] for local, target in zip(fk.columns, fk.target_columns,
                                                                                    strict=True)}))
    return rows + added


def _owned_through(table: TableInfo, fk: ForeignKey) -> bool:
    """Whether a table's rows belong to the rows `fk` names: it is required, and in their key or declared first."""
    if any(table.columns[name].nullable for name in fk.columns):
        return False
    first = min(table.foreign_keys, key=lambda other: list(table.columns).index(other.columns[0]))
    return fk is first or any(table.columns[name].key for name in fk.columns)


def _growing(rows: list[Draft], added: list[Draft]) -> Iterator[Draft]:
    """The rows, then those added while they are gone through."""
    yield from rows
    position = 0
    while position < len(added):
        yield added[position]
        position += 1


def _is_new(table: TableInfo, cells: dict[str, Any], world: BackgroundWorld) -> bool:
    """Whether a planned row is a new entity: its own key is a symbol, left to generation, or a value that names
    no existing row (and so is generated anew, see `rows`)."""
    own = table.own_key
    if not own or any(isinstance(cells.get(name), Symbol) or cells.get(name) is None for name in own):
        return bool(own)
    return not world.matching(table.name, {name: cells[name] for name in table.key if name in cells})


def _learnt_children(parent: TableInfo, tables: Tables, world: BackgroundWorld) -> list[tuple[TableInfo, ForeignKey]]:
    """The tables whose rows belong to a `parent` row, and of which every existing `parent` row has one (an
    order's lines), when there are at least `MIN_PARENTS` such rows to learn it from; learnt once.

    A row belongs to the row its key names, or else the row its first declared reference names (a line's
    order, as a schema's author writes the parent first): every product has lines too in a store where
    each sold, but a line is its order's, not its product's.
    """
    key = ("children", parent.name)
    if key not in world.learnt:
        parents = world.rows(parent.name)
        found = []
        for table in tables if len(parents) >= MIN_PARENTS else ():
            for fk in table.foreign_keys:
                if fk.target != parent.name or not _owned_through(table, fk):
                    continue
                named = {tuple(row.get(name) for name in fk.columns) for row in world.rows(table.name)}
                if all(tuple(row.get(name) for name in fk.target_columns) in named for row in parents):
                    found.append((table, fk))
        world.learnt[key] = found
    return world.learnt[key]


def add_named_owners(
    rows: list[Draft], entities: dict[str, str], tables: Tables, world: BackgroundWorld
) -> list[Draft]:
    """The rows, plus a row for each undeclared reference that no planned or existing row can satisfy.

    A column named like another table's own key (a payment's `payment_id`) points at a row of that
    table belonging to the same owner as the row itself (a payment method of the reservation's user).
    When the plan leaves such a column open and no planned or existing row of that owner exists, one
    is planned, so that the reference can be filled instead of being rejected without a way out.
    """
    added: list[Draft] = []
    for table, cells in rows:
        owners = _owner_cells(table, cells, rows, tables)
        for column in tables[table].columns.values():
            target = _named_target(column, tables)
            if target is None or column.name in cells:
                continue
            shared = {name: owners[name] for fk in target.foreign_keys for name in fk.columns if name in owners}
            if not shared or _has_owner_row(target.name, shared, rows + added, world):
                continue
            added.append((target.name, dict(shared)))
    return rows + added


def _named_target(column: Column, tables: Tables) -> TableInfo | None:
    """The table whose own key is named like this column (not a declared reference), if any."""
    if column.references is not None or column.key:
        return None
    return next((t for t in tables if t.name != column.table and column.name in t.key
                 and t.columns[column.name].references is None), None)


def _owner_cells(table: str, cells: dict[str, Any], rows: list[Draft], tables: Tables) -> dict[str, Any]:
    """The row's own cells and those of the planned rows it refers to (a payment's reservation: its user)."""
    found = dict(cells)
    for fk in tables[table].foreign_keys:
        named = {target: cells[local] for local, target in zip(fk.columns, fk.target_columns, strict=True)
                 if local in cells}
        parent = next((c for name, c in rows if name == fk.target and named
                       and all(c.get(k) == v for k, v in named.items())), None)
        for name, value in (parent or {}).items():
            found.setdefault(name, value)
    return found


def _has_owner_row(table: str, shared: dict[str, Any], rows: list[Draft], world: BackgroundWorld) -> bool:
    # A planned row that leaves the owner open will refer to the event's own owner, so it counts.
    planned = any(name == table and all(c.get(k, v) == v for k, v in shared.items()) for name, c in rows)
    literal = {k: v for k, v in shared.items() if not isinstance(v, Symbol)}
    existing = len(literal) == len(shared) and bool(world.matching(table, literal))
    return planned or existing


def _list_parts(parent: TableInfo, tables: Tables) -> list[tuple[TableInfo, ForeignKey]]:
    """Tables keyed by a reference to `parent` plus one integer position."""
    parts = []
    for table in tables:
        for fk in table.foreign_keys:
            rest = [column for column in table.key if column not in fk.columns]
            if (fk.target == parent.name and set(fk.columns) <= set(table.key) and len(rest) == 1
                    and table.columns[rest[0]].kind == "integer"):
                parts.append((table, fk))
    return parts


def _has_part(cells: dict[str, Any], part: TableInfo, fk: ForeignKey, rows: list[Draft], plan: list[Draft],
              parent: str) -> bool:
    """Whether a planned part belongs to this parent (a part naming no parent belongs to the first one)."""
    first_parent = next((c for name, c in plan if name == parent), None)
    for table, part_cells in rows:
        if table != part.name:
            continue
        named = [part_cells.get(local) for local in fk.columns]
        if all(value is None for value in named):
            if first_parent is cells:
                return True
        elif named == [cells.get(target) for target in fk.target_columns]:
            return True
    return False


def _resolvable(part: TableInfo, owner: ForeignKey, rows: list[Draft], world: BackgroundWorld) -> bool:
    """Whether every other reference of a new part can point at a planned or an existing row."""
    return all(
        any(name == fk.target for name, _ in rows) or world.rows(fk.target)
        for fk in part.foreign_keys
        if fk is not owner
    )


def _new_symbol(table: str, entities: dict[str, str], rows: list[Draft]) -> Symbol:
    used = set(entities) | {cell.name for _, cells in rows for cell in cells.values() if isinstance(cell, Symbol)}
    prefix = "".join(word[0] for word in table.split("_"))[:3].upper()
    number = next(n for n in range(1, 100) if f"{prefix}{n}" not in used)
    symbol = Symbol(f"{prefix}{number}")
    _declare_new_key(symbol, table, entities)
    return symbol


def _declare_new_key(symbol: Symbol, table: str, entities: dict[str, str]) -> None:
    """Declare a symbol the plan left undeclared as the key of a new `table` row (a declared one keeps its
    description)."""
    entities.setdefault(symbol.name, f"the key of a new {table} row")
