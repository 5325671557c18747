"""Row validators: the domain's rules for a row that a data generator proposes.

A validator is a function `(row, session) -> None` decorated with `@validator(Table)`. It raises
`RowRejected` with a message the generator can act on, or repairs the row in place and returns.
Before the domain's validators run, every row gets two generic checks: its values fit the column
types, and its foreign keys point at rows that exist.

A rule that also reads other rows (an order holds at least one line) names their tables,
`@validator(Order, related=(OrderLine,))`: it is a world rule, run once every row of a world is in place
rather than as each row is added, since an order is inserted before its lines (see `world_rules`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError, create_model
from sqlalchemy import ForeignKeyConstraint, select
from sqlmodel import Session, SQLModel

from intellagent.environment.database import row_lookup
from intellagent.errors import UsageError
from intellagent.imports import culprit, error_line


class RowRejected(Exception):
    """A proposed row breaks a rule of the domain; the message says what to change."""


@dataclass(frozen=True, eq=False)
class Validator:
    """A check of the rows of one table.

    Attributes:
        table: the SQLModel table class whose rows it checks.
        check: the decorated function, `(row, session) -> None`.
        related: the tables of the other rows it reads; a validator with any is a world rule.
    """

    table: type[SQLModel]
    check: Callable[[Any, Session], None]
    related: tuple[type[SQLModel], ...] = ()

    @property
    def world_level(self) -> bool:
        """Whether it reads related rows, and so runs on a whole world rather than on each row as it is added."""
        return bool(self.related)

    @property
    def name(self) -> str:
        """The function's name, used in messages."""
        return getattr(self.check, "__name__", repr(self.check))

    def __call__(self, row: Any, session: Session) -> None:
        """Run the check directly (RowRejected propagates)."""
        self.check(row, session)


def validator(
    table: type[SQLModel], *, related: Sequence[type[SQLModel]] = ()
) -> Callable[[Callable[[Any, Session], None]], Validator]:
    """Register a function as a validator of `table`'s rows.

    Args:
        table: a SQLModel class declared with `table=True`.
        related: the tables of the other rows the rule reads (an order's lines and payments). Such a
            rule runs once a world is whole: on the background world, on an event's world once all its
            rows are in, and after the chatbot's writes; again on a row whenever it or a row of a related
            table that refers to it (or that it refers to) changes. It judges and does not repair.
    """
    for named in (table, *related):
        if not is_table(named):
            raise UsageError(f"@validator needs a SQLModel table class (declared with table=True), got {named!r}")

    def decorate(check: Callable[[Any, Session], None]) -> Validator:
        return Validator(table=table, check=check, related=tuple(related))

    return decorate


def is_table(candidate: object) -> bool:
    """Whether `candidate` is a SQLModel class mapped to a table."""
    return isinstance(candidate, type) and issubclass(candidate, SQLModel) and hasattr(candidate, "__table__")


def row_problems(row: SQLModel, session: Session, validators: Sequence[Validator]) -> list[str]:
    """Messages for everything wrong with `row`: column types first, then foreign keys and `validators`."""
    return [message for _, message in broken_rules(row, session, validators)]


class ReferenceIndex:
    """The keys a foreign key may name, read once per constraint, for checking many rows of an unchanging
    world: a query per row cost about 2 s on a world of 7,000 rows."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._keys: dict[ForeignKeyConstraint, set[tuple[Any, ...]]] = {}

    def names_a_row(self, constraint: ForeignKeyConstraint, values: tuple[Any, ...]) -> bool:
        """Whether a row of the constraint's target table has these values in the referenced columns."""
        if constraint not in self._keys:
            columns = [element.column for element in constraint.elements]
            self._keys[constraint] = {tuple(key) for key in self.session.execute(select(*columns))}
        return values in self._keys[constraint]


def broken_rules(
    row: SQLModel, session: Session, validators: Sequence[Validator], *, references: ReferenceIndex | None = None
) -> list[tuple[str, str]]:
    """(rule, message) for every rule `row` breaks: `types`, `foreign keys`, or a validator's name.

    Domain validators only run on a well-typed row, since they may rely on the types.

    Args:
        references: where to look up the rows a foreign key names, when the world does not change while
            its rows are checked; without it, each reference is a query.
    """
    types = _type_problems(row)
    if types:
        return [("types", message) for message in types]
    problems = [("foreign keys", message) for message in _foreign_key_problems(row, session, references)]
    for check in validators:
        try:
            check(row, session)
        except RowRejected as exc:
            problems.append((check.name, str(exc)))
        except Exception as exc:  # a validator bug must not stop generation; it is reported as a problem
            problems.append((check.name, f"{culprit(check.check, exc)} could not check the row "
                                         f"({type(exc).__name__}: {error_line(exc)})"))
    return problems


def _type_problems(row: SQLModel) -> list[str]:
    model = type(row)
    # Table models skip validation when built directly, so the row is re-validated from its values.
    values = {name: getattr(row, name) for name in model.model_fields}
    try:
        _values_model(model).model_validate(values)
    except ValidationError as exc:
        return [
            f"{model.__tablename__}.{'.'.join(str(part) for part in error['loc'])}: {error['msg']} "
            f"(got {error.get('input')!r})"
            for error in exc.errors()
        ]
    return []


@cache
def _values_model(model: type[SQLModel]) -> type[BaseModel]:
    """What validates a table's values: a plain model of its fields, as validating the table model itself
    builds an ORM object (25 times slower); the table model when it has validators of its own."""
    decorators = model.__pydantic_decorators__
    own = ("validators", "field_validators", "root_validators", "model_validators")
    if any(getattr(decorators, kind) for kind in own):
        return model
    fields: dict[str, Any] = {name: (field.annotation, field) for name, field in model.model_fields.items()}
    return create_model(f"{model.__name__}Values", **fields)


def _foreign_key_problems(row: SQLModel, session: Session, references: ReferenceIndex | None) -> list[str]:
    problems = []
    table = row.__table__  # type: ignore[attr-defined]
    for constraint in sorted(table.foreign_key_constraints, key=lambda c: [col.name for col in c.columns]):
        values = {element.parent.name: getattr(row, element.parent.name) for element in constraint.elements}
        if any(value is None for value in values.values()):
            continue  # a nullable reference left empty refers to nothing
        target = constraint.elements[0].column.table
        if references is not None:
            found = references.names_a_row(constraint, tuple(values.values()))
        else:
            lookup = row_lookup(target, tuple(element.column.name for element in constraint.elements),
                                tuple(values))
            with session.no_autoflush:
                found = session.execute(lookup, values).first() is not None
        if not found:
            shown = ", ".join(f"{name}={value!r}" for name, value in values.items())
            problems.append(f"{table.name}: {shown} matches no row of {target.name}; refer to an existing one")
    return problems
