"""The private copy of the background world in which an event's rows are tried.

An event's rows are checked by inserting them into a complete world. A fresh copy of the background
for every attempt, opened and then deleted, cost more than checking the rows; so each process keeps
one copy, open on one connection with the background attached beside it, and each attempt is a
transaction that is rolled back once its changes are read. Attempts never overlap: populate's check
runs on the event loop and never awaits.
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
