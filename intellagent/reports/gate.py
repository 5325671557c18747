"""The quality gate: the run fails (exit 1) when its pass rate is too low or a policy got worse."""

from __future__ import annotations

from pathlib import Path

from intellagent.reports.models import Gate, Report


def evaluate_gate(report: Report, *, fail_under: float | None, baseline: Path | None, alpha: float) -> Gate:
    """The gate of a report (with its baseline comparison, if any), and a one-line reason per failure.

    Args:
        report: the run's report.
        fail_under: the overall pass rate (0-1) under which the gate fails; None: not checked.
        baseline: the baseline folder, if the report was compared with one.
        alpha: the significance level used by the comparison (named in the reasons).
    """
    failures = []
    rate = report.overall.pass_rate
    if fail_under is not None:
        if rate.rate is None:
            failures.append(f"no dialog got a verdict, so the pass rate cannot reach --fail-under {fail_under:g}")
        elif rate.rate < fail_under:
            failures.append(
                f"pass rate {rate.rate:.1%} ({rate.passed}/{rate.total} dialogs) is below --fail-under {fail_under:g}"
            )
    if report.baseline is not None:
        for change in report.baseline.policies:
            if change.significantly_worse:
                failures.append(
                    f"{change.id} got significantly worse than the baseline: passed "
                    f"{change.before.passed}/{change.before.total} before, {change.after.passed}/{change.after.total} "
                    f"now (one-sided Fisher exact p={change.p_value:.3f} <= {alpha:g})"
                )
    return Gate(
        fail_under=fail_under,
        baseline=str(baseline) if baseline is not None else None,
        passed=not failures,
        failures=failures,
    )
