"""What the populate stage needs to know of a domain's tables: columns, types, keys and references.

Read once from the SQLModel classes, so that answer models, value generation and validation all see
the same picture of the schema.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from sqlmodel import SQLModel

from intellagent.environment.generation import Generation, generation_of

Kind = Literal["text", "integer", "number", "boolean", "structured"]


@dataclass(frozen=True)
class ForeignKey:
    """Columns of a table that together name a row of another table."""

    columns: tuple[str, ...]
    target: str
    target_columns: tuple[str, ...]


@dataclass(frozen=True)
class Column:
    """One column, as the generator sees it.

    Attributes:
        annotation: the Python type of a value, without `None` (e.g. `int`, `dict[str, Any]`).
        kind: the family of the type, which decides how a value is generated and shown.
        key: whether the column is part of the primary key.
        references: the foreign key the column belongs to, if any.
        generation: what the domain says about generating its values (see `generation`).
    """

    table: str
    name: str
    annotation: Any
    kind: Kind
    nullable: bool
    key: bool
    unique: bool
    description: str
    references: ForeignKey | None
    generation: Generation = field(default_factory=Generation)

    @property
    def generated(self) -> bool:
        """Whether rows get a value here: an optional structured (JSON) column is left empty."""
        return not (self.kind == "structured" and self.nullable)


@dataclass(frozen=True, eq=False)
class TableInfo:
    """A table: its SQLModel class, columns in declaration order, key and foreign keys."""

    name: str
    model: type[SQLModel]
    columns: dict[str, Column]
    key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...]

    def generated_columns(self) -> list[Column]:
        """The columns a generated row fills, in declaration order."""
        return [column for column in self.columns.values() if column.generated]

    @property
    def identifying(self) -> set[str]:
        """The columns whose values name a record: the table's key, and its references to other tables."""
        return {*self.key, *(column for key in self.foreign_keys for column in key.columns)}

    @property
    def own_key(self) -> tuple[str, ...]:
        """The key's columns that are the table's own, not references to another's (a booking's id, not a segment's
        booking)."""
        return tuple(name for name in self.key if self.columns[name].references is None)

    def key_of(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """The primary key of a row given by its values."""
        return tuple(values.get(name) for name in self.key)


class Tables:
    """Every table of a domain, parents before children (the order rows are inserted in)."""

    def __init__(self, models: Sequence[type[SQLModel]]) -> None:
        self._tables = {info.name: info for info in (describe_table(model) for model in models)}

    def __getitem__(self, name: str) -> TableInfo:
        return self._tables[name]

    def __iter__(self) -> Iterator[TableInfo]:
        return iter(self._tables.values())

    @property
    def names(self) -> list[str]:
        """Table names in dependency order."""
        return list(self._tables)

    def order(self, name: str) -> int:
        """The position of a table in dependency order."""
        return self.names.index(name)

    def keyed_by(self, column: str) -> TableInfo | None:
        """The table whose own key is `column` alone (`reservation_id`: the reservations), if one is."""
        return next((table for table in self if table.own_key == (column,)), None)

    def referenced(self) -> list[TableInfo]:
        """Tables that some foreign key points at: the ones whose rows a new row may refer to."""
        targets = {fk.target for table in self for fk in table.foreign_keys}
        return [table for table in self if table.name in targets]


def describe_table(model: type[SQLModel]) -> TableInfo:
    """The `TableInfo` of a SQLModel table class."""
    table = model.__table__  # type: ignore[attr-defined]
    foreign_keys = tuple(
        ForeignKey(
            columns=tuple(element.parent.name for element in constraint.elements),
            target=constraint.elements[0].column.table.name,
            target_columns=tuple(element.column.name for element in constraint.elements),
        )
        for constraint in sorted(table.foreign_key_constraints, key=lambda c: [col.name for col in c.columns])
    )
    columns = {}
    for name, info in model.model_fields.items():
        sql_column = table.columns[name]
        annotation = _without_none(info.annotation)
        columns[name] = Column(
            table=table.name,
            name=name,
            annotation=annotation,
            kind=kind_of(annotation),
            nullable=bool(sql_column.nullable),
            key=bool(sql_column.primary_key),
            unique=bool(sql_column.unique),
            description=info.description or "",
            references=next((fk for fk in foreign_keys if name in fk.columns), None),
            generation=generation_of(info),
        )
    key = tuple(column.name for column in table.primary_key.columns)
    return TableInfo(name=table.name, model=model, columns=columns, key=key, foreign_keys=foreign_keys)


def kind_of(annotation: Any) -> Kind:
    """The family of a column type: text, integer, number, boolean or structured (JSON)."""
    if typing.get_origin(annotation) is Annotated:
        return kind_of(typing.get_args(annotation)[0])
    members = _union_members(annotation)
    if len(members) > 1:
        kinds = {kind_of(member) for member in members}
        return "number" if kinds <= {"integer", "number"} else "structured"
    if annotation is bool:
        return "boolean"
    if annotation is int:
        return "integer"
    if annotation is float:
        return "number"
    if annotation is str or (isinstance(annotation, type) and issubclass(annotation, str)):
        return "text"
    return "structured"


def _without_none(annotation: Any) -> Any:
    members = [member for member in _union_members(annotation) if member is not type(None)]
    if len(members) == len(_union_members(annotation)):
        return annotation
    return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007


def _union_members(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)
