"""The airline world as tables: users and their wallets, flights by date, reservations and their parts.

The layout follows the τ-bench airline data (users, flights, reservations) closely enough to load it
and export it back unchanged, byte for byte in its hash. Ordered lists become child tables with a
`position` column. Objects that a tool stores exactly as the chatbot sent them keep that object in an
`as_given` JSON column, because the caller's extra keys and number types are part of the state.
Dates and times are text in the data's own formats ("YYYY-MM-DD", "HH:MM:SS", "YYYY-MM-DDTHH:MM:SS").
"""

from typing import Any

from sqlalchemy import JSON, ForeignKeyConstraint
from sqlmodel import Field, SQLModel

from intellagent.environment import ExactNumber, Number, generation

NOW = "2024-05-15T15:00:00"
"""The policy's current time (EST); bookings are stamped with it."""

CABINS = ("basic_economy", "economy", "business")
MEMBERSHIPS = ("regular", "silver", "gold")
PAYMENT_SOURCES = ("credit_card", "gift_card", "certificate")
FLIGHT_TYPES = ("one_way", "round_trip")
FLIGHT_STATUSES = ("available", "on time", "delayed", "flying", "landed", "cancelled")

AIRPORTS = {
    "SFO": "San Francisco",
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "DFW": "Dallas",
    "DEN": "Denver",
    "SEA": "Seattle",
    "ATL": "Atlanta",
    "MIA": "Miami",
    "BOS": "Boston",
    "PHX": "Phoenix",
    "IAH": "Houston",
    "LAS": "Las Vegas",
    "MCO": "Orlando",
    "EWR": "Newark",
    "CLT": "Charlotte",
    "MSP": "Minneapolis",
    "DTW": "Detroit",
    "PHL": "Philadelphia",
    "LGA": "LaGuardia",
}
"""The airports the airline serves, code to city, in the order the airport list tool returns them."""


class User(SQLModel, table=True):
    """A customer's profile."""

    __tablename__ = "users"

    user_id: str = Field(primary_key=True, description="first_last_NNNN, e.g. 'mia_li_3668'")
    first_name: str
    last_name: str
    address1: str = Field(description="street address, e.g. '975 Sunset Drive'")
    address2: str = Field(description="second address line, e.g. 'Suite 217'")
    city: str
    country: str = Field(description="e.g. 'USA'")
    state: str = Field(description="two-letter code, e.g. 'TX'")
    zip: str = Field(description="postal code as text, e.g. '78750'")
    email: str
    dob: str = Field(description="date of birth, 'YYYY-MM-DD'")
    membership: str = Field(description="'regular', 'silver' or 'gold'")


class PaymentMethod(SQLModel, table=True):
    """A payment method in a user's profile: a credit card, a gift card or a travel certificate."""

    __tablename__ = "payment_methods"

    user_id: str = Field(foreign_key="users.user_id", primary_key=True)
    payment_id: str = Field(primary_key=True, description="'<source>_<7 digits>', e.g. 'gift_card_7815826'")
    position: int = Field(description="order in the user's profile, from 0")
    source: str = Field(description="'credit_card', 'gift_card' or 'certificate'")
    brand: str | None = Field(default=None, description="credit cards only: 'visa' or 'mastercard'")
    last_four: str | None = Field(default=None, description="credit cards only: last four digits as text")
    amount: Number | None = Field(
        default=None, sa_type=ExactNumber, description="gift cards and certificates only: the balance in dollars"
    )


class SavedPassenger(SQLModel, table=True):
    """A traveller saved in a user's profile for quick booking."""

    __tablename__ = "saved_passengers"

    user_id: str = Field(foreign_key="users.user_id", primary_key=True)
    position: int = Field(primary_key=True, description="order in the user's profile, from 0")
    first_name: str
    last_name: str
    dob: str = Field(description="'YYYY-MM-DD'")


class Flight(SQLModel, table=True):
    """A scheduled flight between two airports, flown daily."""

    __tablename__ = "flights"

    flight_number: str = Field(primary_key=True, description="'HAT' and three digits, e.g. 'HAT001'")
    origin: str = Field(description="IATA code of one of the airline's airports")
    destination: str = Field(description="IATA code, different from the origin")
    scheduled_departure_time_est: str = Field(description="'HH:MM:SS'")
    scheduled_arrival_time_est: str = Field(description="'HH:MM:SS', with '+1' appended if it lands the next day")


class FlightDate(SQLModel, table=True):
    """A flight on one date: its status, and its free seats and prices while it can be booked.

    Which times are set depends on the status: landed has both actual times, flying the actual
    departure and estimated arrival, delayed and on time both estimated times; available has the
    seats and prices instead; cancelled has nothing else.
    """

    __tablename__ = "flight_dates"

    flight_number: str = Field(foreign_key="flights.flight_number", primary_key=True)
    date: str = Field(primary_key=True, description="'YYYY-MM-DD'")
    status: str = Field(description="'available', 'on time', 'delayed', 'flying', 'landed' or 'cancelled'")
    actual_departure_time_est: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")
    estimated_departure_time_est: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")
    actual_arrival_time_est: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")
    estimated_arrival_time_est: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")
    seats_basic_economy: int | None = Field(default=None, description="free seats; available flights only")
    seats_economy: int | None = Field(default=None, description="free seats; available flights only")
    seats_business: int | None = Field(default=None, description="free seats; available flights only")
    price_basic_economy: int | None = Field(default=None, description="dollars per passenger; available only")
    price_economy: int | None = Field(default=None, description="dollars per passenger; available only")
    price_business: int | None = Field(default=None, description="dollars per passenger; available only")


class Reservation(SQLModel, table=True):
    """A booking: one trip in one cabin for one to five passengers, owned by a user."""

    __tablename__ = "reservations"

    reservation_id: str = Field(primary_key=True, description="six characters from A-Z and 0-9, e.g. '4WQ150'")
    user_id: str = Field(foreign_key="users.user_id", description="the user who booked it")
    origin: str = Field(description="IATA code where the trip starts")
    destination: str = Field(description="IATA code of the trip's end (a round trip's turnaround)")
    flight_type: str = Field(description="'one_way' or 'round_trip'")
    cabin: str = Field(description="'basic_economy', 'economy' or 'business', for every flight")
    created_at: str = Field(description="booking time, 'YYYY-MM-DDTHH:MM:SS' EST")
    total_baggages: int = Field(description="checked bags in total")
    nonfree_baggages: int = Field(description="checked bags paid for (50 dollars each)")
    insurance: str = Field(description="'yes' or 'no'")
    status: str | None = Field(default=None, description="'cancelled' once cancelled, otherwise empty")


class ReservationFlight(SQLModel, table=True):
    """One flight segment of a reservation, at the price paid per passenger."""

    __tablename__ = "reservation_flights"
    __table_args__ = (
        ForeignKeyConstraint(["flight_number", "date"], ["flight_dates.flight_number", "flight_dates.date"]),
    )

    reservation_id: str = Field(foreign_key="reservations.reservation_id", primary_key=True)
    position: int = Field(primary_key=True, description="order in the itinerary, from 0")
    flight_number: str
    date: str = Field(description="'YYYY-MM-DD'")
    origin: str = Field(schema_extra=generation(inherit=True), description="the flight's origin")
    destination: str = Field(schema_extra=generation(inherit=True), description="the flight's destination")
    price: int = Field(description="dollars per passenger")
    as_given: dict[str, Any] | None = Field(
        default=None, sa_type=JSON, description="set by tools only: the segment object as the chatbot sent it"
    )


class ReservationPassenger(SQLModel, table=True):
    """A traveller on a reservation."""

    __tablename__ = "reservation_passengers"

    reservation_id: str = Field(foreign_key="reservations.reservation_id", primary_key=True)
    position: int = Field(primary_key=True, description="order on the reservation, from 0")
    first_name: str
    last_name: str
    dob: str = Field(description="'YYYY-MM-DD'")
    as_given: dict[str, Any] | None = Field(
        default=None, sa_type=JSON, description="set by tools only: the passenger object as the chatbot sent it"
    )


class ReservationPayment(SQLModel, table=True):
    """A charge (positive) or refund (negative) in a reservation's payment history."""

    __tablename__ = "reservation_payments"

    reservation_id: str = Field(foreign_key="reservations.reservation_id", primary_key=True)
    position: int = Field(primary_key=True, description="order in the history, from 0")
    payment_id: str = Field(description="the owner's payment method (it may since have been used up)")
    amount: Number = Field(sa_type=ExactNumber, description="dollars; negative for a refund")
    as_given: dict[str, Any] | None = Field(
        default=None, sa_type=JSON, description="set by tools only: the payment object as the chatbot sent it"
    )


class UserReservation(SQLModel, table=True):
    """An entry of a user's list of reservation ids, in the order they were added."""

    __tablename__ = "user_reservations"

    user_id: str = Field(foreign_key="users.user_id", primary_key=True)
    position: int = Field(primary_key=True, description="order in the user's list, from 0")
    reservation_id: str = Field(foreign_key="reservations.reservation_id")
