"""The 14 airline tools on τ-bench's data: their checks, exact messages, writes and results."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from intellagent.db_schemas.airline.tau import TauDatabase

from intellagent.environment import Environment

MIA = "mia_li_3668"  # gold member: two credit cards and certificates of 100 and 250 dollars
MIA_TRIP = [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}]
MIA_ECONOMY_TOTAL = 255  # both flights' economy prices for one passenger
MIA_HERSELF = [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}]


def call(env: Environment, db: Path, name: str, **arguments: Any) -> str:
    with env.session(db) as session:
        return env.call_tool(session, name, arguments)


def user(env: Environment, db: Path, user_id: str = MIA) -> dict[str, Any]:
    return json.loads(call(env, db, "get_user_details", user_id=user_id))


def reservation(env: Environment, db: Path, reservation_id: str) -> dict[str, Any]:
    return json.loads(call(env, db, "get_reservation_details", reservation_id=reservation_id))


def booking(**changes: Any) -> dict[str, Any]:
    """Mia's one-way economy trip JFK-SEA, paid with her 250 certificate and 5 dollars on a card."""
    arguments = {
        "user_id": MIA, "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy",
        "flights": MIA_TRIP, "passengers": MIA_HERSELF,
        "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250},
                            {"payment_id": "credit_card_4421486", "amount": 5}],
        "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no",
    }
    return {**arguments, **changes}


def test_every_tool_has_a_schema_without_the_session(airline: Environment) -> None:
    names = [schema["function"]["name"] for schema in airline.tool_schemas()]
    assert len(names) == 14 and "book_reservation" in names and "search_onestop_flight" in names
    assert all("session" not in schema["function"]["parameters"]["properties"] for schema in airline.tool_schemas())


def test_booking_schema_has_enums_and_number_amounts(airline: Environment) -> None:
    parameters = airline.tool("book_reservation").parameters
    assert parameters["required"] == [
        "user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods",
        "total_baggages", "nonfree_baggages", "insurance",
    ]
    assert parameters["properties"]["cabin"]["enum"] == ["basic_economy", "economy", "business"]
    payment = parameters["properties"]["payment_methods"]["items"]
    assert payment["properties"]["amount"]["type"] == "number" and payment["required"] == ["payment_id", "amount"]


def test_tools_declare_writes_and_the_transfer_ends_the_dialog(airline: Environment) -> None:
    writers = {tool.name for tool in airline.tools if tool.writes}
    assert writers == {
        "book_reservation", "cancel_reservation", "send_certificate", "update_reservation_baggages",
        "update_reservation_flights", "update_reservation_passengers",
    }
    assert [tool.name for tool in airline.tools if tool.ends_dialog] == ["transfer_to_human_agents"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"user_id": "nobody_0000"}, "Error: user not found"),
        ({"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]}, "Error: flight HAT999 not found"),
        ({"flights": [{"flight_number": "HAT001", "date": "2024-06-20"}]},
         "Error: flight HAT001 not found on date 2024-06-20"),
        ({"flights": [{"flight_number": "HAT001", "date": "2024-05-01"}]},
         "Error: flight HAT001 not available on date 2024-05-01"),
        ({"flights": [{"flight_number": "HAT002", "date": "2024-05-25"}], "cabin": "business"},
         "Error: not enough seats on flight HAT002"),
        ({"payment_methods": [{"payment_id": "gift_card_0000000", "amount": 255}]},
         "Error: payment method gift_card_0000000 not found"),
        ({"payment_methods": [{"payment_id": "certificate_4856383", "amount": 255}]},
         "Error: not enough balance in payment method certificate_4856383"),
        ({"payment_methods": [{"payment_id": "credit_card_4421486", "amount": 300}], "insurance": "yes",
          "nonfree_baggages": 1}, "Error: payment amount does not add up, total price is 335, but paid 300"),
        ({"payment_methods": [{"payment_id": "credit_card_4421486", "amount": 254.5}]},
         "Error: payment amount does not add up, total price is 255, but paid 254.5"),
    ],
)
def test_booking_checks(airline: Environment, tau_db: Path, changes: dict[str, Any], message: str) -> None:
    before = user(airline, tau_db)
    assert call(airline, tau_db, "book_reservation", **booking(**changes)) == message
    assert user(airline, tau_db) == before
    assert call(airline, tau_db, "get_reservation_details", reservation_id="HATHAT") == "Error: user not found"


def test_booking_arguments_are_checked_against_the_schema(airline: Environment, tau_db: Path) -> None:
    reply = call(airline, tau_db, "book_reservation", **booking(cabin="first"))
    assert reply.startswith("Error: invalid arguments for book_reservation: cabin: Input should be 'basic_economy'")


def test_a_booking_is_stored_listed_and_paid(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    reply = json.loads(call(airline, tau_db, "book_reservation", **booking()))
    assert reply == reservation(airline, tau_db, "HATHAT")
    assert reply["created_at"] == "2024-05-15T15:00:00" and "status" not in reply
    # Q15: a booked segment lists the caller's keys, then what the tool adds.
    assert list(reply["flights"][0]) == ["flight_number", "date", "price", "origin", "destination"]
    assert sum(segment["price"] for segment in reply["flights"]) == MIA_ECONOMY_TOTAL
    assert user(airline, tau_db)["reservations"][-1] == "HATHAT"
    assert "certificate_7504069" not in user(airline, tau_db)["payment_methods"]  # Q5: spent whole
    found = json.loads(
        call(airline, tau_db, "search_direct_flight", origin="JFK", destination="SEA", date="2024-05-20")
    )
    assert found == direct_flights(tau_data, "JFK", "SEA", "2024-05-20")  # Q3: no seat is taken


def test_booking_ids_are_fixed_and_the_fourth_overwrites_the_third(airline: Environment, tau_db: Path) -> None:
    paid_by_card = booking(payment_methods=[{"payment_id": "credit_card_4421486", "amount": MIA_ECONOMY_TOTAL}])
    replies = [
        json.loads(call(airline, tau_db, "book_reservation", **paid_by_card))["reservation_id"] for _ in range(3)
    ]
    assert replies == ["HATHAT", "HATHAU", "HATHAV"]
    basic = booking(cabin="basic_economy", payment_methods=[{"payment_id": "credit_card_4421486", "amount": 104}])
    assert json.loads(call(airline, tau_db, "book_reservation", **basic))["reservation_id"] == "HATHAV"  # Q7
    assert reservation(airline, tau_db, "HATHAV")["cabin"] == "basic_economy"
    assert user(airline, tau_db)["reservations"][-4:] == ["HATHAT", "HATHAU", "HATHAV", "HATHAV"]


def test_a_certificate_listed_twice_leaves_a_partial_write(airline: Environment, tau_db: Path) -> None:
    twice = [
        {"payment_id": "certificate_7504069", "amount": 127.5},
        {"payment_id": "certificate_7504069", "amount": 127.5},
    ]
    assert call(airline, tau_db, "book_reservation", **booking(payment_methods=twice)) == "Error: 'certificate_7504069'"
    assert "certificate_7504069" not in user(airline, tau_db)["payment_methods"]  # Q6: applied before the failure
    assert call(airline, tau_db, "get_reservation_details", reservation_id="HATHAT") == "Error: user not found"


def test_a_float_amount_stays_a_float(airline: Environment, tau_db: Path) -> None:
    paid = [{"payment_id": "certificate_7504069", "amount": 250.0}, {"payment_id": "credit_card_4421486", "amount": 5}]
    call(airline, tau_db, "book_reservation", **booking(payment_methods=paid))
    history = reservation(airline, tau_db, "HATHAT")["payment_history"]
    assert json.dumps(history) == json.dumps(paid)  # Q13: 250.0, not 250


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("2+2", "4.0"), ("1200", "1200.0"), ("10/3", "3.33"), ("2.675*1", "2.67"), ("10**20", "1e+20"),
        ("1e3", "Error: invalid characters in expression"), ("1/0", "Error: division by zero"),
        ("1.0/0", "Error: float division by zero"), ("(1", "Error: '(' was never closed (<string>, line 1)"),
        ("", "Error: invalid syntax (<string>, line 0)"), ("2**10", "1024.0"), ("2**-2000", "0.0"),
        ("9**9**9", "Error: the result is too large"), ("(2*5)**(10**6)", "Error: the result is too large"),
        ("()**2", "Error: unsupported operand type(s) for ** or pow(): 'tuple' and 'int'"),
    ],
)
def test_calculate(airline: Environment, tau_db: Path, expression: str, result: str) -> None:
    assert call(airline, tau_db, "calculate", expression=expression) == result


def test_cancelling_mirrors_the_payments_and_marks_the_reservation(airline: Environment, tau_db: Path) -> None:
    assert call(airline, tau_db, "cancel_reservation", reservation_id="ZZZZZZ") == "Error: reservation not found"
    reply = json.loads(call(airline, tau_db, "cancel_reservation", reservation_id="NO6JO3"))
    assert reply["payment_history"] == [{"payment_id": "credit_card_1955700", "amount": 2504},
                                        {"payment_id": "credit_card_1955700", "amount": -2504}]
    assert list(reply)[-1] == "status" and reply["status"] == "cancelled"
    assert "NO6JO3" in user(airline, tau_db)["reservations"]  # Q4: the list stays as it is


def test_cancelling_twice_mirrors_the_refunds_too(airline: Environment, tau_db: Path) -> None:
    call(airline, tau_db, "cancel_reservation", reservation_id="NO6JO3")
    reply = json.loads(call(airline, tau_db, "cancel_reservation", reservation_id="NO6JO3"))
    assert [payment["amount"] for payment in reply["payment_history"]] == [2504, -2504, -2504, 2504]  # Q4


def test_reservation_details_are_the_stored_record(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    assert call(airline, tau_db, "get_reservation_details", reservation_id="NO6JO3") == json.dumps(
        tau_data["reservations"]["NO6JO3"]
    )
    assert call(airline, tau_db, "get_reservation_details", reservation_id="ZZZZZZ") == "Error: user not found"  # Q1


def test_user_details_are_the_stored_record(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    assert call(airline, tau_db, "get_user_details", user_id=MIA) == json.dumps(tau_data["users"][MIA])
    assert call(airline, tau_db, "get_user_details", user_id="nobody_0000") == "Error: user not found"


def test_airports(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    airports = json.loads(call(airline, tau_db, "list_all_airports"))
    assert next(iter(airports.items())) == ("SFO", "San Francisco") and len(airports) == 20
    assert set(airports) == {flight["origin"] for flight in tau_data["flights"].values()}


def direct_flights(data: TauDatabase, origin: str, destination: str, date: str) -> list[dict[str, Any]]:
    """τ-bench's direct search, read off the JSON data."""
    return [
        {**{k: v for k, v in flight.items() if k != "dates"}, **flight["dates"][date]}
        for flight in data["flights"].values()
        if (flight["origin"], flight["destination"]) == (origin, destination)
        and flight["dates"].get(date, {}).get("status") == "available"
    ]


@pytest.mark.parametrize("date", ["2024-05-20", "2024-05-15", "2024-06-01"])
def test_direct_search(airline: Environment, tau_db: Path, tau_data: TauDatabase, date: str) -> None:
    reply = call(airline, tau_db, "search_direct_flight", origin="MIA", destination="LAX", date=date)
    assert reply == json.dumps(direct_flights(tau_data, "MIA", "LAX", date))
    assert (reply != "[]") == (date == "2024-05-20")


def onestop_flights(data: TauDatabase, origin: str, destination: str, date: str) -> list[list[dict[str, Any]]]:
    """τ-bench's one-stop search, read off the JSON data."""
    pairs = []
    for first in data["flights"].values():
        for second in data["flights"].values():
            if (first["origin"], second["destination"], first["destination"]) != (
                origin,
                destination,
                second["origin"],
            ):
                continue
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
            if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                continue
            statuses = (first["dates"].get(date, {}).get("status"), second["dates"].get(date2, {}).get("status"))
            if statuses == ("available", "available"):
                fields = [{k: v for k, v in leg.items() if k != "dates"} for leg in (first, second)]
                pairs.append([{**fields[0], **first["dates"][date], "date": date},
                              {**fields[1], **second["dates"][date], "date": date2}])
    return pairs


@pytest.mark.parametrize(
    ("origin", "destination", "date"), [("JFK", "SEA", "2024-05-20"), ("ATL", "BOS", "2024-05-20")]
)
def test_onestop_search(airline: Environment, tau_db: Path, tau_data: TauDatabase, origin: str, destination: str,
                        date: str) -> None:
    expected = onestop_flights(tau_data, origin, destination, date)
    assert expected  # ATL-BOS includes overnight first legs, whose second leg flies the next day
    reply = call(airline, tau_db, "search_onestop_flight", origin=origin, destination=destination, date=date)
    assert reply == json.dumps(expected)


def test_onestop_search_next_day_is_not_zero_padded(airline: Environment, tau_db: Path) -> None:
    reply = call(airline, tau_db, "search_onestop_flight", origin="JFK", destination="SEA", date="2024-05-05")
    pairs = json.loads(reply)
    assert all(second["date"] == "2024-05-05" for _, second in pairs)  # Q9: an overnight pair would need '2024-05-6'


def test_certificates_take_fixed_ids_until_none_is_left(airline: Environment, tau_db: Path) -> None:
    assert call(airline, tau_db, "send_certificate", user_id="nobody_0000", amount=100) == "Error: user not found"
    replies = [call(airline, tau_db, "send_certificate", user_id=MIA, amount=amount) for amount in (100, 150.0, 50, 50)]
    assert replies == [
        f"Certificate certificate_3221322 added to user {MIA} with amount 100.",
        f"Certificate certificate_3221323 added to user {MIA} with amount 150.0.",
        f"Certificate certificate_3221324 added to user {MIA} with amount 50.",
        "null",  # Q8: no id left, no message
    ]
    methods = user(airline, tau_db)["payment_methods"]
    assert list(methods)[-3:] == ["certificate_3221322", "certificate_3221323", "certificate_3221324"]
    assert methods["certificate_3221323"] == {"source": "certificate", "amount": 150.0, "id": "certificate_3221323"}


def test_think_and_transfer(airline: Environment, tau_db: Path) -> None:
    assert call(airline, tau_db, "think", thought="the user is gold") == ""
    assert call(airline, tau_db, "transfer_to_human_agents", summary="wants a refund") == "Transfer successful"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"reservation_id": "ZZZZZZ", "payment_id": "credit_card_1955700"}, "Error: reservation not found"),
        ({"reservation_id": "NO6JO3", "payment_id": "gift_card_0000000"}, "Error: payment method not found"),
        ({"reservation_id": "NO6JO3", "payment_id": "certificate_4856383"},
         "Error: certificate cannot be used to update reservation"),
    ],
)
def test_baggage_checks(airline: Environment, tau_db: Path, arguments: dict[str, Any], message: str) -> None:
    reply = call(airline, tau_db, "update_reservation_baggages", total_baggages=3, nonfree_baggages=1, **arguments)
    assert reply == message


def test_added_bags_are_charged_and_removed_ones_not_refunded(airline: Environment, tau_db: Path) -> None:
    def bags(total: int, nonfree: int) -> dict[str, Any]:
        return json.loads(call(airline, tau_db, "update_reservation_baggages", reservation_id="NO6JO3",
                               total_baggages=total, nonfree_baggages=nonfree, payment_id="credit_card_4421486"))

    assert bags(4, 2)["payment_history"][-1] == {"payment_id": "credit_card_4421486", "amount": 100}
    reply = bags(1, 0)
    assert (reply["total_baggages"], reply["nonfree_baggages"], len(reply["payment_history"])) == (1, 0, 2)


def gift_card_user(data: TauDatabase) -> tuple[str, str, int, str]:
    """A user with a gift card and a reservation: (user, gift card, balance, reservation)."""
    for user_id, user in data["users"].items():
        for method in user["payment_methods"].values():
            if method["source"] == "gift_card" and user["reservations"]:
                return user_id, method["id"], method["amount"], user["reservations"][0]
    raise AssertionError("no user with a gift card")


def test_a_gift_card_must_cover_the_bags(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    user_id, card, balance, reservation_id = gift_card_user(tau_data)
    current = tau_data["reservations"][reservation_id]["nonfree_baggages"]
    too_many = current + balance // 50 + 1
    reply = call(airline, tau_db, "update_reservation_baggages", reservation_id=reservation_id, total_baggages=too_many,
                 nonfree_baggages=too_many, payment_id=card)
    assert reply == "Error: gift card balance is not enough"
    call(airline, tau_db, "update_reservation_baggages", reservation_id=reservation_id, total_baggages=current + 1,
         nonfree_baggages=current + 1, payment_id=card)
    assert user(airline, tau_db, user_id)["payment_methods"][card]["amount"] == balance - 50


NO6JO3_FLIGHTS = [{"flight_number": "HAT083", "date": "2024-05-16"}, {"flight_number": "HAT221", "date": "2024-05-16"}]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"reservation_id": "ZZZZZZ"}, "Error: reservation not found"),
        ({"cabin": "economy", "flights": [{"flight_number": "HAT999", "date": "2024-05-16"}]},
         "Error: flight HAT999 not found"),
        ({"cabin": "economy", "flights": [{"flight_number": "HAT083", "date": "2024-07-16"}]},
         "Error: flight HAT083 not found on date 2024-07-16"),
        ({"cabin": "economy", "flights": [{"flight_number": "HAT083", "date": "2024-05-10"}]},
         "Error: flight HAT083 not available on date 2024-05-10"),
        ({"payment_id": "gift_card_0000000"}, "Error: payment method not found"),
        ({"payment_id": "certificate_4856383"}, "Error: certificate cannot be used to update reservation"),  # Q11
    ],
)
def test_flight_change_checks(airline: Environment, tau_db: Path, arguments: dict[str, Any], message: str) -> None:
    change = {"reservation_id": "NO6JO3", "cabin": "business", "flights": NO6JO3_FLIGHTS,
              "payment_id": "credit_card_4421486", **arguments}
    assert call(airline, tau_db, "update_reservation_flights", **change) == message


def test_keeping_flights_in_the_same_cabin_costs_nothing(airline: Environment, tau_db: Path) -> None:
    reply = json.loads(call(airline, tau_db, "update_reservation_flights", reservation_id="NO6JO3", cabin="business",
                            flights=NO6JO3_FLIGHTS, payment_id="credit_card_4421486"))
    assert [segment["price"] for segment in reply["flights"]] == [483, 1991]  # Q2: old prices kept
    assert len(reply["payment_history"]) == 1


def test_a_cabin_change_reprices_every_segment_but_keeps_the_cabin(airline: Environment, tau_db: Path,
                                                                    tau_data: TauDatabase) -> None:
    reply = json.loads(call(airline, tau_db, "update_reservation_flights", reservation_id="NO6JO3", cabin="economy",
                            flights=NO6JO3_FLIGHTS, payment_id="credit_card_4421486"))
    days = [tau_data["flights"][leg["flight_number"]]["dates"][leg["date"]] for leg in NO6JO3_FLIGHTS]
    prices = [day["prices"]["economy"] for day in days]
    assert [segment["price"] for segment in reply["flights"]] == prices
    assert reply["payment_history"][-1] == {"payment_id": "credit_card_4421486", "amount": sum(prices) - 483 - 1991}
    assert reply["cabin"] == "business"  # Q2: the cabin is never written


def test_passenger_changes(airline: Environment, tau_db: Path) -> None:
    noah = [{"first_name": "Noah", "last_name": "Li", "dob": "1991-01-01", "seat": "1A"}]
    assert call(airline, tau_db, "update_reservation_passengers", reservation_id="ZZZZZZ", passengers=noah) == (
        "Error: reservation not found"
    )
    assert call(airline, tau_db, "update_reservation_passengers", reservation_id="NO6JO3", passengers=noah * 2) == (
        "Error: number of passengers does not match"
    )
    call(airline, tau_db, "update_reservation_passengers", reservation_id="NO6JO3", passengers=noah)
    assert reservation(airline, tau_db, "NO6JO3")["passengers"] == noah  # extra keys kept verbatim


def test_two_events_changing_the_same_reservation_do_not_see_each_other(airline: Environment, tau_template: Path,
                                                                        tmp_path: Path) -> None:
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    shutil.copyfile(tau_template, one)
    shutil.copyfile(tau_template, two)
    call(airline, one, "cancel_reservation", reservation_id="NO6JO3")
    call(airline, two, "update_reservation_baggages", reservation_id="NO6JO3", total_baggages=5, nonfree_baggages=3,
         payment_id="credit_card_4421486")
    first, second = reservation(airline, one, "NO6JO3"), reservation(airline, two, "NO6JO3")
    assert first["status"] == "cancelled" and first["total_baggages"] == 2
    assert "status" not in second and second["total_baggages"] == 5
