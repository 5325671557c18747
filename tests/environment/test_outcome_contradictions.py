"""An assertion the verified expected outcome of an event breaks is discarded, with the event and the reason
recorded; one the outcome keeps, or whose rule the event did not sample, stays in force."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from intellagent.artifacts import (
    Condition,
    Event,
    Flow,
    ForbiddenAssertion,
    OrderAssertion,
    Policy,
    PolicyCatalog,
    PreconditionAssertion,
)
from intellagent.artifacts.outcomes import ExpectedCall, ExpectedOutcome
from intellagent.environment import Environment
from intellagent.populate.contradictions import reviewed_assertions
from intellagent.run_folder import RunFolder


def status_is(status: str, policy: str) -> PreconditionAssertion:
    return PreconditionAssertion(id=f"{policy}.1", policy=policy, rationale="A parcel is held only in transit.",
                                 tool="hold_parcel", any_of=[Condition(
                                     argument="tracking_number", table="parcels", key="tracking_number",
                                     column="status", op="eq", value=status)])


RIGHT = status_is("in transit", "P01")
TOO_STRICT = status_is("held", "P02")  # a misreading: the parcel must already be held
LOOKUP_FIRST = OrderAssertion(id="P03.1", policy="P03", rationale="Track the parcel before holding it.",
                              before="track_parcel", then="hold_parcel")
NEVER_HOLD = ForbiddenAssertion(id="P04.1", policy="P04", rationale="Never hold a parcel.", tool="hold_parcel")


@pytest.fixture
def run(parcels: Environment, depot: Path, tmp_path: Path) -> tuple[RunFolder, Event]:
    """A run folder holding one event of the parcel desk whose verified outcome tracks, then holds, a parcel in
    transit; the event sampled P01, P02 and P03, not P04."""
    folder = RunFolder(tmp_path / "run")
    world = folder.root / "events" / "E1.sqlite"
    world.parent.mkdir(parents=True)
    shutil.copyfile(depot, world)
    (number,) = sqlite3.connect(depot).execute(
        "SELECT tracking_number FROM parcels WHERE status = 'in transit' ORDER BY tracking_number").fetchone()
    expected = ExpectedOutcome(calls=[
        ExpectedCall(tool="track_parcel", arguments={"tracking_number": number}, writes=False, result="{}"),
        ExpectedCall(tool="hold_parcel", arguments={"tracking_number": number}, writes=True, policies=["P01"],
                     result=f"parcel {number} is held")])
    return folder, Event(id="E1", policies=["P01", "P02", "P03"], database="events/E1.sqlite", expected=expected)


def catalog() -> PolicyCatalog:
    return PolicyCatalog(task_description="A parcel desk.", flows=[Flow(id="F1", name="Holding")],
                         policies=[Policy(id=f"P0{n}", text="A rule.", flows=["F1"], category="company_policy",
                                          challenge=2) for n in range(1, 5)],
                         assertions=[RIGHT, TOO_STRICT, LOOKUP_FIRST, NEVER_HOLD])


def test_an_assertion_the_outcome_breaks_is_discarded_with_the_event_and_reason(parcels, run) -> None:
    folder, event = run
    review = reviewed_assertions(parcels, catalog(), [event], folder)
    (discarded,) = review.discarded
    assert (discarded.id, discarded.policy, discarded.event) == ("P02.1", "P02", "E1")
    assert "status is 'in transit'" in discarded.reason


def test_assertions_the_outcome_keeps_or_whose_rule_was_not_sampled_stay_in_force(parcels, run) -> None:
    folder, event = run
    review = reviewed_assertions(parcels, catalog(), [event], folder)
    assert review.in_force == ["P01.1", "P03.1", "P04.1"] and review.outcomes == 1
    assert [a.id for a in catalog().assertions_in_force(review)] == ["P01.1", "P03.1", "P04.1"]


def test_events_with_no_verified_outcome_discard_nothing(parcels, run) -> None:
    folder, event = run
    unverified = [event.model_copy(update={"expected": None}),
                  event.model_copy(update={"id": "E2", "status": "error"})]
    review = reviewed_assertions(parcels, catalog(), unverified, folder)
    assert review.discarded == [] and review.outcomes == 0  # a failed event is not read, though it has one


def test_an_outcome_no_assertion_is_read_against_is_not_counted(parcels, run) -> None:
    folder, event = run
    unsampled = event.model_copy(update={"policies": ["P05"]})  # a rule that compiled into no assertion
    review = reviewed_assertions(parcels, catalog(), [unsampled, event], folder)
    assert review.outcomes == 1 and [d.id for d in review.discarded] == ["P02.1"]


def test_assertions_on_the_calls_alone_are_read_without_the_events_world(parcels, run) -> None:
    folder, event = run
    (folder.root / "events" / "E1.sqlite").unlink()  # no world to read: the order reads the calls alone
    calls_only = catalog().model_copy(update={"assertions": [LOOKUP_FIRST, NEVER_HOLD]})
    review = reviewed_assertions(parcels, calls_only, [event.model_copy(update={"policies": ["P03", "P04"]})], folder)
    assert [d.id for d in review.discarded] == ["P04.1"] and review.outcomes == 1


def test_an_outcome_whose_world_is_gone_is_not_read_and_nothing_fails(parcels, run) -> None:
    folder, event = run
    (folder.root / "events" / "E1.sqlite").unlink()
    review = reviewed_assertions(parcels, catalog(), [event], folder)
    assert review.discarded == [] and review.outcomes == 0
    assert review.in_force == ["P01.1", "P02.1", "P03.1", "P04.1"]
