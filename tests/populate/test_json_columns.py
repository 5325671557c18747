"""JSON columns on the store: lists and objects in plans, in generated values and in repairs."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Scenario
from intellagent.llm import ScriptedLLM
from intellagent.populate import Assignment, Plan, Symbol, assemble, plan_model
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import world_file
from tests.populate.conftest import read_rows
from tests.store import StoreWorld, build_world, config
from tests.store.background import TAGS

SEEDS = range(20)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> StoreWorld:
    return build_world(tmp_path_factory.mktemp("store"))


def plan_of(store: StoreWorld, rows: list[dict[str, Any]]) -> Plan:
    answer = plan_model(store.tables).model_validate(
        {"entities": [], "rows": rows, "scenario": "", "expected_behaviour": ""})
    return Plan.from_answer(answer, store.tables, store.world)


def assembled(store: StoreWorld, plan: Plan, seed: int, table: str) -> dict[str, Any]:
    rows = assemble(plan, Assignment(), tables=store.tables, world=store.world, seed=f"7:S{seed}").rows
    return next(row.values for row in rows if row.table == table)


def test_a_list_or_an_object_in_a_plan_is_a_value_not_a_symbol(store: StoreWorld) -> None:
    plan = plan_of(store, [
        {"table": "store_products", "values": {"product_id": "P1", "tags": ["outdoor", "P2"]}},
        {"table": "store_variants", "values": {"product_id": "P1", "options": {"color": "red", "size": "U1"}}},
    ])

    cells = {row.table: row.cells for row in plan.rows}
    assert cells["store_products"]["product_id"] == Symbol("P1")
    assert cells["store_products"]["tags"] == ["outdoor", "P2"]
    assert cells["store_variants"]["options"] == {"color": "red", "size": "U1"}


def test_a_new_variants_options_are_drawn_from_its_siblings_and_copy_none_of_them(store: StoreWorld) -> None:
    existing = [variant["options"] for variant in store.world.rows("store_variants")]
    product = next(p for p in store.world.rows("store_products")
                   if len(store.world.matching("store_variants", {"product_id": p["product_id"]})) >= 2)
    siblings = [v["options"] for v in store.world.matching("store_variants", {"product_id": product["product_id"]})]
    plan = plan_of(store, [{"table": "store_variants", "values": {"product_id": product["product_id"]}}])

    drawn = [assembled(store, plan, seed, "store_variants")["options"] for seed in SEEDS]

    assert not any(options in siblings for options in drawn)
    assert all(list(options) in [list(sibling) for sibling in siblings] for options in drawn)
    assert all(value in {options.get(key) for options in existing} for new in drawn for key, value in new.items())


def test_a_new_products_tags_are_a_few_tags_seen_none_repeated(store: StoreWorld) -> None:
    plan = plan_of(store, [{"table": "store_products", "values": {"product_id": "P1"}}])

    drawn = [assembled(store, plan, seed, "store_products")["tags"] for seed in SEEDS]

    assert all(1 <= len(tags) <= 3 and len(set(tags)) == len(tags) and set(tags) <= set(TAGS) for tags in drawn)
    assert len({tuple(tags) for tags in drawn}) > len(SEEDS) // 2  # drawn, not one list copied


def test_a_new_customers_address_is_a_whole_new_address(store: StoreWorld) -> None:
    plan = plan_of(store, [{"table": "store_customers", "values": {"customer_id": "C1"}}])
    existing = [customer["address"] for customer in store.world.rows("store_customers")]

    drawn = [assembled(store, plan, seed, "store_customers")["address"] for seed in SEEDS]

    assert all(list(address) == ["street", "city", "state", "zip"] for address in drawn)
    assert all(re.fullmatch(r"\d{5}", address["zip"]) for address in drawn)
    assert not any(address in existing for address in drawn)
    assert len({address["street"] for address in drawn}) == len(SEEDS)


def test_a_json_value_a_rule_rejects_is_repaired_from_the_models_next_answer(store: StoreWorld, tmp_path: Path) -> None:
    cfg = config(tmp_path)  # seed 7, as the fixture's background
    folder = tmp_path / "run"
    asyncio.run(execute(cfg, output=folder, stages=(), progress=False))
    RunFolder(folder).scenarios.append(Scenario(
        id="S001", policies=["P01"], target_challenge=2, challenge=2, description="A shopper asks about a red jacket.",
        expected_behaviour="The agent looks the jacket up."))
    product = store.world.rows("store_products")[0]
    script = ScriptedLLM()
    script.on(schema="SymbolicPlan", reply={
        "entities": [{"symbol": "V1", "description": "a red variant of the jacket"}],
        "rows": [{"table": "store_variants", "values": {"variant_id": "V1", "product_id": product["product_id"]}}],
        "scenario": "", "expected_behaviour": ""})
    script.on(schema="RowConstraints", reply={"constraints": {"store_variants_1": [
        {"column": "options", "rule": "a red one"}]}, "details": []})
    script.on(schema="RowValues", reply={"symbols": {}, "rows": {"store_variants_1": {"options": {"colour": ""}}}})
    script.on(schema="RowRepairs", reply={"symbols": {}, "rows": {"store_variants_1": {
        "options": {"color": "red", "size": "M"}}}})

    asyncio.run(execute(cfg, output=folder, stages=("populate",), script=script, progress=False))

    (event,) = RunFolder(folder).events.load()
    (repair,) = script.calls(schema="RowRepairs")
    assert "must name each option's value" in repair.last
    variants = read_rows(world_file(folder, event.database or ""), "store_variants")
    assert event.status == "ok" and event.repairs == 1
    assert {row["options"] for row in variants if row["variant_id"] == event.symbols["V1"]} == {
        '{"color": "red", "size": "M"}'}

