"""The airline environment, and τ-bench's airline data loaded once into a template database."""

import shutil
from pathlib import Path

import pytest
from intellagent.db_schemas.airline.tau import TauDatabase, build_tau_database, read_tau_data

from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment
from intellagent.tau.tasks import TauTask, read_tau_tasks

REPO = Path(__file__).resolve().parents[2]
TAU_DATA = REPO.parent / "shared/data/tau_airline"


@pytest.fixture(scope="session")
def airline() -> Environment:
    config = EnvironmentConfig(
        policy=REPO / "policies/airline.md",
        schema="intellagent.db_schemas.airline.schema",
        tools="intellagent.db_schemas.airline.tools",
        validators="intellagent.db_schemas.airline.validators",
        background="intellagent.db_schemas.airline.background",
        tau="intellagent.db_schemas.airline.tau",
    )
    return load_environment(config)


@pytest.fixture(scope="session")
def tau_data() -> TauDatabase:
    return read_tau_data(TAU_DATA)


@pytest.fixture(scope="session")
def tau_tasks() -> list[TauTask]:
    return read_tau_tasks(TAU_DATA / "tasks.json")


@pytest.fixture(scope="session")
def tau_template(airline: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The τ-bench data in a SQLite file, loaded once; tests copy it rather than load 2000 reservations again."""
    path = tmp_path_factory.mktemp("tau") / "initial.sqlite"
    build_tau_database(airline, TAU_DATA, path)
    return path


@pytest.fixture
def tau_db(tau_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the τ-bench database for one test."""
    path = tmp_path / "event.sqlite"
    shutil.copyfile(tau_template, path)
    return path
