"""The airline policy: every rule and number of the original, stated in the project's own words."""

from pathlib import Path

import pytest

from intellagent.environment import Environment

POLICY = (Path(__file__).resolve().parents[2] / "policies/airline.md").read_text()
PROSE = " ".join(POLICY.split())  # line breaks of the Markdown source do not matter


def test_the_environment_carries_the_policy_as_the_system_prompt(airline: Environment) -> None:
    assert airline.name == "airline"
    assert airline.policy == POLICY


@pytest.mark.parametrize(
    "fact",
    [
        "2024-05-15, 15:00:00 EST", '("yes")', "five passengers at most", "first name, last name and date of birth",
        "one travel certificate, one credit card and three gift cards", "| regular | 0 | 1 | 2 |", "| silver | 1 | 2 | 3 |",
        "| gold | 2 | 3 | 3 |", "50 dollars", "30 dollars per passenger", "health or weather", "basic economy reservation's flights cannot be changed",
        "origin, the destination and the trip type", "within 24 hours", "5 to 7 business days", "100 dollars per passenger",
        "50 dollars per passenger", "explicitly asks", "not even a", "`delayed` or `on time`", "`flying`",
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
