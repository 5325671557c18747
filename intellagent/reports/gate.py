"""The quality gate: the run fails (exit 1) when a pass rate is below its minimum or a policy got worse.

The outcome pass rate (`report.min_outcome`) is the one minimum that no judge's reading enters: the share
of graded dialogs that left the world as the event's verified expected outcome does.
"""

from __future__ import annotations

from intellagent.artifacts.report import Gate, Rate, Report
from intellagent.config import ReportConfig
from intellagent.reports.text import counted

ADVERSARIAL = "adversarial"
"""The key of `report.min_persona` that stands for the users of every adversarial persona together."""


def evaluate_gate(report: Report, settings: ReportConfig) -> Gate:
    """The gate of a report (with its baseline comparison, if any), and a one-line reason per failure.

    Args:
        report: the run's report, compared with its baseline already when one is set.
        settings: the thresholds: `fail_under`, `min_category`, `min_policy`, `min_persona`, `min_pass_k`,
            `min_tau_pass_k`, `min_detection`, `min_outcome`, `gate_on`, `baseline`, `significance`.
    """
    failures = []
    if settings.require_verdict and not report.overall.pass_rate.total:
        kept_out = report.overall.by_status.get("user_fault", 0)
        why = (f"; {counted(kept_out, 'dialog')} kept out because the simulated user was at fault, which says "
               "nothing of the chatbot either" if kept_out else "")
        failures.append(f"no dialog got a verdict, so nothing was tested{why} (the dialogs' reasons are in the "
                        "report; report.require_verdict: false accepts such a run)")

    def below(what: str, rate: Rate, minimum: float, setting: str, unit: str) -> list[str]:
        return shortfall(what, rate, minimum, setting=setting, unit=unit, gate_on=settings.gate_on)

    if settings.fail_under is not None:
        failures += below("pass rate", report.overall.pass_rate, settings.fail_under, "--fail-under", "dialogs")
    categories = {group.id: group for group in report.categories}
    for category, minimum in sorted(settings.min_category.items()):
        rate = categories[category].pass_rate if category in categories else Rate(passed=0, total=0)
        failures += below(f"category {category}", rate, minimum, "report.min_category", "tests")
    policies = {policy.id: policy for policy in report.policies}
    for policy_id, minimum in sorted(settings.min_policy.items()):
        if policy_id not in policies:
            failures.append(f"report.min_policy names {policy_id}, which is not a policy of this run")
            continue
        policy = policies[policy_id]
        label = f"{policy_id} ({policy.text[:60]})"
        failures += below(label, policy.pass_rate, minimum, "report.min_policy", "dialogs")
    users = {persona.name: (f"users of persona {persona.name}", persona.pass_rate) for persona in report.personas}
    if report.robustness is not None:
        users.setdefault(ADVERSARIAL, ("adversarial users", report.robustness.adversarial))
    for name, minimum in sorted(settings.min_persona.items()):
        if name not in users:
            failures.append(f"report.min_persona names {name}, which no dialog's user played")
            continue
        label, rate = users[name]
        failures += below(label, rate, minimum, "report.min_persona", "dialogs")
    for k, minimum in sorted(settings.min_pass_k.items()):
        failures += _pass_k_shortfall(report, k, minimum)
    for k, minimum in sorted(settings.min_tau_pass_k.items()):
        failures += _tau_shortfall(report, k, minimum, gate_on=settings.gate_on)
    if settings.min_detection is not None:
        if report.calibration is None:
            failures.append(f"report.min_detection {settings.min_detection:g} is set, but no mutant was played; "
                            "run with --calibrate (or supply mutants)")
        else:
            failures += below("detection of seeded violations", report.calibration.detection,
                              settings.min_detection, "report.min_detection", "mutants caught")
    if settings.min_outcome is not None:
        failures += _outcome_shortfall(report, settings.min_outcome, gate_on=settings.gate_on)
    if report.baseline is not None:
        for change in report.baseline.policies:
            if change.significantly_worse:
                failures.append(
                    f"{change.id} got significantly worse than the baseline: passed "
                    f"{change.before.passed}/{change.before.total} before, {change.after.passed}/{change.after.total} "
                    f"now (one-sided Fisher exact p={change.p_value:.3f} <= {settings.significance:g})"
                )
    return Gate(
        fail_under=settings.fail_under,
        min_category=dict(settings.min_category),
        min_policy=dict(settings.min_policy),
        min_persona=dict(settings.min_persona),
        min_pass_k=dict(settings.min_pass_k),
        min_detection=settings.min_detection,
        min_tau_pass_k=dict(settings.min_tau_pass_k),
        min_outcome=settings.min_outcome,
        gate_on=settings.gate_on,
        baseline=str(settings.baseline) if settings.baseline is not None else None,
        passed=not failures,
        failures=failures,
    )


def shortfall(what: str, rate: Rate, minimum: float, *, setting: str, unit: str, gate_on: str = "point") -> list[str]:
    """Why `rate` misses `minimum` (one line), or nothing if it reaches it.

    Args:
        what: names the rate ("pass rate", "category payment").
        setting: the threshold's name, as the user set it.
        unit: what was counted ("dialogs", "tests").
        gate_on: `point` compares the rate itself; `lower_bound` the low end of its 95% Wilson interval.
    """
    if rate.rate is None or rate.low is None:
        return [f"{what} has no verdict, so it cannot reach {setting} {minimum:g}"]
    counts = f"{rate.passed}/{rate.total} {unit}"
    if gate_on == "lower_bound":
        if rate.low < minimum:
            return [f"{what} {rate.rate:.1%} ({counts}) has a 95% lower bound of {rate.low:.1%}, below {setting} "
                    f"{minimum:g} (report.gate_on: lower_bound)"]
        return []
    if rate.rate < minimum:
        return [f"{what} {rate.rate:.1%} ({counts}) is below {setting} {minimum:g}"]
    return []


def _pass_k_shortfall(report: Report, k: int, minimum: float) -> list[str]:
    trials = report.trials.trials if report.trials else 1
    if report.trials is None or k > trials:
        return [f"report.min_pass_k asks for pass^{k}, but each event was played {trials} time"
                f"{'' if trials == 1 else 's'}; set simulate.trials (--trials) to {k} or more"]
    figure = report.trials.pass_k[k - 1]
    if figure.value is None:
        return [f"pass^{k} has no verdict (no event has {k} judged trials), so it cannot reach "
                f"report.min_pass_k {minimum:g}"]
    if figure.value < minimum:
        return [f"pass^{k} {figure.value:.1%} (over {figure.events} events) is below report.min_pass_k {minimum:g}"]
    return []


def _tau_shortfall(report: Report, k: int, minimum: float, *, gate_on: str) -> list[str]:
    setting = "report.min_tau_pass_k"
    if report.tau is None:
        return [f"{setting} is set, but the run played no τ-bench task; give a task set with --scenarios-from tau:DIR"]
    if k > report.tau.trials:
        return [f"{setting} asks for pass^{k}, but each task was played {counted(report.tau.trials, 'time')}; "
                f"set simulate.trials (--trials) to {k} or more"]
    figure = report.tau.pass_k[k - 1]
    if figure.value is None or figure.low is None:
        return [f"τ-bench pass^{k} has no value (no task has {k} trials), so it cannot reach {setting} {minimum:g}"]
    shown = f"τ-bench pass^{k} {figure.value:.2f} (over {counted(figure.tasks, 'task')})"
    if gate_on == "lower_bound" and figure.low < minimum:
        return [f"{shown} has a 95% lower bound of {figure.low:.2f}, below {setting} {minimum:g} "
                "(report.gate_on: lower_bound)"]
    if gate_on == "point" and figure.value < minimum:
        return [f"{shown} is below {setting} {minimum:g}"]
    return []


def _outcome_shortfall(report: Report, minimum: float, *, gate_on: str) -> list[str]:
    outcomes = report.outcomes
    if outcomes is None or not outcomes.pass_rate.total:
        verified = f"{outcomes.verified} of {counted(outcomes.events, 'event')}" if outcomes else "no event"
        return [f"--min-outcome {minimum:g} is set, but no dialog was graded against a verified expected outcome "
                f"({verified} had one; the reasons are in events.jsonl)"]
    return shortfall("outcome pass rate", outcomes.pass_rate, minimum, setting="--min-outcome", unit="graded dialogs",
                     gate_on=gate_on)
