"""Sampled scenarios or τ-bench's published tasks: the one place where a run's two modes part.

By default a run samples policy sets from the policy graph and writes a scenario for each; with
`tau.data` it plays τ-bench's published tasks instead. What differs between the two is behind parts the
stages ask for, so that each stage reads the same in both modes:

- the user role (`user_role`): what the simulated user is told, how it answers, and what its stop means;
- the grader (`grader`): what a played dialog is graded by, from what its event says a correct chatbot
  does.

Both are chosen per event: a published task's event carries its task, so a frozen set of tasks is
played and graded as such under any config.
"""

from __future__ import annotations

from intellagent.artifacts import Event
from intellagent.llm import LLM
from intellagent.simulate.grading import Grader, UserVerdict
from intellagent.simulate.users import ScenarioUser, UserRole
from intellagent.tau.grading import TauGrader
from intellagent.tau.user import TaskUser


def user_role(event: Event, llm: LLM, *, thoughts: bool) -> UserRole:
    """The simulated user of a dialog on `event`, played by `llm` (`thoughts`: whether a sampled scenario's
    user writes a private thought)."""
    if event.task is not None:
        return TaskUser(event, llm)
    return ScenarioUser(event, llm, thoughts=thoughts)


def grader(event: Event) -> Grader:
    """What the dialogs of `event` are graded by."""
    return TauGrader() if event.task is not None else UserVerdict()
