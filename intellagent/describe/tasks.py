"""Scenarios from τ-bench's published tasks, instead of sampled policy sets (τ-bench mode, `tau.data`).

A task is already a scenario: the user's instruction is its description, the gold actions and the
outputs are its expected behaviour. What a task lacks is the policies it puts to the test, which the
per-policy report needs: one call names them, its answer restricted to the catalog's ids. A task whose
policies cannot be named is judged on every policy (and graded as τ-bench grades it, which needs none).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import PolicyCatalog, Scenario
from intellagent.config import Config, TauConfig
from intellagent.tau.tasks import TASKS_FILE, TauTask, read_tau_tasks, select_tasks, task_id

# The most policies one task is said to test: about what a sampled scenario tests at the top of its range.
MAX_POLICIES = 6


def check_task_set(config: Config, chatbot: Any = None) -> None:
    """Before the run starts: a τ-bench task set whose task list cannot be read fails now, before any call."""
    if config.tau.active:
        published_tasks(config.tau)


def published_tasks(settings: TauConfig) -> list[TauTask]:
    """The tasks the run plays, in τ-bench's order."""
    assert settings.data is not None  # τ-bench mode
    return select_tasks(read_tau_tasks(settings.data / TASKS_FILE), settings.tasks)


def pending_tasks(tasks: list[TauTask], records: dict[str, Scenario]) -> list[TauTask]:
    """The tasks with no scenario yet (a task's scenario never fails: it is recorded with no policy instead)."""
    return [task for task in tasks if (record := records.get(task_id(task))) is None or record.status != "ok"]


def task_policies_schema(catalog: PolicyCatalog) -> type[BaseModel]:
    """The answer naming a task's policies: ids of the catalog only, at most `MAX_POLICIES`."""
    ids = Literal[tuple(policy.id for policy in catalog.policies)]  # type: ignore[valid-type]
    return create_model(
        "TaskPolicies",
        __config__=ConfigDict(extra="forbid"),
        policies=(list[ids], Field(max_length=MAX_POLICIES, description="Ids of the rules the conversation tests.")),
    )


def gold_text(task: TauTask) -> str:
    """What a correct agent does in the task: its gold actions in order, then the facts it must state."""
    lines = [f"- {action.text()}" for action in task.actions]
    if not lines:
        lines = ["- no action: nothing the user asks for may be done"]
    if task.outputs:
        lines.append("- say: " + ", ".join(task.outputs))
    return "\n".join(lines)


def task_scenario(task: TauTask, catalog: PolicyCatalog, policies: list[str]) -> Scenario:
    """The scenario of a task, testing `policies` (ids of the catalog; repeats dropped)."""
    chosen = list(dict.fromkeys(policies))
    challenge = sum(catalog.policy(policy_id).challenge for policy_id in chosen)
    return Scenario(
        id=task_id(task),
        policies=chosen,
        target_challenge=challenge,
        challenge=challenge,
        description=task.instruction,
        expected_behaviour="A correct agent makes these calls, in this order, and states these facts:\n"
        + gold_text(task),
        task=task,
    )
