"""τ-bench's airline data in and out of the tables: the airline's τ-bench module (`environment.tau`).

The τ-bench database is one JSON document `{"flights", "reservations", "users"}`. Loading it and
exporting it back gives the same document (number types, array order and key presence included), so
the hash of an exported state is the hash τ-bench would compute for the same calls.
"""

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel, select

from intellagent.environment import Environment

from .records import STATUS_TIMES, Record, flight_record, reservation_record, user_record
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

TauDatabase = dict[str, dict[str, Any]]
"""`{"flights": {number: flight}, "reservations": {id: reservation}, "users": {id: user}}`."""
Rows = dict[type[SQLModel], list[dict[str, Any]]]

# The key order of objects in the data files; an object that differs is kept verbatim in `as_given`.
_SEGMENT_KEYS = ["origin", "destination", "flight_number", "date", "price"]
_PASSENGER_KEYS = ["first_name", "last_name", "dob"]
_PAYMENT_KEYS = ["payment_id", "amount"]


def read_tau_data(folder: Path) -> TauDatabase:
    """The three data files (users.json, flights.json, reservations.json) of a τ-bench airline folder."""
    parts = ("flights", "reservations", "users")
    return {name: json.loads((Path(folder) / f"{name}.json").read_text()) for name in parts}


def load_tau(session: Session, data: TauDatabase) -> None:
    """Insert a τ-bench document into empty airline tables (bulk inserts: 2000 reservations load in a second)."""
    rows: Rows = defaultdict(list)
    for user_id, user in data["users"].items():
        _user_rows(rows, user_id, user)
    for number, flight in data["flights"].items():
        _flight_rows(rows, number, flight)
    for reservation_id, reservation in data["reservations"].items():
        _reservation_rows(rows, reservation_id, reservation)
    # Parents first, so the file is consistent whenever foreign keys are checked.
    for table in (User, PaymentMethod, SavedPassenger, Flight, FlightDate, Reservation, ReservationFlight,
                  ReservationPassenger, ReservationPayment, UserReservation):
        if rows[table]:
            session.execute(insert(table), rows[table])


def export_tau(session: Session) -> TauDatabase:
    """The tables as a τ-bench document (users and reservations in id order, which the hash ignores)."""
    methods = _grouped(session, PaymentMethod, "user_id")
    saved = _grouped(session, SavedPassenger, "user_id")
    listed = _grouped(session, UserReservation, "user_id")
    days = _grouped(session, FlightDate, "flight_number", order="date")
    segments = _grouped(session, ReservationFlight, "reservation_id")
    passengers = _grouped(session, ReservationPassenger, "reservation_id")
    payments = _grouped(session, ReservationPayment, "reservation_id")
    return {
        "flights": {
            flight.flight_number: flight_record(flight, days[flight.flight_number])
            for flight in _rows(session, Flight, "flight_number")
        },
        "reservations": {
            r.reservation_id: reservation_record(
                r, segments[r.reservation_id], passengers[r.reservation_id], payments[r.reservation_id]
            )
            for r in _rows(session, Reservation, "reservation_id")
        },
        "users": {
            user.user_id: user_record(
                user, methods[user.user_id], saved[user.user_id], [row.reservation_id for row in listed[user.user_id]]
            )
            for user in _rows(session, User, "user_id")
        },
    }


def build_tau_database(env: Environment, folder: Path, path: Path) -> None:
    """Create the SQLite file `path` holding the τ-bench data of `folder` (a template to copy per episode)."""
    env.create_database(path, seed=0, background=False)
    with env.session(path) as session:
        load_tau(session, read_tau_data(folder))


def _rows(session: Session, table: type[SQLModel], *order: str) -> list[Any]:
    """A table's rows in `order`, as plain result rows.

    An export reads some 25,000 rows, and building ORM objects for them doubles its time. Result rows
    have the same attribute names as the table's objects, which is all the record builders read.
    """
    sql_table = table.__table__  # type: ignore[attr-defined]
    return list(session.execute(select(sql_table).order_by(*(sql_table.columns[name] for name in order))))


def _grouped(session: Session, table: type[SQLModel], key: str, *, order: str = "position") -> dict[str, list[Any]]:
    """All rows of a child table, grouped by their parent's id, each group in order."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for row in _rows(session, table, key, order):
        groups[getattr(row, key)].append(row)
    return groups


def _verbatim(item: Record, keys: list[str]) -> Record | None:
    """The object itself if its keys are not the data files' usual ones (in their order), else None."""
    return None if list(item) == keys else dict(item)


def _user_rows(rows: Rows, user_id: str, user: Record) -> None:
    rows[User].append(
        {"user_id": user_id, **user["name"], **user["address"], "email": user["email"], "dob": user["dob"],
         "membership": user["membership"]}
    )
    for position, (payment_id, method) in enumerate(user["payment_methods"].items()):
        rows[PaymentMethod].append(
            {"user_id": user_id, "payment_id": payment_id, "position": position, "source": method["source"],
             "brand": method.get("brand"), "last_four": method.get("last_four"), "amount": method.get("amount")}
        )
    for position, passenger in enumerate(user["saved_passengers"]):
        rows[SavedPassenger].append({"user_id": user_id, "position": position, **passenger})
    for position, reservation_id in enumerate(user["reservations"]):
        rows[UserReservation].append({"user_id": user_id, "position": position, "reservation_id": reservation_id})


def _flight_rows(rows: Rows, number: str, flight: Record) -> None:
    rows[Flight].append({key: value for key, value in flight.items() if key != "dates"})
    for date, status in flight["dates"].items():
        seats, prices = status.get("available_seats", {}), status.get("prices", {})
        rows[FlightDate].append(
            {"flight_number": number, "date": date, "status": status["status"],
             **{key: status.get(key) for key in STATUS_TIMES},
             **{f"seats_{cabin}": seats.get(cabin) for cabin in CABINS},
             **{f"price_{cabin}": prices.get(cabin) for cabin in CABINS}}
        )


def _reservation_rows(rows: Rows, reservation_id: str, reservation: Record) -> None:
    nested = {"flights": (ReservationFlight, _SEGMENT_KEYS), "passengers": (ReservationPassenger, _PASSENGER_KEYS),
              "payment_history": (ReservationPayment, _PAYMENT_KEYS)}
    fields = {key: value for key, value in reservation.items() if key not in nested}
    rows[Reservation].append({**fields, "status": reservation.get("status")})
    for part, (table, keys) in nested.items():
        for position, item in enumerate(reservation[part]):
            rows[table].append(
                {"reservation_id": reservation_id, "position": position, **{key: item[key] for key in keys},
                 "as_given": _verbatim(item, keys)}
            )
