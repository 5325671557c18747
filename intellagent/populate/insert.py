"""Validation and insertion of an event's rows, with messages the model can act on.

Each row, in insertion order, must have a key no existing row has, fit the column types, refer to
rows that exist and pass the domain's row validators; then it is inserted, so that the rows after it can
refer to it. A row that refers to a rejected row is not judged on its own until that row is fixed. Once
every row is in, the domain's world rules (validators over a row and its related rows) judge the rows
the event's rows may have broken; a breach rejects the event's row it is about, or else the event's
rows that led to it (a line added to an existing order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, SQLModel

from intellagent.environment.database import row_lookup
from intellagent.populate.rows import AssembledRow
from intellagent.populate.tables import TableInfo, Tables

if TYPE_CHECKING:
    from intellagent.environment import Environment


@dataclass
class Rejection:
    """A row that could not be inserted, and why."""

    label: str
    messages: list[str]

    def describe(self) -> str:
        """One line: the row's label and every message."""
        return f"{self.label}: " + "; ".join(self.messages)


def insert_rows(
    env: Environment, tables: Tables, session: Session, rows: list[AssembledRow]
) -> tuple[list[SQLModel], list[Rejection]]:
    """Validate and insert `rows` into `session`; return the inserted rows and the rejections.

    A row whose key is written as plain values (no symbol) and names an existing row of the
    background world stands for that row: it replaces it, so the plan can put an existing row into
    the state the scenario needs. A new entity (a key held by a symbol) must not collide with any row.
    The caller commits only when nothing was rejected. Domain validators may repair a row in place,
    so the inserted rows, not the assembled values, are what the database holds.
    """
    inserted: list[SQLModel] = []
    own: set[tuple[str, tuple[Any, ...]]] = set()  # the keys of the event's inserted rows, by table
    rejected: list[AssembledRow] = []
    rejections: list[Rejection] = []
    for row in rows:
        table = tables[row.table]
        if _refers_to_rejected(table, row, rejected, tables):
            rejected.append(row)
            continue
        instance = table.model(**row.values)
        holder = _key_holder(table, row, session, own)
        replaces = holder == "world" and not any(name in row.symbols for name in table.key)
        messages = ([] if replaces else _key_problems(table, row, session, taken=holder is not None)) or [
            _with_symbols(message, row) for message in env.validate(instance, session)
        ]
        if messages:
            rejected.append(row)
            rejections.append(Rejection(row.label, messages))
            continue
        try:
            if replaces:
                instance = session.merge(instance)
            else:
                session.add(instance)
            session.flush()
        except SQLAlchemyError as error:
            # The session cannot go on after a failed flush; the rest is judged after the repair.
            session.rollback()
            rejections.append(Rejection(row.label, [_first_line(error)]))
            return inserted, rejections
        inserted.append(instance)
        own.add((table.name, tuple(getattr(instance, name) for name in table.key)))
    if not rejections and env.world_rules:
        rejections = _world_rejections(env, tables, session, rows, inserted)
    return inserted, rejections


def _world_rejections(
    env: Environment, tables: Tables, session: Session, rows: list[AssembledRow], inserted: list[SQLModel]
) -> list[Rejection]:
    """The rejections of the world rules over the event's rows, all inserted (in `rows`' order)."""
    changes = [(row.table, instance.model_dump()) for row, instance in zip(rows, inserted, strict=True)]
    labels = {(row.table, tables[row.table].key_of(values)): row for row, (_, values) in zip(rows, changes,
                                                                                              strict=True)}
    messages: dict[str, list[str]] = {}
    for breach in env.broken_world_rules(session, changes):
        table = tables[breach.row.__tablename__]
        own = labels.get((table.name, table.key_of(breach.row.model_dump())))
        for row in [own] if own is not None else [rows[position] for position in breach.causes]:
            messages.setdefault(row.label, []).append(_with_symbols(breach.message, row))
    return [Rejection(label, found) for label, found in messages.items()]


def _key_holder(table: TableInfo, row: AssembledRow, session: Session,
                own: set[tuple[str, tuple[Any, ...]]]) -> Literal["event", "world"] | None:
    """Which rows already have the row's key: an earlier row of the event's, the world's, or none (or the key
    is not whole).

    A lookup (`row_lookup`), not the ORM's `get`: building the world's row as an object cost nearly a
    millisecond, the largest part of checking a row.
    """
    key = table.key_of(row.values)
    if None in key:
        return None
    if (table.name, key) in own:
        return "event"
    lookup = row_lookup(table.model.__table__, table.key)  # type: ignore[attr-defined]
    return "world" if session.execute(lookup, dict(zip(table.key, key, strict=True))).first() else None


def describe_rejected(rows: list[AssembledRow], rejections: list[Rejection]) -> str:
    """The rejected rows as the model reads them: each with its values (and symbols) and its reasons."""
    by_label = {row.label: row for row in rows}
    lines = []
    for rejection in rejections:
        row = by_label[rejection.label]
        shown = ", ".join(
            f"{name}={row.symbols[name]} ({value!r})" if name in row.symbols else f"{name}={value!r}"
            for name, value in row.values.items()
            if value is not None
        )
        lines.append(f"- {rejection.label} (table {row.table}): {shown}")
        lines += [f"  rejected because: {message}" for message in rejection.messages]
    return "\n".join(lines)


def _key_problems(table: TableInfo, row: AssembledRow, session: Session, *, taken: bool) -> list[str]:
    """A key (`taken`: an existing row or an earlier row of the event has it) or a unique value that is not new."""
    problems = []
    key = {name: row.values.get(name) for name in table.key}
    if taken:
        problems.append(f"{table.name} already has a row with {_show(key)}; {_new_value_hint(key, row)}")
    for column in table.columns.values():
        value = row.values.get(column.name)
        if not column.unique or column.key or value is None:
            continue
        lookup = row_lookup(table.model.__table__, (column.name,))  # type: ignore[attr-defined]
        if session.execute(lookup, {column.name: value}).first():
            problems.append(f"{table.name} already has {_show({column.name: value})}; "
                            f"{_new_value_hint({column.name: value}, row)}")
    return problems


def _new_value_hint(values: dict[str, Any], row: AssembledRow) -> str:
    symbols = [row.symbols[name] for name in values if name in row.symbols]
    if symbols:
        return f"give {', '.join(symbols)} a value no existing row has (an existing row is referred to, not planned)"
    return "choose a new value"


def _refers_to_rejected(table: TableInfo, row: AssembledRow, rejected: list[AssembledRow], tables: Tables) -> bool:
    """Whether the row points at a rejected row: by a foreign key, or by a column named like its own key."""
    for other in rejected:
        if other.table == table.name:
            continue
        for fk in table.foreign_keys:
            if fk.target == other.table and [row.values.get(c) for c in fk.columns] == [
                other.values.get(c) for c in fk.target_columns
            ]:
                return True
        target = tables[other.table]
        for name in target.key:
            named = target.columns[name].references is None and name in row.values
            if named and row.values[name] == other.values[name]:
                return True
    return False


def _with_symbols(message: str, row: AssembledRow) -> str:
    """A message with the symbols of the row's cells, so the model knows which symbol to change."""
    held = [f"{column}={symbol}" for column, symbol in row.symbols.items()]
    return f"{message} (symbols in this row: {', '.join(held)})" if held else message


def _show(values: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
