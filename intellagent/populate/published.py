"""The events of τ-bench's published tasks: every task starts from τ-bench's own initial database.

No model is asked anything: the task set's data is loaded once, by the domain's τ-bench module, into
one database that all the tasks' events share (each dialog plays on its own copy, as with any event).
"""

from __future__ import annotations

import os
from pathlib import Path

from intellagent.artifacts import Event, Scenario
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.imports import DomainCodeError, user_code
from intellagent.run_folder import RunFolder

TAU_DATABASE = RunFolder.event_worlds.whole("tau")


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
