"""τ-bench's published tasks: what the user wants, the gold actions, and the facts the replies must state.

A task set is a folder laid out as τ-bench's data: `tasks.json` (the tasks, in τ-bench's order) beside
the domain's data files, which the domain's τ-bench module reads (see `TauDomain`). Tasks keep
τ-bench's numbering from 0, so that a task here is the task of the same number on the leaderboard.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from intellagent.artifacts.tau import TauTask
from intellagent.config import parse_selection
from intellagent.errors import UsageError

TASKS_FILE = "tasks.json"


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
        return [TauTask.model_validate({**task, "index": index}) for index, task in enumerate(data)]
    except (ValueError, TypeError, ValidationError) as error:
        first = str(error).strip().splitlines()[0]
        raise UsageError(f"{path}: not a list of τ-bench tasks ({first})") from None


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
