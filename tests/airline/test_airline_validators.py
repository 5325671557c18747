"""Validators of generated airline rows: they accept τ-bench's data, reject inconsistencies, repair slips."""

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from intellagent.environment import Environment


def problems(airline: Environment, db: Path, table: str, **values: Any) -> list[str]:
    with airline.session(db) as session:
        return airline.validate(airline.table(table)(**values), session)


USER = dict(user_id="ada_byron_1815", first_name="Ada", last_name="Byron", address1="1 Main St", address2="Apt 1",
            city="Austin", country="USA", state="TX", zip="78701", email="ada@example.com", dob="1815-12-10",
            membership="gold")
FLIGHT = dict(flight_number="HAT301", origin="JFK", destination="SEA", scheduled_departure_time_est="08:00:00",
              scheduled_arrival_time_est="11:30:00")
RESERVATION = dict(reservation_id="ABC123", user_id="mia_li_3668", origin="JFK", destination="SEA",
                   flight_type="one_way", cabin="economy", created_at="2024-05-10T10:00:00", total_baggages=1,
                   nonfree_baggages=0, insurance="no")


def test_tau_bench_rows_pass(airline: Environment, tau_db: Path) -> None:
    with airline.session(tau_db) as session:
        rows = [row for table in airline.tables for row in session.exec(select(table).limit(60)).all()]
        assert [(row, found) for row in rows if (found := airline.validate(row, session))] == []


def test_membership_case_is_repaired(airline: Environment, tau_db: Path) -> None:
    user = airline.table("users")(**{**USER, "membership": " Gold"})
    with airline.session(tau_db) as session:
        assert airline.validate(user, session) == []
    assert user.membership == "gold"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("table", "values", "message"),
    [
        (
            "users",
            {**USER, "membership": "platinum"},
            "membership 'platinum' is not one of 'regular', 'silver', 'gold'",
        ),
        ("users", {**USER, "dob": "10/12/1815"}, "dob '10/12/1815' is not a date; write it 'YYYY-MM-DD'"),
        ("flights", {**FLIGHT, "destination": "JFK"}, "flight HAT301 must not fly from JFK to itself"),
        ("flights", {**FLIGHT, "origin": "XXX"}, "origin 'XXX' is not one of"),
        ("flights", {**FLIGHT, "scheduled_arrival_time_est": "25:00:00"}, "must be 'HH:MM:SS'"),
        ("reservations", {**RESERVATION, "cabin": "first"}, "cabin 'first' is not one of"),
        ("reservations", {**RESERVATION, "created_at": "2024-05-10 10:00"}, "must be written 'YYYY-MM-DDTHH:MM:SS'"),
        (
            "reservations",
            {**RESERVATION, "nonfree_baggages": 2},
            "nonfree_baggages must be between 0 and total_baggages",
        ),
        (
            "payment_methods",
            dict(user_id="mia_li_3668", payment_id="gift_card_1234567", position=9, source="certificate", amount=100),
            "payment_id 'gift_card_1234567' must be 'certificate_' and 7 digits",
        ),
        (
            "payment_methods",
            dict(
                user_id="mia_li_3668",
                payment_id="credit_card_1234567",
                position=9,
                source="credit_card",
                brand="visa",
                last_four="12",
            ),
            "last_four '12' must be",
        ),
        (
            "reservation_passengers",
            dict(reservation_id="NO6JO3", position=5, first_name="Sixth", last_name="Person", dob="2000-01-01"),
            "a reservation has at most 5 passengers",
        ),
        (
            "reservation_flights",
            dict(
                reservation_id="NO6JO3",
                position=2,
                flight_number="HAT001",
                date="2024-05-20",
                origin="JFK",
                destination="SEA",
                price=100,
            ),
            "flight HAT001 flies PHL->LGA",
        ),
        (
            "flight_dates",
            dict(flight_number="HAT001", date="2024-05-31", status="available"),
            "an available flight needs seats_basic_economy",
        ),
        (
            "flight_dates",
            dict(
                flight_number="HAT001",
                date="2024-05-31",
                status="landed",
                actual_departure_time_est="2024-05-31T06:00:00",
            ),
            "a landed flight needs actual_arrival",
        ),
        (
            "reservation_payments",
            dict(reservation_id="NO6JO3", position=1, payment_id="gift_card_7777777", amount=10),
            "gift_card_7777777 is not a payment method of mia_li_3668",
        ),
        (
            "user_reservations",
            dict(user_id="mia_li_3668", position=3, reservation_id="4WQ150"),
            "reservation 4WQ150 belongs to chen_jackson_3290",
        ),
    ],
)
def test_inconsistent_rows_are_rejected(airline: Environment, tau_db: Path, table: str, values: dict[str, Any],
                                        message: str) -> None:
    found = problems(airline, tau_db, table, **values)
    assert len(found) == 1 and message in found[0], found


def test_generic_checks_come_with_the_domain(airline: Environment, tau_db: Path) -> None:
    found = problems(airline, tau_db, "reservations", **{**RESERVATION, "user_id": "nobody_0000"})
    assert found == ["reservations: user_id='nobody_0000' matches no row of users; refer to an existing one"]
