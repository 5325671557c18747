"""On the airline domain: a plan a small model might write becomes rows that pass the airline's validators."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from intellagent.populate import (
    AssembledRow,
    Assignment,
    BackgroundWorld,
    Plan,
    Tables,
    assemble,
    insert_rows,
    plan_model,
)
from intellagent.populate.symbols import Symbol


@pytest.fixture(scope="module")
def airline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Environment, Tables, BackgroundWorld, Path]:
    env = load_environment(load_config("configs/airline.yml").environment)
    tables = Tables(env.tables)
    background = tmp_path_factory.mktemp("airline") / "background.sqlite"
    env.create_database(background, seed=42)
    return env, tables, BackgroundWorld.load(env, background, tables), background


def forgetful_plan(tables: Tables, world: BackgroundWorld) -> Plan:
    """A user and a reservation, nothing else: no flight, passenger, payment or list entry."""
    answer = plan_model(tables).model_validate({
        "entities": [{"symbol": "U1", "description": "a gold member"},
                     {"symbol": "R1", "description": "U1's basic economy reservation"}],
        "rows": [{"table": "reservations", "values": {"reservation_id": "R1", "user_id": "U1",
                                                      "cabin": "basic_economy"}},
                 {"table": "users", "values": {"user_id": "U1", "membership": "gold"}}],
        "scenario": "U1 wants to cancel R1.",
        "expected_behaviour": "The chatbot refuses.",
    })
    return Plan.from_answer(answer, tables, world)


def test_a_reservation_planned_alone_gets_its_flight_passenger_payment_and_payment_method(airline) -> None:
    _, tables, world, _ = airline
    plan = forgetful_plan(tables, world)

    by_table = {row.table: row for row in plan.rows}
    for part in ("reservation_flights", "reservation_passengers", "reservation_payments"):
        assert by_table[part].cells["reservation_id"].name == "R1"
    assert by_table["user_reservations"].cells["user_id"].name == "U1"
    assert by_table["payment_methods"].cells == {"user_id": by_table["users"].cells["user_id"]}


def test_a_completed_plan_passes_the_airline_validators(airline, tmp_path: Path) -> None:
    env, tables, world, background = airline
    plan = forgetful_plan(tables, world)
    assembly = assemble(plan, Assignment(), tables=tables, world=world, seed="42:S001")
    rows, symbols = assembly.rows, assembly.symbols
    database = tmp_path / "event.sqlite"
    shutil.copyfile(background, database)

    with env.session(database) as session:
        inserted, rejections = insert_rows(env, tables, session, rows)

    assert rejections == []
    assert len(inserted) == len(plan.rows)
    segment = next(row for row in rows if row.table == "reservation_flights").values
    payment = next(row for row in rows if row.table == "reservation_payments").values
    method = next(row for row in rows if row.table == "payment_methods").values
    assert payment["payment_id"] == method["payment_id"] and method["user_id"] == symbols["U1"]
    assert (segment["flight_number"], segment["date"]) in {(r["flight_number"], r["date"])
                                                            for r in world.rows("flight_dates")}


def landed_flight_cancelled(
    tables: Tables, world: BackgroundWorld, *, seed: str
) -> tuple[dict[str, Any], AssembledRow]:
    """A landed flight of the world, and the assembled row of a plan that names it by its key to cancel it."""
    existing = next(row for row in world.rows("flight_dates") if row["status"] == "landed")
    answer = plan_model(tables).model_validate({
        "entities": [], "scenario": "", "expected_behaviour": "",
        "rows": [{"table": "flight_dates", "values": {"flight_number": existing["flight_number"],
                                                      "date": existing["date"], "status": "cancelled"}}],
    })
    plan = Plan.from_answer(answer, tables, world)
    return existing, assemble(plan, Assignment(), tables=tables, world=world, seed=seed).rows[0]


def test_a_planned_row_naming_an_existing_key_replaces_that_row(airline, tmp_path: Path) -> None:
    env, tables, world, background = airline
    _, cancelled = landed_flight_cancelled(tables, world, seed="42:S002")
    rows = [cancelled]
    database = tmp_path / "event.sqlite"
    shutil.copyfile(background, database)

    with env.session(database) as session:
        _, rejections = insert_rows(env, tables, session, rows)
        count = len(env.dump(session)["flight_dates"])

    assert rejections == []
    assert count == len(world.rows("flight_dates"))  # replaced, not added
    assert rows[0].values["actual_departure_time_est"] is None  # a cancelled flight has no times


def test_a_second_row_naming_a_key_the_event_wrote_already_is_rejected_not_merged(airline, tmp_path: Path) -> None:
    env, tables, world, background = airline
    existing, first = landed_flight_cancelled(tables, world, seed="42:S003")
    again = replace(first, label="flight_dates_2", values={**first.values, "status": "delayed"})
    database = tmp_path / "event.sqlite"
    shutil.copyfile(background, database)

    with env.session(database) as session:
        inserted, rejections = insert_rows(env, tables, session, [first, again])
        statuses = [row["status"] for row in env.dump(session)["flight_dates"]
                    if (row["flight_number"], row["date"]) == (existing["flight_number"], existing["date"])]

    assert [rejection.label for rejection in rejections] == ["flight_dates_2"]
    assert "already has a row" in rejections[0].messages[0]
    assert len(inserted) == 1 and statuses == ["cancelled"]


def test_a_symbol_keying_two_tables_is_split_and_the_table_its_description_names_keeps_it(airline) -> None:
    _, tables, world, _ = airline
    answer = plan_model(tables).model_validate({
        "entities": [{"symbol": "U1", "description": "a gold member"},
                     {"symbol": "B1", "description": "U1's reservation, paid by card"}],
        "scenario": "U1 asks about B1.", "expected_behaviour": "",
        "rows": [{"table": "users", "values": {"user_id": "U1"}},
                 {"table": "payment_methods", "values": {"user_id": "U1", "payment_id": "B1"}},
                 {"table": "reservations", "values": {"reservation_id": "B1", "user_id": "U1"}},
                 {"table": "user_reservations", "values": {"user_id": "U1", "reservation_id": "B1"}}],
    })
    plan = Plan.from_answer(answer, tables, world)

    by_table = {row.table: row.cells for row in plan.rows}
    assert by_table["reservations"]["reservation_id"].name == "B1"
    assert by_table["user_reservations"]["reservation_id"].name == "B1"
    assert by_table["payment_methods"]["payment_id"].name == "PM1"


def test_a_planned_payment_method_with_its_owner_left_open_serves_the_payment(airline) -> None:
    _, tables, world, _ = airline
    answer = plan_model(tables).model_validate({
        "entities": [], "scenario": "", "expected_behaviour": "",
        "rows": [{"table": "users", "values": {"user_id": "U1"}},
                 {"table": "payment_methods", "values": {"payment_id": "PM1", "source": "credit_card"}},
                 {"table": "reservations", "values": {"reservation_id": "R1", "user_id": "U1"}}],
    })
    plan = Plan.from_answer(answer, tables, world)

    assert [row.table for row in plan.rows].count("payment_methods") == 1


def flights_of_a_forgotten_reservation(tables: Tables, world: BackgroundWorld, *, planned: bool = False) -> Plan:
    """A user and four flights of reservation R1, as a small model planned them (R1's own row only if `planned`)."""
    reservation = [{"table": "reservations", "values": {"reservation_id": "R1", "user_id": "U1"}}] if planned else []
    answer = plan_model(tables).model_validate({
        "entities": [{"symbol": "U1", "description": "a silver member"}],
        "scenario": "U1 wants to change R1.", "expected_behaviour": "The chatbot changes it.",
        "rows": [{"table": "users", "values": {"user_id": "U1"}}, *reservation,
                 *({"table": "reservation_flights", "values": {"reservation_id": "R1", "position": position}}
                   for position in range(4))],
    })
    return Plan.from_answer(answer, tables, world)


def test_flights_of_a_reservation_no_row_plans_get_that_reservation_with_its_passenger_and_payment(airline) -> None:
    _, tables, world, _ = airline
    plan = flights_of_a_forgotten_reservation(tables, world)

    (reservation,) = [row.cells for row in plan.rows if row.table == "reservations"]
    assert reservation == {"reservation_id": Symbol("R1")}
    assert plan.entities["R1"] == "the key of a new reservations row"
    for part in ("reservation_passengers", "reservation_payments"):
        assert [row.cells["reservation_id"] for row in plan.rows if row.table == part] == [Symbol("R1")]


def test_a_forgotten_reservation_is_inserted_with_its_four_flights_and_the_events_user(airline,
                                                                                       tmp_path: Path) -> None:
    env, tables, world, background = airline
    plan = flights_of_a_forgotten_reservation(tables, world)
    rows = assemble(plan, Assignment(), tables=tables, world=world, seed="42:S004").rows
    database = tmp_path / "event.sqlite"
    shutil.copyfile(background, database)

    with env.session(database) as session:
        inserted, rejections = insert_rows(env, tables, session, rows)

    assert rejections == [] and len(inserted) == len(plan.rows)
    reservation = next(row.values for row in rows if row.table == "reservations")
    user = next(row.values for row in rows if row.table == "users")
    assert reservation["user_id"] == user["user_id"]
    assert [row.values["reservation_id"] for row in rows if row.table == "reservation_flights"] == [
        reservation["reservation_id"]] * 4


def test_a_planned_reservation_named_by_its_flights_is_not_added_again(airline) -> None:
    _, tables, world, _ = airline
    plan = flights_of_a_forgotten_reservation(tables, world, planned=True)

    assert [row.table for row in plan.rows].count("reservations") == 1
