"""The report stage's domain: dialog analysis, the report's core figures and its sections (`reports.sections`),
the quality gate, and the writers of report.json, report.html and junit.xml."""

from intellagent.artifacts.run_report import Report
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.html import report_html
from intellagent.reports.inputs import RunArtifacts, load_artifacts
from intellagent.reports.junit import junit_xml
from intellagent.reports.metrics import build_report, run_usage, worst_first
from intellagent.reports.sections.baseline_comparison import compare, load_baseline

__all__ = [
    "Report",
    "RunArtifacts",
    "build_report",
    "compare",
    "evaluate_gate",
    "junit_xml",
    "load_artifacts",
    "load_baseline",
    "report_html",
    "run_usage",
    "worst_first",
]
