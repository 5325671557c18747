"""An outcome is never emptier than its scenario: a user entitled to a change gets an outcome that makes it, a
change that cannot be verified leaves no outcome, and every outcome states how a chatbot that does nothing, and one
that does whatever it is asked, would score on it (its floor). On the airline and on the store (digit ids, JSON
columns, an order whose line and payment must agree with it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intellagent.artifacts import Entitlement, Scenario
from tests.populate.test_expected_outcomes import (
    AIRLINE,
    SCENARIO,
    Populated,
    airline_plan,
    call,
    order_and_line,
    proposal,
    store_plan,
    user_and_reservation,
)
from tests.store import environment as store_environment

CANCEL_BOOKING = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="cancel_reservation", request="Cancel the customer's business booking, made yesterday.")})
CANCEL_ORDER = SCENARIO.model_copy(update={"entitled": Entitlement(
    tool="cancel_order", request="Cancel the customer's pending order.")})


def look_up_only(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return proposal(call("get_reservation_details", reservation_id=user_and_reservation(rows)[1]))


def cancel_booking(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    reservation = user_and_reservation(rows)[1]
    return proposal(call("get_reservation_details", reservation_id=reservation),
                    call("cancel_reservation", ("P01",), reservation_id=reservation))


def test_an_outcome_without_the_change_the_user_is_entitled_to_is_sent_back_naming_it(tmp_path: Path) -> None:
    answers = iter([look_up_only, cancel_booking])
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), lambda rows: next(answers)(rows),
                    scenario=CANCEL_BOOKING)

    first, second = run.script.calls(schema="ExpectedOutcomeProposal")
    assert 'The change "Cancel the customer\'s business booking, made yesterday.", made with cancel_reservation' in (
        first.text)
    assert "the user is entitled to" in second.text and "(with cancel_reservation)" in second.text
    expected = run.event.expected
    assert expected is not None and expected.kind == "delivery"
    assert [call.tool for call in expected.calls] == ["get_reservation_details", "cancel_reservation"]
    assert run.event.entitled == CANCEL_BOOKING.entitled


def test_a_user_entitled_to_a_change_the_model_never_gives_leaves_the_event_without_an_outcome(tmp_path: Path
                                                                                               ) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), look_up_only, scenario=CANCEL_BOOKING)

    assert run.event.expected is None and run.event.expected_error is not None
    assert "the user is entitled to" in run.event.expected_error


def test_a_change_given_up_after_its_repairs_leaves_no_outcome_never_a_look_ups_only_one(tmp_path: Path) -> None:
    def failing_change(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        reservation = user_and_reservation(rows)[1]
        return proposal(call("get_reservation_details", reservation_id=reservation),
                        call("cancel_reservation", ("P01",), reservation_id="NOSUCH"))

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), failing_change,
                    mend=[lambda rows: {"call": call("cancel_reservation", ("P01",), reservation_id="STILLNONE")}])

    assert run.event.expected is None and run.event.expected_error is not None
    assert run.event.expected_error.startswith("a change of the outcome could not be verified")
    assert 'cancel_reservation(reservation_id="STILLNONE")' in run.event.expected_error
    assert not (run.folder / "events/S001.expected.delta.json").exists()


def test_a_delivery_outcome_fails_a_chatbot_that_does_nothing_and_one_that_makes_the_forbidden_write(
        tmp_path: Path) -> None:
    def cancel_one_forbid_another(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        answer = cancel_booking(rows)
        answer["forbidden"] = [{"tool": "update_reservation_baggages", "arguments": None, "policy": "P02",
                                "reason": "no bags may be changed here"}]
        return answer

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), cancel_one_forbid_another, scenario=CANCEL_BOOKING)

    expected = run.event.expected
    assert expected is not None and expected.floor is not None
    assert not expected.floor.nothing and not expected.floor.reckless


def test_a_refusal_is_reached_by_doing_nothing_and_its_floor_says_so(tmp_path: Path) -> None:
    refusal = lambda rows: proposal(forbidden=[  # noqa: E731
        {"tool": "cancel_reservation", "arguments": {"reservation_id": user_and_reservation(rows)[1]},
         "policy": "P01", "reason": "it was booked too long ago"}])
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), refusal)

    expected = run.event.expected
    assert expected is not None and expected.kind == "refusal" and expected.floor is not None
    assert expected.floor.nothing and not expected.floor.reckless


def test_on_the_store_an_entitled_cancellation_is_an_outcome_that_doing_nothing_fails(tmp_path: Path) -> None:
    def cancel_order(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        order, _ = order_and_line(rows)
        return proposal(call("get_order", order_id=order), call("cancel_order", ("P01",), order_id=order))

    run = Populated(tmp_path, store_environment(), store_plan(), cancel_order, scenario=CANCEL_ORDER)

    expected = run.event.expected
    assert expected is not None and expected.kind == "delivery" and expected.floor is not None
    assert not expected.floor.nothing and expected.floor.reckless  # it forbids nothing a grade could catch
    order, _ = order_and_line(run.event.user_rows)
    assert f"store_orders {order}" in expected.touched


def shared_prefix(first: str, second: str) -> str:
    """The longest start the two texts have in common."""
    differs = (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)
    length = next(differs, min(len(first), len(second)))
    return first[:length]


def another(scenario: Scenario) -> Scenario:
    """The same request in another scenario's words."""
    hurried = "In a hurry, you write in to have it undone. " + scenario.description
    return scenario.model_copy(update={"description": hurried})


def test_two_events_outcome_prompts_share_their_prefix_up_to_the_event_for_the_servers_prompt_cache(
        tmp_path: Path) -> None:
    runs = [Populated(tmp_path / name, AIRLINE, airline_plan("business"), cancel_booking, scenario=scenario)
            for name, scenario in (("one", CANCEL_BOOKING), ("two", another(CANCEL_BOOKING)))]
    first, second = (run.script.calls(schema="ExpectedOutcomeProposal")[0] for run in runs)

    assert first.system == second.system  # the world: policy, tables and counts
    common = shared_prefix(first.last, second.last)
    assert "# The tools that act on the world" in common and "cancel_reservation" in common
    assert common.endswith("# The scenario\n")  # the event's own text comes only after everything shared


def test_on_the_store_two_events_outcome_prompts_share_the_tools_before_the_event(tmp_path: Path) -> None:
    def cancel_order(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        order, _ = order_and_line(rows)
        return proposal(call("get_order", order_id=order), call("cancel_order", ("P01",), order_id=order))

    runs = [Populated(tmp_path / name, store_environment(), store_plan(), cancel_order, scenario=scenario)
            for name, scenario in (("one", CANCEL_ORDER), ("two", another(CANCEL_ORDER)))]
    first, second = (run.script.calls(schema="ExpectedOutcomeProposal")[0] for run in runs)

    common = shared_prefix(first.last, second.last)
    assert "cancel_order" in common and common.endswith("# The scenario\n")


def test_a_change_made_and_forbidden_that_the_scenario_entitles_is_settled_as_made_with_no_call_spent(
        tmp_path: Path) -> None:
    def making_and_forbidding(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        reservation = user_and_reservation(rows)[1]
        cancel = call("cancel_reservation", ("P01",), reservation_id=reservation)
        return proposal(call("get_reservation_details", reservation_id=reservation),
                        call("get_reservation_details", reservation_id=reservation), cancel,
                        forbidden=[{"tool": "cancel_reservation", "arguments": {"reservation_id": reservation},
                                    "policy": "P02", "reason": "a careless chatbot might"}])

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), making_and_forbidding, scenario=CANCEL_BOOKING)

    assert len(run.script.calls(schema="ExpectedOutcomeProposal")) == 1  # nothing sent back
    expected = run.event.expected
    assert expected is not None and expected.kind == "delivery" and expected.forbidden == []
    assert [c.tool for c in expected.calls] == ["get_reservation_details", "cancel_reservation"]  # the look-up once


def test_on_the_store_a_look_up_repeated_with_its_arguments_is_kept_once(tmp_path: Path) -> None:
    def repeating(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        order, _ = order_and_line(rows)
        look_up = call("get_order", order_id=order)
        return proposal(look_up, look_up, look_up, call("cancel_order", ("P01",), order_id=order))

    run = Populated(tmp_path, store_environment(), store_plan(), repeating, scenario=CANCEL_ORDER)

    expected = run.event.expected
    assert expected is not None and [c.tool for c in expected.calls] == ["get_order", "cancel_order"]
