"""The airline environment as a whole: its policy (every rule, in our own words) and how it loads."""

from pathlib import Path

import pytest

from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment

POLICY = (Path(__file__).resolve().parents[2] / "policies/airline.md").read_text()
PROSE = " ".join(POLICY.split())  # line breaks of the Markdown source do not matter


def test_tables_come_parents_first(airline: Environment) -> None:
    seen: set[str] = set()
    for table in airline.tables:
        parents = {key.column.table.name for key in table.__table__.foreign_keys}  # type: ignore[attr-defined]
        assert parents <= seen, (table.__tablename__, parents - seen)
        seen.add(table.__tablename__)
    assert len(seen) == 10


def test_the_environment_carries_the_policy_as_the_system_prompt(airline: Environment) -> None:
    assert airline.name == "airline"
    assert airline.policy == POLICY


@pytest.mark.parametrize(
    "fact",
    [
        "2024-05-15, 15:00:00 EST",
        '("yes")',
        "five passengers at most",
        "first name, last name and date of birth",
        "one travel certificate, one credit card and three gift cards",
        "| regular | 0 | 1 | 2 |",
        "| silver | 1 | 2 | 3 |",
        "| gold | 2 | 3 | 3 |",
        "50 dollars",
        "30 dollars per passenger",
        "health or weather",
        "basic economy reservation's flights cannot be changed",
        "origin, the destination and the trip type",
        "within 24 hours",
        "5 to 7 business days",
        "100 dollars per passenger",
        "50 dollars per passenger",
        "explicitly asks",
        "not even a",
        "`delayed` or `on time`",
        "`flying`",
    ],
)
def test_the_policy_keeps_every_rule(fact: str) -> None:
    assert fact in PROSE


@pytest.mark.parametrize(
    "original",
    [
        "You should deny user requests that are against this policy.",
        "Each reservation can have at most five passengers.",
        "The refund will go to original payment methods in 5 to 7 business days.",
        "Do not proactively offer these unless the user complains",
    ],
)
def test_the_policy_is_not_a_copy(original: str) -> None:
    assert original not in PROSE


def test_the_domain_loads_the_same_by_file_path(airline: Environment) -> None:
    domain = Path(__file__).resolve().parents[2] / "db_schemas/airline"
    config = EnvironmentConfig(
        policy=domain.parents[1] / "policies/airline.md",
        schema=str(domain / "schema.py"),
        tools=str(domain / "tools.py"),
        validators=str(domain / "validators.py"),
    )
    by_path = load_environment(config)
    assert by_path.tables == airline.tables  # the same classes: the modules were not imported a second time
    assert [tool.name for tool in by_path.tools] == [tool.name for tool in airline.tools]
