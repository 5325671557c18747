"""τ²-bench's reward for a dialog of one of its tasks (dual control), and what of it failed.

τ²-bench rewards a conversation 1 when it ended by the user or the agent (not cut off) and every part of the
task's reward basis is met; else 0. The parts:

- ENV_ASSERTION: each of the task's assertions, run on the dialog's end state (either side's: the phone's
  service, the carrier's bill), gives the value it must give;
- ACTION: each expected action was called in the dialog, by its side (the user's own calls as the user's; in
  a solo dialog the chatbot stands for both), with the arguments it names (`compare_args`: some; none: every
  argument the call gives), whether or not the call worked, as τ²-bench counts them;
- DB: both sides' records end as the task's gold actions leave them (the hash of the domain's export);
- COMMUNICATE: every fact to state appears in a reply.

The assertions and the gold replay run through the domain's τ-bench module (`run_tau_function`), on copies.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Dialog, TauAction, TauGrade, TauTask
from intellagent.artifacts.outcomes import said
from intellagent.artifacts.tau import REWARD_BASES, TauCall
from intellagent.errors import UsageError, failure_reason
from intellagent.simulate.users import USER_ENDED
from intellagent.tau.documents import exported, tau_hash

if TYPE_CHECKING:
    from intellagent.environment import Environment

ENDED = (USER_ENDED, "the chatbot ended the conversation")
"""The reasons of a dialog that ended by the user or the chatbot, which alone τ²-bench rewards."""

MadeCall = tuple[str, str, Mapping[str, Any]]
"""A call made in a dialog: its side ('assistant' or 'user'), the tool's name, its arguments."""


def dual_grade(env: Environment, task: TauTask, played: Dialog, *, start: Path, end: Path) -> TauGrade:
    """The τ²-bench grade of `played`, a dialog of `task` that started from the world `start` and ended in `end`.

    Raises:
        UsageError: the domain's τ-bench module cannot run τ²-bench's functions (it has no `run_tau_function`).
        ValueError: the task's reward basis names a part not graded here (τ²-bench's NL_ASSERTION, judged by a
            model, which it marks as work in progress).
    """
    unknown = [part for part in task.reward_basis if part not in REWARD_BASES]
    if unknown:
        raise ValueError(f"the task's reward basis {', '.join(unknown)} is not graded here; only "
                         f"{', '.join(REWARD_BASES)}")
    calls: list[MadeCall] = [("user" if message.role == "user" else "assistant", call.name, call.arguments)
                             for message in played.transcript for call in message.tool_calls if not call.reported]
    replies = [message.content for message in played.transcript if message.role == "chatbot"]
    basis = task.reward_basis
    held = assertions_held(env, task, end)
    made = {_shown(action): matched(action, calls, solo=played.control == "solo") for action in task.actions}
    outputs = {output: said(output, replies) for output in task.outputs}
    hash_match = same_end(env, task, start, end) if "DB" in basis else None
    met = {"ENV_ASSERTION": all(held.values()), "ACTION": all(made.values()), "DB": bool(hash_match),
           "COMMUNICATE": all(outputs.values())}
    ended = played.reason in ENDED or played.reason.startswith(ENDED)
    reward = 1.0 if ended and all(met[part] for part in basis) else 0.0
    return TauGrade(task=task.index, reward=reward, hash_match=hash_match, basis=basis, assertions=held,
                    actions=made, outputs=outputs,
                    missed=[name for name, made_it in made.items() if not made_it],
                    diff=[f"assertion not met: {name}" for name, met_it in held.items() if not met_it])


def assertions_held(env: Environment, task: TauTask, world: Path) -> dict[str, bool]:
    """Each of the task's assertions on a copy of `world`: whether it gave the value it must (one that fails to
    run did not)."""
    held = {}
    with on_a_copy(env, world) as (session, _):
        for assertion in task.assertions:
            try:
                held[assertion.text()] = tau_functions(env)(env, session, assertion.side, assertion.name,
                                                            assertion.arguments) == assertion.expected
            except Exception:  # an assertion that cannot run on this world is not met
                session.rollback()
                held[assertion.text()] = False
    return held


def matched(action: TauAction, calls: list[MadeCall], *, solo: bool) -> bool:
    """Whether a call of the dialog matches the expected action: its side (any, solo), its name and the arguments
    the action compares."""
    for side, name, arguments in calls:
        if name != action.name or (side != action.requestor and not solo):
            continue
        compared = action.compare_args if action.compare_args is not None else list(arguments)
        if {key: arguments[key] for key in compared if key in arguments} == \
                {key: action.kwargs[key] for key in compared if key in action.kwargs}:
            return True
    return False


def same_end(env: Environment, task: TauTask, start: Path, end: Path) -> bool:
    """Whether both sides' records end as the task's gold actions leave the world `start`."""
    with on_a_copy(env, start) as (session, gold):
        for action in task.replayed:
            try:
                tau_functions(env)(env, session, action.requestor, action.name, action.kwargs)
            except Exception:  # τ-bench replays gold actions that fail as changing nothing
                session.rollback()
        session.commit()
        return tau_hash(exported(env, gold)) == tau_hash(exported(env, end))


@contextmanager
def on_a_copy(env: Environment, world: Path) -> Iterator[tuple[Any, Path]]:
    """A session on a copy of the complete database `world`, and the copy's path; both gone on exit."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / world.name
        shutil.copyfile(world, copy)
        with env.session(copy) as session:
            yield session, copy


def run_initial(env: Environment, session: Any, task: TauTask) -> None:
    """Build the task's initial state on the world open in `session`, by its calls in order.

    Raises:
        ValueError: a call failed (its reason, and which call).
    """
    run = tau_functions(env)
    for call in task.initial:
        try:
            run(env, session, call.side, call.name, call.arguments)
        except Exception as error:
            raise ValueError(f"{TauCall.text(call)}: {failure_reason(error)}") from error


def tau_functions(env: Environment) -> Any:
    """The domain's runner of τ²-bench's environment functions."""
    run = getattr(env.tau, "run_tau_function", None)
    if run is None:
        raise UsageError("a τ²-bench task is played, but the domain's τ-bench module (environment.tau) has no "
                         "run_tau_function(env, session, side, name, arguments); add it")
    return run


def _shown(action: TauAction) -> str:
    return f"{action.requestor}: {action.text()}"
