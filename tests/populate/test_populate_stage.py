"""The populate stage turns scenarios into events: valid databases in which each scenario is true."""

from __future__ import annotations

import json
import re
from pathlib import Path

from intellagent.environment import worlds
from intellagent.llm import HTTPError, ScriptedLLM
from tests.conftest import world_file
from tests.populate.conftest import (
    ORDER_SCENARIO,
    QUESTION_SCENARIO,
    ShopRun,
    order_plan,
    order_values,
    script_order,
    shop_config,
    start_run,
)


def test_symbols_resolve_to_one_value_across_tables_and_foreign_keys(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    event = shop_run.events()["S001"]
    (customer,) = shop_run.new_rows("S001", "shop_customers")
    (order,) = shop_run.new_rows("S001", "shop_orders")
    (item,) = shop_run.new_rows("S001", "shop_order_items")
    products = {row["sku"] for row in shop_run.background("shop_products")}
    assert not shop_run.new_rows("S001", "shop_products")
    assert event.status == "ok"
    assert event.symbols["C1"] == customer["customer_id"] == order["customer_id"]
    assert event.symbols["O1"] == order["order_id"] == item["order_id"]
    assert re.fullmatch(r"ORD-\d{4}", order["order_id"])  # a new key, shaped like the existing ones
    assert event.symbols["P1"] == item["sku"] and item["sku"] in products  # an existing product, not a new one
    assert event.scenario.startswith(f"Customer {customer['customer_id']} placed order {order['order_id']}")
    assert event.expected_behaviour == f"The chatbot cancels {order['order_id']} for {customer['customer_id']}."


def test_columns_no_answer_governs_are_filled_in_the_shape_of_existing_rows(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    (customer,) = shop_run.new_rows("S001", "shop_customers")
    first, last = customer["first_name"].lower(), customer["last_name"].lower()
    # Background ids look like 'ada_byron_12' and e-mails like 'ada.byron@example.com': names re-derived.
    assert customer["customer_id"].startswith(f"{first}_{last}_") and customer["customer_id"][-2:].isdigit()
    assert customer["email"] == f"{first}.{last}@example.com"
    assert customer["tier"] == "vip" and customer["note"] is None
    (item,) = shop_run.rows("S001", "shop_order_items")
    assert item["position"] == 0


def test_an_event_whose_rows_validate_costs_three_calls_and_its_outcomes(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    assert [request.schema for request in script.requests] == ["SymbolicPlan", "RowConstraints", "RowValues",
                                                                "ExpectedOutcomeProposal"]
    assert shop_run.events()["S001"].repairs == 0


def test_a_lean_event_costs_the_plan_and_its_outcome_alone_and_keeps_its_valid_values(tmp_path: Path, script) -> None:
    plan = order_plan()
    del plan["scenario"], plan["expected_behaviour"]  # not asked: the scenario's own texts are kept
    plan["rows"][0]["values"]["quantity"] = 99  # more than any stock: rejected, then generated again
    plan["rows"][1]["values"]["placed_at"] = "2024-03-01T10:00:00"
    script.on(schema="SymbolicPlan", reply=plan)
    run = start_run(shop_config(tmp_path, populate={"lean": "yes"}), tmp_path / "run", [ORDER_SCENARIO])
    run.populate(script)

    asked, outcome = script.requests
    assert (asked.schema, outcome.schema) == ("SymbolicPlan", "ExpectedOutcomeProposal")
    assert "scenario" not in asked.body["response_format"]["json_schema"]["schema"]["properties"]
    event = run.events()["S001"]
    (order,) = run.new_rows("S001", "shop_orders")
    (item,) = run.new_rows("S001", "shop_order_items")
    assert event.status == "ok" and event.expected_behaviour == ORDER_SCENARIO.expected_behaviour
    assert event.scenario.startswith(ORDER_SCENARIO.description) and f"- {order['order_id']}: C1's open" in (
        event.scenario.replace(order["customer_id"], "C1"))
    assert (order["status"], order["placed_at"]) == ("open", "2024-03-01T10:00:00")
    assert item["quantity"] != 99


def test_a_rejected_row_is_repaired_on_the_second_try(shop_run: ShopRun, script) -> None:
    script_order(script, values=order_values(quantity=99))
    script.on(schema="RowRepairs", reply={"symbols": {}, "rows": {"shop_order_items_1": {"quantity": 2}}})
    shop_run.populate(script)

    (repair,) = script.calls(schema="RowRepairs")
    assert "quantity 99 is more than the" in repair.last and "shop_order_items_1" in repair.last
    repair_rows = repair.body["response_format"]["json_schema"]["schema"]["properties"]["rows"]
    assert list(_resolve(repair.body, repair_rows)["properties"]) == ["shop_order_items_1"]  # rejected row only
    event = shop_run.events()["S001"]
    assert event.status == "ok" and event.repairs == 1
    assert shop_run.rows("S001", "shop_order_items")[0]["quantity"] == 2


def test_a_fact_no_repair_makes_valid_is_given_up_and_the_event_stays_valid(tmp_path: Path, script) -> None:
    run = start_run(shop_config(tmp_path), tmp_path / "run", [ORDER_SCENARIO, QUESTION_SCENARIO])
    script_order(script, values=order_values(quantity=99))
    script.on(schema="RowRepairs", reply={"symbols": {}, "rows": {"shop_order_items_1": {"quantity": 50}}})
    script.on(schema="SymbolicPlan", reply={"entities": [], "rows": [],
                                            "scenario": "", "expected_behaviour": ""})
    run.populate(script)

    events = run.events()
    assert len(script.calls(schema="RowRepairs")) == 2
    assert events["S001"].status == "ok"
    (note,) = events["S001"].dropped
    assert note.startswith("shop_order_items_1: quantity=50 given up") and "more than the" in note
    (item,) = run.rows("S001", "shop_order_items")
    stock = {row["sku"]: row["stock"] for row in run.background("shop_products")}
    assert item["quantity"] <= stock[item["sku"]]  # generated in the shape of existing items, and valid
    assert events["S002"].status == "ok" and (run.folder / "events" / "S002.delta.json").exists()


def test_an_unknown_table_in_a_plan_is_sent_back_naming_it(shop_run: ShopRun, script) -> None:
    wrong = json.loads(json.dumps(script_order(script).rules[0].replies[0]))
    wrong["rows"][0]["table"] = "shop_baskets"
    script.rules[0].replies.insert(0, wrong)
    script.rules[0].repeat = False
    shop_run.populate(script)

    retry = script.calls(schema="SymbolicPlan")[1]
    assert "unknown table shop_baskets" in retry.last
    assert shop_run.events()["S001"].status == "ok"


def test_an_unknown_column_in_values_is_sent_back_naming_it(shop_run: ShopRun, script) -> None:
    wrong = order_values()
    wrong["rows"]["shop_orders_1"]["colour"] = "red"
    script.on(schema="RowValues", replies=[wrong, order_values()])
    shop_run.populate(script_order(script))

    retry = script.calls(schema="RowValues")[1]
    assert "unknown column colour in table shop_orders" in retry.last
    assert shop_run.events()["S001"].status == "ok"


def test_a_plain_key_that_names_no_row_is_generated_anew_and_references_follow_it(shop_run: ShopRun, script) -> None:
    plan = order_plan()
    plan["rows"][1]["values"]["customer_id"] = "C-42"  # the order names its customer by a made-up id...
    plan["rows"][2]["values"]["customer_id"] = "C-42"  # ...which the plan also gives the new customer
    script.on(schema="SymbolicPlan", reply=plan)
    shop_run.populate(script_order(script))

    event = shop_run.events()["S001"]
    (customer,) = shop_run.new_rows("S001", "shop_customers")
    (order,) = shop_run.new_rows("S001", "shop_orders")
    assert re.fullmatch(r"[a-z]+_[a-z]+_\d{2}", customer["customer_id"])  # the table's shape, not 'C-42'
    assert order["customer_id"] == customer["customer_id"]
    assert event.status == "ok" and any("'C-42'" in note for note in event.dropped)


def test_the_same_seed_gives_byte_identical_worlds(tmp_path: Path, script) -> None:
    first = start_run(shop_config(tmp_path), tmp_path / "first", [ORDER_SCENARIO])
    second = start_run(shop_config(tmp_path), tmp_path / "second", [ORDER_SCENARIO])
    first.populate(script_order(script))
    second.populate(script)

    for stored in (Path("events") / "S001.delta.json", Path("events") / "_background.sqlite"):
        assert (first.folder / stored).read_bytes() == (second.folder / stored).read_bytes()
    complete = [world_file(run.folder, "events/S001.delta.json").read_bytes() for run in (first, second)]
    assert complete[0] == complete[1]
    assert (first.folder / "events.jsonl").read_bytes() == (second.folder / "events.jsonl").read_bytes()


def test_another_seed_gives_other_values(tmp_path: Path, script) -> None:
    first = start_run(shop_config(tmp_path), tmp_path / "first", [ORDER_SCENARIO])
    second = start_run(shop_config(tmp_path, seed=8), tmp_path / "second", [ORDER_SCENARIO])
    first.populate(script_order(script))
    second.populate(script)

    assert first.events()["S001"].symbols["C1"] != second.events()["S001"].symbols["C1"]


def test_a_second_run_over_a_finished_folder_makes_no_call_and_adds_no_line(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))
    written = (shop_run.folder / "events.jsonl").read_bytes()
    calls = len(script.requests)

    shop_run.populate(script)

    assert len(script.requests) == calls
    assert (shop_run.folder / "events.jsonl").read_bytes() == written


def test_resume_populates_only_the_scenarios_without_an_event(tmp_path: Path, script) -> None:
    run = start_run(shop_config(tmp_path), tmp_path / "run", [ORDER_SCENARIO])
    run.populate(script_order(script))
    scenarios = run.folder / "scenarios.jsonl"
    scenarios.write_text(scenarios.read_text() + QUESTION_SCENARIO.model_dump_json() + "\n")
    script.on(schema="SymbolicPlan", reply={"entities": [], "rows": [],
                                            "scenario": "", "expected_behaviour": ""})
    before = len(script.requests)

    run.populate(script)

    assert [request.schema for request in script.requests[before:]] == ["SymbolicPlan", "ExpectedOutcomeProposal"]
    lines = (run.folder / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["S001", "S002"]


def test_an_event_that_failed_in_an_outage_is_populated_again_on_resume(tmp_path: Path) -> None:
    run = start_run(shop_config(tmp_path, llm_retries=0), tmp_path / "run", [ORDER_SCENARIO])
    run.populate(ScriptedLLM().on(reply=HTTPError(503, "the provider is down")))
    assert run.events()["S001"].status == "error"

    run.populate(script_order(ScriptedLLM()))  # the provider is back

    assert run.events()["S001"].status == "ok"
    assert len((run.folder / "events.jsonl").read_text().splitlines()) == 1


def test_a_scenario_that_needs_no_rows_gets_the_background_world_after_one_call_and_its_outcomes(
    tmp_path: Path, script
) -> None:
    run = start_run(shop_config(tmp_path), tmp_path / "run", [QUESTION_SCENARIO])
    script.on(schema="SymbolicPlan", reply={"entities": [], "rows": [],
                                            "scenario": "", "expected_behaviour": ""})
    run.populate(script)

    event = run.events()["S002"]
    assert [request.schema for request in script.requests] == ["SymbolicPlan", "ExpectedOutcomeProposal"]
    assert event.status == "ok" and event.user_rows == {} and event.scenario == QUESTION_SCENARIO.description
    background = run.folder / "events" / "_background.sqlite"
    assert json.loads((run.folder / "events" / "S002.delta.json").read_text())["tables"] == {}  # nothing of its own
    assert world_file(run.folder, event.database or "").read_bytes() == background.read_bytes()
    assert event.digest == worlds.root_digest(background)


def test_user_rows_are_the_event_rows_only(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    event = shop_run.events()["S001"]
    assert sorted(event.user_rows) == ["shop_customers", "shop_order_items", "shop_orders"]
    assert [row["order_id"] for row in event.user_rows["shop_orders"]] == [event.symbols["O1"]]
    assert "note" not in event.user_rows["shop_customers"][0]  # empty values left out
    assert event.digest and event.database == "events/S001.delta.json"


def test_the_constraints_and_the_details_reach_the_values_step_and_the_scenario(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    (values,) = script.calls(schema="RowValues")
    assert "shop_orders_1.placed_at: between 2024-02-29T12:00:00 and 2024-03-01T12:00:00" in values.last
    event = shop_run.events()["S001"]
    assert f"{event.symbols['O1']} was placed at 10:00 today" in event.scenario


def test_every_prompt_shares_the_policy_and_tables_and_existing_rows_come_with_the_values(
    shop_run: ShopRun, script
) -> None:
    shop_run.populate(script_order(script))

    (system,) = {request.system for request in script.requests}  # one shared prefix, for prompt caches
    assert system.index("An order can be cancelled only within 24 hours") < system.index("Table shop_orders")
    assert "shop_products (4 rows)" in system
    (plan,) = script.calls(schema="SymbolicPlan")
    (values,) = script.calls(schema="RowValues")
    assert '"sku": "SKU-100' not in plan.text  # no rows to copy while planning
    assert '"sku": "SKU-100' in values.last  # rows to refer to when values are chosen


def test_an_order_planned_without_items_gets_one_that_the_values_step_sees(shop_run: ShopRun, script) -> None:
    plan = script_order(script).rules[0].replies[0]
    plan["rows"] = [row for row in plan["rows"] if row["table"] != "shop_order_items"]
    shop_run.populate(script)

    (values,) = script.calls(schema="RowValues")
    assert "shop_order_items_1 (table shop_order_items): order_id=O1" in values.last
    (item,) = shop_run.new_rows("S001", "shop_order_items")
    assert item["order_id"] == shop_run.events()["S001"].symbols["O1"] and item["quantity"] == 1


def test_the_values_step_asks_only_for_governed_columns_and_symbols(shop_run: ShopRun, script) -> None:
    shop_run.populate(script_order(script))

    (values,) = script.calls(schema="RowValues")
    schema = values.body["response_format"]["json_schema"]["schema"]
    rows = _resolve(values.body, schema["properties"]["rows"])["properties"]
    assert {label: list(_resolve(values.body, row)["properties"]) for label, row in rows.items()} == {
        "shop_orders_1": ["placed_at"],
        "shop_order_items_1": ["quantity"],
    }
    # C1 and O1 are keys of new rows, always generated; P1 names an existing product, which the model may pick.
    assert list(_resolve(values.body, schema["properties"]["symbols"])["properties"]) == ["P1"]


def test_a_repair_that_changes_nothing_falls_back_at_once(shop_run: ShopRun, script) -> None:
    script_order(script, values=order_values(quantity=99))
    script.on(schema="RowRepairs", reply={"symbols": {}, "rows": {"shop_order_items_1": {"quantity": 99}}})
    shop_run.populate(script)

    assert len(script.calls(schema="RowRepairs")) == 1
    event = shop_run.events()["S001"]
    assert event.status == "ok" and "quantity=99 given up" in event.dropped[0]
    assert shop_run.rows("S001", "shop_order_items")[0]["quantity"] != 99


def test_a_rejected_value_that_no_rule_fixes_is_generated_again_without_a_call(shop_run: ShopRun, script) -> None:
    plan = script_order(script).rules[0].replies[0]
    orders = next(row for row in plan["rows"] if row["table"] == "shop_orders")
    orders["values"]["status"] = "pending"  # not a status of this shop, and no rule is about it
    shop_run.populate(script)

    assert [request.schema for request in script.requests] == ["SymbolicPlan", "RowConstraints", "RowValues",
                                                                "ExpectedOutcomeProposal"]
    (order,) = shop_run.new_rows("S001", "shop_orders")
    assert order["status"] in ("open", "shipped")
    assert order["placed_at"] == "2024-03-01T10:00:00"  # the governed value stays


def test_a_rule_that_only_restates_a_rejected_value_does_not_keep_it(shop_run: ShopRun, script) -> None:
    plan = script_order(script).rules[0].replies[0]
    orders = next(row for row in plan["rows"] if row["table"] == "shop_orders")
    orders["values"]["status"] = "pending"  # not a status of this shop
    constraints = script.rules[1].replies[0]
    constraints["constraints"]["shop_orders_1"].append({"column": "status", "rule": "pending"})
    shop_run.populate(script)

    assert [request.schema for request in script.requests] == ["SymbolicPlan", "RowConstraints", "RowValues",
                                                                "ExpectedOutcomeProposal"]
    (order,) = shop_run.new_rows("S001", "shop_orders")
    assert order["status"] in ("open", "shipped")
    assert order["placed_at"] == "2024-03-01T10:00:00"  # a real rule's value stays


def _resolve(body: dict, schema: dict) -> dict:
    """A schema node of a request's response format, following a `$ref` into its `$defs`."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return body["response_format"]["json_schema"]["schema"]["$defs"][name]
    return schema


def test_a_blank_value_is_no_choice_and_is_generated(shop_run: ShopRun, script) -> None:
    values = order_values()
    values["rows"]["shop_orders_1"]["placed_at"] = " "
    shop_run.populate(script_order(script, values=values))

    assert shop_run.events()["S001"].status == "ok"
    (order,) = shop_run.new_rows("S001", "shop_orders")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", order["placed_at"])
