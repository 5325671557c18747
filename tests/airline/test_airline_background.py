"""The airline's seeded base world: reproducible, consistent with the clock, and searchable."""

import json
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import select

from intellagent.environment import Environment, worlds


@pytest.fixture(scope="module")
def world(airline: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("world") / "seed3.sqlite"
    airline.create_database(path, seed=3)
    return path


def test_the_same_seed_gives_the_same_database(airline: Environment, world: Path, tmp_path: Path) -> None:
    again, other = tmp_path / "again.sqlite", tmp_path / "other.sqlite"
    airline.create_database(again, seed=3)
    airline.create_database(other, seed=4)
    assert again.read_bytes() == world.read_bytes()
    assert worlds.root_digest(world) == worlds.root_digest(again) != worlds.root_digest(other)


def test_the_world_serves_every_airport_with_users(airline: Environment, world: Path) -> None:
    with airline.session(world) as session:
        content = airline.dump(session)
    airports = airline.tool("list_all_airports")()
    assert {flight["origin"] for flight in content["flights"]} == set(airports)
    assert len(content["users"]) == 5 and content["payment_methods"]
    assert content["reservations"] == []


def test_flight_status_follows_the_policy_clock(airline: Environment, world: Path) -> None:
    with airline.session(world) as session:
        days = airline.dump(session)["flight_dates"]
    statuses = {
        period: Counter(day["status"] for day in days if condition(day["date"]))
        for period, condition in (
            ("before", lambda d: d < "2024-05-15"),
            ("today", lambda d: d == "2024-05-15"),
            ("after", lambda d: d > "2024-05-15"),
        )
    }
    assert set(statuses["before"]) == {"landed", "cancelled"}
    assert set(statuses["today"]) == {"landed", "flying", "on time", "delayed"}
    assert set(statuses["after"]) == {"available"}
    assert min(day["date"] for day in days) == "2024-05-01" and max(day["date"] for day in days) == "2024-05-30"


def test_searches_find_flights_in_the_world(airline: Environment, world: Path) -> None:
    flight = airline.table("flights")
    with airline.session(world) as session:
        first = session.exec(select(flight)).first()
        route = {"origin": first.origin, "destination": first.destination, "date": "2024-05-20"}
        found = json.loads(airline.call_tool(session, "search_direct_flight", route))
        assert first.flight_number in [result["flight_number"] for result in found]
        routes = {(row.origin, row.destination) for row in session.exec(select(flight))}
        origin = first.origin
        targets = {b for a, b in routes if a != origin} - {b for a, b in routes if a == origin} - {origin}
        pairs = [
            json.loads(airline.call_tool(
                session, "search_onestop_flight", {"origin": origin, "destination": target, "date": "2024-05-20"}
            ))
            for target in sorted(targets)
        ]
    assert any(pairs)


def test_every_row_of_the_world_passes_the_validators(airline: Environment, world: Path) -> None:
    with airline.session(world) as session:
        problems = [
            (table.__tablename__, airline.validate(row, session))
            for table in airline.tables
            for row in session.exec(select(table)).all()
        ]
    assert [problem for problem in problems if problem[1]] == []
