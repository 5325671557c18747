"""World rules: validators over a row and its related rows, run once a world is whole.

`@validator(Order, related=(OrderLine, Payment))` states a rule of an order that reads its lines and
payments. It cannot run as rows are added (an order comes before its lines), so it runs on a world:
on every row of its table for a whole world (the background), and otherwise on the rows a change may
have broken, found by following the foreign keys between the rule's table and the changed row's: a
changed order itself, the order a changed or removed line names, the payments that name a changed
order (for a rule of payments related to orders). A change to a related table that shares no foreign
key with the rule's table may touch any row, so then every row of the rule's table is checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ForeignKeyConstraint, and_
from sqlmodel import Session, SQLModel, select

from intellagent.environment.validators import RowRejected, Validator

Change = tuple[str, Mapping[str, Any]]
"""A row added, changed or removed: its table's name and its values (a removed row's as they were)."""


@dataclass(frozen=True, eq=False)
class WorldRuleBreach:
    """A row that breaks a world rule.

    Attributes:
        row: the row the rule is about (an order).
        rule: the validator's name.
        message: what the rule says is wrong.
        causes: the positions, among the changes checked, of those that led to checking this row.
    """

    row: SQLModel
    rule: str
    message: str
    causes: tuple[int, ...]


def broken_world_rules(
    session: Session, rules: Sequence[Validator], changes: Sequence[Change] | None = None
) -> list[WorldRuleBreach]:
    """Every breach of `rules` in the database of `session`, after `changes` (None: check every row).

    A world rule judges and does not repair: what it changes in a row is never kept (the callers roll
    back, or read the world apart from the session).
    """
    breaches: list[WorldRuleBreach] = []
    for rule in rules:
        if changes is None:
            subjects = {_identity(row): (row, ()) for row in session.exec(select(rule.table)).all()}
        else:
            subjects = _subjects(rule, session, changes)
        for row, causes in subjects.values():
            with session.no_autoflush:
                message = _breach(rule, row, session)
            if message is not None:
                breaches.append(WorldRuleBreach(row=row, rule=rule.name, message=message, causes=causes))
    return breaches


def _breach(rule: Validator, row: SQLModel, session: Session) -> str | None:
    try:
        rule(row, session)
    except RowRejected as exc:
        return str(exc)
    except Exception as exc:  # a rule's bug must not stop generation; it is reported as a breach
        return f"{rule.name} could not check the row ({type(exc).__name__}: {exc})"
    return None


def _subjects(
    rule: Validator, session: Session, changes: Sequence[Change]
) -> dict[tuple[Any, ...], tuple[SQLModel, tuple[int, ...]]]:
    """The rows of the rule's table that `changes` may have broken, each with the changes that point at it."""
    found: dict[tuple[Any, ...], tuple[SQLModel, tuple[int, ...]]] = {}
    subject = rule.table.__table__  # type: ignore[attr-defined]
    related = {table.__tablename__ for table in rule.related}
    for position, (name, values) in enumerate(changes):
        if name == subject.name:
            rows = _rows_where(session, rule.table, {c.name: values.get(c.name) for c in subject.primary_key.columns})
        elif name in related:
            rows = _rows_linked(session, rule.table, name, values)
        else:
            continue
        for row in rows:
            key = _identity(row)
            causes = found[key][1] if key in found else ()
            found[key] = (row, (*causes, position))
    return found


def _rows_linked(session: Session, table: type[SQLModel], name: str, values: Mapping[str, Any]) -> Iterable[SQLModel]:
    """The rows of `table` that a row of the table `name`, with `values`, refers to or is referred to by."""
    subject = table.__table__  # type: ignore[attr-defined]
    other = subject.metadata.tables[name]
    links = [(c, False) for c in other.foreign_key_constraints if _target(c) is subject]
    links += [(c, True) for c in subject.foreign_key_constraints if _target(c) is other]
    if not links:
        return session.exec(select(table)).all()
    rows: list[SQLModel] = []
    for constraint, theirs in links:
        pairs = [(e.parent.name, e.column.name) for e in constraint.elements]
        # The rule's row holds the reference (theirs), or the changed row does.
        match = {ours: values.get(target) for ours, target in pairs} if theirs else {
            target: values.get(ours) for ours, target in pairs}
        if None not in match.values():
            rows += _rows_where(session, table, match)
    return rows


def _rows_where(session: Session, table: type[SQLModel], match: Mapping[str, Any]) -> Sequence[SQLModel]:
    columns = table.__table__.c  # type: ignore[attr-defined]
    return session.exec(select(table).where(and_(*(columns[name] == value for name, value in match.items())))).all()


def _target(constraint: ForeignKeyConstraint) -> Any:
    return constraint.elements[0].column.table


def _identity(row: SQLModel) -> tuple[Any, ...]:
    table = row.__table__  # type: ignore[attr-defined]
    return (table.name, *(getattr(row, column.name) for column in table.primary_key.columns))
