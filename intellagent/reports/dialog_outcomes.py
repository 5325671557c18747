"""A dialog against its event's expected outcome: whether the report counts its grade, and what cost it its
reward.

A dialog is **graded** (counted) when its event has a verified outcome, the dialog carries its grade, and the
outcome speaks in it (`outcome_verdicts.outcome_speaks`: it ran, and its simulated user was not cut short). The
outcome figures of a run over its graded dialogs are its `outcomes` section (`sections.outcome_grade`).
"""

from __future__ import annotations

from intellagent.artifacts import Dialog, Event, OutcomeGrade
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.artifacts.run_report import DialogOutcome
from intellagent.reports.outcome_verdicts import outcome_speaks

KEPT_OUT = "its simulated user's fault could have decided its verdict (user_fault)"
"""Why a `user_fault` dialog is not graded."""


def dialog_outcome(dialog: Dialog, event: Event | None, *, kept_out: bool = False) -> DialogOutcome | None:
    """How a dialog fares against its event's expected outcome; None when no outcome was sought for the event.

    Args:
        dialog: the chatbot's dialog.
        event: its event, with the expected outcome.
        kept_out: its simulated user's fault could have decided its verdict (`user_fault`): like every figure of
            the chatbot, the outcome figures leave it out.
    """
    if event is None or (event.expected is None and event.expected_error is None):
        return None
    if event.expected is None:
        return DialogOutcome(counted=False, reason=f"its event has no verified outcome: {event.expected_error}")
    if kept_out:
        return DialogOutcome(counted=False, reason=KEPT_OUT, grade=dialog.grade)
    if dialog.status == "error":
        return DialogOutcome(counted=False, reason="it failed to run", grade=dialog.grade)
    if dialog.grade is None:
        return DialogOutcome(counted=False, reason="it was not graded")
    if not outcome_speaks(dialog):
        reason = USER_CUT_SHORT if dialog.reason.startswith(USER_CUT_SHORT) else "the simulated user never spoke"
        return DialogOutcome(counted=False, reason=f"{reason}, so the chatbot never had its chance", grade=dialog.grade)
    return DialogOutcome(counted=True, grade=dialog.grade)


def what_differed(grade: OutcomeGrade) -> list[str]:
    """What cost a dialog its reward, one line each, the weightiest first: forbidden writes made, expected writes
    missed, writes no expected call makes, outputs not said, then the records that differ."""
    lines = [f"made the forbidden write {call}" for call in grade.forbidden_made]
    lines += [f"missed {call}" for call in grade.missed]
    lines += [f"also wrote {call}" for call in grade.unexpected if call not in grade.forbidden_made]
    lines += [f"never said {output!r}" for output, said in grade.outputs.items() if not said]
    lines += [f"differs: {record}" for record in grade.diff]
    if not lines and not grade.passed:
        lines.append("the world did not end as the expected calls leave it")
    return lines
