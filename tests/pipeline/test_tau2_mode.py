"""τ-bench mode on τ²-bench's telecom tasks, end to end on the scripted double: each task's dialog starts from its
own initial state, the customer acts on the phone with its own tools, and the dialog is graded as τ²-bench grades.

The chatbots and the scripted customer are benchmarks/tau2_telecom.py's: the gold chatbot replays each task's
expected actions, asking the customer for the customer's (or making them itself, solo); the idle one only talks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from intellagent.artifacts import Dialog, Event
from intellagent.cli import main
from intellagent.llm import ScriptedLLM
from intellagent.reports.sections import DUAL_CONTROL, TAU
from intellagent.runner import RunResult
from tests.conftest import load_benchmark

bench = load_benchmark("tau2_telecom")


def jsonl(path: Path, model: type) -> list:
    return [model.model_validate_json(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return bench.play(bench.gold, tmp_path_factory.mktemp("tau2") / "run")


@pytest.fixture(scope="module")
def idle_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return bench.play(bench.idle, tmp_path_factory.mktemp("tau2") / "idle")


def test_each_task_plays_on_its_own_initial_state(gold_run: RunResult) -> None:
    events = jsonl(gold_run.folder / "events.jsonl", Event)
    assert [e.id for e in events] == [f"T{n:03d}" for n in range(20)]
    assert all(e.database == f"events/{e.id}.delta.json" and e.expected is not None for e in events)
    states = {json.dumps([call.model_dump() for call in task.initial]) for task in bench.tasks()}
    assert len({e.digest for e in events}) == len(states) == 19  # two tasks break the phone alike


def test_the_gold_replay_passes_every_task_with_the_customer_acting_on_the_phone(gold_run: RunResult) -> None:
    dialogs = jsonl(gold_run.folder / "dialogs.jsonl", Dialog)
    assert [d.status for d in dialogs] == ["pass"] * 20, [d.reason for d in dialogs if d.status != "pass"]
    assert all(d.tau is not None and d.tau.reward == 1.0 and all(d.tau.assertions.values()) for d in dialogs)
    user_calls = {call.name for d in dialogs for m in d.transcript if m.role == "user" for call in m.tool_calls}
    assert {"toggle_roaming", "make_payment", "reboot_device", "grant_app_permission"} <= user_calls
    score = TAU.of(gold_run.report)
    assert score is not None and (score.tasks, score.pass_k[0].value) == (20, 1.0)


def test_a_chatbot_that_does_nothing_fails_every_task(idle_run: RunResult) -> None:
    dialogs = jsonl(idle_run.folder / "dialogs.jsonl", Dialog)
    assert [d.status for d in dialogs] == ["fail"] * 20
    assert all(d.reason.startswith("τ²-bench reward 0") for d in dialogs)
    score = TAU.of(idle_run.report)
    assert score is not None and score.pass_k[0].value == 0.0


def test_solo_plays_with_the_chatbot_holding_the_phone_and_the_report_gives_the_gap(tmp_path: Path) -> None:
    result = bench.play(bench.gold, tmp_path / "run", simulate={"dual_control": "both"}, tau={"tasks": "3,8,12"})
    dialogs = {d.id: d for d in jsonl(tmp_path / "run/dialogs.jsonl", Dialog)}
    solo = dialogs["T012-solo"]
    chatbot_calls = {c.name for m in solo.transcript if m.role == "chatbot" for c in m.tool_calls}
    assert {"make_payment", "reboot_device", "resume_line"} <= chatbot_calls and solo.status == "pass"
    assert all(dialogs[f"T{n:03d}"].status == "pass" for n in (3, 8, 12))
    gap = DUAL_CONTROL.of(result.report)
    assert gap is not None and (gap.gap_of, gap.gap) == ("tau", 0.0)
    assert gap.gap_low is not None and gap.gap_high is not None and gap.gap_low < 0.0 < gap.gap_high


def test_the_benchmark_prints_each_chatbots_reward(gold_run: RunResult, idle_run: RunResult) -> None:
    assert bench.figures("gold", gold_run, 12.0).startswith(
        "gold   20 tasks  pass^1 1.00 (95% CI 0.84-1.00)  assertions all met 20/20  expected actions all made 20/20")
    assert "pass^1 0.00" in bench.figures("idle", idle_run, 3.0)


@pytest.fixture
def script() -> ScriptedLLM:
    """The models of the command-line run (`scripted_models`, from the pipeline's conftest)."""
    return bench.script()


def test_the_command_line_plays_tau2_benchs_task_set(tmp_path: Path, scripted_models: ScriptedLLM,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = bench.settings(chatbot={"type": "python", "target": "benchmarks.tau2_telecom:gold"})
    del config["tau"]
    path = tmp_path / "telecom.yml"
    path.write_text(yaml.safe_dump(config))
    code = main(["--config", str(path), "--scenarios-from", f"tau:{bench.TAU2}", "--tasks", "0,13",
                 "--output", str(tmp_path / "run"), "--no-progress"])
    assert code == 0
    assert "τ-bench: 2 tasks × 1 trial · pass^1 1.00" in capsys.readouterr().out


def test_a_solo_dialogs_customer_plays_from_the_tasks_ticket_and_a_dual_ones_from_its_instruction() -> None:
    from intellagent.config import load_config
    from intellagent.environment import load_environment
    from intellagent.tau.user import TaskUser, task_user_prompt

    task = bench.tasks()[12]  # the line suspended for an overdue bill
    event = Event(id="T012", task=task, scenario=task.instruction, database="events/T012.delta.json")
    phone = load_environment(load_config("telecom.yml").environment).user_tools
    dual, solo = TaskUser(event, llm=None, tools=phone), TaskUser(event, llm=None)  # type: ignore[arg-type]
    assert (dual.ticket, dual.private) == ("", task.instruction)
    assert solo.ticket == task.ticket and solo.private == ""  # τ²-bench's solo agent reads the ticket whole
    shown = task_user_prompt(event, [], ticket=solo.ticket)[0].content
    assert "They gave permission to pay all their overdue bills." in shown and task.instruction not in shown
    assert "check_status_bar" in task_user_prompt(event, [], tools=phone)[0].content


def test_a_careless_model_in_every_role_still_ends_with_graded_dialogs(tmp_path: Path) -> None:
    import asyncio

    from intellagent.api import arun
    from intellagent.llm.careless import careless_answers

    config = bench.settings(chatbot={"type": "llm_agent", "llm": "scripted"}, tau={"tasks": "0,12,17"})
    result = asyncio.run(arun(config, output=tmp_path / "run", script=ScriptedLLM().on(reply=careless_answers(seed=3))))
    dialogs = jsonl(tmp_path / "run/dialogs.jsonl", Dialog)
    assert len(dialogs) == 3 and all(d.tau is not None and d.status in ("pass", "fail") for d in dialogs)
    assert TAU.of(result.report) is not None and TAU.of(result.report).tasks == 3
