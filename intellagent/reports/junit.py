"""junit.xml: one test case per policy, so that CI systems list policy failures as failed tests.

A policy fails when any dialog with a verdict violated it (the message lists every reason, with the persona
of the user who brought it out); a policy that no such dialog tested is skipped, so never-tested policies stay
visible instead of passing. A dialog that could not go on is an `<error>` case of its own, one whose simulated
user's fault could have decided its verdict (`user_fault`) is a skipped case with the fault, and the quality gate
is a case too (the last): it fails exactly when the run exits 1, so the CI's test view and the job's status always
agree. The report's sections add their properties and cases to the run's suite, and suites of their own after it
(the outcome grade a case per graded dialog, the personas a suite of figures per persona: see `reports.sections`).

Every case stands for one verdict, once: GitLab, Jenkins and the other CI systems count every test case of the
document, whatever its totals say, so no suite repeats a case of another. A run that aborts still writes the
file, with the abort as an error. Times are the dialogs' own: a policy's is the time of the dialogs that tested
it, the suite's the run's.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from intellagent.artifacts.run_report import PolicyResult, PolicyViolationNote, Report
from intellagent.reports import sections
from intellagent.reports.junit_cases import clean, counts, figure, junit_case, junit_suite, seconds
from intellagent.reports.text import one_line

NAME_CHARS = 80


def junit_xml(report: Report, durations: dict[str, float] | None = None) -> str:
    """The JUnit XML document of a report.

    Args:
        durations: seconds per dialog id (dialogs.jsonl's; report.json keeps no timings, so that the same
            work gives the same file).
    """
    took = durations or {}
    suite = report.name or "run"
    personas = {d.id: d.persona for d in report.dialogs if d.persona}
    if len(set(personas.values())) < 2:  # one kind of user: naming it in every line says nothing
        personas = {}
    cases = [_policy_case(suite, policy, sum(took.get(d.id, 0.0) for d in report.dialogs if policy.id in d.tested),
                          personas)
             for policy in report.policies]
    cases += [_error_case(suite, d.id, d.error or "the dialog could not go on", took.get(d.id, 0.0))
              for d in report.dialogs if d.status == "error"]
    cases += [_kept_out_case(suite, d.id, d.error or "its simulated user was at fault", took.get(d.id, 0.0))
              for d in report.dialogs if d.status == "user_fault"]
    properties: dict[str, object] = {
        "dialogs": report.overall.dialogs,
        **{f"dialogs_{status}": count for status, count in report.overall.by_status.items()},
        "pass_rate": figure(report.overall.pass_rate.rate),
        "coverage": figure(report.coverage.share),
    }
    later = []
    for section in sections.SECTIONS:
        figures = section.of(report)
        if figures is not None:
            properties.update(section.junit_properties(figures))
            cases += section.junit_cases(figures, report, took)
            later += section.junit_suites(figures, report, took)
    gate = report.gate
    if gate is not None and gate.is_set:
        cases.append(_gate_case(suite, gate.failures))
    seconds_run = report.overall.usage.duration_s or 0.0
    return _document([junit_suite(suite, cases, properties, seconds_run), *later], seconds_run)


def aborted_junit(name: str, reason: str) -> str:
    """The JUnit XML document of a run that aborted before its report: the abort, as an error."""
    suite = name or "run"
    return _document([junit_suite(suite, [_error_case(suite, "run", f"the run aborted: {reason}", 0.0)], {}, 0.0)], 0.0)


def _document(suites: list[ET.Element], took: float) -> str:
    """The document of these suites, its totals theirs: every case counts once, as every CI counts them."""
    cases = [case for suite in suites for case in suite.iter("testcase")]
    document = ET.Element("testsuites", {"name": "intellagent", **counts(cases), "time": seconds(took)})
    document.extend(suites)
    ET.indent(document)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(document, encoding="unicode") + "\n"


def _gate_case(suite: str, failures: list[str]) -> ET.Element:
    case = junit_case(f"{suite}.gate", "quality gate", 0.0)
    if failures:
        failure = ET.SubElement(case, "failure", {"type": "QualityGate", "message": clean(failures[0])})
        failure.text = clean("\n".join(failures))
    return case


def _error_case(suite: str, name: str, reason: str, took: float) -> ET.Element:
    case = junit_case(f"{suite}.dialogs", name, took)
    ET.SubElement(case, "error", {"type": "DialogError", "message": clean(one_line(reason))})
    return case


def _kept_out_case(suite: str, name: str, reason: str, took: float) -> ET.Element:
    """A dialog kept out of every figure for its simulated user's fault: skipped, neither passed nor failed."""
    case = junit_case(f"{suite}.dialogs", name, took)
    ET.SubElement(case, "skipped", {"message": clean(one_line(f"kept out of the figures: {reason}"))})
    return case


def _policy_case(suite: str, policy: PolicyResult, took: float, personas: dict[str, str]) -> ET.Element:
    """A policy's case over every dialog with a verdict; `personas` names each dialog's user's persona."""
    text = one_line(policy.text)
    case = junit_case(f"{suite}.{policy.category}", f"{policy.id}: {one_line(text, NAME_CHARS)}", took)
    if policy.violated:
        failure = ET.SubElement(case, "failure", {
            "type": "PolicyViolation",
            "message": clean(f"violated in {policy.violated} of {policy.tested} dialogs that tested it"),
        })
        failure.text = clean("\n".join(_evidence(note, personas.get(note.dialog)) for note in policy.violations))
    elif not policy.tested:
        ET.SubElement(case, "skipped", {"message": "no dialog with a verdict tested this policy"})
    ET.SubElement(case, "system-out").text = clean(f"{policy.id} ({policy.category}): {text}")
    return case


def _evidence(note: PolicyViolationNote, persona: str | None) -> str:
    """One line per violation: where (and against which kind of user), who found it (the outcome, a check, the
    judge), why, and the call or row at fault."""
    where = f"{note.dialog} turn {note.turn}" if note.turn is not None else note.dialog
    found = f"check {note.check}" if note.source == "check" else note.source
    user = f", {persona} user" if persona else ""
    evidence = f" [{note.evidence}]" if note.evidence else ""
    return f"{where} ({found}{user}): {note.reason}{evidence}"
