"""τ-bench's published tasks: what the user wants, the gold actions, and the facts the replies must state.

A task set is a folder laid out as τ-bench's data: `tasks.json` (the tasks, in τ-bench's order; τ²-bench's
small set is `tasks_small.json`) beside the domain's data files, which the domain's τ-bench module reads (see
`TauDomain`). Tasks keep τ-bench's numbering from 0, so that a task here is the task of the same number on the
leaderboard. A τ²-bench task (one with a `user_scenario`) is read into the same kind of task: its user's
instructions become the instruction, and its initial state, assertions, expected actions with their side and
reward basis are kept for playing and grading it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from intellagent.artifacts.tau import TauTask
from intellagent.config import parse_selection
from intellagent.errors import UsageError

TASKS_FILE = "tasks.json"
TASK_FILES = (TASKS_FILE, "tasks_small.json")
"""The task files a task set's folder may hold, the first found is read."""


def tasks_file(folder: Path) -> Path:
    """The task file of a task set's folder: the first of `TASK_FILES` it holds (the first, if none)."""
    return next((folder / name for name in TASK_FILES if (folder / name).is_file()), folder / TASKS_FILE)


def read_tau_tasks(path: Path) -> list[TauTask]:
    """The tasks of a τ-bench tasks.json file, numbered in file order.

    Raises:
        UsageError: the file is missing, is not JSON, or holds something else than a list of tasks.
    """
    if not path.is_file():
        raise UsageError(f"{path} not found: a τ-bench task set is a folder holding {TASKS_FILE} beside the data "
                         "files the domain's τ-bench module (environment.tau) reads")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [TauTask.model_validate({**_read(task), "index": index}) for index, task in enumerate(data)]
    except (ValueError, TypeError, ValidationError) as error:
        first = str(error).strip().splitlines()[0]
        raise UsageError(f"{path}: not a list of τ-bench tasks ({first})") from None


def _read(task: Any) -> Any:
    """A task as τ-bench writes it; a τ²-bench task turned into one."""
    if not isinstance(task, dict) or "user_scenario" not in task:
        return task
    criteria = task.get("evaluation_criteria") or {}
    initial = (task.get("initial_state") or {}).get("initialization_actions") or []
    return {
        "name": task["id"],
        "instruction": dual_instruction(task["user_scenario"]),
        "ticket": task.get("ticket") or "",
        "actions": [{"name": action["name"], "kwargs": action.get("arguments", {}), "requestor": action["requestor"],
                     "compare_args": action.get("compare_args")} for action in criteria.get("actions") or []],
        "outputs": list(criteria.get("communicate_info") or []),
        "initial": [{"side": call["env_type"], "name": call["func_name"], "arguments": call.get("arguments", {})}
                    for call in initial],
        "assertions": [{"side": call["env_type"], "name": call["func_name"], "arguments": call.get("arguments", {}),
                        "expected": call.get("assert_value", True)} for call in criteria.get("env_assertions") or []],
        "reward_basis": list(criteria.get("reward_basis") or ["DB"]),
    }


def dual_instruction(scenario: dict[str, Any]) -> str:
    """A τ²-bench user scenario as one instruction: the persona, then each part of its instructions under its name."""
    parts = []
    if scenario.get("persona"):
        parts.append(f"Persona:\n{scenario['persona'].strip()}")
    instructions = scenario.get("instructions") or {}
    if isinstance(instructions, str):
        return "\n\n".join([*parts, instructions.strip()])
    for key, title in (("reason_for_call", "Reason for call"), ("known_info", "Known info"),
                       ("unknown_info", "Unknown info"), ("task_instructions", "Task instructions")):
        if instructions.get(key):
            parts.append(f"{title}:\n{instructions[key].strip()}")
    return "\n\n".join(parts)


def select_tasks(tasks: list[TauTask], selection: str | None) -> list[TauTask]:
    """The tasks a selection names ("0-9,12": numbers and ranges), all of them for None.

    Raises:
        UsageError: the selection names a task the set does not have.
    """
    if selection is None:
        return tasks
    wanted = parse_selection(selection)
    missing = sorted(wanted - set(range(len(tasks))))
    if missing:
        raise UsageError(f"tau.tasks: the task set has tasks 0-{len(tasks) - 1}; there is no task {missing[0]}")
    return [task for task in tasks if task.index in wanted]


def task_id(task: TauTask) -> str:
    """The scenario and event id of a task: T followed by its τ-bench number (T000, T049)."""
    return f"T{task.index:03d}"
