"""The few lines printed at the end of a run: how it went, each section's lines, the reliability line, the worst
policies, the gate and where the reports are.

The sections' lines come in the sections' order (`reports.sections`): the leading ones (τ-bench, the outcome
grade, dual control) right after the headline, the others after the coverage line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from intellagent.artifacts.run_report import Coverage, Report
from intellagent.reports import sections
from intellagent.reports.metrics import worst_first
from intellagent.reports.text import counted, one_line, percent
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
    if not overall.dialogs:
        headline = f"{report.name}: no test dialog was played"
    elif rate.rate is None:
        headline = f"{report.name}: no dialog got a verdict"
    else:
        headline = (f"{report.name}: {rate.passed} of {rate.total} dialogs passed ({percent(rate.rate)}, "
                    f"95% CI {percent(rate.low)}–{percent(rate.high)})")
    lines = ["; ".join([headline, *dialogs_apart(report)])]
    lost = [f"{counted(n, 'scenario')} {why}" for n, why in ((overall.scenario_errors, "that could not be written"),
                                                   (overall.event_errors, "whose database could not be built")) if n]
    if lost:
        lines.append(f"no dialog for {' and '.join(lost)} (the reasons are in scenarios.jsonl and events.jsonl)")
    lines += section_lines(report, leading=True)
    lines.append(f"coverage: {coverage.tested} of {coverage.total} policies tested ({percent(coverage.share)}), "
                 f"{coverage.strong_pairs.tested} of {coverage.strong_pairs.total} strongly linked pairs tested "
                 "together")
    if coverage.uncovered:
        lines.append(uncovered_line(coverage))
    lines += section_lines(report, leading=False)
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


def section_lines(report: Report, *, leading: bool) -> list[str]:
    """The lines of the report's sections that lead (beside the headline) or follow (after the coverage line)."""
    return [line for section in sections.SECTIONS if section.leads is leading
            if (figures := section.of(report)) is not None for line in section.summary(figures, report)]


def reliability_line(report: Report) -> str:
    """How far the report can be trusted, in one line: each section's part, what was measured of the evaluation and
    what was not; "not measured" first while none of the measures a run must ask for (trials, seeded violations)
    was made."""
    parts = [part for section in sections.SECTIONS for part in section.reliability(section.of(report), report)]
    asked = [section for section in sections.SECTIONS if section.asked_for]
    if asked and all(section.of(report) is None for section in asked):
        parts.insert(0, "not measured")
    return "reliability: " + "; ".join(parts)


def dialogs_apart(report: Report) -> list[str]:
    """What the pass rate says nothing of, in the words of the artifacts: dialogs that ended early
    (`incomplete` in dialogs.jsonl) yet were judged, and those left out of it: kept out for their simulated
    user's fault (`user_fault`), not judged (`incomplete` in analysis.jsonl) or failed to run (`error`)."""
    status = report.overall.by_status
    early = sum(d.simulated == "incomplete" and d.status in ("pass", "fail") for d in report.dialogs)
    parts = [f"{early} ended early (incomplete), judged all the same"] if early else []
    left_out = [text for count, text in (
        (status["user_fault"], f"{status['user_fault']} kept out for their simulated user's fault (user_fault)"),
        (status["incomplete"], f"{status['incomplete']} not judged"),
        (status["error"], f"{status['error']} failed to run (error)")) if count]
    if left_out:
        parts.append(f"{' and '.join(left_out)}, not counted")
    return parts


def reports_line(folder: RunFolder) -> str:
    """Where a run's reports are."""
    return "reports: " + "  ".join(str(made.path) for made in (folder.report_html, folder.report, folder.junit))


def uncovered_line(coverage: Coverage) -> str:
    """The passages of the policy document no policy comes from, by their lines."""
    where = ", ".join(str(p.first_line) if p.first_line == p.last_line else f"{p.first_line}-{p.last_line}"
                      for p in coverage.uncovered)
    return (f"policy document: {len(coverage.uncovered)} of {coverage.passages} passages are the source of no policy, "
            f"so nothing tests them (lines {where}; listed in policies.json)")
