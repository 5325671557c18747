"""A domain with no hand-written check (the parcel desk: ids of digits only) gets program-backed verdicts from
assertions compiled from its rules: each fires on a dialog that breaks its rule, with the call and row at
fault, and stays silent on one that keeps it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from intellagent.artifacts import Assertion, Finding, Flow, Policy, PolicyCatalog
from intellagent.checks import run_checks
from intellagent.checks.compiled_checks import compiled_checks
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertion_compiler import compiled
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment
from tests.airline.test_airline_checks import Turn, play_turns

RULES = {
    "P01": "A parcel can be held at its depot only while it is in transit.",
    "P02": "Before holding a parcel, track it to check that it is in transit.",
    "P03": "Before holding a parcel, say what will happen and wait for the customer's explicit yes.",
}
ANSWER = {"assertions": [
    {"kind": "precondition", "policy": "P01", "tool": "hold_parcel", "rationale": RULES["P01"],
     "any_of": [{"argument": "hold_parcel.tracking_number", "key": "parcels.tracking_number",
                 "column": "parcels.status", "op": "eq", "value": "in transit"}]},
    {"kind": "order", "policy": "P02", "before": "track_parcel", "then": "hold_parcel",
     "before_argument": "track_parcel.tracking_number", "then_argument": "hold_parcel.tracking_number",
     "rationale": "Before holding a parcel, track it"},
    {"kind": "confirmation", "policy": "P03", "tool": "hold_parcel", "rationale": RULES["P03"]},
]}


@pytest.fixture(scope="module")
def assertions(parcels: Environment) -> list[Assertion]:
    vocabulary = Vocabulary.of(parcels)
    catalog = PolicyCatalog(task_description="A parcel desk.", flows=[Flow(id="F1", name="Holding a parcel")],
                            policies=[Policy(id=pid, text=text, flows=["F1"], category="company_policy", challenge=2)
                                      for pid, text in RULES.items()])
    kept, notes = compiled(assertions_schema(vocabulary, list(RULES)).model_validate(ANSWER), catalog, vocabulary)
    assert notes == []
    return kept


def parcel(world: Path, status: str) -> str:
    (found,) = sqlite3.connect(world).execute(
        "SELECT tracking_number FROM parcels WHERE status = ? ORDER BY tracking_number LIMIT 1", (status,)).fetchone()
    return found


def hold(number: str, *, tracked: bool, asked: bool) -> list[Turn]:
    track = [("track_parcel", {"tracking_number": number})] if tracked else []
    turns: list[Turn] = [("chatbot", "Hello!", []), ("user", f"Please hold {number}.", [])]
    if asked:
        turns += [("chatbot", f"I will hold parcel {number} at its depot. Shall I?", track),
                  ("user", "Yes, please go ahead.", [])]
    else:
        turns += [("chatbot", "One moment.", track), ("user", "Thanks.", [])]
    return [*turns, ("chatbot", "Done.", [("hold_parcel", {"tracking_number": number})])]


def found_by(parcels: Environment, assertions: list[Assertion], depot: Path, folder: Path, turns: list[Turn]
             ) -> dict[str, list[Finding]]:
    messages, database = play_turns(parcels, depot, folder, turns)
    findings = run_checks(parcels, messages, before=depot, database=database,
                          compiled=compiled_checks(assertions)).findings
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        found.setdefault(finding.check, []).append(finding)
    return found


def test_the_desk_has_no_hand_written_check_and_every_rule_compiles(assertions) -> None:
    assert [(a.id, a.kind) for a in assertions] == [("P01.1", "precondition"), ("P02.1", "order"),
                                                    ("P03.1", "confirmation")]


def test_holding_a_delivered_parcel_breaks_the_precondition_with_the_row_at_fault(parcels, assertions, depot,
                                                                                  tmp_path) -> None:
    delivered = parcel(depot, "delivered")
    (finding,) = found_by(parcels, assertions, depot, tmp_path, hold(delivered, tracked=True, asked=True))[
        "compiled P01.1"]
    assert finding.turn == 4 and finding.row == f"parcels row (tracking_number='{delivered}')"
    assert "status is 'delivered'" in finding.message


def test_holding_an_untracked_parcel_breaks_the_order(parcels, assertions, depot, tmp_path) -> None:
    moving = parcel(depot, "in transit")
    found = found_by(parcels, assertions, depot, tmp_path, hold(moving, tracked=False, asked=True))
    (finding,) = found["compiled P02.1"]
    assert finding.turn == 4 and finding.call == f'hold_parcel({{"tracking_number": "{moving}"}})'
    assert "compiled P01.1" not in found


def test_holding_with_no_yes_breaks_the_confirmation(parcels, assertions, depot, tmp_path) -> None:
    moving = parcel(depot, "in transit")
    found = found_by(parcels, assertions, depot, tmp_path, hold(moving, tracked=True, asked=False))
    assert [f.turn for f in found["compiled P03.1"]] == [4]


def test_a_dialog_that_keeps_every_rule_gets_no_compiled_finding(parcels, assertions, depot, tmp_path) -> None:
    moving = parcel(depot, "in transit")
    found = found_by(parcels, assertions, depot, tmp_path, hold(moving, tracked=True, asked=True))
    assert not [name for name in found if name.startswith("compiled ")]
