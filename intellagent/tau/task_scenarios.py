"""τ-bench's published tasks as a run's scenarios (τ-bench mode, `tau.data`), instead of sampled policy sets.

A task is already a scenario: the user's instruction is its description, the gold actions and the
outputs are its expected behaviour. What a task lacks is the policies it puts to the test, which the
per-policy report needs: one call names them, its answer restricted to the catalog's ids. A task whose
policies cannot be named is judged on every policy (and graded as τ-bench grades it, which needs none).

Every task starts from τ-bench's own initial database: no model is asked anything for its event. The
task set's data is loaded once, by the domain's τ-bench module, into one database that all the tasks'
events share (each dialog plays on its own copy, as with any event). A task's gold actions and outputs
are its event's expected outcome, replayed once on a copy of that database, so that its dialogs are graded
against it as any event's are, beside τ-bench's own grade.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import Event, PolicyCatalog, Scenario, TauTask
from intellagent.config import Config, TauConfig
from intellagent.context import RunContext, log
from intellagent.environment import worlds
from intellagent.errors import failure_reason
from intellagent.imports import DomainCodeError, user_code
from intellagent.llm import LLMError
from intellagent.outcomes import replayed_outcome
from intellagent.populate.scratch import ScratchWorld
from intellagent.prompt_files import render
from intellagent.run_folder import RunFolder
from intellagent.tau.dual_grading import run_initial
from intellagent.tau.tasks import read_tau_tasks, select_tasks, task_id, tasks_file

# The most policies one task is said to test: about what a sampled scenario tests at the top of its range.
MAX_POLICIES = 6

TAU_DATABASE = RunFolder.event_worlds.whole("tau")
"""The task set's database, relative to the run folder: every task's event."""


@dataclass(frozen=True)
class TaskScenarios:
    """τ-bench's published tasks as the run's scenarios, on the task set's own database."""

    ctx: RunContext

    def planned(self, catalog: PolicyCatalog, graph: nx.Graph) -> tuple[list[TauTask], PolicyCatalog]:
        """The tasks of `tau.data` the run plays (`tau.tasks`), in τ-bench's order; the catalog as it is."""
        return played_tasks(self.ctx.config.tau), catalog

    def wanted(self, plan: list[TauTask]) -> int:
        """Every task played."""
        return len(plan)

    def pending(self, plan: list[TauTask], records: dict[str, Scenario], *, first: bool) -> list[TauTask]:
        """The tasks with no scenario yet, once: a task's scenario is tried in one round."""
        return pending_tasks(plan, records) if first else []

    def unwritten(self, plan: list[TauTask], records: dict[str, Scenario], *, first: bool) -> int:
        """The tasks with no scenario yet, in the one round."""
        return len(pending_tasks(plan, records)) if first else 0

    async def written(self, task: TauTask, catalog: PolicyCatalog) -> Scenario:
        """A task as a scenario, with the policies it tests; if none can be named, with every policy, so that
        the judge still reads the dialog against the whole policy (a τ-bench grade needs no policy)."""
        schema = task_policies_schema(catalog)
        messages = render("describe/task_policies", policies=catalog.listing(), instruction=task.instruction,
                          gold=gold_text(task), most=str(MAX_POLICIES))
        try:
            answer = await self.ctx.llms["scenarios"].answer(messages, schema, step="describe/task_policies")
            named, why = answer.policies, "the model named none"  # type: ignore[attr-defined]
        except LLMError as error:
            named, why = [], f"naming them failed ({error})"
        if not named:
            log.warning("describe: %s is judged on every policy: %s", task_id(task), why)
        return task_scenario(task, catalog, named or [policy.id for policy in catalog.policies])

    def failed(self, task: TauTask, reason: str) -> Scenario:
        """The task's record, with the task."""
        return Scenario(id=task_id(task), status="error", error=reason, policies=[], target_challenge=0, challenge=0,
                        task=task)

    @staticmethod
    def check(config: Config) -> None:
        """A task set whose task list cannot be read fails before the run spends a call."""
        played_tasks(config.tau)

    def prepare(self) -> None:
        """The task set's database, built before the run spends a call: a domain that cannot load τ-bench's data
        costs none."""
        task_database(self.ctx)

    def ready_events(self, scenarios: list[Scenario]) -> list[Event]:
        """Each task's event, on the task set's database (a τ²-bench task's on its own initial state, built from
        it), with its gold actions as its expected outcome (replayed once, no model call)."""
        database, digest = task_database(self.ctx)
        events = [task_event(scenario, database, digest) for scenario in scenarios]
        if not events:
            return events
        with ScratchWorld.open(self.ctx.folder.path(database)) as scratch:
            return [gold_outcome(self.ctx, scratch, *initial_world(self.ctx, scratch, event)) for event in events]


def played_tasks(settings: TauConfig) -> list[TauTask]:
    """The tasks the run plays, in τ-bench's order."""
    assert settings.data is not None  # τ-bench mode
    return select_tasks(read_tau_tasks(tasks_file(settings.data)), settings.tasks)


def pending_tasks(tasks: list[TauTask], records: dict[str, Scenario]) -> list[TauTask]:
    """The tasks with no scenario yet (a task's scenario never fails: it is recorded with no policy instead)."""
    return [task for task in tasks if (record := records.get(task_id(task))) is None or record.status != "ok"]


def task_policies_schema(catalog: PolicyCatalog) -> type[BaseModel]:
    """The answer naming a task's policies: ids of the catalog only, at most `MAX_POLICIES`."""
    return _policies_answer(tuple(policy.id for policy in catalog.policies))


# One answer model for every task of a catalog, made once: classes are not freed.
@lru_cache(maxsize=4)
def _policies_answer(policy_ids: tuple[str, ...]) -> type[BaseModel]:
    ids = Literal[policy_ids]  # type: ignore[valid-type]
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


def task_database(ctx: RunContext) -> tuple[str, str]:
    """The shared database of the task set (built the first time), relative to the run, and its digest.

    Raises:
        DomainCodeError: the domain's τ-bench module could not load the task set's data.
    """
    env, data = ctx.environment, ctx.config.tau.data
    assert env.tau is not None and data is not None  # τ-bench mode, checked with the config
    path = ctx.folder.path(TAU_DATABASE)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.unlink(missing_ok=True)
        try:
            with user_code("environment.tau", env.tau.build_tau_database,
                           fix=f"check that tau.data ({data}) is the folder of this domain's τ-bench data, or fix the "
                               "module"):
                env.tau.build_tau_database(env, Path(data), partial)
        except DomainCodeError:
            partial.unlink(missing_ok=True)
            raise
        os.replace(partial, path)
    return TAU_DATABASE, worlds.root_digest(path)


def initial_world(ctx: RunContext, scratch: ScratchWorld, event: Event) -> tuple[Event, worlds.Changes | None]:
    """A τ²-bench task's event on its own initial state, built by the task's calls on `scratch` (a copy of the
    task set's database) and stored as its changes over it, with those changes; any other event as it is. A
    state the domain's code cannot build leaves the event on the task set's database, and its grade says so."""
    assert event.task is not None and event.database is not None
    if not event.task.initial:
        return event, None
    base = ctx.folder.path(event.database)
    try:
        with scratch.attempt() as session:
            scratch.written()
            run_initial(ctx.environment, session, event.task)
            changes = scratch.changes(tables=scratch.written())
    except Exception as error:  # the domain's functions refused a call: no world to play the task on
        return event.model_copy(update={"expected_error": f"the task's initial state could not be built: "
                                                          f"{failure_reason(error)}"}), None
    name = RunFolder.event_worlds.stored(event.id)
    worlds.save_delta(ctx.folder.path(name), base=base, found=changes)
    return event.model_copy(update={"database": name, "digest": worlds.digest(changes, base)}), changes


def gold_outcome(ctx: RunContext, scratch: ScratchWorld, event: Event, start: worlds.Changes | None = None) -> Event:
    """A task's event with its gold actions and outputs as its expected outcome, replayed on `scratch`, a copy of
    the task set's database (made the event's world by `start`, its changes over it); a replay the domain's code
    breaks leaves the event without one, and says why."""
    assert event.task is not None
    if event.expected_error is not None:
        return event
    calls = [(action.name, action.kwargs) for action in event.task.replayed]
    try:
        expected = replayed_outcome(ctx.environment, scratch, ctx.folder, event, calls, event.task.outputs, start)
    except Exception as error:  # the domain's tools or τ-bench module failed: the event is graded by its hash alone
        return event.model_copy(update={"expected_error": f"the gold actions could not be replayed: "
                                                          f"{failure_reason(error)}"})
    return event.model_copy(update={"expected": expected})


def task_event(scenario: Scenario, database: str, digest: str) -> Event:
    """The event of a published task's scenario: its texts as they are, on the task set's database."""
    return Event(
        id=scenario.id,
        policies=scenario.policies,
        challenge=scenario.challenge,
        scenario=scenario.description,
        expected_behaviour=scenario.expected_behaviour,
        database=database,
        digest=digest,
        task=scenario.task,
    )
