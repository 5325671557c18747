"""With no model at all, generated rows take the shapes the background world's rows teach, and pass its rules."""

from __future__ import annotations

import random
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from intellagent.populate import Assignment, BackgroundWorld, Plan, Tables, assemble, fall_back, insert_rows, plan_model
from intellagent.populate.shapes import date_shape
from tests.populate.test_careless_model import clinic_environment


@pytest.fixture(scope="module")
def clinic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Environment, Tables, BackgroundWorld, Path]:
    folder = tmp_path_factory.mktemp("clinic")
    env = load_environment(load_config({"environment": clinic_environment()}, base_dir=folder).environment)
    tables = Tables(env.tables)
    background = folder / "background.sqlite"
    env.create_database(background, seed=3)
    return env, tables, BackgroundWorld.load(env, background, tables), background


def plan_of(tables: Tables, world: BackgroundWorld, rows: list[dict]) -> Plan:
    answer = plan_model(tables).model_validate(
        {"entities": [], "rows": rows, "scenario": "", "expected_behaviour": ""}
    )
    return Plan.from_answer(answer, tables, world)


def test_times_without_seconds_keep_their_format_hours_and_quarter_hour_step() -> None:
    shape = date_shape(["2024-05-06T08:15", "2024-05-09T17:45", "2024-05-07T12:30"], "%Y-%m-%dT%H:%M")
    assert shape is not None

    drawn = [datetime.strptime(shape.draw(random.Random(n)), "%Y-%m-%dT%H:%M") for n in range(200)]

    assert all(moment.minute % 15 == 0 and (8, 15) <= (moment.hour, moment.minute) <= (17, 45) for moment in drawn)
    assert {moment.date().isoformat() for moment in drawn} <= {"2024-05-06", "2024-05-07", "2024-05-08", "2024-05-09"}


def test_rows_planned_with_no_value_pass_every_rule_of_the_clinic(clinic, tmp_path: Path) -> None:
    env, tables, world, background = clinic
    plan = plan_of(tables, world, [
        {"table": "clinic_patients", "values": {"patient_id": "P1"}},
        {"table": "clinic_referrals", "values": {"referral_id": "R1", "patient_id": "P1"}},
        {"table": "clinic_appointments", "values": {"appointment_id": "A1", "patient_id": "P1"}},
    ])
    database = tmp_path / "event.sqlite"
    shutil.copyfile(background, database)

    rows = assemble(plan, Assignment(), tables=tables, world=world, seed="3:S001").rows
    with env.session(database) as session:
        _, rejections = insert_rows(env, tables, session, rows)

    assert rejections == []
    referral = next(row.values for row in rows if row.table == "clinic_referrals")
    appointment = next(row.values for row in rows if row.table == "clinic_appointments")
    writer = next(row for row in world.rows("clinic_doctors") if row["doctor_id"] == referral["doctor_id"])
    # The referral's specialty is not copied from its writer's, though the two columns share a name.
    assert writer["specialty"] == "general_practice" and referral["specialty"] != "general_practice"
    assert datetime.strptime(appointment["starts_at"], "%Y-%m-%dT%H:%M").minute % 15 == 0
    assert appointment["referral_id"] in (None, referral["referral_id"])  # an optional reference: its own, or none


def test_a_rejected_row_with_no_model_value_left_is_left_out_with_the_rows_that_depend_on_it(clinic) -> None:
    _, tables, world, _ = clinic
    plan = plan_of(tables, world, [
        {"table": "clinic_patients", "values": {"patient_id": "P1"}},
        {"table": "clinic_referrals", "values": {"referral_id": "R1", "patient_id": "P1"}},
        {"table": "clinic_appointments", "values": {"appointment_id": "A1", "patient_id": "P1", "status": "maybe"}},
    ])
    assignment = Assignment()

    first = fall_back(plan, assignment, rejections={"clinic_appointments_1": ["status 'maybe' is unknown"]},
                      tables=tables)
    second = fall_back(plan, assignment, rejections={"clinic_patients_1": ["still made up"]}, tables=tables)

    assert first == ["clinic_appointments_1: status='maybe' given up (status 'maybe' is unknown)"]
    assert second == ["clinic_patients_1: row left out (still made up)",
                      "clinic_referrals_1: row left out (a row it refers to was left out)",
                      "clinic_appointments_1: row left out (a row it refers to was left out)"]
    assert plan.rows == []


def test_rows_looked_up_by_value_are_those_a_scan_finds_in_the_same_order(clinic) -> None:
    _, tables, world, _ = clinic
    for table in tables:
        rows = world.rows(table.name)
        for name in table.columns:
            for value in {repr(row.get(name)): row.get(name) for row in rows[:40]}.values():
                scanned = [row for row in rows if row.get(name) == value]
                assert world.matching(table.name, {name: value}) == scanned, (table.name, name, value)
        if len(table.columns) > 1 and rows:
            first, second = list(table.columns)[:2]
            match = {first: rows[-1][first], second: rows[-1][second]}
            assert world.matching(table.name, match) == [r for r in rows if r[first] == match[first]
                                                         and r[second] == match[second]]
    structured = BackgroundWorld(tables, {"clinic_patients": [{"patient_id": "a", "plan": ["x"]},
                                                             {"patient_id": "b", "plan": ["y"]}]})
    assert structured.matching("clinic_patients", {"plan": ["y"]}) == [{"patient_id": "b", "plan": ["y"]}]
    assert structured.matching("clinic_patients", {"plan": "nothing"}) == []
