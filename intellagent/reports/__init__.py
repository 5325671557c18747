"""The report stage's domain: dialog analysis, adherence and coverage metrics, baseline comparison,
the quality gate, and the writers of report.json, report.html and junit.xml."""

from intellagent.artifacts.report import Report
from intellagent.reports.baseline import compare, load_baseline
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.html import report_html
from intellagent.reports.inputs import RunArtifacts, load_artifacts
from intellagent.reports.junit import junit_xml
from intellagent.reports.metrics import build_report, run_usage, worst_first

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
