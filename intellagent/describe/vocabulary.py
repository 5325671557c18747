"""The names a compiled answer may use: the domain's tools, their arguments, its tables and their columns.

An answer that names a tool, an argument or a column (a procedure's step, an assertion) is constrained to
these names by enums built at run time, so a model cannot invent one; what kind of value each holds (text,
a number, a list, ...) is read from the tool's argument schema and the table's model, so that an assertion
comparing a text column by size is refused when it is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Literal

from intellagent.environment import Environment

ValueKind = Literal["text", "number", "bool", "list", "object"]

_KINDS: dict[str, ValueKind] = {"string": "text", "integer": "number", "number": "number", "boolean": "bool",
                                "array": "list", "object": "object"}
DESCRIPTION_CHARACTERS = 140
"""Characters of a tool's or a column's description the prompt shows: what it is, and the values it takes."""


@dataclass(frozen=True)
class Name:
    """A tool's argument or a table's column: what kind of value it holds, its values when they are few, and its
    description."""

    kind: ValueKind
    description: str = ""
    choices: tuple[Any, ...] = ()
    key: bool = False


@dataclass(frozen=True)
class ToolNames:
    """A tool: whether it writes, what it does, and its arguments."""

    writes: bool
    ends_dialog: bool
    description: str
    arguments: dict[str, Name]


@dataclass(frozen=True)
class Vocabulary:
    """Every name of a domain an answer may use.

    Attributes:
        tools: tool name → what it is.
        tables: table name → column name → what it holds.
    """

    tools: dict[str, ToolNames]
    tables: dict[str, dict[str, Name]]

    @classmethod
    def of(cls, environment: Environment) -> Vocabulary:
        """The names of a loaded domain."""
        tools = {tool.name: ToolNames(writes=tool.writes, ends_dialog=tool.ends_dialog,
                                      description=_short(tool.description), arguments=_names(tool.parameters))
                 for tool in environment.tools}
        tables = {}
        for table in environment.tables:
            keys = {column.name for column in table.__table__.primary_key.columns}  # type: ignore[attr-defined]
            tables[table.__tablename__] = {name: replace(found, key=name in keys) for name, found in
                                           _names(table.model_json_schema()).items()}
        return cls(tools=tools, tables=tables)

    @property
    def arguments(self) -> list[str]:
        """Every argument as `tool.argument`."""
        return [f"{tool}.{name}" for tool, names in self.tools.items() for name in names.arguments]

    @property
    def columns(self) -> list[str]:
        """Every column as `table.column`."""
        return [f"{table}.{name}" for table, names in self.tables.items() for name in names]

    def listing(self, *, tables: bool = True) -> str:
        """The tools (and `tables`) as the prompts show them, one per line with their arguments and columns."""
        lines = ["Tools:"]
        for name, tool in self.tools.items():
            effect = "changes the world" if tool.writes else "ends the conversation" if tool.ends_dialog else "reads"
            lines.append(f"- {name} ({effect}): {tool.description}")
            lines += [f"    - {name}.{arg}: {_shown(found)}" for arg, found in tool.arguments.items()]
        if not tables:
            return "\n".join(lines)
        lines.append("Tables:")
        for table, columns in self.tables.items():
            lines.append(f"- {table}")
            lines += [f"    - {table}.{column}: {_shown(found)}" for column, found in columns.items()]
        return "\n".join(lines)


def enum(name: str, values: list[str]) -> type[Enum]:
    """An enum of `values`, which a JSON schema lists once (under `$defs`) however often an answer uses it."""
    return Enum(name, [(value, value) for value in values], type=str)  # type: ignore[return-value]


def _names(schema: dict[str, Any]) -> dict[str, Name]:
    """The properties of an object's JSON schema, each with its kind, choices and description."""
    definitions = schema.get("$defs", {})
    found = {}
    for name, part in schema.get("properties", {}).items():
        found[name] = _name(part, definitions)
    return found


def _name(part: dict[str, Any], definitions: dict[str, Any]) -> Name:
    described = part.get("description", "")
    options = [option for option in part.get("anyOf", [part]) if option.get("type") != "null"]
    first = options[0] if options else part
    if "$ref" in first:
        first = definitions.get(first["$ref"].rsplit("/", 1)[-1], {})
    choices = tuple(first.get("enum", ())) or ((first["const"],) if "const" in first else ())
    kind = _KINDS.get(first.get("type", ""), "text" if choices else "object")
    return Name(kind=kind, description=_short(described or first.get("description", "")), choices=choices)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= DESCRIPTION_CHARACTERS else flat[:DESCRIPTION_CHARACTERS - 1] + "…"


def _shown(name: Name) -> str:
    parts = [name.kind + (", key" if name.key else "")]
    if name.choices:
        parts.append("one of " + ", ".join(repr(choice) for choice in name.choices))
    if name.description:
        parts.append(name.description)
    return "; ".join(parts)
