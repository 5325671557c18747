"""Row validators: the domain's rules for a row that a data generator proposes.

A validator is a function `(row, session) -> None` decorated with `@validator(Table)`. It raises
`RowRejected` with a message the generator can act on, or repairs the row in place and returns.
Before the domain's validators run, every row gets two generic checks: its values fit the column
types, and its foreign keys point at rows that exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import and_, select
from sqlmodel import Session, SQLModel

from intellagent.errors import UsageError


class RowRejected(Exception):
    """A proposed row breaks a rule of the domain; the message says what to change."""


@dataclass(frozen=True, eq=False)
class Validator:
    """A check of the rows of one table.

    Attributes:
        table: the SQLModel table class whose rows it checks.
        check: the decorated function, `(row, session) -> None`.
    """

    table: type[SQLModel]
    check: Callable[[Any, Session], None]

    @property
    def name(self) -> str:
        """The function's name, used in messages."""
        return getattr(self.check, "__name__", repr(self.check))

    def __call__(self, row: Any, session: Session) -> None:
        """Run the check directly (RowRejected propagates)."""
        self.check(row, session)


def validator(table: type[SQLModel]) -> Callable[[Callable[[Any, Session], None]], Validator]:
    """Register a function as a validator of `table`'s rows.

    Args:
        table: a SQLModel class declared with `table=True`.
    """
    if not is_table(table):
        raise UsageError(f"@validator needs a SQLModel table class (declared with table=True), got {table!r}")

    def decorate(check: Callable[[Any, Session], None]) -> Validator:
        return Validator(table=table, check=check)

    return decorate


def is_table(candidate: object) -> bool:
    """Whether `candidate` is a SQLModel class mapped to a table."""
    return isinstance(candidate, type) and issubclass(candidate, SQLModel) and hasattr(candidate, "__table__")


def row_problems(row: SQLModel, session: Session, validators: Sequence[Validator]) -> list[str]:
    """Messages for everything wrong with `row`: column types first, then foreign keys and `validators`."""
    return [message for _, message in broken_rules(row, session, validators)]


def broken_rules(row: SQLModel, session: Session, validators: Sequence[Validator]) -> list[tuple[str, str]]:
    """(rule, message) for every rule `row` breaks: `types`, `foreign keys`, or a validator's name.

    Domain validators only run on a well-typed row, since they may rely on the types.
    """
    types = _type_problems(row)
    if types:
        return [("types", message) for message in types]
    problems = [("foreign keys", message) for message in _foreign_key_problems(row, session)]
    for check in validators:
        try:
            check(row, session)
        except RowRejected as exc:
            problems.append((check.name, str(exc)))
        except Exception as exc:  # a validator bug must not stop generation; it is reported as a problem
            problems.append((check.name, f"{check.name} could not check the row ({type(exc).__name__}: {exc})"))
    return problems


def _type_problems(row: SQLModel) -> list[str]:
    model = type(row)
    # Table models skip validation when built directly, so the row is re-validated from its values.
    values = {name: getattr(row, name) for name in model.model_fields}
    try:
        model.model_validate(values)
    except ValidationError as exc:
        return [
            f"{model.__tablename__}.{'.'.join(str(part) for part in error['loc'])}: {error['msg']} "
            f"(got {error.get('input')!r})"
            for error in exc.errors()
        ]
    return []


def _foreign_key_problems(row: SQLModel, session: Session) -> list[str]:
    problems = []
    table = row.__table__  # type: ignore[attr-defined]
    for constraint in sorted(table.foreign_key_constraints, key=lambda c: [col.name for col in c.columns]):
        values = {element.parent.name: getattr(row, element.parent.name) for element in constraint.elements}
        if any(value is None for value in values.values()):
            continue  # a nullable reference left empty refers to nothing
        target = constraint.elements[0].column.table
        query = select(1).select_from(target).where(
            and_(*(element.column == values[element.parent.name] for element in constraint.elements))
        )
        with session.no_autoflush:
            found = session.execute(query.limit(1)).first()
        if found is None:
            shown = ", ".join(f"{name}={value!r}" for name, value in values.items())
            problems.append(f"{table.name}: {shown} matches no row of {target.name}; refer to an existing one")
    return problems
