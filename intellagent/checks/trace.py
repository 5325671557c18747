"""A finished dialog as checks read it: messages, tool calls, and the database before and after."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Claim, Message
from intellagent.checks import identifiers
from intellagent.environment import database, worlds

if TYPE_CHECKING:
    from sqlmodel import SQLModel

    from intellagent.environment.environment import Environment


@dataclass(frozen=True)
class Call:
    """One tool call (the chatbot's, or the user's of its own tools), where it was made, and what it returned."""

    turn: int
    name: str
    arguments: dict[str, Any]
    result: str | None

    def shown(self) -> str:
        """The call as one line, as findings cite it."""
        return f"{self.name}({json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)})"

    @property
    def failed(self) -> bool:
        """Whether the tool refused or failed: what it returned is an `Error: …` observation."""
        return (self.result or "").startswith("Error")


class LazyRows(Mapping[str, list[dict[str, Any]]]):
    """A world's rows as a dump (table → rows, in key order), each table read when first asked for: most
    checks read a few tables of a world of thousands of rows, or none. A subclass says how a table is read."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self._read: dict[str, list[dict[str, Any]]] = {}

    def _dump(self, table: type[SQLModel]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def __getitem__(self, name: str) -> list[dict[str, Any]]:
        if name not in self._read:
            table = self.environment.table(name)  # KeyError for a table the domain lacks, as a dict would
            self._read[name] = self._dump(table)
        return self._read[name]

    def __iter__(self) -> Iterator[str]:
        return iter([table.__tablename__ for table in self.environment.tables])

    def __len__(self) -> int:
        return len(self.environment.tables)


class WorldRows(LazyRows):
    """A database file's rows, each table read in a session of its own when first asked for."""

    def __init__(self, environment: Environment, path: Path) -> None:
        super().__init__(environment)
        self.path = path

    def _dump(self, table: type[SQLModel]) -> list[dict[str, Any]]:
        with self.environment.session(self.path) as session:
            return database.dump(session, [table])[table.__tablename__]


@dataclass(frozen=True)
class Trace:
    """Everything a check may look at.

    Attributes:
        messages: the transcript; a call's `turn` indexes it.
        environment: the domain (its tools, validators and policy).
        before: the event's database as a dump (table → rows), what the chatbot found.
        database: the dialog's database file, what the chatbot left, if the dialog had one.
        start: the event's database file, which `before` reads, if there is one.
        written: the tables the dialog wrote to, if already known (empty: nothing was written; see
            `changed_tables`).
        claims: the false claims the user made: what it claimed is no source of the chatbot's facts.
        ended: the database as the chatbot left it, as a dump, when there is no file of it (an expected
            outcome's world, checked where it was made); `after` by default reads `database`.
        agreed: a model's reading of whether the user agreed, by the index of the user's message, where one was
            asked (in any language); elsewhere the lexicon of `checks.consent` decides.
    """

    messages: list[Message]
    environment: Environment
    before: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    database: Path | None = None
    start: Path | None = None
    written: list[str] | None = None
    claims: list[Claim] = field(default_factory=list)
    ended: Mapping[str, list[dict[str, Any]]] | None = None
    agreed: Mapping[int, bool] = field(default_factory=dict)

    @cached_property
    def calls(self) -> list[Call]:
        """Every tool call of the chatbot, in order."""
        return self._calls("chatbot")

    @cached_property
    def user_calls(self) -> list[Call]:
        """Every call the user made of its own tools on its side of the world (dual control), in order: what the
        chatbot got it to do, which a check may hold to the policy too."""
        return self._calls("user")

    def side_calls(self, side: str) -> list[Call]:
        """Every call of the tools of one side of the world ("user": its device, "company"), whoever made it, in
        order: a check of what happened to the user's device reads the user's calls in a dual dialog and the
        chatbot's in a solo one, where the chatbot holds the user's tools."""
        sides = {tool.name: tool.side for tool in self.environment.every_tool}
        return [Call(turn, call.name, call.arguments, call.result) for turn, message in enumerate(self.messages)
                if message.role in ("chatbot", "user") for call in message.tool_calls
                if sides.get(call.name, "company") == side]

    def _calls(self, role: str) -> list[Call]:
        return [Call(turn, call.name, call.arguments, call.result) for turn, message in enumerate(self.messages)
                if message.role == role for call in message.tool_calls]

    @cached_property
    def after(self) -> Mapping[str, list[dict[str, Any]]]:
        """The dialog's database when it ended, as a dump (the event's if the dialog had none)."""
        if self.ended is not None:
            return self.ended
        if self.database is None:
            return self.before
        return WorldRows(self.environment, self.database)

    @cached_property
    def changed_tables(self) -> list[str]:
        """The tables the dialog wrote to (every table when the event's file is not known)."""
        if self.written is not None:
            return self.written
        if self.database is None:
            return []
        if self.start is None:
            return [table.__tablename__ for table in self.environment.tables]
        return list(worlds.changes(self.database, self.start))

    def world_holds(self, values: set[str]) -> set[str]:
        """Those of `values` that some row of the event's world holds: searched by SQLite in its file, when
        known, rather than read row by row."""
        if self.start is not None:
            return worlds.holding(self.start, values)
        return {value for rows in self.before.values() for row in rows for value in row.values() if value in values}

    def id_finder(self) -> re.Pattern[str] | None:
        """What finds, in a text, words shaped like the identifiers of the event's world (see `identifiers`):
        learnt by SQLite from its file, when known, rather than from its rows."""
        if self.start is not None:
            return identifiers.world_id_finder(self.environment, self.start)
        return identifiers.rows_id_finder(self.environment, self.before)

    def rows(self, table: str, **match: Any) -> list[dict[str, Any]]:
        """The rows of `table` before the dialog whose columns equal `match`."""
        return [row for row in self.before.get(table, []) if all(row.get(k) == v for k, v in match.items())]

    def customer_said(self) -> list[str]:
        """What the customer said, without what it claimed falsely: a claim is no source of the chatbot's facts."""
        claimed = [claim.claimed for claim in self.claims if claim.claimed]
        pattern = re.compile("|".join(rf"\b{re.escape(value)}\b" for value in claimed), re.I) if claimed else None
        said = [message.content for message in self.messages if message.role == "user"]
        return [pattern.sub(" ", content) for content in said] if pattern else said

    def last_before(self, turn: int, role: str) -> int | None:
        """The index of the last message of `role` ('user' or 'chatbot') before `turn`, if any."""
        return next((index for index in range(turn - 1, -1, -1) if self.messages[index].role == role), None)
