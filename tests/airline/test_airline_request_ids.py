"""On the airline, the simulated user's first message must name the booking its request is about: the event the
embedded model's user left without it (a cabin change and bags on John Doe's booking 8WQ315, asked for with no id)
is sent back with the booking to name."""

from __future__ import annotations

from intellagent.artifacts import Entitlement, Event, ExpectedCall, ExpectedOutcome
from intellagent.outcomes.facts import request_ids
from intellagent.populate.tables import Tables
from intellagent.simulate.drafts import draft_fault
from intellagent.simulate.turns import UserTurn

BOOKING = {"reservation_id": "8WQ315", "user_id": "john_doe_1234", "origin": "JFK", "destination": "SEA",
           "flight_type": "one_way", "cabin": "business", "total_baggages": 0, "nonfree_baggages": 0}
CARD = {"user_id": "john_doe_1234", "payment_id": "credit_card_4421337", "source": "credit_card"}
FLIGHTS = [{"flight_number": "HAT045", "date": "2024-05-20"}]
EVENT = Event(
    id="E1", policies=["P1"], challenge=3,
    scenario="You are John Doe and want your booking in economy, with two more checked bags.\n\nFacts:\n"
             "- 8WQ315: John Doe's reservation",
    expected_behaviour="The agent changes the cabin and the bags after John confirms.",
    user_rows={"users": [{"user_id": "john_doe_1234", "first_name": "John", "last_name": "Doe"}],
               "reservations": [BOOKING], "payment_methods": [CARD]},
    expected=ExpectedOutcome(calls=[
        ExpectedCall(tool="get_reservation_details", arguments={"reservation_id": "8WQ315"}, writes=False),
        # as a drafted outcome has them: the model's arguments first, then those the rows settled, in the rows' order
        ExpectedCall(tool="update_reservation_flights", writes=True, arguments={
            "cabin": "economy", "flights": FLIGHTS, "payment_id": "credit_card_4421337", "reservation_id": "8WQ315"}),
        ExpectedCall(tool="update_reservation_baggages", writes=True, arguments={
            "total_baggages": 2, "nonfree_baggages": 2, "payment_id": "credit_card_4421337",
            "reservation_id": "8WQ315"})],
        touched=["reservation_flights 8WQ315, 0", "reservations 8WQ315"]),
)


def first(message: str) -> UserTurn:
    return UserTurn(thought="", message=message, decision="continue", reason="")


def test_the_booking_the_writes_change_comes_before_the_card_that_pays_for_it(airline):
    assert request_ids(EVENT, Tables(airline.tables)) == ["8WQ315", "credit_card_4421337"]


def test_the_first_message_the_embedded_model_wrote_gets_the_booking_added(airline):
    measured = first("I want to change the cabin to economy class and add two extra checked bags.")

    fault = draft_fault(measured, agent_said=["Hi! How can I help you?"],
                        request_ids=request_ids(EVENT, Tables(airline.tables)))

    assert fault is not None and not fault.repeats and fault.added == "My reference is 8WQ315."


def test_a_first_message_with_the_booking_is_sent(airline):
    named = first("I want booking 8wq315 moved to economy, with two more checked bags.")

    assert draft_fault(named, agent_said=["Hi!"], request_ids=request_ids(EVENT, Tables(airline.tables))) is None


def test_without_a_verified_outcome_the_user_names_the_record_its_entitled_change_acts_on(airline):
    unverified = EVENT.model_copy(update={"expected": None, "entitled": Entitlement(
        tool="update_reservation_flights", request="Move the booking to economy.")})
    acted_on = airline.required_arguments("update_reservation_flights")

    # in the change's order of arguments: the booking, then the card that pays for it
    assert request_ids(unverified, Tables(airline.tables), acted_on=acted_on) == ["8WQ315", "credit_card_4421337"]
    assert request_ids(unverified, Tables(airline.tables)) == []  # nothing to act on named: nothing asked


def test_a_new_booking_s_user_names_its_profile_unless_it_holds_several(airline):
    booking = EVENT.model_copy(update={"expected": None, "entitled": Entitlement(
        tool="book_reservation", request="Book a flight to Seattle.")})
    acted_on = airline.required_arguments("book_reservation")
    two_users = booking.model_copy(update={"user_rows": {**booking.user_rows, "users": [
        *booking.user_rows["users"], {"user_id": "jane_doe_5678", "first_name": "Jane", "last_name": "Doe"}]}})

    assert request_ids(booking, Tables(airline.tables), acted_on=acted_on) == ["john_doe_1234"]
    assert request_ids(two_users, Tables(airline.tables), acted_on=acted_on) == []
