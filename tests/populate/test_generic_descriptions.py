"""The answer schemas populate sends with every domain's requests speak of no domain: an example in a field's
description reaches every other domain's model, and a small one copies it."""

from __future__ import annotations

import json
from pathlib import Path

from intellagent.environment import load_environment
from intellagent.populate import Tables, constraints_model, plan_model
from tests.populate.conftest import shop_config

AIRLINE_WORDS = ("airline", "flight", "reservation", "baggage", "passenger", "cabin", "member")


def test_the_plan_and_constraints_schemas_of_another_domain_name_nothing_of_the_airline(tmp_path: Path) -> None:
    tables = Tables(load_environment(shop_config(tmp_path).environment).tables)
    planned = [(f"row {n}", table.name) for n, table in enumerate(tables)]

    sent = json.dumps([plan_model(tables).model_json_schema(),
                       constraints_model(tuple(planned), tables).model_json_schema()]).lower()

    assert [word for word in AIRLINE_WORDS if word in sent] == []
