"""The report of a run, finished and written: its figures, the comparison with the baseline, the quality
gate's verdict, and report.json, report.html and junit.xml."""

from __future__ import annotations

from datetime import datetime

from intellagent.artifacts import Analysis, Report, UsageReport
from intellagent.config import Config
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.html import report_html
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.junit import junit_xml
from intellagent.reports.metrics import build_report, run_usage
from intellagent.run_folder import RunFolder


def finished_report(
    config: Config, artifacts: RunArtifacts, analyses: list[Analysis], *, usage: UsageReport,
    baseline: Report | None, now: datetime,
) -> Report:
    """The report, compared with the baseline (`report.baseline`) and with the gate's verdict.

    Args:
        usage: the run's accounting so far.
        baseline: the baseline run's report, when the run has one.
        now: the time the report is made: a stage still running counts up to it.
    """
    report = build_report(artifacts, analyses, name=config.name, usage=run_usage(usage, artifacts.info, now=now),
                          settings=config.report, baseline=baseline)
    return report.model_copy(update={"gate": evaluate_gate(report, config.report)})


def write_reports(folder: RunFolder, report: Report, artifacts: RunArtifacts, analyses: list[Analysis]) -> None:
    """report.json, report.html and junit.xml."""
    folder.report.save(report)
    folder.report_html.write(report_html(report, artifacts, {analysis.id: analysis for analysis in analyses}))
    folder.junit.write(junit_xml(report, {dialog.id: dialog.duration_s for dialog in artifacts.dialogs}))
