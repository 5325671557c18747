"""Whatever a model answers, populate makes a valid world: the careless double on two domains.

The careless double answers every request with JSON valid against its schema and arbitrary in
content (ids that name no row, strings of the wrong form). The framework owns keys, references and
every value no rule is about, so events stay valid; only the scenario's facts may be given up.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from intellagent.artifacts import Event, Scenario
from intellagent.config import Config, load_config
from intellagent.environment import Environment, load_environment
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import ROOT, world_file

CLINIC = Path(__file__).resolve().parent / "clinic"
SCENARIOS = 40
MAX_CALLS_PER_EVENT = 8  # plan, constraints, values and at most two repairs; the outcome and at most two repairs


def clinic_environment(background: str = "background.py") -> dict[str, str]:
    files = {"policy": "clinic.md", "schema": "schema.py", "tools": "tools.py", "validators": "validators.py",
             "background": background}
    return {key: str(CLINIC / name) for key, name in files.items()}


AIRLINE = {"policy": str(ROOT / "policies" / "airline.md"), "schema": "intellagent.db_schemas.airline.schema",
           "tools": "intellagent.db_schemas.airline.tools", "validators": "intellagent.db_schemas.airline.validators",
           "background": "intellagent.db_schemas.airline.background"}
TELECOM = {"policy": str(ROOT / "policies" / "telecom.md"), "schema": "intellagent.db_schemas.telecom.schema",
           "tools": "intellagent.db_schemas.telecom.tools", "validators": "intellagent.db_schemas.telecom.validators",
           "background": "intellagent.db_schemas.telecom.background"}
DOMAINS = {"airline": lambda: AIRLINE, "telecom": lambda: TELECOM, "clinic": clinic_environment}


def config(tmp_path: Path, environment: dict[str, str]) -> Config:
    return load_config({"name": "careless", "environment": environment, "llm": "scripted", "seed": 7, "workers": 4},
                       base_dir=tmp_path)


def scenarios(count: int) -> list[Scenario]:
    return [Scenario(id=f"S{n:03d}", policies=["P01"], target_challenge=3, challenge=3,
                     description=f"Customer {n} wants something changed.", expected_behaviour="The chatbot helps.")
            for n in range(1, count + 1)]


def populate(cfg: Config, folder: Path, script: ScriptedLLM, count: int) -> list[Event]:
    asyncio.run(execute(cfg, output=folder, stages=(), progress=False))
    artifact = RunFolder(folder).scenarios
    for scenario in scenarios(count):
        artifact.append(scenario)
    asyncio.run(execute(cfg, output=folder, stages=("populate",), script=script, progress=False))
    return RunFolder(folder).events.load()


@dataclass
class CarelessRun:
    """A domain populated by the careless double."""

    config: Config
    folder: Path
    script: ScriptedLLM
    events: list[Event]


@pytest.fixture(scope="module", params=sorted(DOMAINS))
def careless_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> CarelessRun:
    tmp_path = tmp_path_factory.mktemp(f"careless-{request.param}")
    cfg = config(tmp_path, DOMAINS[request.param]())
    script = ScriptedLLM().on(reply=careless_answers(seed=11))
    folder = tmp_path / "run"
    return CarelessRun(cfg, folder, script, populate(cfg, folder, script, SCENARIOS))


def test_a_careless_model_still_gets_a_valid_world_for_nearly_every_scenario(careless_run: CarelessRun) -> None:
    cfg, folder, script, events = careless_run.config, careless_run.folder, careless_run.script, careless_run.events

    ok = [event for event in events if event.status == "ok"]
    assert len(events) == SCENARIOS and len(ok) >= 0.95 * SCENARIOS
    assert len(script.requests) <= MAX_CALLS_PER_EVENT * SCENARIOS
    env = load_environment(cfg.environment)
    with env.session(folder / "events" / "_background.sqlite") as session:
        background = env.dump(session)
    for event in ok:
        database = world_file(folder, event.database)
        with env.session(database) as session:
            assert list(env.broken_rows(session, besides=background)) == [], event.id
        with sqlite3.connect(database) as connection:
            assert connection.execute("PRAGMA foreign_key_check").fetchall() == [], event.id


def test_a_careless_model_gets_each_event_a_verified_outcome_or_the_reason_it_has_none(
    careless_run: CarelessRun,
) -> None:
    assert_outcomes_verified_or_explained(careless_run.events, careless_run.folder,
                                          load_environment(careless_run.config.environment))


def assert_outcomes_verified_or_explained(events: list[Event], folder: Path, env: Environment, *,
                                          some: bool = True) -> None:
    """Every valid event has an outcome whose calls ran clean and whose world keeps every rule, or the reason it
    has none; and (`some`) some have one (a careless answer that forbids what it proposes is a refusal, an outcome
    too)."""
    ok = [event for event in events if event.status == "ok"]
    for event in ok:
        expected = event.expected
        if expected is None:
            assert event.expected_error, event.id
            continue
        assert event.expected_error is None
        assert all(not (call.result or "").startswith("Error") for call in expected.calls), event.id
        if expected.world is not None:
            with env.session(world_file(folder, expected.world)) as session:
                assert list(env.broken_rows(session)) == [], event.id
    assert not some or any(event.expected is not None for event in ok)


def test_given_up_facts_are_recorded_on_the_event(tmp_path: Path) -> None:
    script = ScriptedLLM().on(reply=careless_answers(seed=11))

    events = populate(config(tmp_path, clinic_environment()), tmp_path / "run", script, 12)

    # Random values break the clinic's rules, so some facts are given up, each with its reason.
    notes = [note for event in events for note in event.dropped]
    assert notes and all(":" in note for note in notes)
    assert any("given up (" in note or "named no row" in note or "names no existing row" in note for note in notes)


def test_a_background_world_that_breaks_a_rule_is_refused_before_any_call(tmp_path: Path) -> None:
    script = ScriptedLLM()
    cfg = config(tmp_path, clinic_environment("broken_background.py"))

    with pytest.raises(UsageError, match=r"^environment.background: clinic_doctors row \('DR-999'\) breaks "
                                         r"doctor_is_consistent: specialty 'time travel' is not one of"):
        asyncio.run(execute(cfg, output=tmp_path / "run", stages=("describe", "populate"), script=script,
                            progress=False))
    assert script.requests == []
