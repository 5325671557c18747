"""The tiny shop domain, its events, and the scripted answers and runs that the simulate tests are made of."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intellagent.artifacts import Dialog, Event
from intellagent.config import Config, load_config
from intellagent.graphs.dialog import REDRAFTS
from intellagent.llm import ScriptedLLM
from intellagent.runner import RunResult, execute

SHOP = Path(__file__).resolve().parent / "shop"

ORDERS = {"A1": ("ana", "placed"), "B2": ("ben", "shipped")}


def shop_config(tmp_path: Path, **settings: Any) -> Config:
    """A config on the shop domain with every role scripted; keyword settings are merged in."""
    return load_config(shop_settings(**settings), base_dir=tmp_path)


def shop_settings(**settings: Any) -> dict[str, Any]:
    """The shop config as a mapping, every role scripted; keyword settings are merged in, section by section."""
    data: dict[str, Any] = {
        "name": "shop",
        "environment": {
            "policy": str(SHOP / "policy.md"),
            "schema": str(SHOP / "schema.py"),
            "tools": str(SHOP / "tools.py"),
        },
        "llm": "scripted",
        "chatbot": {"llm": "scripted"},
        "simulate": {"max_turns": 4, "max_critiques": 1, "max_tool_steps": 3},
    }
    for key, value in settings.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    return data


def event(event_id: str = "S001", **fields: Any) -> Event:
    """An event of the shop: Ana wants her order A1 cancelled."""
    values: dict[str, Any] = {
        "id": event_id,
        "policies": ["P1"],
        "challenge": 3,
        "scenario": f"You are Ana ({event_id}) and want to cancel your order A1.",
        "expected_behaviour": "The agent looks A1 up, asks for confirmation, then cancels it.",
        "user_rows": {"orders": [{"order_id": "A1", "customer": "ana"}]},
        "database": f"events/{event_id}.sqlite",
        **fields,
    }
    return Event(**values)


def simulate(config: Config, folder: Path, script: ScriptedLLM, **options: Any) -> RunResult:
    """Run the simulate stage into `folder`."""
    return asyncio.run(execute(config, output=folder, stages=("simulate",), script=script, progress=False, **options))


def play_shop(tmp_path: Path, run_folder: Callable[[Config, list[Event]], Path], script: ScriptedLLM, *,
              config: Config | None = None, events: list[Event] | None = None, **options: Any) -> list[Dialog]:
    """Play the simulate stage on shop `events` (one of Ana's by default) in a run folder made by `run_folder`
    (the fixture), and return the dialogs recorded."""
    config = config or shop_config(tmp_path)
    folder = run_folder(config, events or [event()])
    simulate(config, folder, script, **options)
    return dialogs(folder)


def dialogs(folder: Path) -> list[Dialog]:
    """The dialogs recorded in a run folder, in file order."""
    path = folder / "dialogs.jsonl"
    return [Dialog.model_validate_json(line) for line in path.read_text().splitlines()] if path.exists() else []


def say(message: str, thought: str = "I go on.") -> dict[str, str]:
    """A user turn that continues with `message`."""
    return {"thought": thought, "decision": "continue", "reason": "", "message": message}


def stop(verdict: str, reason: str, thought: str = "I can judge now.") -> dict[str, str]:
    """A user turn that stops with `verdict` ('success' or 'failure')."""
    return {"thought": thought, "decision": f"stop-{verdict}", "reason": reason, "message": ""}


def stands(verdict: str, reason: str) -> list[dict[str, str]]:
    """A stop the user keeps to while the agent still asks it something: the draft is drawn again (`REDRAFTS` times,
    see `simulate.drafts`), and then it is sent as it is."""
    return [stop(verdict, reason)] * (REDRAFTS + 1)


def persists(message: str) -> list[dict[str, str]]:
    """A message at fault the user keeps to: the draft is drawn again (`REDRAFTS` times, see `simulate.drafts`), and
    then it is sent as it is, for the audit to find."""
    return [say(message)] * (REDRAFTS + 1)


def reply(message: str, thought: str = "I answer the user.") -> dict[str, str]:
    """A chatbot step (JSON choice) that replies."""
    return {"thought": thought, "action": "reply", "message": message}


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    """A chatbot step (JSON choice) that calls a tool."""
    return {"thought": f"I call {tool}.", "action": tool, "arguments": arguments}


def verdict(correct: bool, feedback: str = "") -> dict[str, Any]:
    """A critique answer."""
    return {"analysis": "Checked against the policy.", "correct": correct, "feedback": feedback}


def pursued(kept: bool = True, turn: int | None = None) -> dict[str, Any]:
    """An answer of the judge of the simulated user: whether it pursued its goal, and where it left it."""
    reason = "It asked for what its situation wants." if kept else "It asked for something else."
    return {"reason": reason, "pursued": kept, "turn": turn}
