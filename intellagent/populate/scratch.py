"""The private copy of the background world in which an event's rows are tried.

An event's rows are checked by inserting them into a complete world. A fresh copy of the background
for every attempt, opened and then deleted, cost more than checking the rows; so each process keeps
one copy, open on one connection with the background attached beside it, and each attempt is a
transaction that is rolled back once its changes are read. Attempts never overlap: populate's check
runs on the event loop and never awaits.

An attempt may also start from an event's world (`apply` its changes) and run tools there, as an event's
expected outcome is verified: SQLite itself notes every table written to (`written`), through temporary
triggers that live as long as the copy, so that the world's changes are read from those tables alone.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection
from sqlmodel import Session

from intellagent.environment import worlds
from intellagent.environment.database import connect


class ScratchWorld:
    """A copy of the background world, open for one attempt at a time; open it with `ScratchWorld.open`."""

    def __init__(self, connection: Connection, shapes: worlds.Shapes) -> None:
        self._connection = connection
        self._shapes = shapes

    @classmethod
    @contextmanager
    def open(cls, background: Path) -> Iterator[ScratchWorld]:
        """A scratch copy of the complete database `background`, removed on exit."""
        with tempfile.TemporaryDirectory(prefix="intellagent-scratch-") as folder:
            copy = Path(folder) / "world.sqlite"
            shutil.copyfile(background, copy)
            with connect(copy) as connection:
                # Nothing here outlives the process: no journal on disk, no waiting for the disk.
                connection.exec_driver_sql("PRAGMA journal_mode=MEMORY")
                connection.exec_driver_sql("PRAGMA synchronous=OFF")
                connection.exec_driver_sql("ATTACH DATABASE ? AS base", (str(background),))
                # Read once: the tables never change, and reading them was half the cost of an attempt's changes.
                shapes = worlds.table_shapes(connection)
                _note_writes(connection, shapes)
                connection.commit()
                yield cls(connection, shapes)

    @contextmanager
    def attempt(self) -> Iterator[Session]:
        """A session on the copy as the background has it; whatever the attempt writes is undone on exit.

        The session's own commits and rollbacks stay inside the attempt (savepoints).
        """
        transaction = self._connection.begin()
        # Begun here, not left to the driver, which begins no transaction before a savepoint: releasing the
        # session's savepoint would then commit the attempt.
        self._connection.exec_driver_sql("BEGIN")
        try:
            with Session(self._connection, join_transaction_mode="create_savepoint") as session:
                yield session
        finally:
            transaction.rollback()

    def changes(self, *, tables: Iterable[str] | None = None) -> worlds.Changes:
        """What the attempt under way has written, over the background (see `worlds.changes`)."""
        return worlds.changes_over_base(self._connection, tables=tables, shapes=self._shapes)

    def apply(self, found: worlds.Changes) -> None:
        """Make the attempt under way start from the world `found` (its changes over the background) makes."""
        worlds.apply_changes(self._connection, found)

    def written(self) -> set[str]:
        """The tables written to in the attempt under way since the last time this was asked."""
        names = {name for (name,) in self._connection.exec_driver_sql(f"SELECT name FROM {_WRITTEN}")}
        if names:
            self._connection.exec_driver_sql(f"DELETE FROM {_WRITTEN}")
        return names

    def changes_since(self, world: worlds.Changes, *, tables: Iterable[str]) -> worlds.Changes:
        """What the attempt under way has written over the world `world` (its changes over the background)
        makes, when only `tables` were written since (see `worlds.changes_over_world`)."""
        return worlds.changes_over_world(self._connection, world, tables=tables, shapes=self._shapes)

    def held(self, table: str, shape: worlds.TableChanges, keys: Iterable[list[object]], *,
             background: bool = False) -> dict[tuple[object, ...], list[object]]:
        """The rows of `table` at these keys in the attempt under way (or, with `background`, in the background),
        as SQLite holds them."""
        return worlds.rows_at(self._connection, table, shape, keys, schema="base" if background else None)


_WRITTEN = "intellagent_written"
"""The temporary table of the tables written to since last asked, one row each, noted by SQLite's own triggers
(named bare: a trigger may not qualify the table it writes, and SQLite finds a temporary table first)."""


def _note_writes(connection: Connection, shapes: worlds.Shapes) -> None:
    """Temporary triggers that note, in `_WRITTEN`, every table an insert, update or delete reaches: a tool may
    write by any means, the ORM's or plain SQL."""
    connection.exec_driver_sql(f"CREATE TEMP TABLE {_WRITTEN} (name TEXT PRIMARY KEY)")
    for number, name in enumerate(shapes):
        quoted, literal = '"' + name.replace('"', '""') + '"', "'" + name.replace("'", "''") + "'"
        for operation in ("INSERT", "UPDATE", "DELETE"):
            trigger = f"intellagent_wrote_{number}_{operation.lower()}"
            connection.exec_driver_sql(f"CREATE TEMP TRIGGER {trigger} AFTER {operation} ON main.{quoted} "
                                       f"BEGIN INSERT OR IGNORE INTO {_WRITTEN} VALUES ({literal}); END")
