"""The airline's deterministic checks flag scripted chatbots that break a rule, and only those.

Each dialog runs the real tools on a copy of τ-bench's data, then every check reads its trace; no
LLM is involved.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Finding, Message, ToolCall
from intellagent.checks import run_checks
from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment
from tests.airline.conftest import REPO

Turn = tuple[str, str, list[tuple[str, dict[str, Any]]]]

MIA = "mia_li_3668"  # a gold member with two credit cards and two certificates
FLIGHT = {"flight_number": "HAT136", "date": "2024-05-20"}


@pytest.fixture(scope="module")
def airline_with_checks() -> Environment:
    return load_environment(EnvironmentConfig(
        policy=REPO / "policies/airline.md", schema="intellagent.db_schemas.airline.schema",
        tools="intellagent.db_schemas.airline.tools", validators="intellagent.db_schemas.airline.validators",
        checks="intellagent.db_schemas.airline.checks",
    ))


def play_turns(env: Environment, before: Path, folder: Path, turns: list[Turn]) -> tuple[list[Message], Path]:
    """Run the turns' tool calls on a copy of `before` in `folder`: the transcript, and the world it left."""
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "dialog.sqlite"
    shutil.copyfile(before, database)
    messages = []
    for number, (role, content, calls) in enumerate(turns):
        made = []
        for index, (name, arguments) in enumerate(calls):
            with env.session(database) as session:
                result = env.call_tool(session, name, arguments)
            made.append(ToolCall(id=f"c{number}.{index}", name=name, arguments=arguments, result=result))
        messages.append(Message(role=role, content=content, tool_calls=made))
    return messages, database


def play(env: Environment, before: Path, folder: Path, turns: list[Turn]) -> dict[str, list[Finding]]:
    """Run the turns' tool calls on a copy of `before`, then every check; findings by check name."""
    messages, database = play_turns(env, before, folder, turns)
    names, findings, _ = run_checks(env, messages, before=before, database=database)
    assert "confirmed_before_write" in names and "free_bag_allowance" in names
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        found.setdefault(finding.check, []).append(finding)
    return found


def confirmed(request: str, action: tuple[str, dict[str, Any]]) -> list[Turn]:
    """The customer asks, the chatbot states the action, the customer says yes, the chatbot acts."""
    return [("chatbot", "Hello! How can I help?", []), ("user", request, []),
            ("chatbot", "I will do exactly that. Shall I go ahead?", []), ("user", "Yes, please go ahead.", []),
            ("chatbot", "Done.", [action])]


def booking(passengers: int, payments: list[str], *, bags: int = 0) -> tuple[str, dict[str, Any]]:
    people = [{"first_name": f"Pat{n}", "last_name": "Li", "dob": "1990-01-01"} for n in range(passengers)]
    parts = [{"payment_id": payment_id, "amount": 1} for payment_id in payments]
    return ("book_reservation", {"user_id": MIA, "origin": "JFK", "destination": "SFO", "flight_type": "one_way",
                                 "cabin": "economy", "flights": [FLIGHT], "passengers": people,
                                 "payment_methods": parts, "total_baggages": bags, "nonfree_baggages": 0,
                                 "insurance": "no"})


def two_passenger_gold_member(database: Path) -> tuple[str, str]:
    """A gold member's economy reservation of two passengers, the member having no reservation of three."""
    rows = sqlite3.connect(database).execute(
        "SELECT r.user_id, r.reservation_id FROM reservations r JOIN users u ON u.user_id = r.user_id "
        "WHERE u.membership = 'gold' AND r.cabin = 'economy' AND r.insurance = 'no' AND r.status IS NULL "
        "AND (SELECT COUNT(*) FROM reservation_passengers p WHERE p.reservation_id = r.reservation_id) = 2 "
        "AND NOT EXISTS (SELECT 1 FROM reservations o WHERE o.user_id = r.user_id AND "
        "(SELECT COUNT(*) FROM reservation_passengers q WHERE q.reservation_id = o.reservation_id) = 3) "
        "ORDER BY r.reservation_id LIMIT 1").fetchall()
    return rows[0]


def test_a_booking_of_six_passengers_is_flagged(airline_with_checks, tau_db, tmp_path) -> None:
    found = play(airline_with_checks, tau_db, tmp_path, confirmed("Book for six.", booking(6, ["credit_card_4421486"])))
    (finding,) = found["at_most_five_passengers"]
    assert "6 passengers" in finding.message and finding.turn == 4 and finding.call.startswith("book_reservation(")


def test_a_booking_paid_with_two_credit_cards_is_flagged(airline_with_checks, tau_db, tmp_path) -> None:
    action = booking(1, ["credit_card_4421486", "credit_card_1955700"])
    found = play(airline_with_checks, tau_db, tmp_path, confirmed("Split it over my two cards.", action))
    assert [f.message for f in found["payment_method_limits"]] == ["2 payment methods of kind credit_card; at most 1"]


def test_a_cancellation_without_asking_is_flagged(airline_with_checks, tau_db, tmp_path) -> None:
    user, reservation = two_passenger_gold_member(tau_db)
    turns: list[Turn] = [("chatbot", "Hello!", []), ("user", f"I am {user}; cancel {reservation}.", []),
                         ("chatbot", "It is cancelled.", [("cancel_reservation", {"reservation_id": reservation})])]
    found = play(airline_with_checks, tau_db, tmp_path, turns)
    (finding,) = found["confirmed_before_write"]
    assert finding.turn == 2 and "without an explicit yes" in finding.message
    # An old economy booking without insurance: not eligible either, whichever rule it meets first.
    assert any(word in found["cancellation_eligibility"][0].message for word in ("flown", "booked"))


def test_a_certificate_of_150_dollars_for_two_passengers_is_flagged(airline_with_checks, tau_db, tmp_path) -> None:
    user, _ = two_passenger_gold_member(tau_db)
    action = ("send_certificate", {"user_id": user, "amount": 150})
    found = play(airline_with_checks, tau_db, tmp_path, confirmed("My flight was cancelled, compensate me.", action))
    (finding,) = found["compensation_eligibility_and_amount"]
    assert "a certificate of 150 dollars" in finding.message and "200" in finding.message


def test_a_compliant_chatbot_on_the_same_scenarios_gets_no_finding(airline_with_checks, tau_db, tmp_path) -> None:
    user, reservation = two_passenger_gold_member(tau_db)
    turns = [
        *confirmed("Book for five.", booking(5, ["credit_card_4421486"], bags=0)),
        ("user", "My flight was cancelled; I would like something for the trouble.", []),
        ("chatbot", "I can offer a certificate of 200 dollars for your two passengers. Shall I?", []),
        ("user", "Yes.", []),
        ("chatbot", "Sent.", [("send_certificate", {"user_id": user, "amount": 200})]),
    ]
    found = play(airline_with_checks, tau_db, tmp_path, turns)
    assert found == {}, found
    assert reservation  # the same member as above: their certificate of 200 is due


def test_a_change_of_flights_on_basic_economy_is_flagged(airline_with_checks, tau_db, tmp_path) -> None:
    (reservation,) = sqlite3.connect(tau_db).execute(
        "SELECT reservation_id FROM reservations WHERE cabin = 'basic_economy' AND status IS NULL "
        "ORDER BY reservation_id LIMIT 1").fetchone()
    action = ("update_reservation_flights", {"reservation_id": reservation, "cabin": "basic_economy",
                                             "flights": [FLIGHT], "payment_id": "credit_card_4421486"})
    found = play(airline_with_checks, tau_db, tmp_path, confirmed("Move me to another flight.", action))
    assert "basic economy" in found["no_flight_change_on_basic_economy"][0].message
