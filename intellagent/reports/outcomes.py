"""The outcome figures of a report: each dialog graded against its event's verified expected outcome.

A dialog is **graded** here (counted) when its event has a verified outcome, the dialog carries its grade,
and the outcome speaks in it (`outcome_verdicts.outcome_speaks`: it ran, and its simulated user was not
cut short). Its reward is 1 when its world ended as the expected calls leave it and every expected output
was said. No figure here depends on the judge, which is what makes them worth gating on
(`report.min_outcome`):

- the outcome pass rate, the share of graded dialogs with reward 1: overall, per flow (the dialogs that
  sampled one of its policies), per policy (those that sampled it) and at or above each challenge level,
  each with its 95% Wilson interval;
- tool-call precision, recall and F1, overall, per tool and per flow, from the summed counts of the
  dialogs' grades, never from a mean of per-dialog ratios;
- the mean progress (the share of expected calls matched before the first wrong write, in any order);
- with trials, pass^k over the rewards of each event's graded trials;
- the events with and without a verified outcome, and why not;
- how often the judge agreed with the outcome's verdict on a policy.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from intellagent.artifacts import Analysis, Dialog, Event, OutcomeGrade
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.artifacts.report import (
    CallScore,
    DialogOutcome,
    OutcomeGroup,
    Outcomes,
    PassK,
    Rate,
    UnverifiedEvent,
)
from intellagent.reports.calibration import agreement
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.levels import rate_by_level
from intellagent.reports.outcome_verdicts import outcome_speaks
from intellagent.reports.text import counted
from intellagent.reports.trials import pass_k_curve

NOT_SOUGHT = "made by a version that sought no expected outcome"
"""Why an event of an older run has no outcome."""
KEPT_OUT = "its simulated user was at fault before the chatbot broke a rule (user_fault)"
"""Why a `user_fault` dialog is not graded."""


def dialog_outcome(dialog: Dialog, event: Event | None, *, kept_out: bool = False) -> DialogOutcome | None:
    """How a dialog fares against its event's expected outcome; None when no outcome was sought for the event.

    Args:
        dialog: the chatbot's dialog.
        event: its event, with the expected outcome.
        kept_out: its simulated user was at fault first (`user_fault`): like every figure of the chatbot, the
            outcome figures leave it out.
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


def outcome_figures(
    artifacts: RunArtifacts, analyses: list[Analysis], results: dict[str, DialogOutcome | None]
) -> Outcomes:
    """The outcome section of the report.

    Args:
        artifacts: the earlier stages' artifacts (the chatbot's dialogs only count).
        analyses: every dialog's analysis, the mutants' too (they measure the judge's agreement).
        results: each of the chatbot's dialogs' `dialog_outcome`, by dialog id.
    """
    events = [event for event in artifacts.events if event.status == "ok"]
    graded = [(dialog, grade) for dialog in artifacts.dialogs
              if (grade := _counted(results.get(dialog.id))) is not None]
    on_verified = [dialog for dialog in artifacts.dialogs if _verified(artifacts.event(dialog.event_id))]
    flows_of = _flows_of(artifacts)
    return Outcomes(
        events=len(events),
        verified=sum(event.expected is not None for event in events),
        unverified=[UnverifiedEvent(id=event.id, reason=event.expected_error or NOT_SOUGHT)
                    for event in events if event.expected is None],
        pass_rate=_pass_rate(grade for _, grade in graded),
        end_state=Rate.of(sum(grade.state_match for _, grade in graded), len(graded)),
        forbidden_made=sum(bool(grade.forbidden_made) for _, grade in graded),
        cut_short=sum(dialog.status != "error" and not outcome_speaks(dialog) for dialog in on_verified),
        errors=sum(dialog.status == "error" for dialog in on_verified),
        progress=round(sum(grade.progress for _, grade in graded) / len(graded), 4) if graded else None,
        calls=_calls(grade for _, grade in graded),
        tools=_per_tool(grade for _, grade in graded),
        flows=[_group(flow.id, flow.name, graded, lambda d, f=flow.id: f in flows_of(d))
               for flow in artifacts.catalog.flows],
        policies=[_group(policy.id, policy.text, graded, lambda d, p=policy.id: p in d.policies)
                  for policy in artifacts.catalog.policies],
        challenge_levels=rate_by_level([(dialog.challenge, grade.passed) for dialog, grade in graded]),
        pass_k=_pass_k(graded),
        judge_agreement=agreement(analyses, "outcome"),
    )


def _verified(event: Event | None) -> bool:
    return event is not None and event.expected is not None


def _counted(result: DialogOutcome | None) -> OutcomeGrade | None:
    return result.grade if result is not None and result.counted else None


def _pass_rate(grades: Iterable[OutcomeGrade]) -> Rate:
    passed = [grade.passed for grade in grades]
    return Rate.of(sum(passed), len(passed))


def _calls(grades: Iterable[OutcomeGrade]) -> CallScore:
    counts = [(grade.expected_calls, grade.made_calls, grade.matched_calls) for grade in grades]
    expected, made, matched = (sum(column) for column in zip(*counts, strict=True)) if counts else (0, 0, 0)
    return CallScore.of(expected=expected, made=made, matched=matched)


def _per_tool(grades: Iterable[OutcomeGrade]) -> dict[str, CallScore]:
    """Per tool, from each grade's [expected, made, matched] counts of it."""
    summed: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for grade in grades:
        for tool, counts in grade.tools.items():
            summed[tool] = [total + count for total, count in zip(summed[tool], counts, strict=True)]
    return {tool: CallScore.of(expected=expected, made=made, matched=matched)
            for tool, (expected, made, matched) in sorted(summed.items())}


def _group(
    group_id: str, name: str, graded: list[tuple[Dialog, OutcomeGrade]], member: Callable[[Dialog], bool]
) -> OutcomeGroup:
    grades = [grade for dialog, grade in graded if member(dialog)]
    return OutcomeGroup(id=group_id, name=name, pass_rate=_pass_rate(grades), calls=_calls(grades))


def _flows_of(artifacts: RunArtifacts) -> Callable[[Dialog], set[str]]:
    """A dialog's flows: those of the policies its scenario sampled."""
    flows = {policy.id: policy.flows for policy in artifacts.catalog.policies}
    return lambda dialog: {flow for policy in dialog.policies for flow in flows.get(policy, [])}


def _pass_k(graded: list[tuple[Dialog, OutcomeGrade]]) -> list[PassK]:
    """pass^1..pass^K over each event's graded trials' rewards; nothing when each event was played once."""
    trials = max((dialog.trial for dialog, _ in graded), default=1)
    if trials < 2:
        return []
    rewards: dict[str, list[bool]] = defaultdict(list)
    for dialog, grade in graded:
        rewards[dialog.event_id].append(grade.passed)
    return pass_k_curve(rewards, trials)


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


def left_ungraded(outcomes: Outcomes) -> list[str]:
    """The dialogs on an event with a verified outcome that it could not grade, by why: "2 cut short by the
    simulated user", "1 failed to run" (nothing when there were none)."""
    return [f"{n} {why}" for n, why in ((outcomes.cut_short, "cut short by the simulated user"),
                                        (outcomes.errors, "failed to run")) if n]


def why_ungraded(outcomes: Outcomes) -> str:
    """Why no dialog of a run was graded, in a few words."""
    if outcomes.verified:
        return f"no dialog graded against the {counted(outcomes.verified, 'verified expected outcome')}"
    if outcomes.unverified and all(event.reason == NOT_SOUGHT for event in outcomes.unverified):
        return f"not graded: the run's events were {NOT_SOUGHT}"
    return f"not graded: none of {counted(outcomes.events, 'event')} has a verified expected outcome"
