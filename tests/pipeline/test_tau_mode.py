"""τ-bench mode end to end on the scripted double: τ-bench's airline tasks played and graded as τ-bench does.

The chatbots here replay a task's gold actions through the dialog's tools (they read the task number
from the dialog's id, T003-t2 → task 3), so the grade is known in advance: the gold chatbot earns
reward 1 on every task, one that skips a task's last write earns 0, with that write named as missed.
"""

from __future__ import annotations

import asyncio
import html
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from intellagent.api import arun
from intellagent.artifacts import Dialog, Event, Policy, PolicyCatalog, Scenario
from intellagent.cli import main
from intellagent.config import ReportConfig
from intellagent.errors import UsageError
from intellagent.llm import Request, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.sections.tau_score import TAU, tau_lines
from intellagent.runner import RunResult
from intellagent.simulate.drafts import draft_fault
from intellagent.simulate.turns import STOP_TOKEN, TaskUserTurn
from intellagent.tau.score import tau_score
from intellagent.tau.task_scenarios import task_scenario
from intellagent.tau.tasks import TauTask, read_tau_tasks, select_tasks
from tests.describe.conftest import script_document

REPO = Path(__file__).resolve().parents[2]
TAU_DATA = REPO.parent / "shared/data/tau_airline"
DONE = "All done."

RULES = [
    {"text": "Before any booking, change or cancellation, state the details and get the user's explicit yes.",
     "category": "user_consent", "challenge": 3},
    {"text": "Basic economy flights cannot be modified.", "category": "company_policy", "challenge": 2},
]


@cache
def tasks() -> list[TauTask]:
    return read_tau_tasks(TAU_DATA / "tasks.json")


def settings(**overrides: Any) -> dict[str, Any]:
    """The airline domain, every role scripted, τ-bench's task set (tasks 0-2 unless told)."""
    data: dict[str, Any] = {
        "name": "tau",
        "environment": {
            "policy": str(REPO / "policies/airline.md"),
            "schema": "intellagent.db_schemas.airline.schema",
            "tools": "intellagent.db_schemas.airline.tools",
            "validators": "intellagent.db_schemas.airline.validators",
            "background": "intellagent.db_schemas.airline.background",
            "checks": "intellagent.db_schemas.airline.checks",
            "tau": "intellagent.db_schemas.airline.tau",
        },
        "llm": "scripted",
        "chatbot": {"type": "python", "target": "tests.pipeline.test_tau_mode:gold"},
        "simulate": {"max_turns": 3},
        "tau": {"data": str(TAU_DATA), "tasks": "0-2"},
    }
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    return data


def tau_script(**answers: Any) -> ScriptedLLM:
    """Describe names two rules and gives every task the first; the user asks, then stops once served
    (`policies` and `user` replace those answers)."""
    llm = ScriptedLLM()
    script_document(llm, flows={"Change a booking": RULES})
    llm.on(schema="TaskPolicies", reply=answers.get("policies", {"policies": ["P01"]}))
    llm.on(role="user", schema="TaskUserTurn", reply=answers.get("user", user_turn))
    llm.on(role="analysis", schema="DialogAnalysis", reply={"tested": [], "violations": []})
    return llm


def user_turn(request: Request) -> dict[str, str]:
    if DONE in request.last:
        return {"message": STOP_TOKEN}
    return {"message": "I would like some help with my reservations."}


def replay(session: Any, skip_last_write: bool = False) -> str:
    """Make the task's gold calls through the dialog's tools; say the outputs."""
    task = tasks()[int(session.id[1:4])]
    tools = {tool.name: tool for tool in session.tools}
    actions = task.replayed
    if skip_last_write:
        last = max(i for i, action in enumerate(actions) if action.name in WRITES)
        actions = actions[:last] + actions[last + 1:]
    for action in actions:
        tools[action.name].invoke(action.kwargs)
    return " ".join([DONE, *task.outputs])


WRITES = {"book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_baggages",
          "update_reservation_passengers", "send_certificate"}


def _answer(messages: list[dict[str, str]], session: Any, **replay_options: Any) -> str:
    if sum(message["role"] == "user" for message in messages) > 1:
        return "Is there anything else?"
    return replay(session, **replay_options)


def gold(messages: list[dict[str, str]], session: Any) -> str:
    """Does exactly what the task's gold actions do."""
    return _answer(messages, session)


def skipping(messages: list[dict[str, str]], session: Any) -> str:
    """Skips the task's last write."""
    return _answer(messages, session, skip_last_write=True)


def flaky(messages: list[dict[str, str]], session: Any) -> str:
    """Gold, except on the second trial of task 1, where it skips the last write."""
    return _answer(messages, session, skip_last_write=session.id == "T001-t2")


def play(config: dict[str, Any], folder: Path, llm: ScriptedLLM) -> RunResult:
    return asyncio.run(arun(config, output=folder, script=llm))


def jsonl(path: Path, model: type) -> list[Any]:
    return [model.model_validate_json(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    folder = tmp_path_factory.mktemp("tau") / "run"
    return play(settings(), folder, tau_script())


def test_the_tasks_become_scenarios_and_events_on_tau_benchs_database(gold_run: RunResult) -> None:
    scenarios = jsonl(gold_run.folder / "scenarios.jsonl", Scenario)
    assert [s.id for s in scenarios] == ["T000", "T001", "T002"]
    assert all(s.status == "ok" and s.policies == ["P01"] and s.challenge == 3 for s in scenarios)
    assert scenarios[2].task == tasks()[2] and scenarios[2].description == tasks()[2].instruction
    assert "book_reservation(" in scenarios[0].expected_behaviour
    events = jsonl(gold_run.folder / "events.jsonl", Event)
    assert {e.database for e in events} == {"events/tau.sqlite"}  # one database for every task
    assert all(e.task is not None and e.user_rows == {} for e in events)
    assert not (gold_run.folder / "events/background.sqlite").exists()


def test_all_fifty_tasks_become_scenarios_in_tau_benchs_order() -> None:
    catalog = PolicyCatalog(task_description="An airline desk.", flows=[], policies=[
        Policy(id="P01", flows=[], **RULES[0]), Policy(id="P02", flows=[], **RULES[1])])
    scenarios = [task_scenario(task, catalog, ["P02", "P02"]) for task in select_tasks(tasks(), None)]
    assert [s.id for s in scenarios] == [f"T{number:03d}" for number in range(50)]
    assert all(s.policies == ["P02"] and s.challenge == 2 and s.task is not None for s in scenarios)
    assert [t.index for t in select_tasks(tasks(), "3,0-1")] == [0, 1, 3]


def test_a_task_whose_policies_are_not_named_is_judged_on_every_policy(tmp_path: Path) -> None:
    result = play(settings(tau={"tasks": "0"}), tmp_path / "run", tau_script(policies={"policies": []}))
    (scenario,) = jsonl(tmp_path / "run/scenarios.jsonl", Scenario)
    assert scenario.status == "ok" and scenario.policies == ["P01", "P02"]
    assert result.report.overall.pass_rate.total == 1  # judged, not an analysis error


def test_the_gold_chatbot_earns_every_reward(gold_run: RunResult) -> None:
    dialogs = jsonl(gold_run.folder / "dialogs.jsonl", Dialog)
    assert [d.status for d in dialogs] == ["pass"] * 3
    assert all(d.tau is not None and d.tau.reward == 1.0 and d.tau.missed == [] for d in dialogs)
    assert dialogs[0].reason.startswith("τ-bench reward 1")
    assert dialogs[0].critiques == []  # no verdict is asked of the user, so no critique
    report = json.loads((gold_run.folder / "report.json").read_text())
    assert report["tau"]["tasks"] == 3
    assert report["tau"]["pass_k"][0]["value"] == 1.0 and report["tau"]["pass_k"][0]["low"] < 1.0


def test_a_skipped_write_fails_its_task_and_is_named(tmp_path: Path) -> None:
    config = settings(chatbot={"target": "tests.pipeline.test_tau_mode:skipping"}, tau={"tasks": "1"})
    result = play(config, tmp_path / "run", tau_script())
    (dialog,) = jsonl(tmp_path / "run/dialogs.jsonl", Dialog)
    assert dialog.status == "fail" and dialog.tau is not None and dialog.tau.reward == 0.0
    task = tasks()[1]
    last_write = [a for a in task.replayed if a.name in WRITES][-1]
    assert dialog.tau.missed == [last_write.text()]
    assert "missed " + last_write.name in dialog.reason
    failure = TAU.of(result.report).results[0].failures[0]
    assert failure.dialog == "T001" and failure.missed == [last_write.text()] and failure.diff


def test_pass_k_over_trials_is_tau_benchs(tmp_path: Path) -> None:
    config = settings(chatbot={"target": "tests.pipeline.test_tau_mode:flaky"}, simulate={"trials": 3},
                      tau={"tasks": "0-1"}, report={"min_tau_pass_k": {1: 0.8, 3: 0.6}})
    result = play(config, tmp_path / "run", tau_script())
    score = TAU.of(result.report)
    assert (score.tasks, score.trials) == (2, 3)
    # Task 0 passed 3 of 3 trials, task 1 2 of 3: pass^k = (1 + C(2, k) / C(3, k)) / 2.
    assert [p.value for p in score.pass_k] == [round((1 + 2 / 3) / 2, 4), round((1 + 1 / 3) / 2, 4), 0.5]
    assert [(r.task, r.passed, r.trials) for r in score.results] == [(0, 3, 3), (1, 2, 3)]
    assert [f.dialog for f in score.results[1].failures] == ["T001-t2"]
    assert result.exit_code == 1  # pass^1 0.83 reaches 0.8; pass^3 0.5 misses 0.6
    assert result.gate_failures == ["τ-bench pass^3 0.50 (over 2 tasks) is below report.min_tau_pass_k 0.6"]
    lenient = evaluate_gate(result.report, ReportConfig(min_tau_pass_k={3: 0.6}, gate_on="lower_bound"))
    assert lenient.failures == ["τ-bench pass^3 0.50 (over 2 tasks) has a 95% lower bound of 0.09, below "
                                "report.min_tau_pass_k 0.6 (report.gate_on: lower_bound)"]
    assert evaluate_gate(result.report, ReportConfig(min_tau_pass_k={4: 0.5})).failures == [
        "report.min_tau_pass_k asks for pass^4, but each task was played 3 times; set simulate.trials (--trials) "
        "to 4 or more"]
    page = (tmp_path / "run/report.html").read_text()
    missed = score.results[1].failures[0].missed[0]
    assert "τ-bench score" in page and '<a href="#dialog-T001-t2">' in page
    assert f"missed <code>{html.escape(missed)}</code>" in page


def test_a_dialog_that_failed_to_run_counts_as_reward_zero_and_says_why() -> None:
    event = Event(id="T000", task=tasks()[0], database="events/tau.sqlite")
    crashed = Dialog(id="T000", event="T000", status="error", reason="chatbot: connection refused")
    score = tau_score([event], [crashed])
    assert score is not None and [p.value for p in score.pass_k] == [0.0] and score.errors == 1
    (failure,) = score.results[0].failures
    assert (failure.error, failure.missed) == ("chatbot: connection refused", [])
    assert "  T000  0/1 passed  failed to run: chatbot: connection refused" in tau_lines(score)


def test_a_user_that_pastes_its_private_instruction_is_asked_again(tmp_path: Path) -> None:
    def pasting(request: Request) -> dict[str, str]:
        if "copies your private instruction" in request.last or DONE in request.last:
            return user_turn(request)
        return {"message": tasks()[3].instruction[:400]}  # what a small model does: its brief, verbatim

    play(settings(tau={"tasks": "3"}), tmp_path / "run", tau_script(user=pasting))
    (dialog,) = jsonl(tmp_path / "run/dialogs.jsonl", Dialog)
    said = [m.content for m in dialog.transcript if m.role == "user"]
    assert said == ["I would like some help with my reservations."]
    assert dialog.status == "pass"


def test_a_paraphrase_of_the_instruction_is_no_copy() -> None:
    instruction = tasks()[0].instruction
    own_words = "I need a one way economy flight from New York to Seattle on May 20, not before 11am please."
    assert draft_fault(TaskUserTurn(message=own_words), agent_said=["Hi!"], private=instruction) is None
    pasted = TaskUserTurn(message="Hello! " + instruction[:200])
    fault = draft_fault(pasted, agent_said=["Hi!"], private=instruction)
    assert fault is not None and fault.repeats
    assert fault.problem == "copies your private instruction word for word"


def test_a_careless_model_still_ends_with_graded_dialogs(tmp_path: Path) -> None:
    llm = ScriptedLLM().on(reply=careless_answers(seed=5))
    result = play(settings(tau={"tasks": "0-1"}), tmp_path / "run", llm)
    dialogs = jsonl(tmp_path / "run/dialogs.jsonl", Dialog)
    assert len(dialogs) == 2 and all(d.tau is not None for d in dialogs)
    assert all(d.status in ("pass", "fail") for d in dialogs)
    score = TAU.of(result.report)
    assert score is not None and score.tasks == 2


@pytest.fixture
def script() -> ScriptedLLM:
    """The models of this module's command-line run (`scripted_models`, from the pipeline's conftest)."""
    return tau_script()


def test_the_command_line_plays_a_task_set_given_as_scenarios_from(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = settings()
    del config["tau"]
    path = tmp_path / "tau.yml"
    path.write_text(yaml.safe_dump(config))

    code = main(["--config", str(path), "--scenarios-from", f"tau:{TAU_DATA}", "--tasks", "3,45",
                 "--output", str(tmp_path / "run"), "--no-progress"])

    out = capsys.readouterr().out
    assert code == 0
    assert "τ-bench: 2 tasks × 1 trial · pass^1 1.00 (95% CI 0.34–1.00)" in out
    assert [s.id for s in jsonl(tmp_path / "run/scenarios.jsonl", Scenario)] == ["T003", "T045"]


def test_a_frozen_task_set_played_without_the_domains_module_keeps_its_dialog_as_an_error(tmp_path: Path) -> None:
    frozen = tmp_path / "frozen"
    asyncio.run(arun(settings(tau={"tasks": "3"}), output=frozen, script=tau_script(), stages=("describe", "populate")))
    config = settings()
    del config["environment"]["tau"], config["tau"]
    asyncio.run(arun(config, output=tmp_path / "run", script=tau_script(), scenarios_from=str(frozen),
                     stages=("simulate",)))
    (dialog,) = jsonl(tmp_path / "run/dialogs.jsonl", Dialog)
    assert dialog.status == "error" and "environment.tau" in dialog.reason
    assert [m.role for m in dialog.transcript][:2] == ["chatbot", "user"]  # what was played is kept


def _without_data(config: dict[str, Any]) -> dict[str, Any]:
    del config["tau"]["data"]
    return config


def _without_module(config: dict[str, Any]) -> dict[str, Any]:
    del config["environment"]["tau"]
    return config


@pytest.mark.parametrize(("config", "error"), [
    (_without_data(settings()), r"tau\.tasks chooses among the tasks of a τ-bench task set, and none is given"),
    (_without_module(settings()), r"environment\.tau names no module"),
    (settings(tau={"data": "/nowhere/tau_airline"}), r"/nowhere/tau_airline/tasks\.json not found"),
    (settings(tau={"tasks": "49-50"}), "there is no task 50"),
], ids=["tasks-without-a-set", "no-domain-module", "missing-set", "task-out-of-range"])
def test_a_task_set_the_run_cannot_play_is_one_clear_error(tmp_path: Path, config: dict[str, Any], error: str) -> None:
    with pytest.raises(UsageError, match=error):
        play(config, tmp_path / "run", tau_script())
