"""The schemas of the populate stage's structured answers, built at run time from the domain's tables.

Every answer can only name what exists: tables are a closed set, each row's fields are that table's
columns with their SQLModel types, and value answers have one slot per planned row and per symbol.
A schema-constrained model cannot step outside; any other model that does gets the answer back with
a message naming the unknown table or column.
"""

from __future__ import annotations

import copy
import typing
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import InitErrorDetails

from intellagent.populate.symbols import SYMBOL_PATTERN
from intellagent.populate.tables import Column, TableInfo, Tables

_CLOSED = ConfigDict(extra="forbid", populate_by_name=True, protected_namespaces=())

# Bounds on lists, so that a small model cannot write one until it runs out of tokens.
MAX_ITEMS = 6
MAX_ROWS = 10
MAX_RULES = 4
# A lean plan's rows: the embedded model filled all ten with copies (five users named alike, six dates of one
# flight), written slowest of all its answers; the rows a plan forgets are added after it (see `completion`).
MAX_LEAN_ROWS = 6


class Entity(BaseModel):
    """An entity the scenario needs, named by a symbol."""

    symbol: str = Field(pattern=SYMBOL_PATTERN, description="Its symbol: capital letters and a number, e.g. U1.")
    description: str = Field(description="What it stands for and what about it matters here, e.g. 'the user who "
                             "writes in' or 'a record of U1, made 30 hours ago'.")


_REWRITTEN_TEXTS: dict[str, Any] = {
    "scenario": (str, Field(description="The user's situation and goal, written with the symbols.")),
    "expected_behaviour": (str, Field(description="What the chatbot must do, written with the symbols.")),
}


@cache  # once per domain and kind: a model class made per event is never freed
def plan_model(tables: Tables, *, lean: bool = False) -> type[BaseModel]:
    """The schema of a symbolic plan: entities, rows per table written with symbols, and (unless `lean`) the
    scenario's texts rewritten with the symbols; a lean plan has fewer rows.

    A row's values are the table's columns, each a value of the column's type or a symbol; how entities relate is
    what the rows' symbols say (the embedded model wrote relations backwards, "U1 belongs to PM1", at a minute's
    worth of tokens a run).
    """
    variants = tuple(_plan_row_model(table) for table in tables)
    row: Any = variants[0]
    if len(variants) > 1:
        row = Annotated[typing.Union[variants], Field(discriminator="table")]  # noqa: UP007
    names = tables.names

    def known_tables(cls: type[BaseModel], rows: Any) -> Any:
        if isinstance(rows, list):
            unknown = sorted({str(r.get("table")) for r in rows if isinstance(r, dict) and r.get("table") not in names})
            if unknown:
                raise ValueError(f"unknown table {', '.join(unknown)}; the tables are {', '.join(names)}")
        return rows

    return create_model(
        "SymbolicPlan",
        __config__=ConfigDict(extra="forbid"),
        __validators__={"known_tables": field_validator("rows", mode="before")(known_tables)},
        entities=(list[Entity], Field(max_length=MAX_ITEMS, description="Every entity the rows need, with a symbol.")),
        rows=(list[row], Field(max_length=MAX_LEAN_ROWS if lean else MAX_ROWS,
                               description="The rows to insert before the conversation starts.")),
        **({} if lean else _REWRITTEN_TEXTS),
    )


@lru_cache(maxsize=256)  # events that plan the same rows share it, and its JSON schema, worked out once
def constraints_model(rows: tuple[tuple[str, str], ...], tables: Tables) -> type[BaseModel]:
    """The schema of the constraints answer: rules per planned row, each on a column of its table.

    Args:
        rows: (label, table) of every planned row.
        tables: the domain's tables, whose columns a rule may name.
    """
    per_row = create_model(
        "ConstraintsPerRow",
        __config__=_CLOSED,
        **{_name(i): (list[_rule_model(tables[table])], Field(alias=label, max_length=MAX_RULES))
           for i, (label, table) in enumerate(rows)},
    )
    return create_model(
        "RowConstraints",
        __config__=ConfigDict(extra="forbid"),
        constraints=(per_row, Field(description="For each row, the rules its values must follow.")),
        details=(list[str], Field(max_length=MAX_RULES, description="Facts the scenario leaves open, decided now.")),
    )


@dataclass
class ValuesAnswer:
    """A values (or repair) answer: a value per symbol (None where none is given), and each row's columns."""

    symbols: dict[str, Any]
    rows: dict[str, BaseModel]


class ValuesSchema:
    """The schema of one event's values (or repair) answer: a value per symbol, and column values per row.

    Events differ in their rows, columns and symbols, so each has a schema of its own, made of parts made
    once: a row's columns are checked by the model of those columns of its table, a symbol's value by an
    adapter of its column's type. A pydantic model made per event cost 2 ms of CPU, and its JSON schema 1 ms
    more: about a tenth of populate's CPU. The JSON schema sent is pydantic's for the same fields, to the
    letter (a model made per event is what the test compares it with).
    """

    def __init__(
        self, tables: Tables, rows: dict[str, tuple[str, tuple[str, ...]]],
        symbols: dict[str, tuple[Column, str]], *, name: str,
    ) -> None:
        """The schema of an answer for these rows and symbols.

        Args:
            tables: the domain's tables.
            rows: label → (table, the columns asked for); a column holding a symbol gets its value
                through the symbol, so it is never asked in the row.
            symbols: symbol → (a column it is used in, what it stands for); the column types its value.
            name: the schema's name, e.g. 'RowValues' or 'RowRepairs'.
        """
        self.__name__ = name
        self.rows = {label: _row_values_model(tables[table], _in_table_order(tables[table], columns))
                     for label, (table, columns) in rows.items()}
        self.symbols = {symbol: (column.annotation, meaning) for symbol, (column, meaning) in symbols.items()}

    def model_json_schema(self) -> dict[str, Any]:
        """The JSON schema of the answer."""
        definitions: dict[str, Any] = {}
        symbols: dict[str, Any] = {"additionalProperties": False, "properties": {}}
        for symbol, (annotation, meaning) in self.symbols.items():
            value, value_definitions = _symbol_value_schema(annotation)
            definitions.update(copy.deepcopy(value_definitions))  # copies: the reader may change what it is given
            described = {"description": meaning} if meaning else {}
            symbols["properties"][symbol] = dict(sorted({**copy.deepcopy(value), **described,
                                                         "title": _TITLES.get_title_from_name(symbol)}.items()))
        symbols |= {"title": f"{self.__name__}Symbols", "type": "object"}
        rows: dict[str, Any] = {"additionalProperties": False, "properties": {}}
        for label, row_model in self.rows.items():
            if row_model.__name__ not in definitions:
                definitions[row_model.__name__] = _lifted(copy.deepcopy(_row_schema(row_model)), definitions)
            rows["properties"][label] = {"$ref": f"#/$defs/{row_model.__name__}"}
        if rows["properties"]:
            rows["required"] = list(rows["properties"])
        rows |= {"title": f"{self.__name__}Rows", "type": "object"}
        definitions |= {f"{self.__name__}Symbols": symbols, f"{self.__name__}Rows": rows}
        return {
            "$defs": dict(sorted(definitions.items())),
            "additionalProperties": False,
            "properties": {"symbols": {"$ref": f"#/$defs/{self.__name__}Symbols"},
                           "rows": {"$ref": f"#/$defs/{self.__name__}Rows"}},
            "required": ["symbols", "rows"],
            "title": self.__name__,
            "type": "object",
        }

    def model_validate_json(self, text: str | bytes) -> ValuesAnswer:
        """The answer in `text`, checked.

        Raises:
            ValidationError: the answer is not JSON, or leaves the schema; with every problem found.
        """
        sections = _Sections.model_validate_json(text)
        problems: list[InitErrorDetails] = []
        symbols: dict[str, Any] = dict.fromkeys(self.symbols)
        for symbol, value in sections.symbols.items():
            if symbol not in self.symbols:
                problems.append({"type": "extra_forbidden", "loc": ("symbols", symbol), "input": value})
                continue
            try:
                symbols[symbol] = _symbol_value_adapter(self.symbols[symbol][0]).validate_python(value)
            except ValidationError as error:
                problems += _within(("symbols", symbol), error)
        problems += [{"type": "extra_forbidden", "loc": ("rows", label), "input": values}
                     for label, values in sections.rows.items() if label not in self.rows]
        rows: dict[str, BaseModel] = {}  # in the schema's order, whatever the answer's
        for label, model in self.rows.items():
            if label not in sections.rows:
                problems.append({"type": "missing", "loc": ("rows", label), "input": sections.rows})
                continue
            try:
                rows[label] = model.model_validate(sections.rows[label])
            except ValidationError as error:
                problems += _within(("rows", label), error)
        if problems:
            raise ValidationError.from_exception_data(self.__name__, problems, input_type="json")
        return ValuesAnswer(symbols=symbols, rows=rows)


class _Sections(BaseModel):
    """The two sections of a values answer, each checked part by part after (see `ValuesSchema`)."""

    model_config = ConfigDict(extra="forbid")

    symbols: dict[str, Any]
    rows: dict[str, Any]


_TITLES = GenerateJsonSchema(by_alias=True)  # how pydantic titles a field after its name


@cache  # per column type: a handful per domain
def _symbol_value_schema(annotation: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON schema pydantic writes for a field of the symbols section, without its title, and the
    definitions it refers to."""
    probe = create_model("SymbolProbe", value=(annotation | None, Field(default=None)))
    schema = probe.model_json_schema()
    value = {key: part for key, part in schema["properties"]["value"].items() if key != "title"}
    return value, schema.get("$defs", {})


@cache
def _symbol_value_adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation | None)


def _within(where: tuple[str, ...], error: ValidationError) -> list[InitErrorDetails]:
    """The problems of a part of the answer, placed in the whole."""
    return [{"type": problem["type"], "loc": (*where, *problem["loc"]), "input": problem["input"],
             **({"ctx": problem["ctx"]} if "ctx" in problem else {})}  # type: ignore[typeddict-item]
            for problem in error.errors()]


@lru_cache(maxsize=128)  # as many as the row models themselves
def _row_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def _lifted(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """`schema` without its definitions, which join `definitions`."""
    definitions.update(schema.pop("$defs", {}))
    return schema


def given(section: BaseModel) -> dict[str, Any]:
    """The values an answer section gives, by their real names (tables, columns, symbols, labels)."""
    return {key: value for key, value in section.model_dump(by_alias=True).items() if value is not None}


@cache
def _plan_row_model(table: TableInfo) -> type[BaseModel]:
    # A cell holds a value of the column's type, or a symbol (a string) standing for one.
    cells = {c.name: typing.Union[c.annotation, str, None] for c in table.generated_columns()}  # noqa: UP007
    values = _closed_model(f"{_title(table.name)}PlanValues", table, cells)
    return create_model(
        f"{_title(table.name)}PlanRow",
        __config__=ConfigDict(extra="forbid"),
        table=(Literal[table.name], ...),  # type: ignore[valid-type]
        values=(values, Field(description="Column values: a literal value, or a symbol.")),
    )


@cache
def _rule_model(table: TableInfo) -> type[BaseModel]:
    columns = tuple(column.name for column in table.generated_columns())
    return create_model(
        f"{_title(table.name)}Rule",
        __config__=ConfigDict(extra="forbid"),
        column=(Literal[columns], Field(description="The column the rule is about.")),  # type: ignore[valid-type]
        rule=(str, Field(description="The rule, with exact values or ranges.")),
    )


def _in_table_order(table: TableInfo, columns: tuple[str, ...]) -> tuple[str, ...]:
    # One model per set of columns: two orders of every column would make two models of one name.
    order = list(table.columns)
    return tuple(sorted(columns, key=order.index))


@lru_cache(maxsize=128)  # the columns asked vary with the event: unbounded, a long run would keep every subset
def _row_values_model(table: TableInfo, columns: tuple[str, ...]) -> type[BaseModel]:
    asked = {name: table.columns[name].annotation | None for name in columns}
    suffix = "".join(f"_{name}" for name in columns) if len(columns) < len(table.generated_columns()) else ""
    return _closed_model(f"{_title(table.name)}Values{suffix}", table, asked)


def _closed_model(model_name: str, table: TableInfo, columns: dict[str, Any]) -> type[BaseModel]:
    """A model of some of a table's columns (all optional), which names any unknown column it is given."""
    known = list(columns)

    def known_columns(cls: type[BaseModel], data: Any) -> Any:
        if isinstance(data, dict):
            unknown = [key for key in data if key not in known]
            if unknown:
                raise ValueError(
                    f"unknown column {', '.join(map(str, unknown))} in table {table.name}; "
                    f"its columns are {', '.join(known)}"
                )
        return data

    fields = {
        _name(i): (annotation, Field(default=None, alias=name, description=table.columns[name].description or None))
        for i, (name, annotation) in enumerate(columns.items())
    }
    return create_model(
        model_name,
        __config__=_CLOSED,
        __validators__={"known_columns": model_validator(mode="before")(known_columns)},
        **fields,
    )


def _name(index: int) -> str:
    # Real names (columns, labels, symbols) travel as aliases: any string is then a valid key.
    return f"f{index}"


def _title(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
