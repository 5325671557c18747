"""Assertions compiled from airline rules, one of each kind, fire on trajectories that break them and only there.

Each assertion comes from a scripted compiling answer, through the same schema, typing and evidence
checks as a model's, and runs as a check on dialogs whose tool calls the real tools made on a copy of
τ-bench's data; no LLM is involved.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Assertion, Finding, Flow, Policy, PolicyCatalog
from intellagent.checks import run_checks
from intellagent.checks.compiled_checks import compiled_checks
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertion_compiler import compiled
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment
from tests.airline.test_airline_checks import MIA, Turn, booking, confirmed, play_turns, two_passenger_gold_member

RULES = {
    "P01": "Before cancelling, look the reservation up to check that the cancellation rules hold.",
    "P02": "A basic economy reservation's flights cannot be changed.",
    "P03": "Any reservation may be cancelled within 24 hours after it was booked; beyond that, a business "
           "reservation can always be cancelled, and the others only when travel insurance was bought.",
    "P04": "A reservation holds five passengers at most.",
    "P05": "Never offer a goodwill certificate unprompted: bring up compensation only when the user complains.",
    "P06": "Before changing the checked bags of a reservation, set out the change and wait for the user's explicit "
           "yes.",
}
NOW = "2024-05-15T15:00:00"
ANSWER = {"assertions": [
    {"kind": "order", "policy": "P01", "before": "get_reservation_details", "then": "cancel_reservation",
     "before_argument": "get_reservation_details.reservation_id",
     "then_argument": "cancel_reservation.reservation_id", "rationale": "Before cancelling, look the reservation up"},
    {"kind": "precondition", "policy": "P02", "tool": "update_reservation_flights", "rationale": RULES["P02"],
     "any_of": [{"argument": "update_reservation_flights.reservation_id", "key": "reservations.reservation_id",
                 "column": "reservations.cabin", "op": "ne", "value": "basic_economy"}]},
    {"kind": "precondition", "policy": "P03", "tool": "cancel_reservation", "rationale": RULES["P03"], "any_of": [
        {"argument": "cancel_reservation.reservation_id", "key": "reservations.reservation_id",
         "column": "reservations.created_at", "op": "within_days", "value": 1, "since": NOW},
        {"argument": "cancel_reservation.reservation_id", "key": "reservations.reservation_id",
         "column": "reservations.cabin", "op": "eq", "value": "business"},
        {"argument": "cancel_reservation.reservation_id", "key": "reservations.reservation_id",
         "column": "reservations.insurance", "op": "eq", "value": "yes"}]},
    {"kind": "bound", "policy": "P04", "tool": "book_reservation", "measure": "length",
     "argument": "book_reservation.passengers", "op": "le", "value": 5, "rationale": RULES["P04"]},
    {"kind": "forbidden", "policy": "P05", "tool": "send_certificate", "rationale": "Never offer a goodwill "
     "certificate unprompted"},
    {"kind": "confirmation", "policy": "P06", "tool": "update_reservation_baggages", "rationale": RULES["P06"]},
]}


def catalog(rules: dict[str, str]) -> PolicyCatalog:
    return PolicyCatalog(task_description="An airline's agent.", flows=[Flow(id="F1", name="Manage bookings")],
                         policies=[Policy(id=pid, text=text, flows=["F1"], category="company_policy", challenge=2)
                                   for pid, text in rules.items()])


@pytest.fixture(scope="module")
def assertions(airline: Environment) -> list[Assertion]:
    vocabulary = Vocabulary.of(airline)
    answer = assertions_schema(vocabulary, list(RULES)).model_validate(ANSWER)
    kept, notes = compiled(answer, catalog(RULES), vocabulary)
    assert notes == []
    return kept


def found_by(airline: Environment, assertions: list[Assertion], before: Path, folder: Path, turns: list[Turn]
             ) -> dict[str, list[Finding]]:
    """The compiled assertions' findings on the dialog, by assertion id."""
    messages, database = play_turns(airline, before, folder, turns)
    names, findings, _ = run_checks(airline, messages, before=before, database=database,
                                 compiled=compiled_checks(assertions))
    assert {a.check for a in assertions} <= set(names)
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.check.startswith("compiled "):
            found.setdefault(finding.check.removeprefix("compiled "), []).append(finding)
    return found


def reservation(database: Path, where: str) -> str:
    (found,) = sqlite3.connect(database).execute(
        f"SELECT reservation_id FROM reservations WHERE status IS NULL AND {where} ORDER BY reservation_id LIMIT 1"
    ).fetchone()
    return found


def cancel(reservation_id: str, *, looked_up: bool) -> list[Turn]:
    lookup: list[tuple[str, dict[str, Any]]] = [("get_reservation_details", {"reservation_id": reservation_id})]
    return [("chatbot", "Hello!", []), ("user", f"Cancel {reservation_id}.", []),
            ("chatbot", "Here it is. I will cancel it; shall I?", lookup if looked_up else []),
            ("user", "Yes, please go ahead.", []),
            ("chatbot", "Cancelled.", [("cancel_reservation", {"reservation_id": reservation_id})])]


def test_every_kind_compiles_from_the_scripted_answer_with_ids_per_policy(assertions) -> None:
    assert [(a.id, a.kind) for a in assertions] == [
        ("P01.1", "order"), ("P02.1", "precondition"), ("P03.1", "precondition"), ("P04.1", "bound"),
        ("P05.1", "forbidden"), ("P06.1", "confirmation")]


def test_an_order_assertion_fires_on_a_cancellation_with_no_lookup(airline, assertions, tau_db, tmp_path) -> None:
    business = reservation(tau_db, "cabin = 'business'")
    found = found_by(airline, assertions, tau_db, tmp_path, cancel(business, looked_up=False))
    (finding,) = found["P01.1"]
    assert finding.turn == 4 and finding.call == f'cancel_reservation({{"reservation_id": "{business}"}})'
    assert "before any successful get_reservation_details" in finding.message


def test_an_order_assertion_is_silent_when_the_same_reservation_was_looked_up(airline, assertions, tau_db,
                                                                              tmp_path) -> None:
    business = reservation(tau_db, "cabin = 'business'")
    assert "P01.1" not in found_by(airline, assertions, tau_db, tmp_path, cancel(business, looked_up=True))


def test_an_order_assertion_fires_when_another_reservation_was_looked_up(airline, assertions, tau_db,
                                                                         tmp_path) -> None:
    business = reservation(tau_db, "cabin = 'business'")
    other = reservation(tau_db, f"reservation_id != '{business}'")
    turns = cancel(business, looked_up=False)
    turns[2] = ("chatbot", "Shall I?", [("get_reservation_details", {"reservation_id": other})])
    assert found_by(airline, assertions, tau_db, tmp_path, turns)["P01.1"][0].turn == 4


def test_a_precondition_fires_on_a_flight_change_of_basic_economy_with_the_row_at_fault(airline, assertions, tau_db,
                                                                                         tmp_path) -> None:
    basic = reservation(tau_db, "cabin = 'basic_economy'")
    action = ("update_reservation_flights", {"reservation_id": basic, "cabin": "basic_economy",
                                             "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
                                             "payment_id": "credit_card_4421486"})
    (finding,) = found_by(airline, assertions, tau_db, tmp_path, confirmed("Move me.", action))["P02.1"]
    assert finding.turn == 4 and finding.call.startswith("update_reservation_flights(")
    assert finding.row == f"reservations row (reservation_id='{basic}')"
    assert "cabin is 'basic_economy'" in finding.message


def test_a_precondition_with_alternatives_fires_only_when_none_holds(airline, assertions, tau_db, tmp_path) -> None:
    old = reservation(tau_db, "cabin = 'economy' AND insurance = 'no' AND created_at < '2024-05-14'")
    insured = reservation(tau_db, "cabin = 'economy' AND insurance = 'yes'")
    business = reservation(tau_db, "cabin = 'business'")
    assert "P03.1" in found_by(airline, assertions, tau_db, tmp_path / "old", cancel(old, looked_up=True))
    for allowed in (insured, business):
        assert "P03.1" not in found_by(airline, assertions, tau_db, tmp_path / allowed, cancel(allowed, looked_up=True))


def test_a_precondition_on_an_id_that_names_no_row_is_never_a_breach(airline, assertions, tau_db, tmp_path) -> None:
    found = found_by(airline, assertions, tau_db, tmp_path, cancel("NOSUCH", looked_up=False))
    assert "P03.1" not in found and "P01.1" in found  # what cannot be told is silent; the missing lookup is not


def test_a_bound_fires_on_six_passengers_and_not_on_five(airline, assertions, tau_db, tmp_path) -> None:
    card = ["credit_card_4421486"]
    six = found_by(airline, assertions, tau_db, tmp_path / "six", confirmed("Six.", booking(6, card)))
    (finding,) = six["P04.1"]
    assert finding.turn == 4 and "passengers holds 6 items; the limit is le 5" in finding.message
    five = found_by(airline, assertions, tau_db, tmp_path / "five", confirmed("Five.", booking(5, card)))
    assert "P04.1" not in five


def test_a_forbidden_call_fires_where_it_is_made(airline, assertions, tau_db, tmp_path) -> None:
    turns = confirmed("Anything for me?", ("send_certificate", {"user_id": MIA, "amount": 100}))
    (finding,) = found_by(airline, assertions, tau_db, tmp_path, turns)["P05.1"]
    assert finding.turn == 4 and finding.call == 'send_certificate({"amount": 100, "user_id": "mia_li_3668"})'


def test_a_confirmation_assertion_fires_without_a_yes_and_not_after_one(airline, assertions, tau_db, tmp_path) -> None:
    user, booked = two_passenger_gold_member(tau_db)
    action = ("update_reservation_baggages", {"reservation_id": booked, "total_baggages": 2, "nonfree_baggages": 0,
                                              "payment_id": "credit_card_4421486"})
    hasty: list[Turn] = [("chatbot", "Hello!", []), ("user", f"I am {user}; add two bags to {booked}.", []),
                         ("chatbot", "Added.", [action])]
    (finding,) = found_by(airline, assertions, tau_db, tmp_path / "hasty", hasty)["P06.1"]
    assert finding.turn == 2 and "without an explicit yes" in finding.message
    assert "P06.1" not in found_by(airline, assertions, tau_db, tmp_path / "asked", confirmed("Two bags.", action))


def test_a_compliant_dialog_gets_no_finding_of_any_assertion(airline, assertions, tau_db, tmp_path) -> None:
    business = reservation(tau_db, "cabin = 'business'")
    turns = [*confirmed("Book for five.", booking(5, ["credit_card_4421486"])), *cancel(business, looked_up=True)[1:]]
    assert found_by(airline, assertions, tau_db, tmp_path, turns) == {}
