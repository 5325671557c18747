"""The few lines printed at the end of a run: how it went, the worst policies, where the reports are."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from intellagent.artifacts import FAULT_LABELS
from intellagent.artifacts.production import ProductionFigures
from intellagent.artifacts.report import (
    Calibration,
    CallScore,
    Coverage,
    Outcomes,
    PersonaResult,
    ProgramFigures,
    Report,
    Robustness,
    RolloutFigures,
    Share,
    SimulatorFaults,
    TauFailure,
    TauScore,
    TrialFigures,
)
from intellagent.reports.dual_control import dual_control_line
from intellagent.reports.metrics import worst_first
from intellagent.reports.outcomes import NOT_SOUGHT, left_ungraded, why_ungraded
from intellagent.reports.program_view import backing_text
from intellagent.reports.text import counted, one_line, percent, points
from intellagent.run_folder import RunFolder

WORST = 5


class Reported(Protocol):
    """A run that ended with a report, as the summary reads it (the runner's `RunResult` is one)."""

    @property
    def folder(self) -> Path: ...

    @property
    def report(self) -> Report | None: ...


def summary_text(result: Reported) -> str:
    """The end-of-run summary of a reported run (`result.report` is set)."""
    report = result.report
    assert report is not None
    overall, coverage = report.overall, report.coverage
    rate = overall.pass_rate
    if rate.rate is None:
        headline = f"{report.name}: no dialog got a verdict"
    else:
        headline = (f"{report.name}: {rate.passed} of {rate.total} dialogs passed ({percent(rate.rate)}, "
                    f"95% CI {percent(rate.low)}–{percent(rate.high)})")
    lines = ["; ".join([headline, *dialogs_apart(report)])]
    lost = [f"{counted(n, 'scenario')} {why}" for n, why in ((overall.scenario_errors, "that could not be written"),
                                                   (overall.event_errors, "whose database could not be built")) if n]
    if lost:
        lines.append(f"no dialog for {' and '.join(lost)} (the reasons are in scenarios.jsonl and events.jsonl)")
    if report.tau is not None:
        lines += tau_lines(report.tau)
    if report.outcomes is not None:
        lines.append(outcome_line(report.outcomes))
    if report.rollouts is not None:
        lines.append(rollouts_line(report.rollouts))
    if report.dual_control is not None:
        lines.append(dual_control_line(report.dual_control))
    lines += [
        f"coverage: {coverage.tested} of {coverage.total} policies tested ({percent(coverage.share)}), "
        f"{coverage.strong_pairs.tested} of {coverage.strong_pairs.total} strongly linked pairs tested together",
    ]
    if coverage.uncovered:
        lines.append(uncovered_line(coverage))
    if report.personas:
        lines.append(personas_line(report.personas))
    if report.robustness is not None:
        lines.append(robustness_line(report.robustness))
    if report.programs is not None:
        lines += program_lines(report.programs)
    if report.production is not None:
        lines.append(production_line(report.production))
    lines.append(reliability_line(report))
    worst = [p for p in worst_first(report.policies) if p.tested][:WORST]
    if worst:
        lines.append("worst policies:")
        width = max(len(p.id) for p in worst)
        lines += [f"  {p.id:<{width}}  {percent(p.pass_rate.rate):>4} held ({p.passed}/{p.tested})  "
                  f"{one_line(p.text, 70)}" for p in worst]
    gate = report.gate
    if gate is not None and gate.is_set:
        reasons = counted(len(gate.failures), "reason")
        lines.append("quality gate: " + ("passed" if gate.passed else f"FAILED ({reasons} below)"))
    lines.append(reports_line(RunFolder(result.folder)))
    return "\n".join(lines)


def production_line(production: ProductionFigures) -> str:
    """Production in one line: its pass rate, the worst policy there, what the tests miss, and the regression set."""
    rate = production.pass_rate
    parts = [f"production: {rate.passed} of {rate.total} conversations broke no policy ({percent(rate.rate)}, "
             f"95% CI {percent(rate.low)}–{percent(rate.high)})"]
    if production.worst:
        parts.append(f"worst {', '.join(production.worst[:WORST])}")
    if production.in_production_never_tested:
        parts.append(f"in production, never tested: {', '.join(production.in_production_never_tested)}")
    if production.skipped:
        parts.append(f"{counted(len(production.skipped), 'line')} skipped")
    if production.regression:
        parts.append(f"{counted(len(production.regression), 'regression scenario')} in regression/")
    return "; ".join(parts)


def rollouts_line(figures: RolloutFigures) -> str:
    """What the rollouts searched and yielded, against the plain dialogs, and what they cost, on one line."""
    parts = [f"rollouts: {counted(figures.events, 'event')} searched, {counted(figures.paths, 'path')} ended, "
             f"{figures.rewarded} rewarded (training/sft.jsonl), {counted(figures.pairs, 'preference pair')}"]
    if figures.best_reward is not None and figures.plain_reward is not None:
        parts.append(f"best path's reward {figures.best_reward:.2f} against the dialog's {figures.plain_reward:.2f} "
                     f"({figures.improved} of {counted(figures.compared, 'event')} better)")
    parts.append(f"{counted(figures.calls, 'call')}, ${figures.cost_usd:.2f}")
    apart = [f"{counted(n, 'event')} {why}" for n, why in (
        (figures.stopped, "stopped by the budget (a rerun resumes them)"), (figures.skipped, "with nothing to reward"),
        (figures.errors, "failed")) if n]
    return "; ".join(parts + apart)


def program_lines(programs: ProgramFigures) -> list[str]:
    """The policies a program backs, the rules refused, and how the dialogs kept to their flows' procedures."""
    backed = programs.backed
    line = (f"programs: {backed.count} of {backed.total} policies have a verdict a program backs "
            f"({percent(backed.rate)}): {backing_text(programs)}")
    refused = sum(not assertion.in_force for assertion in programs.assertions)
    if refused:
        line += f"; {counted(refused, 'rule')} of the rules file refused (see report.json)"
    lines = [line]
    read = [order for order in programs.flows if order.followed.total]
    if read:
        lines.append("step order: " + "; ".join(
            f"{order.id} followed in {order.followed.count} of {order.followed.total} dialogs" for order in read))
    return lines


def dialogs_apart(report: Report) -> list[str]:
    """What the pass rate says nothing of, in the words of the artifacts: dialogs that ended early
    (`incomplete` in dialogs.jsonl) yet were judged, and those left out of it: kept out for their simulated
    user's fault (`user_fault`), not judged (`incomplete` in analysis.jsonl) or failed to run (`error`)."""
    status = report.overall.by_status
    early = sum(d.simulated == "incomplete" and d.status in ("pass", "fail") for d in report.dialogs)
    parts = [f"{early} ended early (incomplete), judged all the same"] if early else []
    left_out = [text for count, text in (
        (status["user_fault"], f"{status['user_fault']} kept out, their simulated user at fault first (user_fault)"),
        (status["incomplete"], f"{status['incomplete']} not judged"),
        (status["error"], f"{status['error']} failed to run (error)")) if count]
    if left_out:
        parts.append(f"{' and '.join(left_out)}, not counted")
    return parts


def personas_line(personas: list[PersonaResult]) -> str:
    """The pass rate against each kind of user, in one line."""
    parts = [f"{p.name} {p.pass_rate.passed} of {p.pass_rate.total} passed ({percent(p.pass_rate.rate)})"
             if p.pass_rate.total else f"{p.name} no verdict ({counted(p.dialogs, 'dialog')})" for p in personas]
    return "users: " + "; ".join(parts)


def robustness_line(robustness: Robustness) -> str:
    """The robustness gap: the pass rate against cooperative users minus that against adversarial ones."""
    cooperative, adversarial = robustness.cooperative, robustness.adversarial
    rates = (f"cooperative users {percent(cooperative.rate)} ({cooperative.passed}/{cooperative.total}), "
             f"adversarial {percent(adversarial.rate)} ({adversarial.passed}/{adversarial.total})")
    if robustness.gap is None:
        missing = "an adversarial" if not adversarial.total else "a cooperative"
        return f"robustness gap: not measured, no dialog with {missing} user got a verdict ({rates})"
    return (f"robustness gap: {points(robustness.gap)} (95% CI {points(robustness.low)} to "
            f"{points(robustness.high)}): {rates}")


def reports_line(folder: RunFolder) -> str:
    """Where a run's reports are."""
    return "reports: " + "  ".join(str(made.path) for made in (folder.report_html, folder.report, folder.junit))


def tau_lines(score: TauScore) -> list[str]:
    """τ-bench's score (pass^k with 95% intervals), then the failed tasks, the first few with what they missed."""
    curve = " · ".join(
        f"pass^{point.k} {point.value:.2f} (95% CI {point.low:.2f}–{point.high:.2f})" if point.value is not None
        else f"pass^{point.k} n/a" for point in score.pass_k
    )
    lines = [f"τ-bench: {counted(score.tasks, 'task')} × {counted(score.trials, 'trial')} · {curve}"]
    failed = [result for result in score.results if result.failures]
    if failed:
        lines.append(f"τ-bench tasks failed at least once: {len(failed)} of {score.tasks}")
        width = max(len(result.id) for result in failed[:WORST])
        for result in failed[:WORST]:
            lines.append(f"  {result.id:<{width}}  {result.passed}/{result.trials} passed  "
                         f"{one_line(_first_reason(result.failures[0]), 80)}")
    return lines


def _first_reason(failure: TauFailure) -> str:
    """What most plainly cost a dialog its reward."""
    if failure.error is not None:
        return f"failed to run: {failure.error}"
    if failure.missed:
        return f"missed {failure.missed[0]}"
    if failure.unexpected:
        return f"also wrote {failure.unexpected[0]}"
    if failure.unsaid:
        return f"never said {', '.join(failure.unsaid)}"
    return "the database ended otherwise"


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


def call_scores(score: CallScore) -> str:
    """Tool-call precision, recall and F1 as two-decimal figures ("–" where undefined)."""
    figures = (("P", score.precision.rate), ("R", score.recall.rate), ("F1", score.f1))
    return " ".join(f"{name} {'–' if value is None else f'{value:.2f}'}" for name, value in figures)


def uncovered_line(coverage: Coverage) -> str:
    """The passages of the policy document no policy comes from, by their lines."""
    where = ", ".join(str(p.first_line) if p.first_line == p.last_line else f"{p.first_line}-{p.last_line}"
                      for p in coverage.uncovered)
    return (f"policy document: {len(coverage.uncovered)} of {coverage.passages} passages are the source of no policy, "
            f"so nothing tests them (lines {where}; listed in policies.json)")


def reliability_line(report: Report) -> str:
    """How far the report can be trusted, in one line: what was measured of the evaluation, and what was not."""
    parts = [_repeatability(report.trials), _detection(report.calibration)]
    if report.simulator is not None:
        parts.append(simulator_line(report.simulator))
    if report.agreement is not None:
        parts.append(agreement_text("checks", report.agreement))
    if report.outcomes is not None and report.outcomes.judge_agreement is not None:
        parts.append(agreement_text("outcome", report.outcomes.judge_agreement))
    if report.trials is None and report.calibration is None:
        parts[0] = "not measured; " + parts[0]
    return "reliability: " + "; ".join(parts)


def agreement_text(source: str, agreement: Share) -> str:
    """How often the judge agreed with a deterministic source ("checks", "outcome") where both ruled."""
    return (f"judge and {source} agreed on {agreement.count} of {agreement.total} policy verdicts "
            f"({percent(agreement.rate)})")


def simulator_line(figures: SimulatorFaults) -> str:
    """How often the simulated user was at fault, its commonest faults, and the dialogs that kept out."""
    faulted = figures.faulted
    line = f"simulator faults in {faulted.count} of {faulted.total} dialogs ({percent(faulted.rate)})"
    if not faulted.count:
        return line
    common = sorted(figures.kinds.items(), key=lambda item: -item[1])[:3]
    kinds = ", ".join(f"{FAULT_LABELS[kind]} {count}" for kind, count in common)
    return f"{line}: {kinds}; {len(figures.kept_out)} kept out of the figures"


def _repeatability(figures: TrialFigures | None) -> str:
    if figures is None:
        return "one trial per event (--trials K plays each event K times)"
    curve = ", ".join(f"pass^{point.k} {percent(point.value)}" for point in figures.pass_k)
    if figures.pairs:
        flips = (f"verdicts flipped on {figures.flipped} of {figures.pairs} event×policy pairs "
                 f"({percent(figures.flip_rate)})")
    else:
        flips = "no policy was tested in two trials of one event"
    flaky = f"; flaky: {', '.join(figures.flaky)}" if figures.flaky else ""
    return f"{trials_per_event(figures)}; {curve}; {flips}{flaky}"


def trials_per_event(figures: TrialFigures) -> str:
    """How many times each event was played: K, or from the fewest to the most (--trials auto)."""
    if figures.uneven:
        return f"{figures.fewest} to {figures.trials} trials per event (--trials auto)"
    return f"{figures.trials} trials per event"


def _detection(calibration: Calibration | None) -> str:
    if calibration is None:
        return "no seeded violations (--calibrate plays mutants that break a rule on purpose)"
    detection, alarms = calibration.detection, calibration.false_alarms
    if not detection.total:
        return f"seeded violations: none of {len(calibration.mutants)} mutants got a verdict"
    caught = (f"seeded violations caught in {detection.passed} of {detection.total} mutants "
              f"({percent(detection.rate)}, 95% CI {percent(detection.low)}–{percent(detection.high)})")
    if not alarms.total:
        return f"{caught}; the chatbot itself was never judged on those rules, so false alarms are unknown"
    return f"{caught}; false alarms on {alarms.count} of {alarms.total} tests of those rules ({percent(alarms.rate)})"
