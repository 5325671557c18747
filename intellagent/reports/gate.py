"""The quality gate: the run fails (exit 1) when a pass rate is below its minimum or a policy got worse.

The core's rules come first (a run that judged nothing — no dialog and, in a run that played none, nothing a section
judged either —, `fail_under`, `min_category`, `min_policy`), then each section's, in the sections' order
(`reports.sections`): `min_outcome`, the one minimum that no judge's reading enters, `min_persona`, `min_pass_k`,
`min_detection`, the baseline's significantly worse policies, `min_production`, …
"""

from __future__ import annotations

from intellagent.artifacts.run_report import Gate, Rate, Report
from intellagent.config import ReportConfig
from intellagent.reports import sections
from intellagent.reports.minimums import shortfall
from intellagent.reports.text import counted


def evaluate_gate(report: Report, settings: ReportConfig) -> Gate:
    """The gate of a report (with its sections, the baseline comparison among them), and a one-line reason per
    failure.

    Args:
        report: the run's report.
        settings: the thresholds: the core's `fail_under`, `min_category`, `min_policy`, `require_verdict` and
            `gate_on`, and those the sections read (`min_outcome`, `min_persona`, …).
    """
    failures = _core_failures(report, settings)
    for section in sections.SECTIONS:
        failures += section.gate(section.of(report), settings, report)
    read = {key: value for section in sections.SECTIONS for key, value in
            settings.model_dump(mode="json", include=set(section.settings)).items()}
    return Gate(fail_under=settings.fail_under, min_category=dict(settings.min_category),
                min_policy=dict(settings.min_policy), **read, gate_on=settings.gate_on, passed=not failures,
                failures=failures)


def _core_failures(report: Report, settings: ReportConfig) -> list[str]:
    """Why the core's figures fail the gate: nothing judged, the pass rate, a category's or a policy's."""
    failures = []
    if settings.require_verdict and not report.overall.pass_rate.total and not _judged_apart(report):
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
    return failures


def _judged_apart(report: Report) -> int:
    """The verdicts the sections hold on what is not a test dialog, in a run that played none (production alone)."""
    if report.overall.dialogs:
        return 0
    return sum(section.verdicts(figures) for section in sections.SECTIONS
               if (figures := section.of(report)) is not None)
