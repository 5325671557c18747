"""The telecom environment as its example config loads it, on τ²-bench's own telecom data and on the seeded
background world.

τ²-bench's data (`../shared/data/tau2_telecom`) is loaded once; each test works on a copy. Its customer John
Smith (C1001) holds lines L1001 (Basic, 3.2 of 5 GB used), L1002 (Premium, 555-123-2002, roaming on, 8.7 of
15 GB used) and L1003 (suspended); his bills are B1001 (paid), B1002 (issued, 150.0) and B1003 (this month's
draft). The phone in hand is τ²-bench's default phone, its owner and number unset until a task sets them.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from intellagent.db_schemas.telecom import tau
from intellagent.db_schemas.telecom.schema import Phone

from intellagent.artifacts import TauTask
from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from intellagent.tau.tasks import read_tau_tasks, tasks_file

REPO = Path(__file__).resolve().parents[2]
TAU2 = REPO.parent / "shared/data/tau2_telecom"
JOHN, PREMIUM_LINE, BASIC_LINE, SUSPENDED_LINE = "C1001", "L1002", "L1001", "L1003"
NUMBER = "555-123-2002"


@cache
def tasks() -> list[TauTask]:
    """τ²-bench's 20 telecom tasks, read as a task set."""
    return read_tau_tasks(tasks_file(TAU2))


@pytest.fixture(scope="session")
def telecom() -> Environment:
    """The domain as configs/telecom.yml names it."""
    return load_environment(load_config("telecom.yml").environment)


@pytest.fixture(scope="session")
def tau_template(telecom: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """τ²-bench's telecom data in the tables, built once."""
    path = tmp_path_factory.mktemp("tau2") / "telecom.sqlite"
    tau.build_tau_database(telecom, TAU2, path)
    return path


@pytest.fixture(scope="session")
def template(telecom: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded background world of seed 3, built once."""
    path = tmp_path_factory.mktemp("telecom") / "world.sqlite"
    telecom.create_database(path, seed=3)
    return path


@dataclass
class World:
    """One test's copy of a world, and the two sides' tools and τ²-bench's functions on it."""

    telecom: Environment
    path: Path

    def agent(self, name: str, **arguments: Any) -> str:
        """Call one of the chatbot's tools, as the chatbot would; the result it would see."""
        with self.telecom.session(self.path) as session:
            return self.telecom.call_tool(session, name, arguments)

    def agent_json(self, name: str, **arguments: Any) -> Any:
        """A chatbot tool's result, parsed."""
        return json.loads(self.agent(name, **arguments))

    def user(self, name: str, **arguments: Any) -> str:
        """Call one of the customer's tools on their phone; what the customer would see."""
        with self.telecom.session(self.path) as session:
            return self.telecom.call_tool(session, name, arguments, by="user")

    def tau(self, side: str, function: str, **arguments: Any) -> Any:
        """Run one of τ²-bench's environment functions (a scene setter, a fault, an assertion)."""
        with self.telecom.session(self.path) as session:
            return tau.run_tau_function(self.telecom, session, side, function, arguments)

    def row(self, table: type, key: Any) -> Any:
        """A row as stored now, detached from its session."""
        with self.telecom.session(self.path) as session:
            row = session.get(table, key)
            return None if row is None else table.model_validate(row.model_dump())

    def phone(self) -> Phone:
        return self.row(Phone, 1)


@pytest.fixture
def world(telecom: Environment, tau_template: Path, tmp_path: Path) -> World:
    """A copy of τ²-bench's data, its phone John Smith's (555-123-2002), at home."""
    path = tmp_path / "world.sqlite"
    shutil.copyfile(tau_template, path)
    made = World(telecom, path)
    made.tau("user", "set_user_info", name="John Smith", phone_number=NUMBER)
    return made
