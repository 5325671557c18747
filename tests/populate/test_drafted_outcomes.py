"""Where outcomes are drafted (`populate.drafted_outcomes`, on by default on the embedded model), an event whose user
is entitled to a change gets that change as its outcome: the arguments that identify a record come from the event's
own rows, the model is asked only for the ones left (and not at all when none is), and a draft that fails when it
runs is asked again once with the error (not on the lean path), else leaves the event without an outcome and says
why. On the airline and
on the store (order ids of digits, JSON columns, an order whose line and payment must agree with it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import intellagent.graphs.populate as populate_graph
from intellagent.artifacts import Entitlement
from intellagent.config import load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.llm.scripted import Request
from intellagent.outcomes.draft import open_arguments
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import ROOT
from tests.populate.test_careless_model import DOMAINS, assert_outcomes_verified_or_explained
from tests.populate.test_careless_model import scenarios as careless_scenarios
from tests.populate.test_expected_outcomes import (
    AIRLINE,
    SCENARIO,
    Populated,
    airline_plan,
    shown_rows,
    store_plan,
    user_and_reservation,
)
from tests.simulate.scripted_dialogs import dialogs, say, stands, verdict
from tests.store import environment as store_environment

DRAFTED = {"drafted_outcomes": "yes"}
ASKED_AGAIN = {**DRAFTED, "lean": "no"}  # the lean path drops a failed draft without asking again
REFUSER = ROOT / "examples" / "chatbots" / "refuser.yml"
CANCEL_BOOKING = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="cancel_reservation", request="Cancel the customer's business booking, made yesterday.")})
MORE_BAGS = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="update_reservation_baggages", request="Add one checked bag to the booking.")})
UPGRADE = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="update_reservation_flights", request="Move the booking to the business cabin, on the same flights.")})
CANCEL_ORDER = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="cancel_order", request="Cancel the customer's pending order.")})


def never_proposed(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    raise AssertionError("a drafted outcome asks for no whole proposal")


def arguments_asked(script: ScriptedLLM) -> list[Request]:
    return [request for request in script.requests if "The arguments still open" in request.text]


def bags(total: int, nonfree: int) -> Any:
    """An answer giving the bag change's open arguments."""
    return lambda request: {"total_baggages": total, "nonfree_baggages": nonfree}


def full_path(plan: dict[str, Any], script: ScriptedLLM) -> dict[str, Any]:
    """`plan` with the texts the full populate path asks for, `script` answering its constraints with no rule."""
    def no_rules(request: Request) -> dict[str, Any]:
        schema = request.body["response_format"]["json_schema"]["schema"]
        per_row = schema["properties"]["constraints"]
        per_row = schema["$defs"][per_row["$ref"].split("/")[-1]] if "$ref" in per_row else per_row
        return {"constraints": {label: [] for label in per_row["properties"]}, "details": []}

    script.on(schema="RowConstraints", reply=no_rules)
    return {**plan, "scenario": "U1 wants a change to R1.", "expected_behaviour": "The chatbot makes it."}


def asked_fields(request: Request) -> set[str]:
    return set(request.body["response_format"]["json_schema"]["schema"]["properties"])


def test_a_change_the_rows_settle_is_the_outcome_with_no_call_at_all(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), never_proposed, scenario=CANCEL_BOOKING,
                    populate=DRAFTED)

    _, reservation = user_and_reservation(run.event.user_rows)
    expected = run.event.expected
    assert expected is not None and run.event.expected_error is None
    assert [(call.tool, call.arguments) for call in expected.calls] == [
        ("cancel_reservation", {"reservation_id": reservation})]
    assert arguments_asked(run.script) == [] and run.script.calls(schema="ExpectedOutcomeProposal") == []
    assert expected.kind == "delivery" and expected.floor is not None and not expected.floor.nothing


def test_the_model_is_asked_only_for_the_arguments_the_rows_leave(tmp_path: Path) -> None:
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=bags(1, 0))
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), never_proposed, scenario=MORE_BAGS,
                    populate=DRAFTED, script=script)

    (asked,) = arguments_asked(run.script)
    _, reservation = user_and_reservation(run.event.user_rows)
    assert f'- reservation_id: "{reservation}"' in asked.last
    assert "The arguments still open: total_baggages, nonfree_baggages." in asked.last
    assert asked_fields(asked) == {"total_baggages", "nonfree_baggages"}
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    (change,) = expected.calls
    assert change.tool == "update_reservation_baggages" and change.arguments["reservation_id"] == reservation
    assert change.arguments["total_baggages"] == 1 and expected.touched


def test_a_list_argument_is_offered_as_the_rows_hold_it_for_a_change_that_keeps_it(tmp_path: Path) -> None:
    def upgrade(request: Request) -> dict[str, Any]:
        line = next(line for line in request.last.splitlines() if line.startswith("- flights: now "))
        return {"cabin": "business", "flights": json.loads(line.removeprefix("- flights: now "))}

    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=upgrade)
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), never_proposed, scenario=UPGRADE, populate=DRAFTED,
                    script=script)

    (asked,) = arguments_asked(run.script)
    _, reservation = user_and_reservation(run.event.user_rows)
    held = [{"flight_number": row["flight_number"], "date": row["date"]}
            for row in run.event.user_rows["reservation_flights"] if row["reservation_id"] == reservation]
    assert held and f"- flights: now {json.dumps(held)}" in asked.last
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert expected.calls[0].arguments["flights"] == held and expected.calls[0].arguments["cabin"] == "business"


def test_a_change_of_cabin_on_a_flight_that_has_left_is_made_on_flights_drawn_anew_the_answer_carried_over(
        tmp_path: Path) -> None:
    def upgrade(request: Request) -> dict[str, Any]:
        line = next(line for line in request.last.splitlines() if line.startswith("- flights: now "))
        held = json.loads(line.removeprefix("- flights: now "))
        return {"cabin": "business", "flights": [{**flight, "price": 100} for flight in held]}  # a field of its own

    plan = airline_plan("economy")
    plan["rows"].append({"table": "reservation_flights", "values": {
        "reservation_id": "R1", "position": 0, "flight_number": "HAT001", "date": "2024-05-02"}})
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=upgrade)
    run = Populated(tmp_path, AIRLINE, plan, never_proposed, scenario=UPGRADE, populate=DRAFTED, script=script)

    assert len(arguments_asked(run.script)) == 1
    (segment,) = run.event.user_rows["reservation_flights"]
    assert (segment["flight_number"], segment["date"]) != ("HAT001", "2024-05-02")
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert expected.calls[0].arguments["flights"] == [{"flight_number": segment["flight_number"],
                                                       "date": segment["date"]}]
    assert any("drawn anew" in note and "HAT001" in note for note in run.event.dropped)


def test_a_draft_that_fails_is_asked_again_once_with_the_error_the_rows_ids_kept(tmp_path: Path) -> None:
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text,
                              replies=[bags(1, 3), bags(1, 0)])
    run = Populated(tmp_path, AIRLINE, full_path(airline_plan("economy"), script), never_proposed,
                    scenario=MORE_BAGS, populate=ASKED_AGAIN, script=script)

    first, second = arguments_asked(run.script)
    assert "failed" not in first.last
    assert "nonfree_baggages=3" in second.last
    assert "nonfree_baggages must be between 0 and total_baggages" in second.last
    assert "The arguments still open: total_baggages, nonfree_baggages." in second.last
    assert not any("drawn anew" in note for note in run.event.dropped)  # the answer was at fault, not the world
    expected = run.event.expected
    assert expected is not None and expected.repairs == 1, run.event.expected_error
    assert expected.calls[0].arguments["nonfree_baggages"] == 0
    assert expected.calls[0].arguments["reservation_id"] == user_and_reservation(run.event.user_rows)[1]


def test_a_draft_that_still_fails_leaves_the_event_without_an_outcome_and_says_why(tmp_path: Path) -> None:
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=bags(1, 3))
    run = Populated(tmp_path, AIRLINE, full_path(airline_plan("economy"), script), never_proposed,
                    scenario=MORE_BAGS, populate=ASKED_AGAIN, script=script)

    assert len(arguments_asked(run.script)) == 2
    assert run.event.expected is None and run.event.expected_error is not None
    assert run.event.expected_error.startswith("a change of the outcome could not be verified")
    assert not (run.folder / "events/S001.expected.delta.json").exists()


def test_on_the_lean_path_a_draft_that_fails_is_not_asked_again(tmp_path: Path) -> None:
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=bags(1, 3))
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), never_proposed, scenario=MORE_BAGS,
                    populate={**DRAFTED, "lean": "yes"}, script=script)

    assert len(arguments_asked(run.script)) == 1
    assert run.event.expected is None and run.event.expected_error is not None
    assert "nonfree_baggages must be between 0 and total_baggages" in run.event.expected_error


def test_a_change_the_planned_rows_forbid_is_made_on_the_world_drawn_anew_with_no_call(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("economy", booked="2024-04-01T10:00:00"), never_proposed,
                    scenario=CANCEL_BOOKING, populate=DRAFTED)

    assert arguments_asked(run.script) == []
    (booking,) = run.event.user_rows["reservations"]
    assert (booking["cabin"], booking["created_at"]) != ("economy", "2024-04-01T10:00:00")
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert [(call.tool, call.arguments) for call in expected.calls] == [
        ("cancel_reservation", {"reservation_id": booking["reservation_id"]})]
    assert any("drawn anew" in note and "cancellation_eligibility" in note for note in run.event.dropped)


def test_on_the_store_an_order_the_plan_delivered_is_drawn_anew_until_it_can_be_cancelled(tmp_path: Path) -> None:
    plan = store_plan()
    plan["rows"][1]["values"]["status"] = "delivered"
    run = Populated(tmp_path, store_environment(), plan, never_proposed, scenario=CANCEL_ORDER, populate=DRAFTED)

    (order,) = run.event.user_rows["store_orders"]
    assert order["status"] == "pending" and order["order_id"][2:].isdigit()
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert [(call.tool, call.arguments) for call in expected.calls] == [
        ("cancel_order", {"order_id": order["order_id"]})]
    assert arguments_asked(run.script) == []


def test_an_order_chosen_among_several_is_the_one_in_its_place_in_the_world_drawn_anew(tmp_path: Path) -> None:
    def first_offered(request: Request) -> dict[str, Any]:
        line = next(line for line in request.last.splitlines() if line.startswith("- order_id: one of "))
        return {"order_id": json.loads(line.removeprefix("- order_id: one of ").split(", ")[0])}

    plan = store_plan()
    plan["rows"][1]["values"]["status"] = "delivered"
    plan["entities"].append({"symbol": "O2", "description": "C1's other order"})
    plan["rows"].append({"table": "store_orders", "values": {"order_id": "O2", "customer_id": "C1",
                                                             "status": "processed"}})
    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=first_offered)
    run = Populated(tmp_path, store_environment(), plan, never_proposed, scenario=CANCEL_ORDER, populate=DRAFTED,
                    script=script)

    assert len(arguments_asked(run.script)) == 1
    first, _ = run.event.user_rows["store_orders"]
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert [(call.tool, call.arguments) for call in expected.calls] == [
        ("cancel_order", {"order_id": first["order_id"]})]
    assert first["status"] == "pending"


def test_a_world_drawn_anew_that_breaks_a_row_rule_gives_way_to_the_world_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def invalid_draw(plan: Any, assignment: Any, *, failure: str, tables: Any) -> list[str]:
        booking = next(row for row in plan.rows if row.table == "reservations")
        booking.cells["cabin"] = "first"
        return [f"{booking.label}: cabin drawn anew ({failure})"]

    monkeypatch.setattr(populate_graph, "draw_anew", invalid_draw)
    script = ScriptedLLM()
    run = Populated(tmp_path, AIRLINE, full_path(airline_plan("economy", booked="2024-04-01T10:00:00"), script),
                    never_proposed, scenario=CANCEL_BOOKING, populate=ASKED_AGAIN, script=script)

    assert run.event.status == "ok"
    (booking,) = run.event.user_rows["reservations"]
    assert (booking["cabin"], booking["created_at"]) == ("economy", "2024-04-01T10:00:00")
    assert run.event.expected is None and "cancellation_eligibility" in (run.event.expected_error or "")
    assert len(arguments_asked(run.script)) == 1


def test_a_change_the_rows_settled_whole_that_fails_is_asked_again_with_every_argument_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(populate_graph, "WORLD_DRAWS", 0)

    def same_booking(request: Request) -> dict[str, Any]:
        assert asked_fields(request) == {"reservation_id"}
        return {"reservation_id": shown_rows(request)["reservations"][0]["reservation_id"]}

    script = ScriptedLLM().on(when=lambda request: "The arguments still open" in request.text, reply=same_booking)
    run = Populated(tmp_path, AIRLINE, full_path(airline_plan("economy", booked="2024-04-01T10:00:00"), script),
                    never_proposed, scenario=CANCEL_BOOKING, populate=ASKED_AGAIN, script=script)

    (asked,) = arguments_asked(run.script)
    assert "cancellation_eligibility" in asked.last and "The arguments still open: reservation_id." in asked.last
    assert run.event.expected is None and "cancellation_eligibility" in (run.event.expected_error or "")


def test_a_change_whose_record_the_plan_forgot_is_drafted_on_the_record_added_for_it(tmp_path: Path) -> None:
    user_only = {"entities": [{"symbol": "U1", "description": "a gold member"}],
                 "rows": [{"table": "users", "values": {"user_id": "U1", "membership": "gold"}}]}
    run = Populated(tmp_path, AIRLINE, user_only, never_proposed, scenario=MORE_BAGS, populate=DRAFTED)

    (user,), (booking,) = run.event.user_rows["users"], run.event.user_rows["reservations"]
    assert booking["user_id"] == user["user_id"]
    (asked,) = arguments_asked(run.script)
    assert booking["reservation_id"] in asked.last  # the change is drafted on the booking added for it
    assert "hold no reservation_id" not in (run.event.expected_error or "")


def test_a_scenario_with_nothing_to_deliver_still_has_its_outcome_proposed_whole(tmp_path: Path) -> None:
    refusal = {"calls": [], "outputs": [], "forbidden": [
        {"tool": "cancel_reservation", "arguments": None, "policy": "P01", "reason": "booked too long ago"}]}
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), lambda rows: refusal, populate=DRAFTED)

    assert len(run.script.calls(schema="ExpectedOutcomeProposal")) == 1 and arguments_asked(run.script) == []
    assert run.event.expected is not None and run.event.expected.kind == "refusal"


def test_on_the_store_an_order_is_cancelled_by_a_draft_with_no_call(tmp_path: Path) -> None:
    run = Populated(tmp_path, store_environment(), store_plan(), never_proposed, scenario=CANCEL_ORDER,
                    populate=DRAFTED)

    order = run.event.user_rows["store_orders"][0]["order_id"]
    assert order.startswith("#W") and order[2:].isdigit()
    expected = run.event.expected
    assert expected is not None, run.event.expected_error
    assert [(call.tool, call.arguments) for call in expected.calls] == [("cancel_order", {"order_id": order})]
    assert f"store_orders {order}" in expected.touched and not expected.floor.nothing  # type: ignore[union-attr]


@pytest.mark.parametrize(("domain", "tools"), [
    ("airline", ["cancel_reservation", "update_reservation_baggages", "update_reservation_flights"]),
    ("clinic", ["cancel_appointment"]),
])
def test_whatever_a_careless_model_answers_each_drafted_event_has_a_verified_outcome_or_says_why(
        tmp_path: Path, domain: str, tools: list[str]) -> None:
    script = ScriptedLLM().on(reply=careless_answers(seed=5))
    cfg = load_config({"name": "careless", "environment": DOMAINS[domain](), "llm": "scripted", "seed": 7,
                       "workers": 2, "populate": {"drafted_outcomes": "yes"}}, base_dir=tmp_path)
    folder = tmp_path / "run"
    asyncio.run(execute(cfg, output=folder, stages=(), progress=False))
    for number, scenario in enumerate(careless_scenarios(6), start=0):
        tool = tools[number % len(tools)]
        RunFolder(folder).scenarios.append(scenario.model_copy(update={
            "entitled": Entitlement(tool=tool, request=f"The change {tool} makes.")}))
    asyncio.run(execute(cfg, output=folder, stages=("populate",), script=script, progress=False))

    events = RunFolder(folder).events.load()
    # Random rows rarely hold a record the change can be made on: what counts is that none is made up.
    assert_outcomes_verified_or_explained(events, folder, load_environment(cfg.environment), some=False)
    assert len(events) == 6 and all(event.expected or event.expected_error for event in events)
    assert all(call.tool in tools for event in events if event.expected for call in event.expected.calls)
    assert script.calls(schema="ExpectedOutcomeProposal") == []


def test_the_refuser_example_fails_a_drafted_outcome_in_a_dialog(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), never_proposed, scenario=CANCEL_BOOKING,
                    populate=DRAFTED)
    refuser = load_config(REFUSER)
    config = run.config.model_copy(update={"chatbot": refuser.chatbot})
    script = ScriptedLLM().on(role="user", schema="UserTurn", replies=[
        say("Please cancel my booking."), *stands("failure", "it refused")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    refused = tmp_path / "refused"
    asyncio.run(execute(config, output=refused, stages=("simulate",), scenarios_from=run.folder, script=script,
                        progress=False))

    (dialog,) = dialogs(refused)
    assert [call for message in dialog.transcript for call in message.tool_calls] == []
    assert dialog.grade is not None and dialog.grade.reward == 0.0
    assert dialog.grade.missed == [call.text() for call in run.event.expected.calls]  # type: ignore[union-attr]


def test_the_arguments_asked_are_shown_closed_a_chosen_flight_its_number_and_date() -> None:
    environment = load_environment(load_config({"name": "airline", "environment": AIRLINE}).environment)
    book = environment.tool("book_reservation")
    schema = open_arguments(book, ["flights", "insurance"]).model_json_schema()

    assert set(schema["properties"]) == {"flights", "insurance"}
    flight = schema["properties"]["flights"]["items"]
    assert set(flight["properties"]) == {"flight_number", "date"} and flight["additionalProperties"] is False
