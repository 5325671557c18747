"""The values answer's JSON schema, put together from cached parts, is the one pydantic works out."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import ValidationError
from pydantic.json_schema import model_json_schema

from intellagent.config import load_config
from intellagent.environment import load_environment
from intellagent.populate import Tables, values_model


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


def test_the_values_schema_is_pydantics_to_the_letter(tables: Tables) -> None:
    pick = random.Random(7)
    for _ in range(150):
        rows, symbols = random_request(tables, pick)
        model = values_model(tables, rows, symbols, name=pick.choice(["RowValues", "RowRepairs"]))

        assert json.dumps(model.model_json_schema()) == json.dumps(model_json_schema(model))


def test_a_values_schema_can_be_changed_by_its_reader_without_changing_the_next(tables: Tables) -> None:
    rows = {"the user": ("users", ("user_id", "membership"))}
    first = values_model(tables, rows, {}, name="RowValues").model_json_schema()
    first["$defs"]["UsersValues_user_id_membership"]["properties"].clear()

    again = values_model(tables, rows, {}, name="RowValues").model_json_schema()

    assert list(again["$defs"]["UsersValues_user_id_membership"]["properties"]) == ["user_id", "membership"]


def test_every_order_of_a_tables_columns_is_one_model(tables: Tables) -> None:
    columns = tuple(column.name for column in tables["users"].generated_columns())
    model = values_model(tables, {"a": ("users", columns), "b": ("users", columns[::-1])}, {}, name="RowValues")
    rows = model.model_fields["rows"].annotation

    assert len({field.annotation for field in rows.model_fields.values()}) == 1
    with pytest.raises(ValidationError, match="unknown column"):
        model.model_validate({"symbols": {}, "rows": {"a": {"nickname": "Al"}, "b": {}}})
