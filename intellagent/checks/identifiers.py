"""The shapes of the identifiers a domain's world holds, so that an id the chatbot invents is recognised
whatever it looks like ('1234567890', '#W1234567', 'gift_card_7815826').

A column identifies rows when the schema says so (a primary key, a foreign key, a unique column) or when
its text values do (every one distinct, over at least `MIN_ROWS` rows: a tracking number the schema does
not declare unique). The shapes of its values are learnt as populate learns the shape of an id it imitates
(`value_shapes.id_pattern`): 'item 1234567890' is then an item id of ten digits, where a quantity, a
price or a year is no identifier's shape. Learnt once per world file, by SQLite.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column as SqlColumn
from sqlalchemy import Integer, String, column, distinct, func, select, table
from sqlmodel import AutoString, SQLModel

from intellagent.environment.database import connect
from intellagent.value_shapes import date_format_of, id_pattern

if TYPE_CHECKING:
    from intellagent.environment import Environment

MIN_ROWS = 5
"""Rows a column must hold, all with distinct values, to count as an identifier without being declared one."""
MIN_SHARE = 0.1
"""The share of a column's values a shape must have to be learnt: a random code that happens to be all digits
('402811' among 'ZFA04Y' and '4WQ150') makes no six-digit number an id."""
MAX_VALUES = 5000
"""Values of a column whose shapes are learnt: ids of one column come in a few shapes, seen long before this."""

WORD_ID = re.compile(r"\b(?=\w*\d)(?=\w*[A-Za-z])\w{5,}\b")
"""An id whatever the world holds: a word of five or more letters, digits or underscores with a digit and a letter."""

# An identifier stands alone: not inside a word, an amount ('$1234567') or a decimal number ('1234567.50').
_BEFORE = r"(?<![\w$])(?<![0-9][.,])"
_AFTER = r"(?![\w])(?![.,][0-9])"


def id_finder(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """A regular expression that finds any of the identifier shapes `patterns` in a text (None for none)."""
    shapes = sorted(set(patterns), key=lambda shape: (-len(shape), shape))  # the longest shape wins a tie
    return re.compile(f"{_BEFORE}(?:{'|'.join(shapes)}){_AFTER}") if shapes else None


def world_id_finder(environment: Environment, world: Path) -> re.Pattern[str] | None:
    """The finder of the identifiers the complete database `world` holds (learnt once per file version)."""
    return _file_finder(environment, world, world.stat().st_mtime_ns)


def rows_id_finder(environment: Environment, rows: Mapping[str, list[dict[str, Any]]]) -> re.Pattern[str] | None:
    """The finder of the identifiers a world given as rows (table → rows) holds."""
    patterns = []
    for model in environment.tables:
        found = rows.get(model.__tablename__, [])
        for cell in _candidates(model):
            values = [row[cell.name] for row in found if row.get(cell.name) is not None]
            if _identifying(cell, len(values), len(set(values))):
                patterns += _shapes(values[:MAX_VALUES])
    return id_finder(patterns)


@lru_cache(maxsize=8)
def _file_finder(environment: Environment, world: Path, version: int) -> re.Pattern[str] | None:
    """Per world file and version: the dialogs of one event (its trials) share it."""
    patterns = []
    with connect(world) as connection:
        for model in environment.tables:
            columns = _candidates(model)
            if not columns:
                continue
            source = table(model.__tablename__, *(column(c.name) for c in columns))
            cells = [source.c[c.name] for c in columns]
            counts = connection.execute(select(*(f(cell) for cell in cells for f in (func.count, _distinct)))).one()
            for index, (candidate, cell) in enumerate(zip(columns, cells, strict=True)):
                if _identifying(candidate, counts[2 * index], counts[2 * index + 1]):
                    query = select(cell).where(cell.is_not(None)).distinct().limit(MAX_VALUES)
                    patterns += _shapes(connection.execute(query).scalars())
    return id_finder(patterns)


def _distinct(cell: Any) -> Any:
    return func.count(distinct(cell))


def _candidates(model: type[SQLModel]) -> list[SqlColumn[Any]]:
    """The columns of a table whose values may be identifiers: text and whole numbers (not JSON, not amounts)."""
    return [cell for cell in model.__table__.columns  # type: ignore[attr-defined]
            if isinstance(cell.type, AutoString | String | Integer)]


def _identifying(cell: SqlColumn[Any], values: int, different: int) -> bool:
    """Whether a column identifies rows: the schema says so (a key, a reference, a unique column), or, for text,
    its values do by being all different (a whole number all different is as likely a count or an amount)."""
    if cell.primary_key or cell.foreign_keys or cell.unique:
        return True
    return not isinstance(cell.type, Integer) and values >= MIN_ROWS and different == values


def _shapes(values: Iterable[Any]) -> set[str]:
    """The identifier shapes of a column's `values` that `WORD_ID` does not find already (random codes such as
    '4WQ150' come in dozens of letter and digit orders, and each would be a shape), each held by at least
    `MIN_SHARE` of them; none for a column of dates."""
    texts = [str(value) for value in values]
    if date_format_of(texts):  # a column of moments, every value of which would be parsed in vain
        return set()
    shapes = Counter(None if WORD_ID.fullmatch(text) else id_pattern(text) for text in texts)
    return {shape for shape, count in shapes.items() if shape is not None and count >= MIN_SHARE * len(texts)}
