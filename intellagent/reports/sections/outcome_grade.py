"""The outcome grade (`outcomes`): each dialog graded against its event's verified expected outcome.

Its figures are over the graded dialogs (see `reports.dialog_outcomes`: the event has a verified outcome, the dialog
its grade, and the outcome speaks in it). A graded dialog's reward is 1 when its world ended as the expected
calls leave it and every expected output was said. No figure here depends on the judge, which is what makes
them worth gating on (`report.min_outcome`, `--min-outcome`):

- the outcome pass rate, the share of graded dialogs with reward 1: overall, per flow (the dialogs that
  sampled one of its policies), per policy (those that sampled it) and at or above each challenge level,
  each with its 95% Wilson interval;
- tool-call precision, recall and F1, overall, per tool and per flow, from the summed counts of the
  dialogs' grades, never from a mean of per-dialog ratios;
- the mean progress (the share of expected calls made in order before the first wrong write);
- with trials, pass^k over the rewards of each event's graded trials;
- the events with and without a verified outcome, and why not;
- how often the judge agreed with the outcome's verdict on a policy.

It leads the page beside the headline, gives each policy row its outcome pass rate, and in junit.xml each
dialog whose event sought an outcome is a case of `<suite>.outcomes`: failed, with what differed, when it
missed the outcome; skipped, with the reason, when it is not graded.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable, Iterable
from html import escape

from intellagent.artifacts import Dialog, Event, OutcomeGrade
from intellagent.artifacts.run_report import (
    CallScore,
    DialogOutcome,
    OutcomeGroup,
    Outcomes,
    PassK,
    PolicyResult,
    Rate,
    Report,
    UnverifiedEvent,
)
from intellagent.config import ReportConfig
from intellagent.reports.charts import level_chart, pass_k_chart, rate_bars
from intellagent.reports.curves import pass_k_curve, rate_by_level
from intellagent.reports.dialog_outcomes import what_differed
from intellagent.reports.junit_cases import clean, figure, junit_case
from intellagent.reports.minimums import shortfall
from intellagent.reports.outcome_verdicts import outcome_speaks
from intellagent.reports.panels import card
from intellagent.reports.section import Durations, JudgedRun, PolicyColumn, Section
from intellagent.reports.text import agreement_text, call_scores, counted, one_line, percent
from intellagent.reports.verdicts import judge_agreement

NOT_SOUGHT = "made by a version that sought no expected outcome"
"""Why an event of an older run has no outcome."""


def outcome_figures(run: JudgedRun) -> Outcomes:
    """The outcome figures of the chatbot's dialogs (the mutants' dialogs count only in the judge's agreement)."""
    artifacts = run.artifacts
    events = [event for event in artifacts.events if event.status == "ok"]
    graded = [(dialog, grade) for dialog in artifacts.dialogs
              if (grade := _counted(run.outcomes.get(dialog.id))) is not None]
    on_verified = [dialog for dialog in artifacts.dialogs if _verified(artifacts.event(dialog.event_id))]
    flows_of = _flows_of(run)
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
        judge_agreement=judge_agreement(list(run.analyses.values()), "outcome"),
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


def _flows_of(run: JudgedRun) -> Callable[[Dialog], set[str]]:
    """A dialog's flows: those of the policies its scenario sampled."""
    flows = {policy.id: policy.flows for policy in run.artifacts.catalog.policies}
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


def outcome_line(outcomes: Outcomes) -> str:
    """The outcome grade in one line: graded dialogs that reached the expected outcome, tool-call precision, recall
    and F1, and what was not graded."""
    rate = outcomes.pass_rate
    if rate.total:
        parts = [f"outcome: {rate.passed} of {counted(rate.total, 'graded dialog')} reached the expected outcome "
                 f"({percent(rate.rate)}, 95% CI {percent(rate.low)}–{percent(rate.high)})",
                 f"tool calls {call_scores(outcomes.calls)}"]
        if outcomes.progress is not None:
            parts.append(f"mean progress {outcomes.progress:.2f}")
        if outcomes.forbidden_made:
            parts.append(f"{outcomes.forbidden_made} made a forbidden write")
    else:
        parts = [f"outcome: {why_ungraded(outcomes)}"]
    if outcomes.unverified and outcomes.verified:
        parts.append(f"{counted(len(outcomes.unverified), 'event')} without a verified outcome")
    reasons = sorted({event.reason for event in outcomes.unverified} - {NOT_SOUGHT})
    if reasons:
        parts[-1] += f" ({one_line(reasons[0], 90)}{'; …' if len(reasons) > 1 else ''})"
    apart = left_ungraded(outcomes)
    if apart:
        parts.append(f"{' and '.join(apart)}, not counted")
    return "; ".join(parts)


def outcome_card(outcomes: Outcomes) -> str:
    """The headline card: the outcome pass rate, or why there is none."""
    rate = outcomes.pass_rate
    if not rate.total:
        return card("Outcome pass rate", "–", escape(why_ungraded(outcomes)))
    return card("Outcome pass rate", percent(rate.rate), escape(
        f"95% CI {percent(rate.low)}–{percent(rate.high)} · {rate.passed} of {counted(rate.total, 'graded dialog')}"
        f" · tool calls {call_scores(outcomes.calls)}"
    ))


def outcome_panel(outcomes: Outcomes) -> str:
    """The outcome grade's panel: what it measures, its figures per flow, tool and challenge level, and the events
    it could not grade."""
    rate = outcomes.pass_rate
    intro = (
        '<p class="hint">Every event carries an expected outcome: the calls a chatbot that keeps every sampled rule '
        "makes, the writes it must not make and the facts it must say, verified by running them on a copy of the "
        "event's world. A dialog earns the reward when its world ends as the expected calls leave it and every "
        "expected output was said; a call matches an expected one by tool and arguments, and precision, recall and "
        "F1 are over the summed counts. No judge enters these figures. "
        f"{outcomes.verified} of {counted(outcomes.events, 'event')} have a verified outcome.</p>"
    )
    if not rate.total:
        return (f'<section class="panel" id="outcomes"><h2>Outcome grade</h2>{intro}'
                f'<p class="empty">{escape(why_ungraded(outcomes).capitalize())}.</p>{_unverified(outcomes)}</section>')
    figures = [
        f"<b>{percent(rate.rate)}</b> of {counted(rate.total, 'graded dialog')} reached the expected outcome "
        f"(95% CI {percent(rate.low)}–{percent(rate.high)})",
        f"{outcomes.end_state.passed} ended in the expected world",
        f"{outcomes.forbidden_made} made a forbidden write",
        f"mean progress {'–' if outcomes.progress is None else f'{outcomes.progress:.2f}'}",
        f"tool calls {escape(call_scores(outcomes.calls))}",
    ]
    if outcomes.judge_agreement is not None:
        figures.append(agreement_text("outcome", outcomes.judge_agreement))
    apart = left_ungraded(outcomes)
    if apart:
        figures.append(f"{' and '.join(apart)}, not graded")
    flows = "".join(f"<tr><td>{escape(group.name)}</td>{_rate_cells(group.pass_rate)}{_score_cells(group.calls)}</tr>"
                    for group in outcomes.flows)
    bars = rate_bars([(group.name, group.pass_rate) for group in outcomes.flows], label="Outcome pass rate per flow",
                     empty="not graded")
    tools = "".join(f"<tr><td><code>{escape(tool)}</code></td><td>{score.recall.total}</td><td>{score.precision.total}"
                    f"</td><td>{score.precision.count}</td>{_score_cells(score)}</tr>"
                    for tool, score in outcomes.tools.items())
    return (
        f'<section class="panel" id="outcomes"><h2>Outcome grade</h2>{intro}'
        f'<p class="outcome-figures">{" · ".join(figures)}</p>'
        '<div class="grid two"><div>'
        f'<h3 class="sub">Per flow</h3>{bars}'
        '<table class="compact"><thead><tr><th>Flow</th><th>Reward</th><th>95% CI</th><th>P</th><th>R</th><th>F1</th>'
        f"</tr></thead><tbody>{flows}</tbody></table>"
        f'<h3 class="sub">Per tool</h3><table class="compact"><thead><tr><th>Tool</th><th>Expected</th>'
        "<th>Made</th><th>Matched</th><th>P</th><th>R</th><th>F1</th></tr></thead>"
        f'<tbody>{tools or "<tr><td colspan=7>no call expected or made</td></tr>"}</tbody></table></div>'
        f'<div><h3 class="sub">Against challenge level</h3><p class="hint">Graded dialogs at or above each level.</p>'
        f"{level_chart(outcomes.challenge_levels)}{_pass_k_curve(outcomes)}</div></div>{_unverified(outcomes)}"
        "</section>"
    )


def _rate_cells(rate: Rate) -> str:
    if rate.rate is None:
        return '<td class="muted">not graded</td><td></td>'
    return (f"<td>{percent(rate.rate)} ({rate.passed}/{rate.total})</td>"
            f"<td>{percent(rate.low)}–{percent(rate.high)}</td>")


def _score_cells(score: CallScore) -> str:
    return "".join(f"<td>{'–' if value is None else f'{value:.2f}'}</td>"
                   for value in (score.precision.rate, score.recall.rate, score.f1))


def _pass_k_curve(outcomes: Outcomes) -> str:
    if not outcomes.pass_k:
        return ""
    return (f'<h3 class="sub">Repeated trials: pass^k over the rewards</h3><p class="hint">The chance that all k '
            "graded trials of an event reach the expected outcome (τ-bench's estimate, averaged over events).</p>"
            f"{pass_k_chart(outcomes.pass_k)}")


def _unverified(outcomes: Outcomes) -> str:
    if not outcomes.unverified:
        return ""
    items = "".join(f'<li><a href="#dialog-{escape(event.id)}"><code>{escape(event.id)}</code></a> '
                    f"{escape(one_line(event.reason, 300))}</li>" for event in outcomes.unverified)
    return (f'<h3 class="sub">Events without a verified outcome</h3><p class="hint">Their dialogs are judged by the '
            f'checks and the judge alone.</p><ul class="unverified">{items}</ul>')


def policy_outcomes(outcomes: Outcomes) -> list[PolicyColumn]:
    """The policy table's column: beside each policy's pass rate, the outcome pass rate of the graded dialogs that
    sampled it."""
    rates = {group.id: group.pass_rate for group in outcomes.policies}

    def cell(policy: PolicyResult) -> tuple[object, str]:
        rate = rates.get(policy.id)
        if rate is None or rate.rate is None:
            return "", '<span class="muted">not graded</span>'
        return rate.rate, (f"<b>{percent(rate.rate)}</b> <span class=\"muted\">{rate.passed}/{rate.total} · "
                           f"{percent(rate.low)}–{percent(rate.high)}</span>")

    return [PolicyColumn(key="outcome", label="Outcome", cell=cell)]


def outcome_gate(outcomes: Outcomes | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_outcome` against the outcome pass rate (or its 95% low end, under `report.gate_on`)."""
    minimum = settings.min_outcome
    if minimum is None:
        return []
    if outcomes is None or not outcomes.pass_rate.total:
        verified = f"{outcomes.verified} of {counted(outcomes.events, 'event')}" if outcomes else "no event"
        return [f"--min-outcome {minimum:g} is set, but no dialog was graded against a verified expected outcome "
                f"({verified} had one; the reasons are in events.jsonl)"]
    return shortfall("outcome pass rate", outcomes.pass_rate, minimum, setting="--min-outcome", unit="graded dialogs",
                     gate_on=settings.gate_on)


def outcome_cases(outcomes: Outcomes, report: Report, took: Durations) -> list[ET.Element]:
    """A case per dialog whose event sought an outcome: passed, failed with what differed, or skipped with why not
    graded."""
    suite = report.name or "run"
    return [_outcome_case(suite, d.id, d.outcome, took.get(d.id, 0.0)) for d in report.dialogs if d.outcome]


def _outcome_case(suite: str, dialog: str, outcome: DialogOutcome, seconds: float) -> ET.Element:
    case = junit_case(f"{suite}.outcomes", dialog, seconds)
    grade = outcome.grade
    if not outcome.counted or grade is None:
        ET.SubElement(case, "skipped", {"message": clean(one_line(f"not graded: {outcome.reason}"))})
    elif not grade.passed:
        differed = what_differed(grade)
        failure = ET.SubElement(case, "failure", {"type": "OutcomeMissed",
                                                  "message": clean(one_line(f"reward 0: {differed[0]}"))})
        failure.text = clean("\n".join(differed))
    return case


OUTCOMES = Section(
    key="outcomes",
    figures=Outcomes,
    measure=outcome_figures,
    leads=True,
    summary=lambda outcomes, report: [outcome_line(outcomes)],
    cards=lambda outcomes, report: [outcome_card(outcomes)],
    panel=lambda outcomes, page: outcome_panel(outcomes),
    policy_columns=policy_outcomes,
    settings=("min_outcome",),
    gate=outcome_gate,
    junit_properties=lambda outcomes: {"outcome_pass_rate": figure(outcomes.pass_rate.rate)},
    junit_cases=outcome_cases,
)
"""Each dialog graded against its event's verified expected outcome."""
