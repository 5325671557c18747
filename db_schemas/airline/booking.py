"""The airline tools that change bookings: book, cancel, and update bags, flights or passengers.

Like every airline tool they behave exactly as τ-bench's, quirks included and marked (Q1-Q15); see
tools.py, which gathers all fourteen for the chatbot.
"""

from typing import Literal

from pydantic import ConfigDict
from sqlmodel import Session
from typing_extensions import TypedDict

from intellagent.environment import InjectedSession, Number, tool

from .records import Record, ordered, reservation_parts, reservation_record
from .schema import (
    NOW,
    Flight,
    FlightDate,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    ReservationPayment,
    User,
    UserReservation,
)

Cabin = Literal["basic_economy", "economy", "business"]

# Caller objects keep any extra keys: τ-bench stores them verbatim, and they are part of the state.
_VERBATIM = ConfigDict(extra="allow", use_attribute_docstrings=True)


class FlightChoice(TypedDict):
    """A flight on a date."""

    __pydantic_config__ = _VERBATIM  # type: ignore[misc]
    flight_number: str
    """Flight number, such as 'HAT001'."""
    date: str
    """The date of the flight, 'YYYY-MM-DD', such as '2024-05-01'."""


class PassengerDetails(TypedDict):
    """A traveller."""

    __pydantic_config__ = _VERBATIM  # type: ignore[misc]
    first_name: str
    """First name, such as 'Noah'."""
    last_name: str
    """Last name, such as 'Brown'."""
    dob: str
    """Date of birth, 'YYYY-MM-DD', such as '1990-01-01'."""


class PaymentPart(TypedDict):
    """An amount charged to one payment method of the user's profile."""

    __pydantic_config__ = _VERBATIM  # type: ignore[misc]
    payment_id: str
    """The payment method's id in the user's profile, such as 'credit_card_7815826' or 'gift_card_7815826'."""
    amount: Number
    """The amount to charge to it, in dollars."""


# Q7: ids for new bookings are fixed; a fourth booking in one conversation reuses (overwrites) the last.
_NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")


@tool(writes=True, confirm=True)
def book_reservation(
    session: InjectedSession,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: Literal["one_way", "round_trip"],
    cabin: Cabin,
    flights: list[FlightChoice],
    passengers: list[PassengerDetails],
    payment_methods: list[PaymentPart],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: Literal["yes", "no"],
) -> str | Record:
    """Book a new reservation for a user and charge it to payment methods from the user's profile.

    The amounts must add up to the total price: every flight's price times the number of passengers,
    plus 30 dollars per passenger with insurance, plus 50 dollars per non-free bag.

    Args:
        user_id: The id of the user who books, such as 'sara_doe_496'.
        origin: IATA code of the airport where the trip starts, such as 'SFO'.
        destination: IATA code of the trip's destination, such as 'JFK'.
        flight_type: Whether the trip is one way or a round trip.
        cabin: The cabin class, the same for every flight.
        flights: Every flight of the trip, in order.
        passengers: Every traveller on the reservation.
        payment_methods: How the total is split over the user's payment methods.
        total_baggages: The number of checked bags in total.
        nonfree_baggages: The number of checked bags that are paid for.
        insurance: Whether travel insurance is bought.
    """
    user = session.get(User, user_id)
    if user is None:
        return "Error: user not found"
    reservation_id = _new_reservation_id(session)
    travellers = len(passengers)
    segments = []
    total: int | float = 0
    for position, choice in enumerate(flights):
        found = _bookable(session, choice, cabin, travellers)
        if isinstance(found, str):
            return found
        flight, day = found
        price = getattr(day, f"price_{cabin}")
        segments.append(_segment(reservation_id, position, choice, price, flight.origin, flight.destination))
        total += price * travellers
    if insurance == "yes":
        total += 30 * travellers
    total += 50 * nonfree_baggages

    methods = {method.payment_id: method for method in ordered(session, PaymentMethod, user_id=user_id)}
    for part in payment_methods:
        method = methods.get(part["payment_id"])
        if method is None:
            return f"Error: payment method {part['payment_id']} not found"
        # Q5: each part is checked alone against the balance before any deduction.
        if method.source in ("gift_card", "certificate") and method.amount < part["amount"]:
            return f"Error: not enough balance in payment method {part['payment_id']}"
    paid = sum(part["amount"] for part in payment_methods)
    if paid != total:
        return f"Error: payment amount does not add up, total price is {total}, but paid {paid}"

    for part in payment_methods:
        method = methods.get(part["payment_id"])
        if method is None:
            # Q6: a certificate listed twice was deleted by its first part; τ-bench fails here with a
            # KeyError, keeping the parts already applied and storing no reservation.
            return f"Error: {KeyError(part['payment_id'])}"
        if method.source == "gift_card":
            method.amount -= part["amount"]  # Q13: a float amount makes the balance a float, and the hash shows it
        elif method.source == "certificate":
            session.delete(methods.pop(part["payment_id"]))  # Q5: deleted whole, even if only partly used

    _discard_reservation(session, reservation_id)  # Q7: an earlier booking under the same id is overwritten
    reservation = Reservation(
        reservation_id=reservation_id,
        user_id=user_id,
        origin=origin,
        destination=destination,
        flight_type=flight_type,
        cabin=cabin,
        created_at=NOW,
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        insurance=insurance,
    )
    # Q14: τ-bench stores the caller's very objects; storing copies gives the same state.
    passenger_rows = [_passenger(reservation_id, position, p) for position, p in enumerate(passengers)]
    payments = [
        ReservationPayment(
            reservation_id=reservation_id, position=position, payment_id=part["payment_id"], amount=part["amount"],
            as_given=dict(part),
        )
        for position, part in enumerate(payment_methods)
    ]
    listed = ordered(session, UserReservation, user_id=user_id)
    # Q3: no seat is taken. Q7: the id is appended even if already listed.
    session.add_all([reservation, *segments, *passenger_rows, *payments])
    session.add(UserReservation(user_id=user_id, position=len(listed), reservation_id=reservation_id))
    return reservation_record(reservation, segments, passenger_rows, payments)


@tool(writes=True, confirm=True)
def cancel_reservation(session: InjectedSession, reservation_id: str) -> str | Record:
    """Cancel a whole reservation and refund every payment to the method it came from.

    Args:
        reservation_id: The reservation's id, such as 'ZFA04Y'.
    """
    reservation = session.get(Reservation, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    segments, passengers, payments = reservation_parts(session, reservation_id)
    # Q4: refunds only mirror the history (refunds included, if cancelled twice); no balance is credited,
    # no certificate restored, no seat freed, and the user's list of reservations stays as it is.
    refunds = [
        ReservationPayment(
            reservation_id=reservation_id, position=len(payments) + offset, payment_id=paid.payment_id,
            amount=-paid.amount,
        )
        for offset, paid in enumerate(payments)
    ]
    session.add_all(refunds)
    reservation.status = "cancelled"
    return reservation_record(reservation, segments, passengers, [*payments, *refunds])


@tool(writes=True, confirm=True)
def update_reservation_baggages(
    session: InjectedSession, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
) -> str | Record:
    """Change the number of checked bags of a reservation; each added non-free bag costs 50 dollars.

    Args:
        reservation_id: The reservation's id, such as 'ZFA04Y'.
        total_baggages: The new number of checked bags in total.
        nonfree_baggages: The new number of checked bags that are paid for.
        payment_id: The payment method for the extra bags, such as 'credit_card_7815826' or 'gift_card_7815826'.
    """
    reservation = session.get(Reservation, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    charge = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
    method = session.get(PaymentMethod, (reservation.user_id, payment_id))
    problem = _update_payment_problem(method, charge)
    if problem:
        return problem
    assert method is not None
    # Nothing checks nonfree <= total, and fewer paid bags are never refunded.
    reservation.total_baggages = total_baggages
    reservation.nonfree_baggages = nonfree_baggages
    return _charge_update(session, reservation, method, charge)


@tool(writes=True, confirm=True)
def update_reservation_flights(
    session: InjectedSession, reservation_id: str, cabin: Cabin, flights: list[FlightChoice], payment_id: str
) -> str | Record:
    """Replace the flights (or the cabin) of a reservation, paying or refunding the price difference.

    Args:
        reservation_id: The reservation's id, such as 'ZFA04Y'.
        cabin: The cabin class for the whole new itinerary.
        flights: Every flight of the ENTIRE new itinerary, unchanged ones included.
        payment_id: The payment method to charge or refund, such as 'credit_card_7815826' or 'gift_card_7815826'.
    """
    reservation = session.get(Reservation, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    current, passengers, _ = reservation_parts(session, reservation_id)
    travellers = len(passengers)
    segments = []
    total: int | float = 0
    for position, choice in enumerate(flights):
        kept = next(
            (
                segment
                for segment in current
                if segment.flight_number == choice["flight_number"] and segment.date == choice["date"]
                and cabin == reservation.cabin
            ),
            None,
        )
        if kept is not None:
            # Q2: in the same cabin a kept segment keeps its old price and skips every check.
            price, origin, destination = kept.price, kept.origin, kept.destination
        else:
            # Q2: in a new cabin every segment, kept or not, is repriced and must still be bookable.
            found = _bookable(session, choice, cabin, travellers)
            if isinstance(found, str):
                return found
            flight, day = found
            price, origin, destination = getattr(day, f"price_{cabin}"), flight.origin, flight.destination
        segments.append(_segment(reservation_id, position, choice, price, origin, destination))
        total += price * travellers
    total -= sum(segment.price for segment in current) * travellers
    method = session.get(PaymentMethod, (reservation.user_id, payment_id))
    problem = _update_payment_problem(method, total)
    if problem:
        return problem
    assert method is not None
    for segment in current:
        session.delete(segment)
    session.flush()  # the new segments reuse the old segments' keys
    session.add_all(segments)
    # Q2: the reservation's cabin is not written. Q3: no seat changes hands.
    return _charge_update(session, reservation, method, total)


@tool(writes=True, confirm=True)
def update_reservation_passengers(
    session: InjectedSession, reservation_id: str, passengers: list[PassengerDetails]
) -> str | Record:
    """Replace the details of a reservation's passengers; their number cannot change.

    Args:
        reservation_id: The reservation's id, such as 'ZFA04Y'.
        passengers: Every passenger of the reservation, in order, with the new details.
    """
    reservation = session.get(Reservation, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    segments, current, payments = reservation_parts(session, reservation_id)
    if len(passengers) != len(current):
        return "Error: number of passengers does not match"
    for passenger in current:
        session.delete(passenger)
    session.flush()  # the new rows reuse the old rows' keys
    replaced = [_passenger(reservation_id, position, p) for position, p in enumerate(passengers)]
    session.add_all(replaced)
    return reservation_record(reservation, segments, replaced, payments)


def _new_reservation_id(session: Session) -> str:
    """The first free fixed id, or the last one even if taken (Q7)."""
    for reservation_id in _NEW_RESERVATION_IDS[:-1]:
        if session.get(Reservation, reservation_id) is None:
            return reservation_id
    return _NEW_RESERVATION_IDS[-1]


def _bookable(session: Session, choice: FlightChoice, cabin: str, travellers: int) -> tuple[Flight, FlightDate] | str:
    """The flight and its date if `travellers` seats can be booked in `cabin`, else τ-bench's error."""
    number, date = choice["flight_number"], choice["date"]
    flight = session.get(Flight, number)
    if flight is None:
        return f"Error: flight {number} not found"
    day = session.get(FlightDate, (number, date))
    if day is None:
        return f"Error: flight {number} not found on date {date}"
    if day.status != "available":
        return f"Error: flight {number} not available on date {date}"
    if getattr(day, f"seats_{cabin}") < travellers:
        return f"Error: not enough seats on flight {number}"
    return flight, day


def _segment(
    reservation_id: str, position: int, choice: FlightChoice, price: int, origin: str, destination: str
) -> ReservationFlight:
    return ReservationFlight(
        reservation_id=reservation_id, position=position, flight_number=choice["flight_number"], date=choice["date"],
        origin=origin, destination=destination, price=price, as_given=dict(choice),
    )


def _passenger(reservation_id: str, position: int, details: PassengerDetails) -> ReservationPassenger:
    return ReservationPassenger(
        reservation_id=reservation_id, position=position, first_name=details["first_name"],
        last_name=details["last_name"], dob=details["dob"], as_given=dict(details),
    )


def _discard_reservation(session: Session, reservation_id: str) -> None:
    """Delete a reservation and its parts, but not the users' list entries that name it (Q7)."""
    existing = session.get(Reservation, reservation_id)
    if existing is None:
        return
    for part in (segment for rows in reservation_parts(session, reservation_id) for segment in rows):
        session.delete(part)
    session.delete(existing)
    session.flush()


def _update_payment_problem(method: PaymentMethod | None, amount: int | float) -> str | None:
    """τ-bench's payment checks of the update tools, or None if the method can pay `amount`."""
    if method is None:
        return "Error: payment method not found"
    if method.source == "certificate":
        return "Error: certificate cannot be used to update reservation"  # Q11: even for nothing to pay
    if method.source == "gift_card" and method.amount < amount:
        return "Error: gift card balance is not enough"
    return None


def _charge_update(session: Session, reservation: Reservation, method: PaymentMethod, amount: int | float) -> Record:
    """Charge (or, if negative, refund) an update to `method` and return the updated reservation."""
    if method.source == "gift_card":
        method.amount -= amount  # Q11: a refund raises the balance; a credit card only gets a history entry
    segments, passengers, payments = reservation_parts(session, reservation.reservation_id)
    if amount != 0:
        charge = ReservationPayment(
            reservation_id=reservation.reservation_id, position=len(payments), payment_id=method.payment_id,
            amount=amount,
        )
        session.add(charge)
        payments.append(charge)
    return reservation_record(reservation, segments, passengers, payments)
