"""A false-claim user's claim is chosen from the event's own rows, which contradict it, by the value its rules name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import PolicyCatalog, Scenario
from intellagent.config import load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.persona_files import builtin_personas
from intellagent.populate import BackgroundWorld, Tables
from intellagent.populate.claims import PROMISE, false_claim
from intellagent.run_folder import RunFolder
from tests.populate.conftest import ORDER_SCENARIO, order_plan, script_order, shop_config, start_run
from tests.store import build_world

COMPENSATION = "Compensation goes only to silver or gold members, or to a booking in business."
REGULAR_USER = {"user_id": "mia_li_3668", "membership": "regular", "first_name": "Mia"}
ECONOMY_BOOKING = {"reservation_id": "4WQ150", "user_id": "mia_li_3668", "cabin": "economy", "insurance": "no",
                   "flight_type": "one_way"}


@pytest.fixture(scope="module")
def airline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Tables, BackgroundWorld]:
    env = load_environment(load_config("configs/airline.yml").environment)
    tables = Tables(env.tables)
    background = tmp_path_factory.mktemp("airline") / "background.sqlite"
    env.create_database(background, seed=42)
    return tables, BackgroundWorld.load(env, background, tables)


def claim_of(airline: tuple[Tables, BackgroundWorld], rows: dict[str, list[dict[str, Any]]], rules: str,
             seed: str = "42:S001"):
    tables, world = airline
    return false_claim(rows, tables=tables, world=world, rules=rules, seed=seed)


def test_a_regular_member_claims_a_level_the_rule_names(airline) -> None:
    claim = claim_of(airline, {"users": [REGULAR_USER]}, COMPENSATION)

    assert (claim.table, claim.row, claim.column, claim.actual) == ("users", {"user_id": "mia_li_3668"},
                                                                     "membership", "regular")
    assert claim.claimed in ("silver", "gold") and claim.statement == f"my membership is {claim.claimed}"
    assert claim.contradiction() == "the records say membership is regular (users user_id mia_li_3668)"


def test_a_claim_whose_truth_the_rules_do_not_name_comes_first(airline) -> None:
    silver = {**REGULAR_USER, "membership": "silver"}
    rows = {"users": [silver], "reservations": [ECONOMY_BOOKING]}

    for seed in ("1", "2", "3", "4"):  # the rule names silver, the user's own level: business is the better lie
        claim = claim_of(airline, rows, COMPENSATION, seed=seed)
        assert (claim.column, claim.claimed, claim.actual) == ("cabin", "business", "economy")


def test_the_event_s_seed_chooses_among_equal_claims(airline) -> None:
    claims = {claim_of(airline, {"users": [REGULAR_USER]}, COMPENSATION, seed=str(seed)).claimed
              for seed in range(12)}

    assert claims == {"silver", "gold"}


def test_rows_with_no_value_the_rules_name_make_a_promise_no_record_holds(airline) -> None:
    claim = claim_of(airline, {"users": [REGULAR_USER]}, "Answer politely.")

    assert claim.statement == PROMISE and claim.table is None and claim.claimed is None
    assert claim.contradiction() == "the records hold nothing of the kind"


def test_on_the_store_an_order_s_status_is_claimed_from_its_choices(tmp_path: Path) -> None:
    store = build_world(tmp_path)
    order = next(iter(store.world.rows("store_orders")))
    rules = "A delivered order's items can be exchanged; a pending one can be cancelled."

    claim = false_claim({"store_orders": [order]}, tables=store.tables, world=store.world, rules=rules, seed="7")

    assert claim.table == "store_orders" and claim.row == {"order_id": order["order_id"]}
    assert claim.claimed in {"delivered", "pending"} - {order["status"]} and claim.actual == order["status"]


def test_populate_records_the_claim_and_persona_on_the_event_and_tells_the_plan(tmp_path: Path) -> None:
    persona = builtin_personas()["false_claim"]
    scenario = ORDER_SCENARIO.model_copy(update={"persona": persona})
    run = start_run(shop_config(tmp_path), tmp_path / "run", [scenario])
    RunFolder(run.folder).policies.save(PolicyCatalog(task_description="A shop.", flows=[], policies=[
        {"id": "P01", "text": "Only vip customers may cancel an open order.", "flows": [], "category": "enforcement",
         "challenge": 3}]))
    plan = order_plan()
    plan["rows"][2]["values"]["tier"] = "basic"
    script = script_order(ScriptedLLM().on(schema="SymbolicPlan", reply=plan))  # the first rule that matches answers

    run.populate(script)

    event = run.events()["S001"]
    (customer,) = run.new_rows("S001", "shop_customers")
    assert event.persona == persona
    assert event.claim is not None and (event.claim.column, event.claim.claimed) == ("tier", "vip")
    assert event.claim.actual == customer["tier"] == "basic"
    assert "will claim something false about their own records" in script.calls(schema="SymbolicPlan")[0].text
    (outcome,) = script.calls(schema="ExpectedOutcomeProposal")
    assert f"The user will claim that my tier is vip, which is false: {event.claim.contradiction()}." in outcome.text


def test_a_cooperative_scenario_s_event_has_its_persona_and_no_claim(tmp_path: Path) -> None:
    persona = builtin_personas()["cooperative"]
    run = start_run(shop_config(tmp_path), tmp_path / "run", [ORDER_SCENARIO.model_copy(update={"persona": persona})])
    script = script_order(ScriptedLLM())

    run.populate(script)

    event = run.events()["S001"]
    assert event.persona == persona and event.claim is None
    assert "claim" not in script.calls(schema="SymbolicPlan")[0].text
    assert "will claim" not in script.calls(schema="ExpectedOutcomeProposal")[0].text


def test_a_scenario_from_before_personas_is_populated_as_it_was(tmp_path: Path) -> None:
    run = start_run(shop_config(tmp_path), tmp_path / "run", [Scenario(**ORDER_SCENARIO.model_dump())])

    run.populate(script_order(ScriptedLLM()))

    event = run.events()["S001"]
    assert event.status == "ok" and event.persona is None and event.claim is None
