"""Airline rows in τ-bench's JSON layout: what the tools return and what the τ-bench export writes.

Key order follows the τ-bench data files, so a record built here prints exactly like the original.
A key is present only when its value is stored (a flight's seats only while it is available, a
reservation's status only once cancelled), because in τ-bench an absent key differs from a null one.
"""

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, SQLModel, select

from .schema import (
    CABINS,
    Flight,
    FlightDate,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    ReservationPayment,
    SavedPassenger,
    User,
    UserReservation,
)

Record = dict[str, Any]

STATUS_TIMES = (
    "actual_departure_time_est",
    "estimated_departure_time_est",
    "actual_arrival_time_est",
    "estimated_arrival_time_est",
)
"""The time fields of a flight's status, in the order a status object lists those it has."""


def user_record(
    user: User,
    methods: Sequence[PaymentMethod],
    saved: Sequence[SavedPassenger],
    reservation_ids: Sequence[str],
) -> Record:
    """A user as τ-bench stores it (without the id, which is its key)."""
    return {
        "name": {"first_name": user.first_name, "last_name": user.last_name},
        "address": {
            "address1": user.address1,
            "address2": user.address2,
            "city": user.city,
            "country": user.country,
            "state": user.state,
            "zip": user.zip,
        },
        "email": user.email,
        "dob": user.dob,
        "payment_methods": {method.payment_id: payment_method_record(method) for method in methods},
        "saved_passengers": [
            {"first_name": p.first_name, "last_name": p.last_name, "dob": p.dob} for p in saved
        ],
        "membership": user.membership,
        "reservations": list(reservation_ids),
    }


def payment_method_record(method: PaymentMethod) -> Record:
    """A payment method: a card's brand and digits, or a balance, between its source and its id."""
    record: Record = {"source": method.source}
    for key in ("brand", "last_four", "amount"):
        if getattr(method, key) is not None:
            record[key] = getattr(method, key)
    record["id"] = method.payment_id
    return record


def flight_fields(flight: Flight) -> Record:
    """A flight's own fields, as the searches list them before the date's status."""
    return {
        "flight_number": flight.flight_number,
        "origin": flight.origin,
        "destination": flight.destination,
        "scheduled_departure_time_est": flight.scheduled_departure_time_est,
        "scheduled_arrival_time_est": flight.scheduled_arrival_time_est,
    }


def flight_record(flight: Flight, dates: Sequence[FlightDate]) -> Record:
    """A flight with its status object for every date."""
    return {**flight_fields(flight), "dates": {day.date: status_record(day) for day in dates}}


def status_record(day: FlightDate) -> Record:
    """A flight's status on one date, with the times, seats and prices that status has."""
    record: Record = {"status": day.status}
    for key in STATUS_TIMES:
        if getattr(day, key) is not None:
            record[key] = getattr(day, key)
    if day.seats_economy is not None:
        record["available_seats"] = {cabin: getattr(day, f"seats_{cabin}") for cabin in CABINS}
        record["prices"] = {cabin: getattr(day, f"price_{cabin}") for cabin in CABINS}
    return record


def reservation_record(
    reservation: Reservation,
    segments: Sequence[ReservationFlight],
    passengers: Sequence[ReservationPassenger],
    payments: Sequence[ReservationPayment],
) -> Record:
    """A reservation as τ-bench stores it; `status` appears only once it is set."""
    record: Record = {
        "reservation_id": reservation.reservation_id,
        "user_id": reservation.user_id,
        "origin": reservation.origin,
        "destination": reservation.destination,
        "flight_type": reservation.flight_type,
        "cabin": reservation.cabin,
        "flights": [segment_record(segment) for segment in segments],
        "passengers": [_as_given_or(p, first_name=p.first_name, last_name=p.last_name, dob=p.dob) for p in passengers],
        "payment_history": [_as_given_or(p, payment_id=p.payment_id, amount=p.amount) for p in payments],
        "created_at": reservation.created_at,
        "total_baggages": reservation.total_baggages,
        "nonfree_baggages": reservation.nonfree_baggages,
        "insurance": reservation.insurance,
    }
    if reservation.status is not None:
        record["status"] = reservation.status
    return record


def segment_record(segment: ReservationFlight) -> Record:
    """A flight segment: the data files' key order, or the caller's object with price and route added after.

    τ-bench quirk Q15: the two layouts differ in key order only, which the JSON shows and the hash ignores.
    """
    if segment.as_given is None:
        return {
            "origin": segment.origin,
            "destination": segment.destination,
            "flight_number": segment.flight_number,
            "date": segment.date,
            "price": segment.price,
        }
    return {**segment.as_given, "price": segment.price, "origin": segment.origin, "destination": segment.destination}


def _as_given_or(row: ReservationPassenger | ReservationPayment, **fields: Any) -> Record:
    """The object the caller sent, verbatim (extra keys and number types included), else the row's fields."""
    return dict(row.as_given) if row.as_given is not None else fields


def ordered(session: Session, table: type[SQLModel], **where: str) -> list[Any]:
    """The rows of a child table that belong to one parent, in `position` order."""
    query = select(table).where(*(getattr(table, key) == value for key, value in where.items()))
    return list(session.exec(query.order_by(table.position)).all())  # type: ignore[attr-defined]


def find_user_record(session: Session, user_id: str) -> Record | None:
    """The τ-bench record of a user, or None if there is no such user."""
    user = session.get(User, user_id)
    if user is None:
        return None
    ids = [entry.reservation_id for entry in ordered(session, UserReservation, user_id=user_id)]
    methods = ordered(session, PaymentMethod, user_id=user_id)
    return user_record(user, methods, ordered(session, SavedPassenger, user_id=user_id), ids)


def find_reservation_record(session: Session, reservation_id: str) -> Record | None:
    """The τ-bench record of a reservation, or None if there is no such reservation."""
    reservation = session.get(Reservation, reservation_id)
    if reservation is None:
        return None
    return reservation_record(reservation, *reservation_parts(session, reservation_id))


def reservation_parts(
    session: Session, reservation_id: str
) -> tuple[list[ReservationFlight], list[ReservationPassenger], list[ReservationPayment]]:
    """A reservation's segments, passengers and payments, each in order."""
    return (
        ordered(session, ReservationFlight, reservation_id=reservation_id),
        ordered(session, ReservationPassenger, reservation_id=reservation_id),
        ordered(session, ReservationPayment, reservation_id=reservation_id),
    )
