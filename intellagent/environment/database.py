"""One SQLite file per world: creating it, opening a session on it, and its canonical dump.

Each dialog gets its own file so that tools running in one conversation never see another's changes.
The dump lists every table with rows sorted by primary key, so two databases holding the same rows
dump alike whatever order the rows were written in. (How worlds are stored, and digested: `worlds`.)

Every file is reached through one engine, which connects to the file being opened: an engine per file
would bring a dialect of its own, and the ORM keeps a compiled-statement cache per dialect alive, so a
run's memory would grow with every event it built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import PlainSerializer, WithJsonSchema, WrapSerializer
from pydantic_core import to_jsonable_python
from sqlalchemy import Connection, Select, String, Table, and_, bindparam, event, inspect, literal
from sqlalchemy.engine import Dialect
from sqlalchemy.pool import NullPool
from sqlalchemy.types import TypeDecorator
from sqlmodel import Session, SQLModel, create_engine, select

Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
"""A number that stays an int or a float as given (pydantic's smart union keeps the type)."""


class ExactNumber(TypeDecorator[int | float]):
    """A column for a `Number`: stored as JSON text, so `250`, `250.0` and `-0.0` come back as they went in.

    SQLite's column affinities would turn 250.0 into 250 (or the reverse), and some domains tell them apart.
    """

    impl = String
    cache_ok = True

    def process_bind_param(self, value: int | float | None, dialect: Dialect) -> str | None:
        """Write the number as JSON text."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"expected a number, got {value!r}")
        return json.dumps(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> int | float | None:
        """Read the number back with its type."""
        return None if value is None else json.loads(value)

    def compare_values(self, x: Any, y: Any) -> bool:
        """Equal only if stored alike: 100 -> 100.0 is a change to write, though 100 == 100.0."""
        return json.dumps(x) == json.dumps(y)


_ENGINE = create_engine("sqlite:///database-being-opened.db", poolclass=NullPool)
"""The one engine of every database file; NullPool, since a pooled connection would stay on its first file."""

_OPENING: ContextVar[Path] = ContextVar("database being opened")


@event.listens_for(_ENGINE, "do_connect")
def _connect_to_the_file_being_opened(dialect: Dialect, record: Any, cargs: list[Any], cparams: dict[str, Any]) -> None:
    cargs[0] = str(_OPENING.get())  # the dialect's own connect arguments, pointed at the file `connect` names


@event.listens_for(SQLModel, "load", propagate=True)
@event.listens_for(SQLModel, "refresh", propagate=True)
def _fields_in_declared_order(row: SQLModel, *_: Any) -> None:
    """Give a row read from a database its fields in the order its table declares them.

    SQLAlchemy fills a row's attributes in an order of its own, which follows its objects' ids and so
    changes from one process to the next; `row.model_dump()`, which a tool may return, keeps that order.
    The chatbot would then see the same row written differently in two processes (two Ray workers, a
    run and its replay), and the request that carries it would miss the LLM cache.
    """
    values = row.__dict__
    declared = {name: values.pop(name) for name in type(row).model_fields if name in values}
    values.update(declared)


@contextmanager
def connect(path: Path) -> Iterator[Connection]:
    """A connection to the SQLite file at `path` (created if missing), closed on exit."""
    token = _OPENING.set(path.resolve())
    try:
        connection = _ENGINE.connect()
    finally:
        _OPENING.reset(token)
    with connection:
        yield connection


def create_database(
    path: Path,
    tables: Sequence[type[SQLModel]],
    *,
    seed: int,
    generate: Callable[[Session, int], None] | None = None,
) -> None:
    """Create (or replace) the SQLite file at `path` with `tables`, filled by `generate(session, seed)` if given.

    Args:
        path: the database file; its folder is created if missing, an existing file is replaced.
        tables: the table classes, parents before children.
        seed: passed to `generate`, so the same seed gives the same rows.
        generate: the domain's background world generator, or None for empty tables.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with connect(path) as connection, connection.begin():
        for table in tables:
            table.__table__.create(connection)  # type: ignore[attr-defined]
    if generate is not None:
        with open_session(path) as session:
            generate(session, seed)


@contextmanager
def open_session(path: Path) -> Iterator[Session]:
    """A session bound to the database file at `path` only; committed on a clean exit, rolled back otherwise.

    Raises:
        FileNotFoundError: there is no database at `path` (SQLite would silently create an empty one).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"database {path} does not exist; create it with create_database first")
    with connect(path) as connection, Session(connection) as session:
        yield session
        session.commit()


def dump(session: Session, tables: Sequence[type[SQLModel]]) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows as JSON-ready dicts, keyed by table name, rows sorted by primary key."""
    content = {}
    for table in tables:
        if plainly_serialised(table):
            content[table.__tablename__] = [values for values, _ in plain_rows(session, table)]
        else:  # in column order, not the order the ORM happened to load them in
            content[table.__tablename__] = [dumped(row) for row in orm_rows(session, table)]
    return content


def dumped(row: SQLModel) -> dict[str, Any]:
    """One row as `dump` gives it: JSON-ready values, in its table's column order."""
    return _in_order(row.model_dump(mode="json"), list(type(row).model_fields))


def orm_rows(session: Session, table: type[SQLModel]) -> Sequence[SQLModel]:
    """A table's rows as ORM objects, in primary-key order."""
    return session.exec(select(table).order_by(*table.__table__.primary_key.columns)).all()  # type: ignore[attr-defined]


def plain_rows(session: Session, table: type[SQLModel]) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    """A plainly serialised table's rows in primary-key order: each as its JSON-ready dump, with its primary key
    as `Session.get` takes it. Read as plain rows: making an ORM object of every row of a world took six times
    as long."""
    columns = list(table.model_fields)
    identity = [columns.index(column.name) for column in inspect(table).primary_key]
    query = select(*(table.__table__.c[column] for column in columns))  # type: ignore[attr-defined]
    for row in session.connection().execute(query.order_by(*table.__table__.primary_key.columns)):  # type: ignore[attr-defined]
        yield dict(zip(columns, to_jsonable_python(tuple(row)), strict=True)), tuple(row[i] for i in identity)


@cache
def row_lookup(table: Table, columns: tuple[str, ...], parameters: tuple[str, ...] | None = None) -> Select[Any]:
    """Whether `table` has a row with given values in `columns`, passed as parameters named `parameters`
    (by default, after the columns).

    Built once per table and columns, so SQLAlchemy compiles it once and finds it again at once: a statement
    built for each row checked cost more than three times the lookup itself.
    """
    names = parameters or columns
    match = (table.c[column] == bindparam(name) for column, name in zip(columns, names, strict=True))
    return select(literal(1)).where(and_(*match)).limit(1)


@cache
def plainly_serialised(table: type[SQLModel]) -> bool:
    """Whether a table's rows dump to JSON as their column values do: every field a column of its name, and
    no serializer or computed field of the model's own that `model_dump` would apply."""
    decorators = table.__pydantic_decorators__
    if decorators.field_serializers or decorators.model_serializers or decorators.computed_fields:
        return False
    columns = table.__table__.c  # type: ignore[attr-defined]
    return all(name in columns and not any(isinstance(m, PlainSerializer | WrapSerializer) for m in field.metadata)
               for name, field in table.model_fields.items())


def _in_order(values: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    return {column: values[column] for column in columns}
