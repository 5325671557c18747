"""junit.xml: one test case per policy, so that CI systems list policy failures as failed tests.

A policy fails when any dialog with a verdict violated it (the message lists every reason); a policy
that no such dialog tested is skipped, so never-tested policies stay visible instead of passing. A
dialog that could not go on is an `<error>` case of its own, one whose simulated user was at fault first
(`user_fault`) is a skipped case with the fault, and the quality gate is a case too: it
fails exactly when the run exits 1, so the CI's test view and the job's status always agree. Each
dialog whose event sought an expected outcome is a case of `<suite>.outcomes`: failed, with what
differed, when it missed the outcome; skipped, with the reason, when it is not graded (its event has no
verified outcome, or the outcome does not speak in it). A run that aborts still writes the file, with
the abort as an error. Times are the dialogs' own: a policy's is the time of the dialogs that tested it,
the suite's the run's.

When the users played more than one persona, a suite per persona follows (`<suite>.persona.<name>`):
a case per policy its dialogs tested, failed where one of them violated it, so that a CI's test view
groups the failures by the kind of user that brought them out. Those suites regroup the run's verdicts,
so the document's totals are the run's suite's alone.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from intellagent.artifacts.report import DialogOutcome, PersonaResult, PolicyResult, PolicyViolationNote, Report
from intellagent.reports.outcomes import what_differed
from intellagent.reports.text import one_line

# Characters XML 1.0 cannot hold at all, even escaped; a model's answer may contain them.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

NAME_CHARS = 80


def junit_xml(report: Report, durations: dict[str, float] | None = None) -> str:
    """The JUnit XML document of a report.

    Args:
        durations: seconds per dialog id (dialogs.jsonl's; report.json keeps no timings, so that the same
            work gives the same file).
    """
    took = durations or {}
    seconds = {p.id: sum(took.get(d.id, 0.0) for d in report.dialogs if p.id in d.tested) for p in report.policies}
    suite = report.name or "run"
    cases = [_case(suite, policy, seconds[policy.id]) for policy in report.policies]
    cases += [_error_case(suite, d.id, d.error or "the dialog could not go on", took.get(d.id, 0.0))
              for d in report.dialogs if d.status == "error"]
    cases += [_kept_out_case(suite, d.id, d.error or "its simulated user was at fault", took.get(d.id, 0.0))
              for d in report.dialogs if d.status == "user_fault"]
    cases += [_outcome_case(suite, d.id, d.outcome, took.get(d.id, 0.0))
              for d in report.dialogs if d.outcome is not None]
    gate = report.gate
    if gate is not None and gate.is_set:
        cases.append(_gate_case(suite, gate.failures))
    properties = {"dialogs": report.overall.dialogs,
                  **{f"dialogs_{status}": count for status, count in report.overall.by_status.items()},
                  "pass_rate": _figure(report.overall.pass_rate.rate),
                  "coverage": _figure(report.coverage.share)}
    if report.programs is not None:
        properties["program_backed"] = _figure(report.programs.backed.rate)
    if report.outcomes is not None:
        properties["outcome_pass_rate"] = _figure(report.outcomes.pass_rate.rate)
    seconds_run = report.overall.usage.duration_s or 0.0
    run = _suite(report.name or "run", cases, properties, seconds_run)
    personas = report.personas if len(report.personas) > 1 else []
    return _document(run, [_persona_suite(report, persona, took) for persona in personas], seconds_run)


def _figure(value: float | None) -> object:
    """A figure as a suite property: empty where it is undefined (nothing was counted)."""
    return "" if value is None else value


def aborted_junit(name: str, reason: str) -> str:
    """The JUnit XML document of a run that aborted before its report: the abort, as an error."""
    return _document(_suite(name or "run", [_error_case(name, "run", f"the run aborted: {reason}", 0.0)], {}, 0.0), [],
                     0.0)


def _persona_suite(report: Report, persona: PersonaResult, took: dict[str, float]) -> ET.Element:
    """A case per policy the persona's dialogs tested, failed where one of them violated it."""
    name = f"{report.name or 'run'}.persona.{persona.name}"
    dialogs = [d.id for d in report.dialogs if d.persona == persona.name]
    policies = {policy.id: policy for policy in report.policies}
    cases = []
    for entry in (entry for entry in persona.policies if entry.policy in policies):
        policy = policies[entry.policy]
        seconds = sum(took.get(d.id, 0.0) for d in report.dialogs if d.id in dialogs and policy.id in d.tested)
        notes = [note for note in policy.violations if note.dialog in dialogs]
        cases.append(_case(name, policy, seconds, tested=entry.pass_rate.total, violations=notes,
                           violated=entry.pass_rate.total - entry.pass_rate.passed))
    properties = {"persona": persona.name, "adversarial": str(persona.adversarial).lower(),
                  "dialogs": persona.dialogs,
                  "pass_rate": _figure(persona.pass_rate.rate)}
    return _suite(name, cases, properties, sum(took.get(dialog, 0.0) for dialog in dialogs))


def _suite(name: str, cases: list[ET.Element], properties: dict[str, object], seconds: float) -> ET.Element:
    suite = ET.Element("testsuite", {"name": _clean(name), **_counts(cases), "time": _time(seconds)})
    listed = ET.SubElement(suite, "properties")
    for key, value in properties.items():
        ET.SubElement(listed, "property", {"name": key, "value": str(value)})
    suite.extend(cases)
    return suite


def _counts(cases: list[ET.Element]) -> dict[str, str]:
    return {"tests": str(len(cases)),
            "failures": str(sum(case.find("failure") is not None for case in cases)),
            "errors": str(sum(case.find("error") is not None for case in cases)),
            "skipped": str(sum(case.find("skipped") is not None for case in cases))}


def _document(run: ET.Element, regrouped: list[ET.Element], seconds: float) -> str:
    """The document of the run's suite, followed by suites that regroup its policy cases (one per persona).

    The totals are the run's suite's: a regrouping suite holds the same verdicts again, and counting them twice
    would report one broken policy as several failures.
    """
    totals = {key: run.get(key, "0") for key in ("tests", "failures", "errors", "skipped")}
    document = ET.Element("testsuites", {"name": "intellagent", **totals, "time": _time(seconds)})
    document.extend([run, *regrouped])
    ET.indent(document)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(document, encoding="unicode") + "\n"


def _gate_case(suite: str, failures: list[str]) -> ET.Element:
    case = ET.Element("testcase", {"classname": _clean(f"{suite}.gate"), "name": "quality gate", "time": "0"})
    if failures:
        failure = ET.SubElement(case, "failure", {"type": "QualityGate", "message": _clean(failures[0])})
        failure.text = _clean("\n".join(failures))
    return case


def _error_case(suite: str, name: str, reason: str, seconds: float) -> ET.Element:
    case = ET.Element("testcase", {"classname": _clean(f"{suite or 'run'}.dialogs"), "name": _clean(name),
                                   "time": _time(seconds)})
    ET.SubElement(case, "error", {"type": "DialogError", "message": _clean(one_line(reason))})
    return case


def _kept_out_case(suite: str, name: str, reason: str, seconds: float) -> ET.Element:
    """A dialog kept out of every figure for its simulated user's fault: skipped, neither passed nor failed."""
    case = ET.Element("testcase", {"classname": _clean(f"{suite or 'run'}.dialogs"), "name": _clean(name),
                                   "time": _time(seconds)})
    ET.SubElement(case, "skipped", {"message": _clean(one_line(f"kept out of the figures: {reason}"))})
    return case


def _outcome_case(suite: str, dialog: str, outcome: DialogOutcome, seconds: float) -> ET.Element:
    """A dialog against its expected outcome: passed, failed with what differed, or skipped with why not graded."""
    case = ET.Element("testcase", {"classname": _clean(f"{suite}.outcomes"), "name": _clean(dialog),
                                   "time": _time(seconds)})
    grade = outcome.grade
    if not outcome.counted or grade is None:
        ET.SubElement(case, "skipped", {"message": _clean(one_line(f"not graded: {outcome.reason}"))})
    elif not grade.passed:
        differed = what_differed(grade)
        failure = ET.SubElement(case, "failure", {"type": "OutcomeMissed",
                                                  "message": _clean(one_line(f"reward 0: {differed[0]}"))})
        failure.text = _clean("\n".join(differed))
    return case


def _time(seconds: float) -> str:
    return f"{seconds:.3f}"


def _case(suite: str, policy: PolicyResult, seconds: float, *, tested: int | None = None, violated: int | None = None,
          violations: list[PolicyViolationNote] | None = None) -> ET.Element:
    """A policy's case, over every dialog (by default) or over those given by their counts and violations."""
    tested = policy.tested if tested is None else tested
    violated = policy.violated if violated is None else violated
    violations = policy.violations if violations is None else violations
    text = one_line(policy.text)
    title = one_line(text, NAME_CHARS)
    case = ET.Element("testcase", {
        "classname": _clean(f"{suite}.{policy.category}"),
        "name": _clean(f"{policy.id}: {title}"),
        "time": _time(seconds),
    })
    if violated:
        failure = ET.SubElement(case, "failure", {
            "type": "PolicyViolation",
            "message": _clean(f"violated in {violated} of {tested} dialogs that tested it"),
        })
        failure.text = _clean("\n".join(_evidence(v) for v in violations))
    elif not tested:
        ET.SubElement(case, "skipped", {"message": "no dialog with a verdict tested this policy"})
    ET.SubElement(case, "system-out").text = _clean(f"{policy.id} ({policy.category}): {text}")
    return case


def _evidence(note: PolicyViolationNote) -> str:
    """One line per violation: where, who found it (the outcome, a check, the judge), why, and the call or row at
    fault."""
    where = f"{note.dialog} turn {note.turn}" if note.turn is not None else note.dialog
    found = f"check {note.check}" if note.source == "check" else note.source
    evidence = f" [{note.evidence}]" if note.evidence else ""
    return f"{where} ({found}): {note.reason}{evidence}"


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
