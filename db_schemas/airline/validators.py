"""Rules for generated airline rows: what a consistent booking world looks like.

Each message says what to change, because a data generator reads it and tries again. Small slips
with one obvious fix (upper-case codes, "Gold" for "gold") are repaired in place instead.
"""

import re
from datetime import date, datetime

from sqlmodel import Session

from intellagent.environment import RowRejected, validator

from .schema import (
    AIRPORTS,
    CABINS,
    FLIGHT_STATUSES,
    FLIGHT_TYPES,
    MEMBERSHIPS,
    PAYMENT_SOURCES,
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

MAX_PASSENGERS = 5
_CLOCK = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\+1)?$")


@validator(User)
def user_is_consistent(user: User, session: Session) -> None:
    """Membership is a known tier, the birth date is a date, the e-mail has an @."""
    user.membership = user.membership.strip().lower()
    _one_of("membership", user.membership, MEMBERSHIPS)
    _day("dob", user.dob)
    if "@" not in user.email:
        raise RowRejected(f"email {user.email!r} is not an e-mail address; use one like 'name@example.com'")


@validator(PaymentMethod)
def payment_method_is_consistent(method: PaymentMethod, session: Session) -> None:
    """The id names the source; cards have a brand and four digits, other methods a balance."""
    _one_of("source", method.source, PAYMENT_SOURCES)
    if not re.fullmatch(rf"{method.source}_\d{{7}}", method.payment_id):
        raise RowRejected(
            f"payment_id {method.payment_id!r} must be '{method.source}_' and 7 digits, e.g. '{method.source}_4421486'"
        )
    if method.source == "credit_card":
        _one_of("brand", method.brand, ("visa", "mastercard"))
        if method.last_four is None or not re.fullmatch(r"\d{4}", method.last_four):
            raise RowRejected(f"last_four {method.last_four!r} must be the card's last four digits, e.g. '7447'")
        if method.amount is not None:
            raise RowRejected("a credit card has no amount; leave amount empty")
    else:
        if method.amount is None or method.amount < 0:
            raise RowRejected(f"a {method.source} needs its balance in amount (0 or more dollars)")
        if method.brand is not None or method.last_four is not None:
            raise RowRejected(f"a {method.source} has no brand or last_four; leave them empty")


@validator(SavedPassenger)
def saved_passenger_is_consistent(passenger: SavedPassenger, session: Session) -> None:
    """A saved traveller has a name and a birth date."""
    _person(passenger.first_name, passenger.last_name, passenger.dob)


@validator(Flight)
def flight_is_consistent(flight: Flight, session: Session) -> None:
    """A flight links two different airports of the network, at well-formed times."""
    flight.origin, flight.destination = flight.origin.upper(), flight.destination.upper()
    for key in ("origin", "destination"):
        _one_of(key, getattr(flight, key), tuple(AIRPORTS))
    if flight.origin == flight.destination:
        raise RowRejected(f"flight {flight.flight_number} must not fly from {flight.origin} to itself")
    if not re.fullmatch(r"HAT\d{3}", flight.flight_number):
        raise RowRejected(f"flight_number {flight.flight_number!r} must be 'HAT' and three digits, e.g. 'HAT042'")
    for key in ("scheduled_departure_time_est", "scheduled_arrival_time_est"):
        if not _CLOCK.match(getattr(flight, key)):
            raise RowRejected(f"{key} {getattr(flight, key)!r} must be 'HH:MM:SS' (arrival may end in '+1')")
    if flight.scheduled_departure_time_est.endswith("+1"):
        raise RowRejected("scheduled_departure_time_est cannot end in '+1'; only the arrival can be the next day")


@validator(FlightDate)
def flight_date_is_consistent(day: FlightDate, session: Session) -> None:
    """The status is known, and exactly the times, seats and prices of that status are set."""
    _day("date", day.date)
    _one_of("status", day.status, FLIGHT_STATUSES)
    wanted = {
        "available": (),
        "on time": ("estimated_departure_time_est", "estimated_arrival_time_est"),
        "delayed": ("estimated_departure_time_est", "estimated_arrival_time_est"),
        "flying": ("actual_departure_time_est", "estimated_arrival_time_est"),
        "landed": ("actual_departure_time_est", "actual_arrival_time_est"),
        "cancelled": (),
    }[day.status]
    for key in ("actual_departure_time_est", "estimated_departure_time_est", "actual_arrival_time_est",
                "estimated_arrival_time_est"):
        value = getattr(day, key)
        if key in wanted and value is None:
            raise RowRejected(f"a {day.status} flight needs {key} ('YYYY-MM-DDTHH:MM:SS')")
        if key not in wanted and value is not None:
            raise RowRejected(f"a {day.status} flight has no {key}; leave it empty")
        if value is not None:
            _moment(key, value)
    numbers = [f"{kind}_{cabin}" for kind in ("seats", "price") for cabin in CABINS]
    for key in numbers:
        value = getattr(day, key)
        if day.status == "available" and (value is None or value < 0):
            raise RowRejected(f"an available flight needs {key} (0 or more)")
        if day.status != "available" and value is not None:
            raise RowRejected(f"only an available flight lists seats and prices; leave {key} empty")


@validator(Reservation)
def reservation_is_consistent(reservation: Reservation, session: Session) -> None:
    """Trip type, cabin, insurance and status are known values; bags add up; the booking time is a time."""
    _one_of("flight_type", reservation.flight_type, FLIGHT_TYPES)
    _one_of("cabin", reservation.cabin, CABINS)
    _one_of("insurance", reservation.insurance, ("yes", "no"))
    if reservation.status is not None:
        _one_of("status", reservation.status, ("cancelled",))
    _moment("created_at", reservation.created_at)
    if not re.fullmatch(r"[A-Z0-9]{6}", reservation.reservation_id):
        raise RowRejected(f"reservation_id {reservation.reservation_id!r} must be 6 characters from A-Z and 0-9")
    if not 0 <= reservation.nonfree_baggages <= reservation.total_baggages:
        raise RowRejected("nonfree_baggages must be between 0 and total_baggages")


@validator(ReservationFlight)
def segment_matches_flight(segment: ReservationFlight, session: Session) -> None:
    """A segment's route is its flight's route, and its price is not negative."""
    flight = session.get(Flight, segment.flight_number)
    if flight is not None and (segment.origin, segment.destination) != (flight.origin, flight.destination):
        raise RowRejected(
            f"flight {flight.flight_number} flies {flight.origin}->{flight.destination}; "
            "set origin and destination to that"
        )
    if segment.price < 0:
        raise RowRejected("price must be 0 or more dollars per passenger")


@validator(ReservationPassenger)
def passenger_fits_reservation(passenger: ReservationPassenger, session: Session) -> None:
    """A traveller has a name and a birth date, and a reservation has at most five of them."""
    _person(passenger.first_name, passenger.last_name, passenger.dob)
    if passenger.position >= MAX_PASSENGERS:
        raise RowRejected(f"a reservation has at most {MAX_PASSENGERS} passengers (positions 0-{MAX_PASSENGERS - 1})")


@validator(ReservationPayment)
def payment_uses_owner_method(payment: ReservationPayment, session: Session) -> None:
    """A payment names a method of the reservation's owner (or a spent certificate), by an id of the right shape."""
    if not re.fullmatch(rf"({'|'.join(PAYMENT_SOURCES)})_\d+", payment.payment_id):
        raise RowRejected(f"payment_id {payment.payment_id!r} must be a payment method id, e.g. 'credit_card_4421486'")
    if payment.payment_id.startswith("certificate_"):
        return  # a certificate is used up by the booking it pays for, so it may have left the profile
    reservation = session.get(Reservation, payment.reservation_id)
    if reservation is not None and session.get(PaymentMethod, (reservation.user_id, payment.payment_id)) is None:
        raise RowRejected(
            f"{payment.payment_id} is not a payment method of {reservation.user_id}, who owns the reservation; "
            "use one of theirs"
        )


@validator(UserReservation)
def listed_by_owner(entry: UserReservation, session: Session) -> None:
    """A user lists only their own reservations."""
    reservation = session.get(Reservation, entry.reservation_id)
    if reservation is not None and reservation.user_id != entry.user_id:
        raise RowRejected(
            f"reservation {entry.reservation_id} belongs to {reservation.user_id}; list it under that user"
        )


def _one_of(key: str, value: str | None, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RowRejected(f"{key} {value!r} is not one of {', '.join(repr(a) for a in allowed)}; use one of them")


def _day(key: str, value: str) -> None:
    try:
        date.fromisoformat(value)
    except ValueError:
        raise RowRejected(f"{key} {value!r} is not a date; write it 'YYYY-MM-DD'") from None
    if len(value) != 10:
        raise RowRejected(f"{key} {value!r} must be written 'YYYY-MM-DD'")


def _moment(key: str, value: str) -> None:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", value):
        raise RowRejected(f"{key} {value!r} must be written 'YYYY-MM-DDTHH:MM:SS'")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise RowRejected(f"{key} {value!r} is not a real date and time") from None


def _person(first_name: str, last_name: str, dob: str) -> None:
    if not first_name.strip() or not last_name.strip():
        raise RowRejected("first_name and last_name must not be empty")
    _day("dob", dob)
