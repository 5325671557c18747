"""A τ-bench task's dialog, graded as τ-bench grades it: its status is the task's reward.

The chatbot's end state is read from the dialog's own database, as τ-bench reads its environment's
data after the episode; the gold end state is the task's gold actions replayed on the initial one.
Only the calls that ran on the dialog's world count: one the chatbot merely reported changed nothing, and
so did one that returned an error.
"""

from __future__ import annotations

from pathlib import Path

from intellagent.artifacts import Dialog, Event
from intellagent.environment import Environment
from intellagent.errors import failure_reason
from intellagent.tau.grading import exported, grade


def graded(env: Environment, event: Event, dialog: Dialog, *, initial: Path, final: Path) -> Dialog:
    """`dialog` with its τ-bench grade, and, unless it failed to run, the grade as its status and reason.

    A grade that cannot be computed (a config without the domain's τ-bench module, say) makes the
    dialog an `error` with the reason, its transcript kept: played again on resume, once it is fixed.
    """
    assert event.task is not None  # a published task's event
    ran = [call for message in dialog.transcript for call in message.tool_calls if not call.reported]
    calls = [(call.name, call.arguments) for call in ran]
    failed = [(call.name, call.arguments) for call in ran if call.failed]
    replies = [message.content for message in dialog.transcript if message.role == "chatbot"]
    if env.tau is None:
        return dialog.model_copy(update={"status": "error", "reason": "the dialog played a τ-bench task, but "
                                         "environment.tau names no module to grade it with; add it and run again"})
    try:
        result = grade(env, event.task, calls=calls, replies=replies, initial=initial, final=exported(env, final),
                       failed=failed)
    except Exception as error:  # the grader's failure, not the chatbot's: recorded with what was played
        return dialog.model_copy(update={"status": "error",
                                         "reason": f"the τ-bench grade could not be computed: {failure_reason(error)}"})
    if dialog.status == "error":  # played again on resume; its grade says what it had done so far
        return dialog.model_copy(update={"tau": result})
    return dialog.model_copy(update={"tau": result, "status": "pass" if result.passed else "fail",
                                     "reason": f"{result.summary()} ({dialog.reason})"})
