"""τ-bench's grade on a domain that is not the airline: the parcel desk, with a τ-bench module of its own.

What a failed grade names puts the gold writes first and the skipped look-ups apart, and an attempt that
returned an error (and so changed nothing) is no unexpected write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intellagent.artifacts import Dialog, Event, Message, ToolCall
from intellagent.environment import Environment, load_environment
from intellagent.tau.task_grading import TauGrader, grade
from intellagent.tau.tasks import TauTask
from tests.environment.conftest import PARCELS, ConfigFactory


@pytest.fixture(scope="module")
def desk(parcels_config: ConfigFactory) -> Environment:
    """The parcel desk with its τ-bench module."""
    return load_environment(parcels_config(tau=str(PARCELS / "tau.py")))


@pytest.fixture(scope="module")
def task_set(desk: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A τ-bench task set of the parcel desk: its background world as parcels.json, and no tasks.json."""
    folder = tmp_path_factory.mktemp("tau_parcels")
    world = folder / "background.sqlite"
    desk.create_database(world, seed=0)
    assert desk.tau is not None
    with desk.session(world) as session:
        (folder / "parcels.json").write_text(json.dumps(desk.tau.export_tau(session)))
    return folder


@pytest.fixture(scope="module")
def initial(desk: Environment, task_set: Path) -> Path:
    assert desk.tau is not None
    path = task_set / "initial.sqlite"
    desk.tau.build_tau_database(desk, task_set, path)
    return path


def parcel(task_set: Path, status: str) -> str:
    parcels = json.loads((task_set / "parcels.json").read_text())["parcels"]
    return next(number for number, record in parcels.items() if record["status"] == status)


@pytest.fixture(scope="module")
def hold_task(task_set: Path) -> TauTask:
    """Look a parcel in transit up, then hold it."""
    number = parcel(task_set, "in transit")
    return TauTask(user_id="cus_1", actions=[{"name": "track_parcel", "kwargs": {"tracking_number": number}},
                                             {"name": "hold_parcel", "kwargs": {"tracking_number": number}}])


def test_a_failed_grade_names_the_missed_write_first_and_the_skipped_look_up_apart(
    desk: Environment, initial: Path, hold_task: TauTask
) -> None:
    result = grade(desk, hold_task, calls=[], replies=[], initial=initial)

    assert result.reward == 0.0
    assert result.missed == [hold_task.actions[1].text()]
    assert result.missed_reads == [hold_task.actions[0].text()]
    reasons = result.summary()
    assert reasons.index("missed hold_parcel") < reasons.index("did not look up track_parcel")


def test_a_write_attempt_that_returned_an_error_is_no_unexpected_write(
    desk: Environment, initial: Path, hold_task: TauTask, task_set: Path
) -> None:
    refused = ("hold_parcel", {"tracking_number": parcel(task_set, "delivered")})
    calls = [(action.name, action.kwargs) for action in hold_task.actions]

    counted = grade(desk, hold_task, calls=[refused, *calls], replies=[], initial=initial)
    forgiven = grade(desk, hold_task, calls=[refused, *calls], replies=[], initial=initial, failed=[refused])

    assert counted.unexpected == [f'hold_parcel(tracking_number="{refused[1]["tracking_number"]}")']
    assert forgiven.unexpected == [] and forgiven.passed


def test_a_dialogs_tool_errors_reach_the_grade_as_failed_attempts(
    desk: Environment, initial: Path, hold_task: TauTask, task_set: Path, tmp_path: Path
) -> None:
    final = tmp_path / "final.sqlite"
    final.write_bytes(initial.read_bytes())
    delivered = {"tracking_number": parcel(task_set, "delivered")}
    made = []
    with desk.session(final) as session:
        for name, arguments in [("hold_parcel", delivered), *((a.name, a.kwargs) for a in hold_task.actions)]:
            made.append(ToolCall(id=f"c{len(made)}", name=name, arguments=arguments,
                                 result=desk.call_tool(session, name, arguments)))
    assert made[0].failed and not made[2].failed
    dialog = Dialog(id="T000", event_id="T000", status="pass", reason="played",
                    transcript=[Message(role="chatbot", content="Held.", tool_calls=made)])
    event = Event(id="T000", policies=[], challenge=1, scenario="", expected_behaviour="", database="x",
                  task=hold_task)

    result = TauGrader().grade(desk, event, dialog, start=initial, end=final)

    assert result.tau is not None and result.tau.passed and result.tau.unexpected == []
