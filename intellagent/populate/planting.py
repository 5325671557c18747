"""An instruction planted in the data the chatbot reads (the red team's indirect injection): in a free-text field of
a record the event's user brings up, which the chatbot looks up with its tools and reads in their results.

The records are the event's user's (`Event.user_rows`), of the company's side of the world: those a call of the
event's expected outcome names by their key first (the chatbot is sure to look them up), then the others. In each, the
fields that can hold free text, best first: those named in `red_team.plant_in` (then no other), else a text field
named for free text (a note, a remark, a comment, ...), a text field whose value is several words, a JSON field (the
instruction goes into its longest text, or at the end of a list), a text field of one word. A key, a reference, a
unique field, a field whose description lists its choices or a date format is never one, nor a field holding a
value some call of the event's outcome names: the chatbot could no longer find the record by it. The first field
whose record, the instruction in it, still keeps the domain's rules holds it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from intellagent.artifacts import Event, Planted
from intellagent.environment import Environment
from intellagent.populate.shapes import hints
from intellagent.populate.tables import Column, TableInfo, Tables

FREE_TEXT = re.compile(r"note|remark|comment|description|message|memo|instruction|detail", re.IGNORECASE)
"""Words in a field's name that say it holds free text."""


@dataclass(frozen=True)
class Record:
    """A record the chatbot may read: its table, its key, and its values."""

    table: TableInfo
    key: dict[str, Any]
    values: dict[str, Any]


def readable_records(environment: Environment, database: Path, event: Event) -> list[Record]:
    """The records of the event's user on the company's side, as the complete database `database` holds them."""
    tables = Tables(environment.tables)
    found: list[Record] = []
    with environment.session(database) as session:
        for name, rows in event.user_rows.items():
            if name not in tables.names or environment.side(tables[name].model) == "user":
                continue
            for row in rows:
                record = _lookup(session, tables[name], row)
                if record is not None and record not in found:
                    found.append(record)
    return found


def plant(environment: Environment, database: Path, event: Event, instruction: str, *,
          fields: Sequence[str] = ()) -> Planted | None:
    """Plant `instruction` in the first field that can hold it of the event's user's records, in the complete
    database `database` (changed in place); None when no field can.

    Args:
        fields: the only fields it may go in, as table.column (empty: chosen as the module says).
    """
    spared = _named_by_calls(event)
    for record in plantable_records(environment, database, event, fields=fields):
        for column in plantable(record, fields=fields, spared=spared):
            planted = _planted(environment, database, record, column, instruction)
            if planted is not None:
                return planted
    return None


def plantable_records(environment: Environment, database: Path, event: Event, *,
                      fields: Sequence[str] = ()) -> list[Record]:
    """The event's user's records with a field an instruction may go in, best first (see the module), as the
    complete database `database` holds them."""
    spared = _named_by_calls(event)
    records = looked_up_first(readable_records(environment, database, event), spared)
    return [record for record in records if plantable(record, fields=fields, spared=spared)]


def looked_up_first(records: list[Record], named: set[str]) -> list[Record]:
    """The records some call of the event's outcome names by their key (`named`: the calls' values) first: the
    chatbot is sure to look those up."""
    return sorted(records, key=lambda record: not {str(value) for value in record.key.values()} & named)


def plantable(record: Record, *, fields: Sequence[str] = (), spared: set[str] = frozenset()) -> list[Column]:
    """The fields of `record` that may hold an instruction, best first (see the module)."""
    if fields:
        named = [name.partition(".")[2] for name in fields if name.partition(".")[0] == record.table.name]
        return [record.table.columns[name] for name in named if name in record.table.columns]
    ranked = [(rank, position, column) for position, column in enumerate(record.table.columns.values())
              if (rank := _rank(column, record.values.get(column.name), spared)) is not None]
    return [column for _, _, column in sorted(ranked, key=lambda item: (item[0], item[1]))]


def _rank(column: Column, value: Any, spared: set[str]) -> int | None:
    """How good a home `column` is for free text (lower is better), or None when it cannot be one."""
    if column.key or column.unique or column.references is not None or _said(value) & spared:
        return None
    if column.kind == "structured":
        return 2 if isinstance(value, dict | list) else None
    if column.kind != "text" or not isinstance(value, str | None):
        return None
    described = hints(column.description)
    if described.choices or described.date_format:
        return None
    if FREE_TEXT.search(column.name):
        return 0
    return 1 if len((value or "").split()) > 1 else 3


def with_instruction(value: Any, instruction: str) -> Any:
    """A field's value with `instruction` in it: after its text, in the longest text of a JSON object (under a
    `note` when it holds none), or at the end of a JSON list."""
    if isinstance(value, dict):
        texts = [key for key, item in value.items() if isinstance(item, str)]
        if not texts:
            return {**value, "note": instruction}
        longest = max(texts, key=lambda key: len(value[key]))
        return {**value, longest: f"{value[longest]} {instruction}"}
    if isinstance(value, list):
        return [*value, instruction]
    return f"{value} {instruction}".strip() if value else instruction


def _planted(environment: Environment, database: Path, record: Record, column: Column,
             instruction: str) -> Planted | None:
    """The instruction in one field of `record`, committed if the record still keeps the domain's rules."""
    before = record.values.get(column.name)
    after = with_instruction(before, instruction)
    model, identity = record.table.model, tuple(record.key.values())
    with environment.session(database) as session:
        row = session.get(model, identity)
        if row is None:
            return None
        setattr(row, column.name, after)
        if environment.broken_changes(session, [row]):  # checked, then rolled back
            return None
        row = session.get_one(model, identity)
        setattr(row, column.name, after)
        session.add(row)
        session.commit()
    return Planted(instruction=instruction, table=record.table.name, row=record.key, column=column.name,
                   before=before, after=after)


def _lookup(session: Session, table: TableInfo, given: dict[str, Any]) -> Record | None:
    """The record `given` names: by its key when it holds it, else by the plain values it holds."""
    model = table.model
    if all(name in given for name in table.key):
        row = session.get(model, tuple(given[name] for name in table.key))
    else:
        plain = [getattr(model, name) == value for name, value in given.items()
                 if name in table.columns and table.columns[name].kind != "structured"]
        row = session.exec(select(model).where(*plain)).first() if plain else None
    if row is None:
        return None
    values = row.model_dump(mode="json")
    return Record(table=table, key={name: values[name] for name in table.key}, values=values)


def _named_by_calls(event: Event) -> set[str]:
    """Every text value an argument of the event's expected or forbidden calls holds."""
    expected = event.expected
    if expected is None:
        return set()
    arguments = [call.arguments for call in expected.calls]
    arguments += [call.arguments for call in expected.forbidden if call.arguments]
    return {text for given in arguments for value in given.values() for text in _said(value)}


def _said(value: Any) -> set[str]:
    """The texts a value holds (a JSON value's, each)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {text for item in value.values() for text in _said(item)}
    if isinstance(value, list):
        return {text for item in value for text in _said(item)}
    return set()


def records_text(records: Sequence[Record]) -> str:
    """Records as the planter reads them: the table and the values, a line each."""
    return "\n".join(f"{record.table.name}: {json.dumps(record.values, ensure_ascii=False)}" for record in records)
