"""On the lean path (the embedded model) the populate calls read the tables and the scenario's own rules, not the
whole policy document; the full path reads the document, opening as describe's prompts do. On the shop and on the
airline."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import PolicyCatalog
from intellagent.llm import ScriptedLLM
from intellagent.populate.row_models import MAX_LEAN_ROWS, MAX_ROWS
from intellagent.run_folder import RunFolder
from tests.populate.conftest import ORDER_SCENARIO, SHOP, script_order, shop_config, start_run
from tests.populate.test_expected_outcomes import (
    AIRLINE,
    SCENARIO,
    Populated,
    airline_plan,
    call,
    proposal,
    shown_rows,
)

VIP_RULE = "Only vip customers may cancel an open order."
DOCUMENT_LINE = "You help customers of an online shop with their orders."


def shop_plan_prompt(tmp_path: Path, lean: str) -> tuple[str, str]:
    """The system message and the request of the shop's plan call, with the scenario's rule in the catalog."""
    run = start_run(shop_config(tmp_path, populate={"lean": lean}), tmp_path / "run", [ORDER_SCENARIO])
    RunFolder(run.folder).policies.save(PolicyCatalog(task_description="A shop.", flows=[], policies=[
        {"id": "P01", "text": VIP_RULE, "flows": [], "category": "enforcement", "challenge": 3}]))
    script = script_order(ScriptedLLM())
    run.populate(script)
    plan = script.calls(schema="SymbolicPlan")[0]
    return plan.system, plan.last


def test_a_lean_plan_reads_the_tables_and_the_scenario_s_rules_and_not_the_document(tmp_path: Path) -> None:
    assert DOCUMENT_LINE in (SHOP / "shop.md").read_text()
    system, request = shop_plan_prompt(tmp_path, "yes")

    assert "<tables>" in system and "Table shop_orders" in system
    assert DOCUMENT_LINE not in system and DOCUMENT_LINE not in request
    assert f"The rules it tests:\n{VIP_RULE}" in request


def test_the_full_plan_reads_the_whole_document_as_well(tmp_path: Path) -> None:
    system, request = shop_plan_prompt(tmp_path, "no")

    assert DOCUMENT_LINE in system and "<tables>" in system
    assert VIP_RULE in request


@pytest.mark.parametrize("lean", ["yes", "no"])
def test_on_the_airline_the_document_is_in_the_populate_prompts_only_off_the_lean_path(tmp_path: Path,
                                                                                         lean: str) -> None:
    def cancel(rows):
        reservation = rows["reservations"][0]["reservation_id"]
        return proposal(call("get_reservation_details", reservation_id=reservation),
                        call("cancel_reservation", ("P01",), reservation_id=reservation))

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), cancel, scenario=SCENARIO,
                    populate={"lean": lean})

    document = Path(AIRLINE["policy"]).read_text(encoding="utf-8").strip()
    calls = [*run.script.calls(schema="SymbolicPlan"), *run.script.calls(schema="ExpectedOutcomeProposal")]
    assert calls and all("Table reservations" in made.system for made in calls)
    assert all((document in made.system) == (lean == "no") for made in calls)


def test_the_outcome_prompt_shows_rows_without_their_empty_columns(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"),
                    lambda rows: proposal(call("get_reservation_details",
                                               reservation_id=rows["reservations"][0]["reservation_id"])))

    shown = shown_rows(run.script.calls(schema="ExpectedOutcomeProposal")[0])
    assert shown["reservations"] and shown["flight_dates"]  # its own rows, then a flight date they refer to
    assert all(None not in row.values() for rows in shown.values() for row in rows)
    assert "status" not in shown["reservations"][0]  # a booking not cancelled has no status: nothing is shown


@pytest.mark.parametrize(("lean", "rows", "texts"), [("yes", MAX_LEAN_ROWS, False), ("no", MAX_ROWS, True)])
def test_a_lean_plan_is_sent_a_schema_of_fewer_rows_and_no_texts(tmp_path: Path, lean: str, rows: int,
                                                                  texts: bool) -> None:
    run = start_run(shop_config(tmp_path, populate={"lean": lean}), tmp_path / "run", [ORDER_SCENARIO])
    script = script_order(ScriptedLLM())
    run.populate(script)
    sent = script.calls(schema="SymbolicPlan")[0].body["response_format"]["json_schema"]["schema"]

    assert sent["properties"]["rows"]["maxItems"] == rows
    assert ("expected_behaviour" in sent["properties"]) is texts
