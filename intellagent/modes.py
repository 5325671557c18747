"""Sampled scenarios or τ-bench's published tasks: the one place where a run's two modes part.

By default a run samples policy sets from the policy graph and writes a scenario for each; with
`tau.data` it plays τ-bench's published tasks instead. What differs between the two is behind three
parts the stages ask for, so that each stage reads the same in both modes:

- the scenario source (`scenario_source`): the scenarios describe writes, and the world populate makes
  their events in;
- the user role (`user_role`): what the simulated user is told, how it answers, and what its stop means (on an
  attack's event, the red team's attacker);
- the grader (`grader`): what a played dialog's status follows. Every dialog whose event has an expected
  outcome is also graded against it the same way in both modes (`simulate.graders.OutcomeGrader`).

The source is the run's, from its config. The user role and the grader are chosen per event: a
published task's event carries its task, so a frozen set of tasks is played and graded as such under
any config.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from intellagent.artifacts import Event
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.describe.source import SampledScenarios, ScenarioSource
from intellagent.environment import Tool
from intellagent.llm import LLM
from intellagent.redteam.attacker import Attacker
from intellagent.run_folder import RunFolder
from intellagent.simulate.graders import Grader, OutcomeGrader, UserVerdict
from intellagent.simulate.users import ScenarioUser, UserRole
from intellagent.tau.task_grading import TauGrader
from intellagent.tau.task_scenarios import TaskScenarios
from intellagent.tau.user import TaskUser


def scenario_source(ctx: RunContext) -> ScenarioSource[Any, Any]:
    """Where the run's scenarios come from."""
    return _source_kind(ctx.config)(ctx)


def check_scenario_source(config: Config, chatbot: Any = None) -> None:
    """Before the run starts: what the settings get wrong about where its scenarios come from (a τ-bench task
    set without its task list), as a `UsageError`."""
    _source_kind(config).check(config)


def _source_kind(config: Config) -> type[SampledScenarios] | type[TaskScenarios]:
    """τ-bench's published tasks (`tau.data`), or sampled policy sets."""
    return TaskScenarios if config.tau.active else SampledScenarios


def user_role(event: Event, llm: LLM, *, thoughts: bool, tools: Sequence[Tool] = (),
              request_ids: Sequence[str] = ()) -> UserRole:
    """The simulated user of a dialog on `event`, played by `llm` (`thoughts`: whether a sampled scenario's
    user writes a private thought; `tools`: its own tools on its side of the world; `request_ids`: the ids of the
    records its request is about that it knows, which a sampled scenario's user names first). An attack's event is
    played by its attacker (`redteam.attacker`), which acts on nothing; a published task's user plays by τ-bench's
    conventions, which ask it for no id first."""
    if event.attack is not None:
        return Attacker(event, llm)
    if event.task is not None:
        return TaskUser(event, llm, tools=tools)
    return ScenarioUser(event, llm, thoughts=thoughts, tools=tools, ids=tuple(request_ids))


def grader(event: Event, folder: RunFolder) -> Grader:
    """What the dialogs of `event` are graded by: its expected outcome, if it has one, in either mode; their
    status follows τ-bench's reward for a published task, the user's verdict otherwise."""
    return OutcomeGrader(folder, TauGrader() if event.task is not None else UserVerdict())
