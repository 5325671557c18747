"""τ-bench mode on τ²-bench's telecom tasks, end to end on the scripted double: each task's dialog starts from its
own initial state, the customer acts on the phone with its own tools, and the dialog is graded as τ²-bench grades.

The gold chatbot here replays the task's expected actions (it reads the task number from the dialog's id, T003 →
task 3): at each reply it makes its own next ones and asks the customer, in a line "Please do: …", for the
customer's; the scripted customer makes the calls the agent's last message asks for, with its own tools, and
stops once told "All done.". Held to a solo dialog, the gold chatbot makes the customer's actions itself. The idle
chatbot only talks.
"""

from __future__ import annotations

import asyncio
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from intellagent.api import arun
from intellagent.artifacts import Dialog, Event, TauAction
from intellagent.cli import main
from intellagent.llm import Request, ScriptedLLM
from intellagent.runner import RunResult
from intellagent.simulate.turns import STOP_TOKEN
from intellagent.tau.tasks import read_tau_tasks, tasks_file
from tests.describe.conftest import script_document

REPO = Path(__file__).resolve().parents[2]
TAU2 = REPO.parent / "shared/data/tau2_telecom"
ASK, DONE = "Please do: ", "All done."
RULES = [{"text": "Identify the customer before any change to their account.", "category": "company_policy",
          "challenge": 2}]


@cache
def tasks() -> list[Any]:
    return read_tau_tasks(tasks_file(TAU2))


def settings(**overrides: Any) -> dict[str, Any]:
    """configs/telecom.yml, every role scripted, the gold chatbot, τ²-bench's telecom tasks."""
    data = yaml.safe_load((REPO / "configs/telecom.yml").read_text())
    for key in ("policy", "solo_policy"):
        data["environment"][key] = str((REPO / "configs" / data["environment"][key]).resolve())
    data.update({"llm": "scripted", "chatbot": {"type": "python", "target": "tests.pipeline.test_tau2_mode:gold"},
                 "simulate": {**data["simulate"], "max_turns": 8, "dual_control": "dual"},
                 "tau": {"data": str(TAU2)}})
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    return data


def segments(task: Any) -> list[tuple[str, list[TauAction]]]:
    """The task's expected actions as runs of one side's, in order."""
    runs: list[tuple[str, list[TauAction]]] = []
    for action in task.actions:
        if runs and runs[-1][0] == action.requestor:
            runs[-1][1].append(action)
        else:
            runs.append((action.requestor, [action]))
    return runs


def gold(messages: list[dict[str, str]], session: Any) -> str:
    """Makes the task's expected actions, its own, and, in a solo dialog, the customer's too; asks the customer for
    theirs otherwise."""
    task = tasks()[int(session.id[1:4])]
    tools = {tool.name: tool for tool in session.tools}
    runs = segments(task)
    if "toggle_data" in tools:  # solo: the phone's tools are the chatbot's
        for action in task.actions if sum(m["role"] == "user" for m in messages) == 1 else []:
            tools[action.name].invoke(action.kwargs)
        return DONE
    reply = sum(message["role"] == "user" for message in messages)
    first = 2 * (reply - 1) - (0 if runs[0][0] == "assistant" else 1)
    if 0 <= first < len(runs):
        for action in runs[first][1]:
            tools[action.name].invoke(action.kwargs)
    if first + 1 < len(runs):
        return ASK + "; ".join(f"{a.name}({json.dumps(a.kwargs)})" for a in runs[first + 1][1])
    return DONE


def idle(messages: list[dict[str, str]], session: Any) -> str:
    """Only talks."""
    return "I am sorry to hear that. Is there anything else?"


def customer(request: Request) -> dict[str, Any]:
    """Makes the calls the agent's last message asks for, one a step, then says so; stops once all is done."""
    conversation = request.last.split("# The conversation so far", 1)[-1]
    agent = conversation.rsplit("Agent: ", 1)[-1]
    if DONE in agent or ("You: " in conversation and ASK not in agent):
        return {"action": "reply", "message": STOP_TOKEN}
    asked = re.findall(r"(\w+)\((\{.*?\})\)", agent.split(ASK, 1)[1]) if ASK in agent else []
    made = agent.count("(You used ")
    if made < len(asked):
        name, arguments = asked[made]
        return {"action": name, "arguments": json.loads(arguments)}
    return {"action": "reply", "message": "Done." if asked else "My phone is not working well."}


def talker(request: Request) -> dict[str, str]:
    """A customer with no tools (solo): says what is wrong, and stops once all is done."""
    return {"message": STOP_TOKEN if DONE in request.last else "My phone is not working well."}


def tau2_script() -> ScriptedLLM:
    llm = ScriptedLLM()
    script_document(llm, flows={"Technical support": RULES})
    llm.on(schema="TaskPolicies", reply={"policies": ["P01"]})
    llm.on(role="user", schema="UserStep", reply=customer)
    llm.on(role="user", schema="TaskUserTurn", reply=talker)
    llm.on(role="analysis", schema="DialogAnalysis", reply={"tested": [], "violations": []})
    return llm


def play(config: dict[str, Any], folder: Path) -> RunResult:
    return asyncio.run(arun(config, output=folder, script=tau2_script()))


def jsonl(path: Path, model: type) -> list[Any]:
    return [model.model_validate_json(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return play(settings(), tmp_path_factory.mktemp("tau2") / "run")


@pytest.fixture(scope="module")
def idle_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return play(settings(chatbot={"target": "tests.pipeline.test_tau2_mode:idle"}),
                tmp_path_factory.mktemp("tau2") / "idle")


def test_each_task_plays_on_its_own_initial_state(gold_run: RunResult) -> None:
    events = jsonl(gold_run.folder / "events.jsonl", Event)
    assert [e.id for e in events] == [f"T{n:03d}" for n in range(20)]
    assert all(e.database == f"events/{e.id}.delta.json" and e.expected is not None for e in events)
    states = {json.dumps([call.model_dump() for call in task.initial]) for task in tasks()}
    assert len({e.digest for e in events}) == len(states) == 19  # two tasks break the phone alike


def test_the_gold_replay_passes_every_task_with_the_customer_acting_on_the_phone(gold_run: RunResult) -> None:
    dialogs = jsonl(gold_run.folder / "dialogs.jsonl", Dialog)
    assert [d.status for d in dialogs] == ["pass"] * 20, [d.reason for d in dialogs if d.status != "pass"]
    assert all(d.tau is not None and d.tau.reward == 1.0 and all(d.tau.assertions.values()) for d in dialogs)
    user_calls = {call.name for d in dialogs for m in d.transcript if m.role == "user" for call in m.tool_calls}
    assert {"toggle_roaming", "make_payment", "reboot_device", "grant_app_permission"} <= user_calls
    score = gold_run.report.tau
    assert score is not None and (score.tasks, score.pass_k[0].value) == (20, 1.0)


def test_a_chatbot_that_does_nothing_fails_every_task(idle_run: RunResult) -> None:
    dialogs = jsonl(idle_run.folder / "dialogs.jsonl", Dialog)
    assert [d.status for d in dialogs] == ["fail"] * 20
    assert all(d.reason.startswith("τ²-bench reward 0") for d in dialogs)
    score = idle_run.report.tau
    assert score is not None and score.pass_k[0].value == 0.0


def test_solo_plays_with_the_chatbot_holding_the_phone_and_the_report_gives_the_gap(tmp_path: Path) -> None:
    result = play(settings(simulate={"dual_control": "both"}, tau={"tasks": "3,8,12"}), tmp_path / "run")
    dialogs = {d.id: d for d in jsonl(tmp_path / "run/dialogs.jsonl", Dialog)}
    solo = dialogs["T012-solo"]
    chatbot_calls = [c.name for m in solo.transcript if m.role == "chatbot" for c in m.tool_calls]
    assert {"make_payment", "reboot_device", "resume_line"} <= set(chatbot_calls) and solo.status == "pass"
    assert all(dialogs[f"T{n:03d}"].status == "pass" for n in (3, 8, 12))
    gap = result.report.dual_control
    assert gap is not None and gap.gap_low is not None and gap.gap_high is not None
    assert gap.gap_low <= 0.0 <= gap.gap_high


@pytest.fixture
def script() -> ScriptedLLM:
    """The models of the command-line run (`scripted_models`, from the pipeline's conftest)."""
    return tau2_script()


def test_the_command_line_plays_tau2_benchs_task_set(tmp_path: Path, scripted_models: ScriptedLLM,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = settings()
    del config["tau"]
    path = tmp_path / "telecom.yml"
    path.write_text(yaml.safe_dump(config))
    code = main(["--config", str(path), "--scenarios-from", f"tau:{TAU2}", "--tasks", "0,13",
                 "--output", str(tmp_path / "run"), "--no-progress"])
    assert code == 0
    assert "τ-bench: 2 tasks × 1 trial · pass^1 1.00" in capsys.readouterr().out
