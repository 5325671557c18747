"""Adherence metrics: the report's numbers, from the analyses of the dialogs.

A dialog counts towards a rate only when it got a verdict (`pass` or `fail`); `user_fault`, `incomplete`
and `error` dialogs are counted by status and left out of every rate, so that a crashed simulation or a
simulated user that did not play its part is never read as a chatbot that broke its policy.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from intellagent.artifacts import CATEGORIES, CATEGORY_LABELS, STAGES, Analysis, Dialog, Event, Policy, RunInfo
from intellagent.artifacts.run_report import (
    Backing,
    DialogOutcome,
    DialogResult,
    GroupResult,
    LevelResult,
    Overall,
    PolicyResult,
    PolicyViolationNote,
    Rate,
    Report,
    RunUsage,
    StageUsage,
)
from intellagent.config import ReportConfig
from intellagent.files import id_order
from intellagent.llm import UsageReport
from intellagent.reports import sections
from intellagent.reports.coverage import coverage
from intellagent.reports.curves import rate_by_level
from intellagent.reports.dialog_analysis import RATED, by_status
from intellagent.reports.dialog_outcomes import dialog_outcome
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.policy_backing import backing
from intellagent.reports.section import JudgedRun


def build_report(
    artifacts: RunArtifacts,
    analyses: list[Analysis],
    *,
    name: str,
    usage: RunUsage,
    settings: ReportConfig,
    baseline: Report | None = None,
) -> Report:
    """The report of a run, its core and every section, without the gate (it is added once evaluated).

    Args:
        artifacts: the earlier stages' artifacts.
        analyses: one analysis per dialog (the mutants' too, in a calibrated run).
        name: the run's name.
        usage: calls, tokens, cost and time of the run.
        settings: the report's settings (`report.strong_edge` counts the strong pairs, `report.baseline` names
            the baseline's folder).
        baseline: the baseline run's report, when the run is compared with one.
    """
    by_id = {analysis.id: analysis for analysis in analyses}
    missing = [dialog.id for dialog in artifacts.dialogs if dialog.id not in by_id]
    if missing:
        raise ValueError(f"dialogs without an analysis: {', '.join(missing)}")
    outcomes = {d.id: dialog_outcome(d, artifacts.event(d.event_id), kept_out=by_id[d.id].status == "user_fault")
                for d in [*artifacts.dialogs, *artifacts.solo_dialogs] if d.id in by_id}
    core = core_report(artifacts, by_id, outcomes, name=name, usage=usage, strong_edge=settings.strong_edge)
    run = JudgedRun(artifacts=artifacts, analyses=by_id, outcomes=outcomes, core=core, settings=settings,
                    baseline=baseline)
    sections.check_keys(sections.SECTIONS)
    report = core
    for section in sections.SECTIONS:
        report = section.with_figures(report, section.measure(run))
    return report


def core_report(artifacts: RunArtifacts, analyses: dict[str, Analysis], outcomes: dict[str, DialogOutcome | None],
                *, name: str, usage: RunUsage, strong_edge: float) -> Report:
    """The report's core: the dialogs by status and the pass rate, per policy, category, flow and challenge level,
    coverage, and each dialog's result (`analyses`: every dialog's, by id; `outcomes`: the chatbot's dialogs against
    their expected outcomes)."""
    ordered = [analyses[dialog.id] for dialog in artifacts.dialogs]
    rated = [analysis for analysis in ordered if analysis.status in RATED]
    challenge = {dialog.id: dialog.challenge for dialog in artifacts.dialogs}
    backed = backing(artifacts.catalog, rated)
    policies = [policy_result(p, artifacts, rated, backed_by=backed[p.id]) for p in artifacts.catalog.policies]
    return Report(
        name=name,
        overall=Overall(
            dialogs=len(ordered),
            by_status=by_status(ordered),
            pass_rate=Rate.of(sum(a.status == "pass" for a in rated), len(rated)),
            scenario_errors=sum(s.status == "error" for s in artifacts.scenarios),
            event_errors=sum(e.status == "error" for e in artifacts.events),
            usage=usage,
        ),
        policies=policies,
        categories=[
            _group(category, CATEGORY_LABELS[category], policies, lambda p, c=category: p.category == c)
            for category in CATEGORIES
            if any(p.category == category for p in policies)
        ],
        flows=[
            _group(flow.id, flow.name, policies, lambda p, f=flow.id: f in p.flows)
            for flow in artifacts.catalog.flows
        ],
        challenge_levels=challenge_levels(rated, challenge),
        coverage=coverage(artifacts.catalog, artifacts.graph, rated, strong_edge=strong_edge),
        dialogs=[_dialog_result(d, analyses[d.id], artifacts.event(d.event_id), outcomes[d.id])
                 for d in artifacts.dialogs],
    )


def policy_result(policy: Policy, artifacts: RunArtifacts, rated: list[Analysis], *,
                  backed_by: list[Backing] | None = None) -> PolicyResult:
    """How one policy fared: sampled into scenarios, tested by dialogs with a verdict, violated; and the programs
    that back its verdict (`backed_by`, strongest first)."""
    tested = [a for a in rated if policy.id in a.tested]
    notes = [
        PolicyViolationNote(dialog=a.id, turn=v.turn, reason=v.reason, source=v.source, check=v.check,
                            evidence=v.call or v.row)
        for a in tested
        for v in a.violations
        if v.policy == policy.id
    ]
    violated = sum(any(v.policy == policy.id for v in a.violations) for a in tested)
    return PolicyResult(
        id=policy.id,
        text=policy.text,
        category=policy.category,
        flows=policy.flows,
        challenge=policy.challenge,
        sampled=sum(s.status == "ok" and policy.id in s.policies for s in artifacts.scenarios),
        tested=len(tested),
        passed=len(tested) - violated,
        violated=violated,
        pass_rate=Rate.of(len(tested) - violated, len(tested)),
        violations=notes,
        checks=sorted(name for name, ids in artifacts.catalog.checks.items() if policy.id in ids),
        disputed=sum(policy.id in a.disputed for a in rated),
        backed_by=backed_by or [],
    )


def worst_first(policies: list[PolicyResult]) -> list[PolicyResult]:
    """Tested policies from the lowest pass rate up (most violations first on ties), then untested ones."""
    return sorted(policies, key=lambda p: (p.tested == 0, p.pass_rate.rate or 0, -p.violated, id_order(p.id)))


def challenge_levels(rated: list[Analysis], challenge: dict[str, int]) -> list[LevelResult]:
    """Pass rate of the dialogs at or above each challenge level, from the lowest level seen to the highest."""
    return rate_by_level([(challenge[a.id], a.status == "pass") for a in rated])


def run_usage(usage: UsageReport, info: RunInfo | None, *, now: datetime) -> RunUsage:
    """Calls, tokens and cost per stage (from the accounting), with each stage's wall time over every
    invocation of the run and in this one."""
    times = stage_times(info, now=now)
    # The records each stage made are read from run.json, the one place that counts them.
    counts = {name: stage.model_dump(include={"items", "errors", "skipped"}) for name, stage in info.stages.items()
              if stage.finished_at} if info else {}
    stages = {
        name: StageUsage(**(usage.stages[name].model_dump() if name in usage.stages else {}),
                         duration_s=times[name][0] if name in times else None,
                         invocation_s=times[name][1] if name in times else None,
                         **counts.get(name, {}))
        for name in sorted(set(usage.stages) | set(times), key=_stage_order)
    }
    return RunUsage(
        **usage.total.model_dump(),
        duration_s=round(sum(total for total, _ in times.values()), 1) if times else None,
        invocation_s=round(sum(this for _, this in times.values()), 1) if times else None,
        unpriced_models=usage.unpriced_models,
        stages=stages,
    )


def stage_times(info: RunInfo | None, *, now: datetime) -> dict[str, tuple[float, float]]:
    """Per stage: seconds over every invocation of the run, and in this invocation (0 for a stage it did not
    run); a stage still running (this one) counts up to `now`."""
    if info is None:
        return {}
    started = datetime.fromisoformat(info.started_at)
    return {
        name: (stage.total_s(now), stage.last_s(now) if datetime.fromisoformat(stage.started_at) >= started else 0.0)
        for name, stage in info.stages.items()
    }


def _stage_order(name: str) -> tuple[int, str]:
    return (STAGES.index(name) if name in STAGES else len(STAGES), name)


def _group(
    group_id: str, name: str, policies: list[PolicyResult], member: Callable[[PolicyResult], bool]
) -> GroupResult:
    members = [p for p in policies if member(p)]
    tests = sum(p.tested for p in members)
    passed = sum(p.passed for p in members)
    return GroupResult(
        id=group_id,
        name=name,
        policies=len(members),
        tests=tests,
        passed=passed,
        violated=tests - passed,
        pass_rate=Rate.of(passed, tests),
    )


def _dialog_result(
    dialog: Dialog, analysis: Analysis, event: Event | None, outcome: DialogOutcome | None
) -> DialogResult:
    return DialogResult(
        id=dialog.id,
        status=analysis.status,
        simulated=dialog.status,
        persona=dialog.persona.name if dialog.persona else None,
        challenge=dialog.challenge,
        policies=dialog.policies,
        tested=analysis.tested,
        violated=list(dict.fromkeys(v.policy for v in analysis.violations)),
        error=analysis.error,
        given_up=event.dropped if event else [],
        disputed=analysis.disputed,
        judge_error=analysis.judge_error,
        outcome=outcome,
        user_faults=dialog.audit.faults if dialog.audit else [],
    )
