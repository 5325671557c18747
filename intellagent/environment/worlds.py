"""Worlds stored by difference: a world is a complete SQLite file, or a delta over another world.

An event's world is the run's background plus the few rows its scenario needs, and a dialog's is its
event's plus what the chatbot wrote; kept as complete files they cost the whole world each (700 KB on a
world of 7,000 rows), for a few KB of rows of their own. So each is stored as a delta, `<id>.delta.json`: the world
it stands on (its base, a path relative to the delta's own folder, which may be another delta) and, per
table, the rows it adds or changes and the keys of the rows it removes. `materialize` makes the complete
database again, in milliseconds, wherever one is needed: the chatbot's tools, the checks, or `sqlite3`
(`python run.py --world PATH`).

A delta holds values as SQLite stores them, so reading and rebuilding a world need none of the domain's
classes and give back every value exactly. A world's delta is found by SQLite itself, as a set
difference against its base attached to the same connection; Python handles the changed rows only.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, and_, bindparam, column, delete, func, insert, or_, select, table, true
from sqlalchemy.sql.expression import Delete, Insert, TableClause

from intellagent.environment.database import connect
from intellagent.files import DELTA_SUFFIX, write_atomic

SIDE_FILES = ("-journal", "-wal", "-shm")
"""SQLite's side files: an attempt interrupted mid-write may leave them next to a database."""


@dataclass(frozen=True)
class TableChanges:
    """What a world changes in one table over its base; values as SQLite stores them.

    Attributes:
        columns: the table's columns, in order.
        key: the primary-key columns (every column, for a table without a primary key).
        rows: the rows the world has and its base has not, as they are (added or changed), in key order.
        removed: the keys of the base's rows the world has no row for, in key order.
    """

    columns: list[str]
    key: list[str]
    rows: list[list[Any]]
    removed: list[list[Any]]


Changes = dict[str, TableChanges]
"""The changed tables of a world, by name; a table with no change is left out."""

Shapes = dict[str, tuple[list[str], list[str]]]
"""Every table's columns and primary-key columns, by name (see `table_shapes`)."""


def is_delta(path: Path) -> bool:
    """Whether `path` names a delta rather than a complete database."""
    return path.name.endswith(DELTA_SUFFIX)


def changes(world: Path, base: Path, *, tables: Iterable[str] | None = None) -> Changes:
    """What the complete database `world` adds, changes and removes over the complete database `base`.

    Args:
        tables: the only tables that may differ, when the caller knows (default: every table is compared).

    Raises:
        ValueError: a table of `world` is missing from `base`.
    """
    with connect(world) as connection:
        connection.exec_driver_sql("ATTACH DATABASE ? AS base", (str(base),))
        shapes = table_shapes(connection)
        missing = set(shapes) - set(table_shapes(connection, "base"))
        if missing:
            raise ValueError(f"{base} has no table {', '.join(sorted(missing))}: it is not the base of {world}")
        return changes_over_base(connection, tables=tables, shapes=shapes)


def changes_over_base(connection: Connection, *, tables: Iterable[str] | None = None,
                      shapes: Shapes | None = None) -> Changes:
    """What the main database of `connection` adds, changes and removes over the database attached to it as
    `base` (which has every table of the main one); in a transaction, its uncommitted rows count.

    Args:
        tables: the only tables that may differ, when the caller knows (default: every table is compared).
        shapes: the tables' columns and keys (see `table_shapes`), when the caller has them already.
    """
    found: Changes = {}
    for name, (columns, key) in (shapes or table_shapes(connection)).items():
        if tables is not None and name not in tables:
            continue
        here, there = _table(name, columns), _table(name, columns, schema="base")
        order = [column(k) for k in key]
        rows = connection.execute(select(*here.c).except_(select(*there.c)).order_by(*order)).all()
        gone = connection.execute(
            select(*(there.c[k] for k in key)).except_(select(*(here.c[k] for k in key))).order_by(*order)
        ).all()
        if rows or gone:
            found[name] = TableChanges(columns, key, [_jsonable(row) for row in rows],
                                       [_jsonable(row) for row in gone])
    return found


def changes_over_world(connection: Connection, world: Changes, *, tables: Iterable[str],
                       shapes: Shapes | None = None) -> Changes:
    """What the main database of `connection` changes over a world given by its changes over the database
    attached as `base` (`world`), when only `tables` may differ from that world.

    A world's end state is found as it stands, with no copy of the world it started from: over the common
    base first, then row by row against the world's own changes (a few rows).
    """
    names = set(tables)
    over_base = changes_over_base(connection, tables=names, shapes=shapes)
    found: Changes = {}
    for name in sorted(names):
        ours, theirs = over_base.get(name), world.get(name)
        if ours is None and theirs is None:
            continue
        shape = ours or theirs
        assert shape is not None
        columns, key = shape.columns, shape.key
        rows, removed = _rebased(connection, name, columns, key, ours, theirs)
        if rows or removed:
            found[name] = TableChanges(columns, key, rows, removed)
    return found


def _rebased(connection: Connection, name: str, columns: list[str], key: list[str], ours: TableChanges | None,
             theirs: TableChanges | None) -> tuple[list[list[Any]], list[list[Any]]]:
    """The rows one table adds or changes, and the keys it removes, over a world, from both sides' changes over
    their common base."""
    where = [columns.index(k) for k in key]
    their_rows = {tuple(row[i] for i in where): row for row in (theirs.rows if theirs else [])}
    their_removed = {tuple(values) for values in (theirs.removed if theirs else [])}
    our_rows = {tuple(row[i] for i in where): row for row in (ours.rows if ours else [])}
    our_removed = {tuple(values) for values in (ours.removed if ours else [])}
    rows = [row for k, row in our_rows.items() if their_rows.get(k) != row]
    removed = [list(k) for k in our_removed - their_removed]
    # A row the world changed and this one shows as the base has it: restored to the base's row, or gone.
    restored = (their_rows.keys() | their_removed) - our_rows.keys() - our_removed
    held = _rows_at(connection, name, columns, key, list(restored))
    for k in restored:
        if k in held:
            rows.append(held[k])
        elif k not in their_removed:
            removed.append(list(k))
    order = [columns.index(k) for k in key]
    rows.sort(key=lambda row: tuple(row[i] for i in order))
    removed.sort()
    return rows, removed


def rows_at(connection: Connection, name: str, shape: TableChanges, keys: Iterable[list[Any]], *,
            schema: str | None = None) -> dict[tuple[Any, ...], list[Any]]:
    """The rows of table `name` (of `schema`: the main database by default) at these keys, by key, as SQLite
    holds them; a key with no row is left out."""
    return _rows_at(connection, name, shape.columns, shape.key, [tuple(k) for k in keys], schema=schema)


def _rows_at(connection: Connection, name: str, columns: list[str], key: list[str], keys: list[tuple[Any, ...]], *,
             schema: str | None = None) -> dict[tuple[Any, ...], list[Any]]:
    if not keys:
        return {}
    shown = _table(name, columns, schema=schema)
    match = or_(*(and_(*(shown.c[k] == value for k, value in zip(key, values, strict=True))) for values in keys))
    where = [columns.index(k) for k in key]
    found = (_jsonable(row) for row in connection.execute(select(*shown.c).where(match)))
    return {tuple(row[i] for i in where): row for row in found}


def stored_changes(delta: Path) -> Changes:
    """What a stored world changes over the world it stands on, as its delta file holds it.

    Raises:
        FileNotFoundError: the delta is missing.
    """
    return {name: TableChanges(**changed) for name, changed in _read(delta)["tables"].items()}


def records(found: Changes) -> dict[str, tuple[str, list[Any] | None]]:
    """The records a world's changes name, each as `table key` with its table and its row (None: removed), for
    comparing two worlds' changes over one base record by record."""
    named: dict[str, tuple[str, list[Any] | None]] = {}
    for name, changed in found.items():
        where = [changed.columns.index(k) for k in changed.key]
        for row in changed.rows:
            named[record_name(name, [row[i] for i in where])] = (name, row)
        for values in changed.removed:
            named[record_name(name, values)] = (name, None)
    return named


def record_name(table: str, key: Iterable[Any]) -> str:
    """A record as reports name it: its table and its key's values, `reservations 4WQ150`."""
    return f"{table} {', '.join(str(value) for value in key)}"


def record_key(name: str) -> list[str]:
    """The key's values of a record named by `record_name`, as text (`reservations 4WQ150` → ['4WQ150'])."""
    return name.partition(" ")[2].split(", ")


def save_delta(path: Path, *, base: Path, found: Changes) -> None:
    """Write the delta file `path`: `found` over the world at `base` (a complete database or a delta)."""
    document = {
        "base": Path(os.path.relpath(Path(base).resolve(), path.parent.resolve())).as_posix(),
        "tables": {name: vars(changed) for name, changed in found.items()},
    }
    write_atomic(path, json.dumps(document, ensure_ascii=False) + "\n")


def whole_path(delta: Path) -> Path:
    """Where the complete database a delta stands for is written beside it: `S001.delta.json` → `S001.sqlite`."""
    return delta.with_name(delta.name.removesuffix(DELTA_SUFFIX) + ".sqlite")


def root(world: Path) -> Path:
    """The complete database a world is built on: itself, or the end of its chain of bases."""
    return _chain(world)[1]


def tables_changed(world: Path) -> set[str]:
    """The tables in which a world differs from its root (none, for a complete database)."""
    return {name for _, delta in _chain(world)[0] for name in delta["tables"]}


def materialize(world: str | Path, target: str | Path) -> None:
    """Write at `target` the complete database `world` stands for (a copy, if it is complete already),
    replacing whatever an earlier attempt left there.

    Args:
        world: a stored world: `<id>.delta.json`, or a complete database.
        target: where to write the complete database.

    Raises:
        FileNotFoundError: `world`, or a world it stands on, is missing.
    """
    target = Path(target)
    deltas, complete = _chain(Path(world))
    if not complete.is_file():
        raise FileNotFoundError(f"the database {complete} is missing; run the stage that made it again")
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", *SIDE_FILES):
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    shutil.copyfile(complete, target)
    for _, delta in reversed(deltas):
        _apply(delta["tables"], target)


def holding(world: Path, values: Iterable[str]) -> set[str]:
    """Those of `values` that some column of the complete database `world` holds, searched by SQLite."""
    wanted = set(values)
    if not wanted:
        return set()
    found: set[str] = set()
    with connect(world) as connection:
        for name, (columns, _) in table_shapes(connection).items():
            shown = _table(name, columns)
            query = select(*shown.c).where(or_(*(cell.in_(wanted) for cell in shown.c)))
            found.update(value for row in connection.execute(query) for value in row if value in wanted)
    return found


def digest(found: Changes, base: Path) -> str:
    """The sha256 hex digest of the world that `found` (its changes) makes of the complete database `base`:
    worlds with equal rows on one base have equal digests, and it costs their changed rows only."""
    if not found:
        return root_digest(base)
    return _sha256({"over": root_digest(base), "tables": {name: vars(changed) for name, changed in found.items()}})


def world_digest(world: Path, stored: Path, found: Changes) -> str:
    """The digest of the complete database `world`, whose changes over the stored world `stored` are `found`.

    Elsewhere `world` is its root's: only the tables it or `stored` changed are compared with the root.
    """
    base = root(stored)
    return digest(changes(world, base, tables=set(found) | tables_changed(stored)), base)


def root_digest(path: Path) -> str:
    """The sha256 hex digest of a complete database's rows, read once per version of the file."""
    stat = path.stat()
    return _root_digest(path.resolve(), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _root_digest(path: Path, version: int, size: int) -> str:
    with connect(path) as connection:
        document = {}
        for name, (columns, key) in table_shapes(connection).items():
            query = select(*_table(name, columns).c).order_by(*(column(k) for k in key))
            document[name] = [_jsonable(row) for row in connection.execute(query)]
    return _sha256(document)


def _apply(tables: dict[str, dict[str, Any]], target: Path) -> None:
    """Bring the complete database `target` from a delta's base to the delta's world."""
    with connect(target) as connection, connection.begin():
        apply_changes(connection, {name: TableChanges(**changed) for name, changed in tables.items()})


def apply_changes(connection: Connection, found: Changes) -> None:
    """Bring the main database of `connection` from a world to the one `found` (its changes) makes of it, in the
    transaction under way."""
    for name, changed in found.items():
        removing, adding = _replacing(name, tuple(changed.columns), tuple(changed.key))
        key = changed.key
        rows = [dict(zip(changed.columns, _stored(row), strict=True)) for row in changed.rows]
        keys = [dict(zip(key, _stored(values), strict=True)) for values in changed.removed]
        keys += [{k: row[k] for k in key} for row in rows]  # a changed row is replaced whole
        if keys:
            connection.execute(removing, [{f"key_{i}": values[k] for i, k in enumerate(key)} for values in keys])
        if rows:
            connection.execute(adding, rows)


@lru_cache(maxsize=256)
def _replacing(name: str, columns: tuple[str, ...], key: tuple[str, ...]) -> tuple[Delete, Insert]:
    """The statements that remove a table's rows by key and insert rows whole, built once per table so that
    SQLAlchemy finds them compiled at once: building them for every world applied cost more than running them."""
    shown = _table(name, list(columns))
    match = and_(*(shown.c[k] == bindparam(f"key_{i}") for i, k in enumerate(key)))
    return delete(shown).where(match), insert(shown)


def files(world: Path) -> list[Path]:
    """The files a world is made of: its own, then each delta it stands on, down to the complete database."""
    deltas, complete = _chain(world)
    return [path for path, _ in deltas] + [complete]


def _chain(world: Path) -> tuple[list[tuple[Path, dict[str, Any]]], Path]:
    """The deltas from `world` down to its root (the world's own first), each with its path, and that complete
    database."""
    deltas = []
    while is_delta(world):
        deltas.append((world, _read(world)))
        world = _base(world, deltas[-1][1])
    return deltas, world


def _base(delta: Path, document: dict[str, Any]) -> Path:
    return Path(os.path.normpath(delta.parent / document["base"]))


def table_shapes(connection: Connection, schema: str | None = None) -> Shapes:
    """Every table's columns and primary key (every column, when it has none), by name, from SQLite's own
    table_info in one query: reflecting each table took most of the time of finding a small world's changes."""
    master = table("sqlite_master", column("type"), column("name"), schema=schema)
    info = func.pragma_table_info(master.c.name, schema or "main").table_valued("cid", "name", "pk")
    query = (select(master.c.name, info.c.name, info.c.pk).select_from(master).join(info, true())
             .where(master.c.type == "table", ~master.c.name.startswith("sqlite_"))
             .order_by(master.c.name, info.c.cid))
    columns: dict[str, list[str]] = {}
    keys: dict[str, list[tuple[int, str]]] = {}
    for name, cell, position in connection.execute(query):
        columns.setdefault(name, []).append(cell)
        if position:  # its place in the primary key, from 1
            keys.setdefault(name, []).append((position, cell))
    return {name: (cells, [cell for _, cell in sorted(keys.get(name, []))] or cells) for name, cells in columns.items()}


def _table(name: str, columns: list[str], *, schema: str | None = None) -> TableClause:
    """A table by name alone: its values are read and written as SQLite holds them, with no type's processing."""
    return table(name, *(column(c) for c in columns), schema=schema)


def _jsonable(values: Any) -> list[Any]:
    return [{"blob": value.hex()} if isinstance(value, bytes) else value for value in values]


def _stored(values: list[Any]) -> Iterator[Any]:
    return (bytes.fromhex(value["blob"]) if isinstance(value, dict) else value for value in values)


def _read(delta: Path) -> dict[str, Any]:
    if not delta.is_file():
        raise FileNotFoundError(f"the world {delta} is missing; run the stage that made it again")
    return json.loads(delta.read_text(encoding="utf-8"))


def _sha256(document: object) -> str:
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
