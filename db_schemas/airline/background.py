"""The airline's base world, the same for a given seed: a flight network with a status per date, and a few users.

Dates run from 2024-05-01 to 2024-05-30, around the policy's "now" (2024-05-15 15:00 EST). Flights
before today have landed or were cancelled; today's have landed, are flying, or are on time or
delayed, by the clock; from tomorrow on they can be booked, with free seats and prices per cabin.
Scenario data is added on top of this world, so that searches find real flights around it.
"""

import random
from datetime import date, datetime, timedelta
from typing import Any

from faker import Faker
from sqlmodel import Session, insert

from .schema import AIRPORTS, NOW, Flight, FlightDate, PaymentMethod, SavedPassenger, User

FIRST_DAY = date(2024, 5, 1)
DAYS = 30
USERS = 5
CONNECTED_PAIRS = 70
"""Airport pairs served both ways (of the 190 possible), so most trips need at most one stop."""

_NOW = datetime.fromisoformat(NOW)
_NO_DATE = dict.fromkeys(FlightDate.model_fields)
"""A flight date with every column empty, each date's row filled in from it."""


def generate(session: Session, seed: int) -> None:
    """Add the flight network, its dates and a few users to an empty airline database."""
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    flights = _network(rng)
    session.add_all(flights)
    # Thousands of dates, inserted as plain rows: an ORM object apiece took most of the world's build time.
    session.execute(insert(FlightDate), [day for flight in flights for day in _dates(rng, flight)])
    user_ids: set[str] = set()
    while len(user_ids) < USERS:
        user = _user(rng, fake)
        if user.user_id not in user_ids:
            user_ids.add(user.user_id)
            session.add(user)
            session.add_all(_payment_methods(rng, user.user_id))
            session.add_all(_saved_passengers(rng, fake, user.user_id))


def _network(rng: random.Random) -> list[Flight]:
    """One or two daily flights each way between randomly chosen airport pairs."""
    codes = list(AIRPORTS)
    pairs = rng.sample([(a, b) for i, a in enumerate(codes) for b in codes[i + 1 :]], CONNECTED_PAIRS)
    flights: list[Flight] = []
    for first, second in pairs:
        duration = timedelta(minutes=rng.randrange(60, 6 * 60 + 1, 15))
        for origin, destination in ((first, second), (second, first)):
            for _ in range(rng.randint(1, 2)):
                departure = timedelta(hours=rng.randint(5, 22), minutes=rng.choice((0, 30)))
                arrival = departure + duration
                flights.append(
                    Flight(
                        flight_number=f"HAT{len(flights) + 1:03d}",
                        origin=origin,
                        destination=destination,
                        scheduled_departure_time_est=_clock(departure),
                        scheduled_arrival_time_est=_clock(arrival) + ("+1" if arrival.days else ""),
                    )
                )
    return flights


def _dates(rng: random.Random, flight: Flight) -> list[dict[str, Any]]:
    departure = _duration(flight.scheduled_departure_time_est)
    duration = _duration(flight.scheduled_arrival_time_est) - departure
    base_price = 40 + duration.seconds // 180 + rng.randint(0, 40)
    days = []
    for offset in range(DAYS):
        day = FIRST_DAY + timedelta(days=offset)
        record = {**_NO_DATE, "flight_number": flight.flight_number, "date": day.isoformat(), "status": "available"}
        leaves = datetime.combine(day, datetime.min.time()) + departure
        if day > _NOW.date():
            _open_for_booking(rng, record, base_price)
        elif day < _NOW.date():
            _flown(rng, record, leaves, duration)
        else:
            _today(rng, record, leaves, duration)
        days.append(record)
    return days


def _flown(rng: random.Random, record: dict[str, Any], leaves: datetime, duration: timedelta) -> None:
    """A past date: most flights landed, a little late or early; a few were cancelled."""
    if rng.random() < 0.07:
        record["status"] = "cancelled"
        return
    late = timedelta(minutes=rng.randint(-10, 40))
    record["status"] = "landed"
    record["actual_departure_time_est"] = _moment(leaves + late)
    record["actual_arrival_time_est"] = _moment(leaves + late + duration)


def _today(rng: random.Random, record: dict[str, Any], leaves: datetime, duration: timedelta) -> None:
    """Today: landed, in the air, or yet to leave (on time or delayed), by the policy's clock."""
    if leaves + duration <= _NOW:
        record["status"] = "landed"
        record["actual_departure_time_est"] = _moment(leaves)
        record["actual_arrival_time_est"] = _moment(leaves + duration)
    elif leaves <= _NOW:
        record["status"] = "flying"
        record["actual_departure_time_est"] = _moment(leaves)
        record["estimated_arrival_time_est"] = _moment(leaves + duration)
    else:
        late = timedelta(minutes=rng.randrange(30, 181, 15)) if rng.random() < 0.25 else timedelta(0)
        record["status"] = "delayed" if late else "on time"
        record["estimated_departure_time_est"] = _moment(leaves + late)
        record["estimated_arrival_time_est"] = _moment(leaves + late + duration)


def _open_for_booking(rng: random.Random, record: dict[str, Any], base_price: int) -> None:
    """Free seats and prices per cabin; economy costs more than basic economy, business far more."""
    basic = base_price + rng.randint(-15, 15)
    economy = round(basic * rng.uniform(1.2, 2.0))
    prices = {"basic_economy": basic, "economy": economy, "business": round(economy * rng.uniform(2.0, 4.0))}
    for cabin, price in prices.items():
        record[f"seats_{cabin}"] = rng.randint(0, 20)
        record[f"price_{cabin}"] = price


def _user(rng: random.Random, fake: Faker) -> User:
    first, last = fake.first_name(), fake.last_name()
    handle = f"{first}_{last}".lower().replace("'", "").replace(" ", "")
    return User(
        user_id=f"{handle}_{rng.randint(1000, 9999)}",
        first_name=first,
        last_name=last,
        address1=fake.street_address(),
        address2=fake.secondary_address(),
        city=fake.city(),
        country="USA",
        state=fake.state_abbr(),
        zip=fake.zipcode(),
        email=f"{handle.replace('_', '.')}{rng.randint(1000, 9999)}@example.com",
        dob=_birth_date(rng),
        membership=rng.choice(("regular", "silver", "gold")),
    )


def _payment_methods(rng: random.Random, user_id: str) -> list[PaymentMethod]:
    """A credit card, and sometimes a gift card and a certificate."""
    methods = [
        PaymentMethod(
            user_id=user_id, payment_id=_payment_id(rng, "credit_card"), position=0, source="credit_card",
            brand=rng.choice(("visa", "mastercard")), last_four=f"{rng.randint(0, 9999):04d}",
        )
    ]
    if rng.random() < 0.5:
        methods.append(
            PaymentMethod(user_id=user_id, payment_id=_payment_id(rng, "gift_card"), position=len(methods),
                          source="gift_card", amount=rng.randint(0, 500))
        )
    if rng.random() < 0.4:
        methods.append(
            PaymentMethod(user_id=user_id, payment_id=_payment_id(rng, "certificate"), position=len(methods),
                          source="certificate", amount=rng.choice((100, 150, 250, 500)))
        )
    return methods


def _saved_passengers(rng: random.Random, fake: Faker, user_id: str) -> list[SavedPassenger]:
    return [
        SavedPassenger(user_id=user_id, position=position, first_name=fake.first_name(), last_name=fake.last_name(),
                       dob=_birth_date(rng))
        for position in range(rng.randint(0, 2))
    ]


def _payment_id(rng: random.Random, source: str) -> str:
    return f"{source}_{rng.randint(1_000_000, 9_999_999)}"


def _birth_date(rng: random.Random) -> str:
    # Not Faker's date_of_birth: it counts back from today, so the same seed would drift day by day.
    return (date(1945, 1, 1) + timedelta(days=rng.randint(0, 60 * 365))).isoformat()


def _clock(moment: timedelta) -> str:
    minutes = moment.seconds // 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _duration(clock: str) -> timedelta:
    hours, minutes, _ = clock.removesuffix("+1").split(":")
    return timedelta(days=clock.endswith("+1"), hours=int(hours), minutes=int(minutes))


def _moment(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")
