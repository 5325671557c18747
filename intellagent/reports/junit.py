"""junit.xml: one test case per policy, so that CI systems list policy failures as failed tests.

A policy fails when any dialog with a verdict violated it (the message lists every reason); a policy
that no such dialog tested is skipped, so never-tested policies stay visible instead of passing.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from intellagent.reports.models import PolicyResult, PolicyViolationNote, Report
from intellagent.reports.text import one_line

# Characters XML 1.0 cannot hold at all, even escaped; a model's answer may contain them.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

NAME_CHARS = 80


def junit_xml(report: Report) -> str:
    """The JUnit XML document of a report."""
    cases = [_case(report.name, policy) for policy in report.policies]
    failures = sum(p.violated > 0 for p in report.policies)
    skipped = sum(p.tested == 0 for p in report.policies)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    suites = ET.Element("testsuites", {"name": "intellagent", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": _clean(report.name or "run"), **counts, "time": "0"})
    properties = ET.SubElement(suite, "properties")
    rate = report.overall.pass_rate
    for name, value in (
        ("dialogs", report.overall.dialogs),
        *((f"dialogs_{status}", count) for status, count in report.overall.by_status.items()),
        ("pass_rate", "" if rate.rate is None else rate.rate),
        ("coverage", "" if report.coverage.share is None else report.coverage.share),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": str(value)})
    suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _case(suite: str, policy: PolicyResult) -> ET.Element:
    text = one_line(policy.text)
    title = one_line(text, NAME_CHARS)
    case = ET.Element("testcase", {
        "classname": _clean(f"{suite or 'run'}.{policy.category}"),
        "name": _clean(f"{policy.id}: {title}"),
        "time": "0",
    })
    if policy.violated:
        failure = ET.SubElement(case, "failure", {
            "type": "PolicyViolation",
            "message": _clean(f"violated in {policy.violated} of {policy.tested} dialogs that tested it"),
        })
        failure.text = _clean("\n".join(_evidence(v) for v in policy.violations))
    elif not policy.tested:
        ET.SubElement(case, "skipped", {"message": "no dialog with a verdict tested this policy"})
    ET.SubElement(case, "system-out").text = _clean(f"{policy.id} ({policy.category}): {text}")
    return case


def _evidence(note: PolicyViolationNote) -> str:
    """One line per violation: where, who found it, why, and the call or row at fault."""
    where = f"{note.dialog} turn {note.turn}" if note.turn is not None else note.dialog
    found = f"check {note.check}" if note.source == "check" else "judge"
    evidence = f" [{note.evidence}]" if note.evidence else ""
    return f"{where} ({found}): {note.reason}{evidence}"


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
