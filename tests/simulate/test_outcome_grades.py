"""Every dialog whose event has an expected outcome is graded against it: Python chatbots over the airline.

Populate (scripted) makes one event: a gold member with a business reservation who wants the passenger's
name corrected; the expected outcome looks the reservation up and updates its passengers, and forbids its
cancellation. The simulated user (scripted) tells the chatbot the reservation's number, which it reads from
the details its prompt lists, then stops. Each chatbot below is a plain callable acting on the dialog's
world through `session.tools`.
"""

from __future__ import annotations

import asyncio
import re
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from intellagent.artifacts import Dialog, Event, Flow, OutcomeGrade, Policy, PolicyCatalog, Scenario
from intellagent.config import load_config
from intellagent.llm import Request, ScriptedLLM
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.populate.test_expected_outcomes import AIRLINE, airline_plan, call, proposal, shown_rows
from tests.simulate.scripted_dialogs import say, stop, verdict

MODULE = "tests.simulate.test_outcome_grades"
CATALOG = PolicyCatalog(
    task_description="A desk that changes bookings.", flows=[Flow(id="F1", name="Change a booking")],
    policies=[Policy(id="P01", text="Correct a passenger's name when the customer asks.", flows=["F1"],
                     category="user_consent", challenge=2),
              Policy(id="P02", text="Never cancel a booking the customer did not ask to cancel.", flows=["F1"],
                     category="enforcement", challenge=3)])
NEW_NAMES = [{"first_name": "Ana", "last_name": "Silva", "dob": "1990-01-01"}]
NUMBER = re.compile(r"reservation ([A-Z0-9]{6})\b")


def outcome(request: Request) -> dict[str, Any]:
    """Look the reservation up and rename its passenger; never cancel it."""
    reservation = shown_rows(request)["reservations"][0]["reservation_id"]
    return proposal(call("get_reservation_details", reservation_id=reservation),
                    call("update_reservation_passengers", ("P01",), reservation_id=reservation, passengers=NEW_NAMES),
                    forbidden=[{"tool": "cancel_reservation", "arguments": {"reservation_id": reservation},
                                "policy": "P02", "reason": "the customer asked for a correction only"}])


def user_turn(request: Request) -> dict[str, str]:
    """Asks for the correction, giving the number its prompt lists among the details it can give; then stops."""
    if "\nCustomer (you): " in request.last:
        return stop("success", "it answered")
    details = request.system.split("# Details you can give when the agent asks for them", 1)[1]
    number = re.search(r"- reservation_id: (\S+)", details)
    return say(f"Please correct the passenger on reservation {number.group(1) if number else 'unknown'}.")


def asked_reservation(messages: list[dict[str, str]]) -> str | None:
    found = NUMBER.search(messages[-1]["content"])
    return found.group(1) if found else None


def expected_calls(messages: list[dict[str, str]], session: Any) -> str:
    """Makes the expected calls."""
    reservation = asked_reservation(messages)
    tools = {tool.name: tool for tool in session.tools}
    tools["get_reservation_details"].invoke({"reservation_id": reservation})
    tools["update_reservation_passengers"].invoke({"reservation_id": reservation, "passengers": NEW_NAMES})
    return "The passenger is now Ana Silva."


def thinking_first(messages: list[dict[str, str]], session: Any) -> str:
    """Thinks aloud with the domain's `think` tool, then makes the expected calls."""
    tools = {tool.name: tool for tool in session.tools}
    tools["think"].invoke({"thought": "The customer wants a name corrected; look the booking up first."})
    return expected_calls(messages, session)


def cancelling(messages: list[dict[str, str]], session: Any) -> str:
    """Cancels the reservation instead: the forbidden write."""
    tools = {tool.name: tool for tool in session.tools}
    tools["cancel_reservation"].invoke({"reservation_id": asked_reservation(messages)})
    return "I have cancelled it."


def talking(messages: list[dict[str, str]], session: Any) -> str:
    """Only talks."""
    return "I will look into that for you."


@cache
def played(chatbot: str, root: Path) -> tuple[Event, Dialog]:
    """The event and the dialog `chatbot` played on it (one run per chatbot)."""
    folder = root / chatbot / "run"
    config = load_config({"name": "outcome-grades", "environment": AIRLINE, "llm": "scripted", "seed": 7,
                          "workers": 1, "populate": {"lean": "yes"},
                          "chatbot": {"type": "python", "target": f"{MODULE}:{chatbot}"},
                          "simulate": {"max_turns": 2, "max_critiques": 1}}, base_dir=root)
    script = ScriptedLLM()
    script.on(schema="SymbolicPlan", reply=airline_plan("business"))
    script.on(schema="ExpectedOutcomeProposal", reply=outcome)
    script.on(role="user", reply=user_turn)
    script.on(role="critique", reply=verdict(True))
    script.on(role="analysis", reply={"tested": ["P01", "P02"], "violations": []})  # a judge that sees nothing
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    RunFolder(folder).policies.save(CATALOG)
    RunFolder(folder).graph.save(nx.path_graph(["P01", "P02"]))
    RunFolder(folder).scenarios.append(Scenario(id="S001", policies=["P01", "P02"], target_challenge=5, challenge=5,
                                                description="A customer wants a passenger's name corrected.",
                                                expected_behaviour="The chatbot corrects it."))
    asyncio.run(execute(config, output=folder, stages=("populate", "simulate", "report"), script=script,
                        progress=False))
    (event,) = RunFolder(folder).events.load()
    (dialog,) = RunFolder(folder).dialogs.load()
    return event, dialog


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("outcome-grades")


def graded(chatbot: str, root: Path) -> OutcomeGrade:
    event, dialog = played(chatbot, root)
    assert event.expected is not None and len(event.expected.calls) == 2
    assert dialog.grade is not None, dialog.reason
    return dialog.grade


def test_a_chatbot_making_the_expected_calls_earns_the_reward_and_every_call(root: Path) -> None:
    grade = graded("expected_calls", root)

    assert grade.reward == 1.0 and grade.state_match and grade.diff == []
    assert (grade.precision, grade.recall, grade.f1, grade.progress) == (1.0, 1.0, 1.0, 1.0)
    assert grade.tools == {"get_reservation_details": [1, 1, 1], "update_reservation_passengers": [1, 1, 1]}
    assert grade.missed == grade.unexpected == grade.forbidden_made == []


def test_a_call_of_a_tool_that_does_not_act_on_the_world_costs_no_precision(root: Path) -> None:
    _, dialog = played("thinking_first", root)
    grade = graded("thinking_first", root)

    assert any(call.name == "think" for message in dialog.transcript for call in message.tool_calls)
    assert (grade.made_calls, grade.precision, grade.reward) == (2, 1.0, 1.0) and "think" not in grade.tools


def test_a_chatbot_making_a_forbidden_write_has_it_listed_with_the_call(root: Path) -> None:
    event, _ = played("cancelling", root)
    grade = graded("cancelling", root)

    reservation = event.user_rows["reservations"][0]["reservation_id"]
    assert grade.forbidden_made == [f'cancel_reservation(reservation_id="{reservation}")']
    assert grade.unexpected == grade.forbidden_made and grade.reward == 0.0 and grade.progress == 0.0
    assert grade.missed == [event.expected.calls[1].text()] and grade.missed_reads == [event.expected.calls[0].text()]
    assert any(line.startswith(f"reservations {reservation}: ") for line in grade.diff)


def test_a_forbidden_write_fails_the_policy_that_forbids_it_by_the_outcome_with_the_call_at_fault(root: Path) -> None:
    event, dialog = played("cancelling", root)
    (analysis,) = RunFolder(root / "cancelling" / "run").analyses.load()

    (violation,) = [v for v in analysis.violations if v.policy == "P02"]
    reservation = event.user_rows["reservations"][0]["reservation_id"]
    assert violation.source == "outcome"
    assert violation.call == f'cancel_reservation(reservation_id="{reservation}")'
    assert dialog.transcript[violation.turn].tool_calls[0].name == "cancel_reservation"
    assert "P02" in analysis.disputed  # the judge saw nothing


def test_a_chatbot_that_only_talks_reaches_nothing(root: Path) -> None:
    grade = graded("talking", root)

    assert grade.recall == 0.0 and grade.progress == 0.0 and grade.reward == 0.0
    assert grade.made_calls == 0 and grade.precision is None and grade.f1 is None
    assert not grade.state_match and grade.diff


def test_the_status_stays_the_users_verdict(root: Path) -> None:
    _, dialog = played("talking", root)

    assert dialog.status == "pass" and dialog.grade is not None and dialog.grade.reward == 0.0


def test_the_user_is_given_the_details_the_expected_calls_need(root: Path) -> None:
    event, dialog = played("expected_calls", root)

    reservation = event.user_rows["reservations"][0]["reservation_id"]
    assert dialog.transcript[1].content == f"Please correct the passenger on reservation {reservation}."
