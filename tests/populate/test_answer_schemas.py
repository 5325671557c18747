"""The values answer's schema, made per event from cached parts, is the one a pydantic model made per event would
be: the same JSON schema to the letter, and the same answers accepted, with the same values."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import model_json_schema

from intellagent.config import load_config
from intellagent.environment import load_environment
from intellagent.llm.careless import draw
from intellagent.populate import Tables, ValuesSchema


@pytest.fixture(scope="module")
def tables() -> Tables:
    return Tables(load_environment(load_config("configs/airline.yml").environment).tables)


def random_request(tables: Tables, pick: random.Random) -> tuple[dict, dict]:
    """Rows asking some or all of their table's columns, in any order, and symbols of any column."""
    rows = {}
    for i in range(pick.randint(0, 4)):
        table = pick.choice(list(tables))
        columns = [column.name for column in table.generated_columns()]
        rows[f"row {i} of {table.name}"] = (table.name, tuple(pick.sample(columns, pick.randint(1, len(columns)))))
    symbols = {}
    for i in range(pick.randint(0, 4)):
        column = pick.choice(list(pick.choice(list(tables)).columns.values()))
        symbols[pick.choice(["U", "ab_", "R x"]) + str(i)] = (column, pick.choice(["", "the traveller's own"]))
    return rows, symbols


def model_per_event(schema: ValuesSchema, symbols: dict, name: str) -> type[BaseModel]:
    """The pydantic model of the same answer, made for the one event: sections of fields named by alias."""
    closed = ConfigDict(extra="forbid", populate_by_name=True)
    symbol_fields: dict[str, Any] = {
        f"f{i}": (column.annotation | None, Field(default=None, alias=symbol, description=meaning or None))
        for i, (symbol, (column, meaning)) in enumerate(symbols.items())}
    row_fields: dict[str, Any] = {f"f{i}": (model, Field(alias=label))
                                  for i, (label, model) in enumerate(schema.rows.items())}
    return create_model(
        name, __config__=ConfigDict(extra="forbid"),
        symbols=(create_model(f"{name}Symbols", __config__=closed, **symbol_fields), ...),
        rows=(create_model(f"{name}Rows", __config__=closed, **row_fields), ...))


def requests(tables: Tables, count: int) -> list[tuple[ValuesSchema, type[BaseModel]]]:
    pick = random.Random(7)
    made = []
    for _ in range(count):
        rows, symbols = random_request(tables, pick)
        name = pick.choice(["RowValues", "RowRepairs"])
        schema = ValuesSchema(tables, rows, symbols, name=name)
        made.append((schema, model_per_event(schema, symbols, name)))
    return made


def test_the_values_schema_is_pydantics_to_the_letter(tables: Tables) -> None:
    for schema, model in requests(tables, 150):
        assert json.dumps(schema.model_json_schema()) == json.dumps(model_json_schema(model))


def test_an_answer_is_accepted_or_refused_as_the_model_per_event_would_with_the_same_values(tables: Tables) -> None:
    pick, compared, refused = random.Random(3), 0, 0
    for schema, model in requests(tables, 60):
        json_schema = schema.model_json_schema()
        for _ in range(5):
            answer = draw(json_schema, pick, definitions=json_schema["$defs"])
            section = answer[pick.choice(["symbols", "rows"])]
            if section and pick.random() < 0.15:  # off the schema: a row (or a symbol) missing
                del section[pick.choice(list(section))]
            elif pick.random() < 0.3:  # a stray key, or a value of another type
                section[pick.choice(["stray", *section])] = pick.choice([5, "x", [], None, {"a": 1}])
            text = json.dumps(answer, default=str)
            try:
                expected = model.model_validate_json(text)
            except ValidationError as error:
                with pytest.raises(ValidationError) as raised:
                    schema.model_validate_json(text)
                assert {tuple(e["loc"]) for e in raised.value.errors()} == {tuple(e["loc"]) for e in error.errors()}
                refused += 1
                continue
            ours = schema.model_validate_json(text)
            assert ours.symbols == expected.model_dump(by_alias=True)["symbols"]
            for slot, field in type(expected.rows).model_fields.items():
                row = getattr(expected.rows, slot)
                assert ours.rows[field.alias] == row
                assert ours.rows[field.alias].model_fields_set == row.model_fields_set
            compared += 1
    assert compared > 100 and refused > 30


def test_a_values_schema_can_be_changed_by_its_reader_without_changing_the_next(tables: Tables) -> None:
    rows = {"the user": ("users", ("user_id", "membership"))}
    first = ValuesSchema(tables, rows, {}, name="RowValues").model_json_schema()
    first["$defs"]["UsersValues_user_id_membership"]["properties"].clear()

    again = ValuesSchema(tables, rows, {}, name="RowValues").model_json_schema()

    assert list(again["$defs"]["UsersValues_user_id_membership"]["properties"]) == ["user_id", "membership"]


def test_every_order_of_a_tables_columns_is_one_model(tables: Tables) -> None:
    columns = tuple(column.name for column in tables["users"].generated_columns())
    schema = ValuesSchema(tables, {"a": ("users", columns), "b": ("users", columns[::-1])}, {}, name="RowValues")

    assert schema.rows["a"] is schema.rows["b"]
    with pytest.raises(ValidationError, match="unknown column"):
        schema.model_validate_json('{"symbols": {}, "rows": {"a": {"nickname": "Al"}, "b": {}}}')


def test_an_answers_rows_come_in_the_schemas_order_whatever_the_answers(tables: Tables) -> None:
    rows = {label: ("users", ("membership",)) for label in ("first", "second", "third")}
    schema = ValuesSchema(tables, rows, {}, name="RowValues")

    answer = schema.model_validate_json('{"symbols": {}, "rows": {"third": {}, "first": {}, "second": {}}}')

    assert list(answer.rows) == ["first", "second", "third"]
