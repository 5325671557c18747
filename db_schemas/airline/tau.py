"""τ-bench's airline data in and out of the tables, its database hash, and its reward for a conversation.

The τ-bench database is one JSON document `{"flights", "reservations", "users"}`. Loading it and
exporting it back gives the same document (number types, array order and key presence included), so
the hash of an exported state is the hash τ-bench would compute for the same calls.
"""

import hashlib
import json
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import insert
from sqlmodel import Session, SQLModel, select

from db_schemas.airline.records import STATUS_TIMES, Record, flight_record, reservation_record, user_record
from db_schemas.airline.schema import (
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
from intellagent.environment import Environment

TauDatabase = dict[str, dict[str, Any]]
"""`{"flights": {number: flight}, "reservations": {id: reservation}, "users": {id: user}}`."""
Rows = dict[type[SQLModel], list[dict[str, Any]]]

# The key order of objects in the data files; an object that differs is kept verbatim in `as_given`.
_SEGMENT_KEYS = ["origin", "destination", "flight_number", "date", "price"]
_PASSENGER_KEYS = ["first_name", "last_name", "dob"]
_PAYMENT_KEYS = ["payment_id", "amount"]


class TauAction(BaseModel):
    """One step of a τ-bench trajectory: a tool name (or `respond`) and its arguments."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)


class TauTask(BaseModel):
    """A τ-bench task: the user, what they want, the gold actions and the facts the replies must state."""

    user_id: str
    instruction: str = ""
    actions: list[TauAction]
    outputs: list[str] = Field(default_factory=list)


class TauReward(BaseModel):
    """The τ-bench reward of a conversation and what it was made of."""

    reward: float = Field(description="1.0 if the hashes match and every output was said, else 0.0")
    hash_match: bool = Field(description="the database ended as the gold actions leave it")
    agent_hash: str
    gold_hash: str
    outputs: dict[str, bool] = Field(description="each required output: whether some reply contains it")


def read_tau_data(folder: Path) -> TauDatabase:
    """The three data files (users.json, flights.json, reservations.json) of a τ-bench airline folder."""
    parts = ("flights", "reservations", "users")
    return {name: json.loads((Path(folder) / f"{name}.json").read_text()) for name in parts}


def read_tau_tasks(path: Path) -> list[TauTask]:
    """The tasks of a τ-bench tasks.json file, in file order."""
    return [TauTask.model_validate(task) for task in json.loads(Path(path).read_text())]


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


def tau_hash(data: TauDatabase) -> str:
    """τ-bench's hash of a database: sha256 of Python's text of its canonical form (objects as sorted pairs)."""
    return hashlib.sha256(str(_canonical(data)).encode("utf-8")).hexdigest()


def build_tau_database(env: Environment, folder: Path, path: Path) -> None:
    """Create the SQLite file `path` holding the τ-bench data of `folder` (a template to copy per episode)."""
    env.create_database(path, seed=0, background=False)
    with env.session(path) as session:
        load_tau(session, read_tau_data(folder))


def replay_hash(env: Environment, initial: Path, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """The τ-bench hash after running `calls` through the tools on a fresh copy of the database `initial`."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "episode.sqlite"
        shutil.copyfile(initial, path)
        with env.session(path) as session:
            for name, arguments in calls:
                env.call_tool(session, name, arguments)
            return tau_hash(export_tau(session))


def tau_reward(
    env: Environment,
    task: TauTask,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    replies: Sequence[str],
    *,
    initial: Path,
) -> TauReward:
    """Score a recorded conversation exactly as τ-bench does.

    Both the chatbot's tool calls and the task's gold actions are replayed on fresh copies of the
    initial database (the gold ones without the transfer to a human, as τ-bench does); the reward is
    1.0 when the two end states hash alike and every required output appears in some reply
    (case-insensitive, commas removed from the reply so "1000" matches "$1,000").

    Args:
        env: the airline environment whose tools replay the calls.
        task: the τ-bench task.
        calls: the chatbot's tool calls in order, as (tool name, arguments).
        replies: the chatbot's messages to the user.
        initial: a database file holding the initial τ-bench data (see `build_tau_database`).
    """
    agent_hash = replay_hash(env, initial, calls)
    gold = [(a.name, a.kwargs) for a in task.actions if a.name not in ("respond", "transfer_to_human_agents")]
    gold_hash = replay_hash(env, initial, gold)
    # τ-bench searches the gold actions' messages too; no airline task has any, but a task could.
    said = [*replies, *(str(a.kwargs.get("content", "")) for a in task.actions if a.name == "respond")]
    texts = [text.lower().replace(",", "") for text in said]
    outputs = {output: any(output.lower() in text for text in texts) for output in task.outputs}
    hash_match = agent_hash == gold_hash
    return TauReward(
        reward=1.0 if hash_match and all(outputs.values()) else 0.0,
        hash_match=hash_match,
        agent_hash=agent_hash,
        gold_hash=gold_hash,
        outputs=outputs,
    )


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((key, _canonical(item)) for key, item in sorted(value.items()))
    if isinstance(value, list):
        return tuple(_canonical(item) for item in value)
    return value


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
