#!/usr/bin/env python3
"""τ²-bench's telecom tasks played through a whole run: the reward a chatbot that replays each task's expected
actions earns, and the reward a chatbot that does nothing earns.

The 20 tasks of ../shared/data/tau2_telecom are played in τ-bench mode on the telecom example's domain, every
framework role the scripted double. The gold chatbot replays the task's expected actions (the task's number is
read from the dialog's id, T003 → task 3): at each reply it makes its own next ones and asks the customer for
the customer's in a line "Please do: …"; the scripted customer makes, with its own phone tools, the calls the
agent's last message asks for, and stops once told "All done.". In a solo dialog the gold chatbot holds the
phone's tools and makes every expected action itself. The idle chatbot only talks. So the figures check the
domain and the grader, not a model: the gold chatbot should earn every reward and the idle one none.

    python benchmarks/tau2_telecom.py            # both chatbots, dual control
    python benchmarks/tau2_telecom.py --solo     # each dialog played dual and solo: the gap with its interval
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

import yaml

# Runnable from a checkout without installing the package.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from intellagent.api import arun  # noqa: E402
from intellagent.artifacts import TauAction, TauTask  # noqa: E402
from intellagent.llm import Request, ScriptedLLM  # noqa: E402
from intellagent.reports.sections import DUAL_CONTROL, TAU  # noqa: E402
from intellagent.runner import RunResult  # noqa: E402
from intellagent.simulate.turns import STOP_TOKEN  # noqa: E402
from intellagent.tau.tasks import read_tau_tasks, tasks_file  # noqa: E402

TAU2 = ROOT.parent / "shared/data/tau2_telecom"
ASK, DONE = "Please do: ", "All done."
RULES = [{"text": "Identify the customer before any change to their account.", "category": "company_policy",
          "challenge": 2}]


@cache
def tasks() -> list[TauTask]:
    """τ²-bench's telecom tasks."""
    return read_tau_tasks(tasks_file(TAU2))


def settings(**overrides: Any) -> dict[str, Any]:
    """configs/telecom.yml with every role scripted, playing τ²-bench's telecom tasks dual."""
    data = yaml.safe_load((ROOT / "configs/telecom.yml").read_text())
    for key in ("policy", "solo_policy", "rules"):
        data["environment"][key] = str((ROOT / "configs" / data["environment"][key]).resolve())
    data.update({"llm": "scripted", "simulate": {**data["simulate"], "max_turns": 8, "dual_control": "dual"},
                 "tau": {"data": str(TAU2)}})
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    return data


def segments(task: TauTask) -> list[tuple[str, list[TauAction]]]:
    """The task's expected actions as runs of one side's, in order."""
    runs: list[tuple[str, list[TauAction]]] = []
    for action in task.actions:
        if runs and runs[-1][0] == action.requestor:
            runs[-1][1].append(action)
        else:
            runs.append((action.requestor, [action]))
    return runs


def gold(messages: list[dict[str, str]], session: Any) -> str:
    """Makes the task's expected actions, its own and, holding the phone's tools (solo), the customer's too; asks
    the customer for theirs otherwise."""
    task = tasks()[int(session.id[1:4])]
    tools = {tool.name: tool for tool in session.tools}
    replies = sum(message["role"] == "user" for message in messages)
    if "toggle_data" in tools:  # solo: every expected action is the chatbot's, made on its first reply
        for action in task.actions if replies == 1 else []:
            tools[action.name].invoke(action.kwargs)
        return DONE
    runs = segments(task)
    own = 2 * (replies - 1) - (0 if runs[0][0] == "assistant" else 1)
    if 0 <= own < len(runs):
        for action in runs[own][1]:
            tools[action.name].invoke(action.kwargs)
    if own + 1 < len(runs):
        return ASK + "; ".join(f"{a.name}({json.dumps(a.kwargs)})" for a in runs[own + 1][1])
    return DONE


def idle(messages: list[dict[str, str]], session: Any) -> str:
    """Only talks."""
    return "I am sorry to hear that. Is there anything else?"


def customer(request: Request) -> dict[str, Any]:
    """A customer with phone tools: makes the calls the agent's last message asks for, one a step, then says so;
    stops once all is done, or when the agent asks for nothing."""
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


def script() -> ScriptedLLM:
    """Every framework role: describe finds one rule, every task tests it, the customer plays as above."""
    from tests.describe.conftest import script_document

    llm = ScriptedLLM()
    script_document(llm, flows={"Technical support": RULES})
    llm.on(schema="TaskPolicies", reply={"policies": ["P01"]})
    llm.on(role="user", schema="UserStep", reply=customer)
    llm.on(role="user", schema="TaskUserTurn", reply=talker)
    llm.on(role="analysis", schema="DialogAnalysis", reply={"tested": [], "violations": []})
    return llm


def play(chatbot: Any, folder: Path, **overrides: Any) -> RunResult:
    """A whole run of the tasks with `chatbot`."""
    return asyncio.run(arun(settings(**overrides), chatbot=chatbot, output=folder, script=script()))


def figures(name: str, result: RunResult, seconds: float) -> str:
    """One chatbot's line: its pass^1 with interval, and its dialogs' assertions and expected actions met."""
    from intellagent.artifacts import Dialog

    dialogs = [Dialog.model_validate_json(line) for line in (result.folder / "dialogs.jsonl").read_text().splitlines()]
    own = [d for d in dialogs if d.tau is not None and not d.id.endswith("-solo")]
    held = sum(all(d.tau.assertions.values()) for d in own if d.tau)
    made = sum(all(d.tau.actions.values()) for d in own if d.tau)
    user = sum(len(m.tool_calls) for d in own for m in d.transcript if m.role == "user")
    score = TAU.of(result.report)
    assert score is not None
    first = score.pass_k[0]
    line = (f"{name:<6} {score.tasks} tasks  pass^1 {first.value:.2f} (95% CI {first.low:.2f}-{first.high:.2f})  "
            f"assertions all met {held}/{len(own)}  expected actions all made {made}/{len(own)}  "
            f"customer's calls {user}  {seconds:.0f} s")
    gap = DUAL_CONTROL.of(result.report)
    if gap is not None and gap.gap is not None:
        line += f"\n       solo minus dual reward {gap.gap:+.2f} (95% CI {gap.gap_low:+.2f} to {gap.gap_high:+.2f})"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solo", action="store_true", help="play each dialog solo too, and print the gap")
    options = parser.parse_args()
    control = {"simulate": {"dual_control": "both"}} if options.solo else {}
    with tempfile.TemporaryDirectory() as folder:
        for name, chatbot in (("gold", gold), ("idle", idle)):
            started = time.monotonic()
            result = play(chatbot, Path(folder) / name, **control)
            print(figures(name, result, time.monotonic() - started))


if __name__ == "__main__":
    main()
