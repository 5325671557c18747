"""The world of the chatbot under test: its policy, tables, tools, validators, checks, background world,
and what it provides to play τ-bench's tasks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import event
from sqlmodel import Session, SQLModel, select

from intellagent.environment import database
from intellagent.environment.checks import Check
from intellagent.environment.tools import Side, Tool
from intellagent.environment.validators import ReferenceIndex, Validator, broken_rules, row_problems
from intellagent.environment.world_rules import Change, WorldRuleBreach, broken_world_rules
from intellagent.imports import error_line, user_code

TauDocument = dict[str, dict[str, Any]]
"""A τ-bench world: for each part (users, reservations, ...), its records by id."""


class TauDomain(Protocol):
    """What a domain provides to play τ-bench's tasks: its data in and out of its tables.

    τ-bench keeps a domain's world as one JSON document; the domain's module (`environment.tau` in the
    config) loads that document into the domain's tables and exports the tables back as the same
    document, so that the hash of an exported state is the hash τ-bench computes for the same calls.
    """

    def build_tau_database(self, env: Environment, folder: Path, path: Path) -> None:
        """Create the SQLite file `path` holding the τ-bench data of `folder`."""

    def export_tau(self, session: Session) -> TauDocument:
        """The tables of an open database as a τ-bench document."""


@dataclass(frozen=True, eq=False)
class Environment:
    """A loaded domain; build it with `load_environment`.

    Attributes:
        name: the domain's name, the policy file's stem ("support" for support.md).
        policy: the policy document, which is the chatbot's system prompt.
        tables: the SQLModel table classes, parents before children (foreign-key order). A table whose
            `__table_args__` hold `{"info": {"side": "user"}}` is the user's (see `side`).
        tools: the chatbot's tools.
        validators: the row validators, in definition order.
        background: the `generate(session, seed)` that builds the base world, if the domain has one.
        checks: the domain's deterministic checks of a dialog (the framework adds its own).
        tau: the domain's τ-bench module, which plays τ-bench's published tasks, if it has one.
        user_tools: the user's own tools on its side of the world (its device, its app), which the simulated
            user calls and the chatbot never gets (unless a dialog is played solo, see `solo`).
        sync: what carries a change made on one side of the world to the other (a payment made on the user's
            device reaching the company's bill), run after every tool call that returned, if the domain has it.
        solo_policy: the policy a solo dialog's chatbot gets instead of `policy`, if the domain has one.
    """

    name: str
    policy: str
    tables: list[type[SQLModel]]
    tools: list[Tool]
    validators: list[Validator] = field(default_factory=list)
    background: Callable[[Session, int], None] | None = None
    checks: list[Check[Any]] = field(default_factory=list)
    tau: TauDomain | None = None
    user_tools: list[Tool] = field(default_factory=list)
    sync: Callable[[Session], None] | None = None
    solo_policy: str | None = None

    def table(self, name: str) -> type[SQLModel]:
        """The table class whose `__tablename__` is `name`.

        Raises:
            KeyError: no such table; the message lists the known ones.
        """
        for table in self.tables:
            if table.__tablename__ == name:
                return table
        raise KeyError(f"no table {name!r} in {self.name}; tables are {', '.join(self._table_names())}")

    def tool(self, name: str) -> Tool:
        """The tool called `name`, the chatbot's or the user's.

        Raises:
            KeyError: no such tool; the message lists the known ones.
        """
        found = self._named_tool(name)
        if found is not None:
            return found
        raise KeyError(f"no tool {name!r} in {self.name}; tools are {', '.join(t.name for t in self.every_tool)}")

    def required_arguments(self, name: str | None) -> list[str]:
        """The required arguments of the tool called `name`: none for no name, or one the domain has no tool of."""
        found = self._named_tool(name)
        return list(found.parameters.get("required", [])) if found else []

    def _named_tool(self, name: str | None) -> Tool | None:
        return next((tool for tool in self.every_tool if tool.name == name), None)

    @property
    def every_tool(self) -> list[Tool]:
        """The chatbot's tools, then the user's."""
        return [*self.tools, *self.user_tools]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool of the chatbot in OpenAI function-calling format."""
        return [tool.schema() for tool in self.tools]

    @staticmethod
    def side(table: type[SQLModel]) -> Side:
        """Whose `table` is: "user" when its `__table_args__` hold `{"info": {"side": "user"}}`, else "company"."""
        return "user" if table.__table__.info.get("side") == "user" else "company"  # type: ignore[attr-defined]

    @property
    def user_tables(self) -> list[type[SQLModel]]:
        """The tables of the user's side, which only the user's tools write."""
        return [table for table in self.tables if self.side(table) == "user"]

    @cached_property
    def solo(self) -> Environment:
        """The domain as a solo dialog has it (τ²-bench's ablation): the user's tools are the chatbot's too, and
        the user has none; each tool still writes only its own side's tables; the chatbot's policy is the solo one
        where the domain has one. Made once, so that what is made per kind of world (a chatbot's tool schemas) is
        made once for every solo dialog."""
        return replace(self, policy=self.solo_policy or self.policy, tools=self.every_tool, user_tools=[])

    def call_tool(self, session: Session, name: str, arguments: Mapping[str, Any], *,
                  by: Side | None = "company") -> str:
        """Run a tool and return what its caller sees; never raises.

        A tool that returns has its writes committed, with what the domain's `sync` carries across to the other
        side; one that raises is rolled back, and so is one that writes a table of the other side (the domain's
        mistake, answered as an error). An unknown name,
        arguments that do not fit the schema, or an exception become an `Error: ...` string. A non-string
        return value is sent as JSON text.

        Args:
            by: who calls: the chatbot ("company", which may call only its own tools), the user ("user", only
                the user's tools), or None (any tool: an expected outcome run by the framework).
        """
        known = self.every_tool if by is None else self.tools if by == "company" else self.user_tools
        tool = next((candidate for candidate in known if candidate.name == name), None)
        if tool is None:
            return f"Error: unknown tool {name!r}; the tools are {', '.join(t.name for t in known)}"
        guard = _SideGuard(self, tool)
        event.listen(session, "before_flush", guard)
        try:
            result = tool.run(session, arguments)
            text = result if isinstance(result, str) else json.dumps(result)
            session.flush()  # the tool's own writes, under the guard; what sync carries across is not the tool's
            event.remove(session, "before_flush", guard)
            if self.sync is not None:
                self.sync(session)
            session.commit()  # inside the try: a write the database refuses is an error like any other
        except Exception as exc:  # the chatbot gets the error as its observation, as a real API would answer
            session.rollback()
            return f"Error: {error_line(exc)}"
        finally:
            if event.contains(session, "before_flush", guard):
                event.remove(session, "before_flush", guard)
        return text

    def validate(self, row: SQLModel, session: Session) -> list[str]:
        """Everything wrong with a proposed row (empty: accepted); validators may repair it in place.

        Raises:
            KeyError: the row's class is not one of this environment's tables.
        """
        table = type(row)
        if table not in self.tables:
            names = ", ".join(self._table_names())
            raise KeyError(f"{table.__name__} is not a table of {self.name}; tables are {names}")
        return row_problems(row, session, self.row_validators(table))

    def row_validators(self, table: type[SQLModel]) -> list[Validator]:
        """The validators of one row of `table` alone, which run as each row is added."""
        return [v for v in self.validators if v.table is table and not v.world_level]

    @property
    def world_rules(self) -> list[Validator]:
        """The validators that also read related rows, which run once a world is whole (see `world_rules`)."""
        return [v for v in self.validators if v.world_level]

    def broken_world_rules(self, session: Session, changes: Sequence[Change] | None = None) -> list[WorldRuleBreach]:
        """The world rules that the database breaks after `changes` (tables and values of the rows added,
        changed or removed; None: every row is checked)."""
        return broken_world_rules(session, self.world_rules, changes) if self.world_rules else []

    def broken_rows(
        self,
        session: Session,
        *,
        besides: Mapping[str, list[dict[str, Any]]] | None = None,
        tables: Iterable[str] | None = None,
    ) -> Iterator[str]:
        """Every row of the database that breaks a rule, one line each: table, row key, rule and message.

        Row rules first, then world rules: on every row when nothing is known valid, otherwise on the rows
        that the rows added, changed or removed since `besides` may have broken. Nothing is changed:
        repairs a validator makes in place are rolled back.

        Args:
            session: the database to check.
            besides: a dump (see `dump`) of rows known to be valid, such as the background world's:
                a row equal to one of them is not checked again, so checking an event costs its own rows.
            tables: the names of the tables to check (default: every table).
        """
        # Nothing changes while the rows are checked: a whole world's references are looked up in sets.
        references = ReferenceIndex(session) if besides is None else None
        names = None if tables is None else set(tables)
        chosen = [table for table in self.tables if names is None or table.__tablename__ in names]
        watched = {t for rule in self.world_rules for t in (rule.table, *rule.related)}
        changes: list[Change] = []
        try:
            for table in chosen:
                checks = self.row_validators(table)
                dumped = (besides or {}).get(table.__tablename__, [])
                known = {_canonical(row) for row in dumped}
                for row in self._unknown_rows(session, table, known):
                    with session.no_autoflush:
                        problems = broken_rules(row, session, checks, references=references)
                    yield from (f"{_shown(row)} breaks {rule}: {message}" for rule, message in problems)
                    if table in watched:
                        changes.append((table.__tablename__, {name: getattr(row, name) for name in table.model_fields}))
                if besides is not None and table in watched:
                    changes += [(table.__tablename__, row) for row in _removed(session, table, dumped)]
            rules = [rule for rule in self.world_rules if names is None
                     or any(t.__tablename__ in names for t in (rule.table, *rule.related))]
            for breach in broken_world_rules(session, rules, None if besides is None else changes):
                yield f"{_shown(breach.row)} breaks {breach.rule}: {breach.message}"
        finally:
            session.rollback()

    def broken_changes(self, session: Session, changed: Sequence[SQLModel],
                       removed: Sequence[Change] = ()) -> list[str]:
        """Every rule that the rows just added or changed break, and the world rules that they and the rows just
        removed may have broken; one line each, as `broken_rows` words them. Nothing is changed: repairs a
        validator makes in place are rolled back.

        Args:
            session: the database the changes were made in.
            changed: the rows added or changed, as they are now.
            removed: the rows removed, each as its table's name and its values as they were.
        """
        problems: list[str] = []
        changes: list[Change] = []
        try:
            for row in changed:
                table = type(row)
                with session.no_autoflush:
                    found = broken_rules(row, session, self.row_validators(table))
                problems += [f"{_shown(row)} breaks {rule}: {message}" for rule, message in found]
                changes.append((row.__tablename__, {name: getattr(row, name) for name in table.model_fields}))
            for breach in self.broken_world_rules(session, [*changes, *removed]):
                problems.append(f"{_shown(breach.row)} breaks {breach.rule}: {breach.message}")
        finally:
            session.rollback()
        return problems

    @staticmethod
    def _unknown_rows(session: Session, table: type[SQLModel], known: set[str]) -> Iterator[SQLModel]:
        """The rows of `table` whose canonical dump is not in `known`, in primary-key order; only those are
        made ORM objects, so an event's check costs its own rows, not its world's."""
        if known and database.plainly_serialised(table):
            for values, identity in database.plain_rows(session, table):
                if _canonical(values) not in known:
                    yield session.get_one(table, identity)
            return
        for row in database.orm_rows(session, table):
            if not known or _canonical(row.model_dump(mode="json")) not in known:
                yield row

    def create_database(self, path: Path, *, seed: int, background: bool = True) -> None:
        """Create (or replace) an event's SQLite file with every table, plus the seeded background world.

        Args:
            path: the file to create.
            seed: the background generator's seed; the same seed gives a byte-identical file.
            background: whether to build the background world (a domain without one gets empty tables).

        Raises:
            DomainCodeError: the domain's background generator raised; the message names it, where and what.
        """
        generate = self._background if background and self.background is not None else None
        database.create_database(path, self.tables, seed=seed, generate=generate)

    def _background(self, session: Session, seed: int) -> None:
        """The domain's background generator, whose failure (its rows refused by the database included) is one
        line naming it."""
        assert self.background is not None
        with user_code("environment.background", self.background, fix="fix the domain's background generator or "
                       "the files it reads"):
            self.background(session, seed)
            session.flush()  # a row the database refuses (a key given twice) is the generator's, not a later commit's

    def session(self, path: Path) -> AbstractContextManager[Session]:
        """A session bound to one event's database file; committed on a clean exit."""
        return database.open_session(path)

    def dump(self, session: Session) -> dict[str, list[dict[str, Any]]]:
        """The canonical dump: every table, rows sorted by primary key, JSON-ready values."""
        return database.dump(session, self.tables)

    def _table_names(self) -> Iterator[str]:
        return (table.__tablename__ for table in self.tables)


class SideWriteError(RuntimeError):
    """A tool wrote a table of the other side: the domain's tool is wrong, not its caller."""


@dataclass(frozen=True)
class _SideGuard:
    """Refuses, as a tool's session flushes, a write to a table that is not of the tool's side: a chatbot's tool
    never changes the user's device, and the user's tools change nothing of the company's. Writes made through
    the ORM are caught (raw SQL is not: a domain's tools use the session's objects)."""

    environment: Environment
    tool: Tool

    def __call__(self, session: Session, context: Any, instances: Any) -> None:
        for row in (*session.new, *session.dirty, *session.deleted):
            table = type(row)
            if (table in self.environment.tables and self.environment.side(table) != self.tool.side
                    and (row not in session.dirty or session.is_modified(row))):
                whose = "the user's" if self.tool.side == "company" else "the company's"
                raise SideWriteError(f"{self.tool.name} wrote {table.__tablename__}, a table of {whose} side, which "
                                     f"only {'the user' if self.tool.side == 'company' else 'the chatbot'}'s tools "
                                     "may change; fix the domain's tool")


def _canonical(row: Mapping[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def _shown(row: SQLModel) -> str:
    """A row as messages name it: its table and its key, `store_orders row ('#W1234567')`."""
    key = ", ".join(repr(getattr(row, column.name)) for column in row.__table__.primary_key.columns)  # type: ignore[attr-defined]
    return f"{row.__tablename__} row ({key})"


def _removed(session: Session, table: type[SQLModel], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Those of `rows` (a dump of `table` known before) whose key the table no longer holds."""
    if not rows:
        return []
    key = [column.name for column in table.__table__.primary_key.columns]  # type: ignore[attr-defined]
    held = {tuple(found) for found in session.execute(select(*(getattr(table, name) for name in key)))}
    return [row for row in rows if tuple(row[name] for name in key) not in held]
