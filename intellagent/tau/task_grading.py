"""τ-bench's reward for a dialog, and what a failed one missed: the grader of a τ-bench task's dialogs.

τ-bench rewards a conversation 1 when the database ends as the task's gold actions leave it (the
hashes of the two end states are equal) and every output the task requires appears in some reply of
the agent (case-insensitive, with the reply's commas removed, so that "1000" matches "$1,000"); else 0.
The grade here is that reward, and, to say why a dialog failed: the gold writes the chatbot did not
make (what the reward depends on), the writes it made that no gold action makes, the records whose end
states differ, and, apart, the gold look-ups it skipped (they change nothing, so they never cost the
reward, but they show where a dialog went astray). A call that returned an error changed nothing: it is
neither a gold action made nor an unexpected write.

The chatbot's end state is read from the dialog's own database, as τ-bench reads its environment's data
after the episode; the gold end state is the task's gold actions replayed on the initial one. Only the
calls that ran on the dialog's world count: one the chatbot merely reported changed nothing, and so did
one that returned an error.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Dialog, Event
from intellagent.artifacts.outcomes import said
from intellagent.artifacts.tau import TauAction, TauGrade, TauTask
from intellagent.environment.environment import TauDocument
from intellagent.environment.worlds import Changes
from intellagent.errors import failure_reason
from intellagent.outcomes.matching import call_key
from intellagent.tau.documents import canonical as _canonical
from intellagent.tau.documents import exported, tau_hash
from intellagent.tau.dual_grading import dual_grade

if TYPE_CHECKING:
    from intellagent.environment import Environment

Call = tuple[str, Mapping[str, Any]]
"""A tool call as (tool name, arguments)."""

# Records named in a grade's diff: enough to see what went wrong without copying a database into it.
DIFF_LINES = 12


class TauGrader:
    """Grades a τ-bench task's dialog as τ-bench does: its status is the task's reward."""

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path,
              changes: Changes | None = None) -> Dialog:
        """`played` with its τ-bench grade, and, unless it failed to run, the grade as its status and reason.

        A grade that cannot be computed (a config without the domain's τ-bench module, say) makes the
        dialog an `error` with the reason, its transcript kept: played again on resume, once it is fixed.
        """
        assert event.task is not None  # a published task's event
        ran = [call for message in played.transcript for call in message.tool_calls if not call.reported]
        calls = [(call.name, call.arguments) for call in ran]
        failed = [(call.name, call.arguments) for call in ran if call.failed]
        replies = [message.content for message in played.transcript if message.role == "chatbot"]
        if environment.tau is None:
            return played.model_copy(update={"status": "error", "reason": "the dialog played a τ-bench task, but "
                                             "environment.tau names no module to grade it with; add it and run again"})
        try:
            if event.task.dual:
                result = dual_grade(environment, event.task, played, start=start, end=end)
            else:
                result = grade(environment, event.task, calls=calls, replies=replies, initial=start,
                               final=exported(environment, end), failed=failed)
        except Exception as error:  # the grader's failure, not the chatbot's: recorded with what was played
            return played.model_copy(update={
                "status": "error", "reason": f"the τ-bench grade could not be computed: {failure_reason(error)}"})
        if played.status == "error":  # played again on resume; its grade says what it had done so far
            return played.model_copy(update={"tau": result})
        return played.model_copy(update={"tau": result, "status": "pass" if result.passed else "fail",
                                         "reason": f"{result.summary()} ({played.reason})"})


def replay(env: Environment, initial: Path, calls: Iterable[Call]) -> TauDocument:
    """The world after running `calls` through the tools on a fresh copy of the database `initial`.

    A call the tools refuse (wrong arguments, say) changes nothing, as in τ-bench.
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "episode.sqlite"
        shutil.copyfile(initial, path)
        with env.session(path) as session:
            for name, arguments in calls:
                env.call_tool(session, name, arguments, by=None)
        return exported(env, path)


def grade(
    env: Environment,
    task: TauTask,
    *,
    calls: Sequence[Call],
    replies: Sequence[str],
    initial: Path,
    final: TauDocument | None = None,
    failed: Sequence[Call] = (),
) -> TauGrade:
    """Grade a dialog as τ-bench does.

    Args:
        env: the domain, whose tools replay the calls.
        task: the τ-bench task the dialog played.
        calls: the chatbot's tool calls in order, as (tool name, arguments).
        replies: the chatbot's messages to the user.
        initial: the database the dialog started from (τ-bench's initial data).
        final: the dialog's end state; default: `calls` replayed on `initial`.
        failed: those of `calls` that returned an error (one entry per such call): they changed nothing.
    """
    agent = final if final is not None else replay(env, initial, calls)
    gold = _gold_state(env, initial, initial.stat().st_mtime_ns, _frozen(task.replayed))
    # τ-bench searches the gold actions' messages too; no airline task has any, but a task could.
    texts = [*replies, *(str(action.kwargs.get("content", "")) for action in task.actions if action.name == "respond")]
    outputs = {output: said(output, texts) for output in task.outputs}
    agent_hash, gold_hash = tau_hash(agent), tau_hash(gold)
    match = agent_hash == gold_hash
    ran = _succeeded(calls, failed)
    made = {call_key(env, name, arguments) for name, arguments in ran}
    expected = {call_key(env, action.name, action.kwargs) for action in task.replayed}
    writes = {tool.name for tool in env.tools if tool.writes}
    reads = {tool.name for tool in env.tools if not tool.writes}  # a gold action of no known tool counts as a write
    missed = [action for action in task.replayed if call_key(env, action.name, action.kwargs) not in made]
    return TauGrade(
        task=task.index,
        reward=1.0 if match and all(outputs.values()) else 0.0,
        hash_match=match,
        agent_hash=agent_hash,
        gold_hash=gold_hash,
        outputs=outputs,
        missed=[action.text() for action in missed if action.name not in reads],
        missed_reads=[action.text() for action in missed if action.name in reads],
        unexpected=[TauAction(name=name, kwargs=dict(arguments)).text() for name, arguments in ran
                    if name in writes and call_key(env, name, arguments) not in expected],
        diff=differences(agent, gold),
    )


def _succeeded(calls: Sequence[Call], failed: Sequence[Call]) -> list[Call]:
    """`calls` without the attempts that returned an error: one occurrence per call of `failed` (the same calls,
    told apart by their exact arguments)."""
    left = Counter(_exact(name, arguments) for name, arguments in failed)
    kept = []
    for name, arguments in calls:
        key = _exact(name, arguments)
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append((name, arguments))
    return kept


def differences(agent: TauDocument, gold: TauDocument) -> list[str]:
    """The records whose end states differ, one line each ("reservations ZFA04Y: flights, payment_history")."""
    lines = []
    for part in sorted(agent.keys() | gold.keys()):
        ours, theirs = agent.get(part, {}), gold.get(part, {})
        for key in sorted(ours.keys() | theirs.keys()):
            if key not in theirs:
                lines.append(f"{part} {key}: made by the chatbot, not by the gold actions")
            elif key not in ours:
                lines.append(f"{part} {key}: made by the gold actions, not by the chatbot")
            elif _canonical(ours[key]) != _canonical(theirs[key]):
                fields = sorted(field for field in ours[key].keys() | theirs[key].keys()
                                if _canonical(ours[key].get(field)) != _canonical(theirs[key].get(field)))
                lines.append(f"{part} {key}: {', '.join(fields)}")
    return lines[:DIFF_LINES] + ([f"... and {len(lines) - DIFF_LINES} more"] if len(lines) > DIFF_LINES else [])


@lru_cache(maxsize=8)
def _gold_state(env: Environment, initial: Path, version: int, actions: tuple[tuple[str, str], ...]) -> TauDocument:
    """The world after a task's gold actions, computed once per task while its trials are graded (`version`,
    the initial file's modification time, keeps a rewritten file from being answered from memory)."""
    return replay(env, initial, [(name, json.loads(arguments)) for name, arguments in actions])


def _frozen(actions: list[TauAction]) -> tuple[tuple[str, str], ...]:
    return tuple((action.name, json.dumps(action.kwargs, sort_keys=True)) for action in actions)


def _exact(name: str, arguments: Mapping[str, Any]) -> str:
    return name + json.dumps(arguments, sort_keys=True, ensure_ascii=False)
