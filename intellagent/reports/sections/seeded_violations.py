"""Seeded violations (`calibration`, with `--calibrate`): whether the run notices a chatbot that breaks a rule on
purpose.

- **Detection.** A mutant is caught when one of its dialogs with a verdict records a violation of a
  policy it breaks, whoever found it: its event's expected outcome, a check or the judge. Detection is
  the share of mutants caught among those with such a dialog, overall
  and per policy (a mutant counts for every policy it breaks), with 95% Wilson intervals.
- **False alarms.** On the chatbot under test, the tests of the mutated policies (a dialog with a
  verdict × a mutated policy it tested) that record a violation. The chatbot may really break those
  rules, so this bounds the instrument's false alarms from above.
- **Per persona.** Of the mutants' dialogs with a verdict, per persona of their users, the share that
  recorded a violation of their mutant's rule: whether some kinds of user bring a broken rule to light
  more often than others.

Detection is a part of the reliability line and gates on `report.min_detection`; the panel lists every mutant
with how it was made and who caught it.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Analysis, Dialog, MutantRecord
from intellagent.artifacts.run_report import (
    Calibration,
    MutantResult,
    PersonaDetection,
    PolicyDetection,
    Rate,
    Report,
    Share,
)
from intellagent.config import ReportConfig
from intellagent.reports.dialog_analysis import RATED
from intellagent.reports.minimums import shortfall
from intellagent.reports.panels import interval, policy_link
from intellagent.reports.section import JudgedRun, Page, Section
from intellagent.reports.text import one_line, percent

# A caught mutant is the instrument passing its test; one it missed is the instrument failing.
OUTCOME_BADGES = {"caught": "pass", "missed": "fail", "unjudged": "incomplete", "error": "error"}


def calibration(
    mutants: list[MutantRecord], mutant_dialogs: list[Dialog], dialogs: list[Dialog], analyses: dict[str, Analysis]
) -> Calibration | None:
    """Detection per mutant, per policy and overall, and the false alarms; None when no mutant was made.

    Args:
        mutants: mutants.json's records.
        mutant_dialogs: the mutants' dialogs.
        dialogs: the chatbot's own dialogs.
        analyses: every dialog's analysis, by dialog id.
    """
    if not mutants:
        return None
    results = [_outcome(record, [d for d in mutant_dialogs if d.mutant == record.name], analyses)
               for record in mutants]
    judged = [result for result in results if result.outcome in ("caught", "missed")]
    mutated = sorted({policy for result in judged for policy in result.policies})
    per_policy = []
    for policy in mutated:
        breaking = [result for result in judged if policy in result.policies]
        per_policy.append(PolicyDetection(
            policy=policy, detection=Rate.of(sum(r.outcome == "caught" for r in breaking), len(breaking))
        ))
    return Calibration(
        mutants=results,
        detection=Rate.of(sum(result.outcome == "caught" for result in judged), len(judged)),
        policies=per_policy,
        false_alarms=_false_alarms(set(mutated), dialogs, analyses),
        personas=_per_persona(results, mutant_dialogs, analyses),
    )


def _per_persona(results: list[MutantResult], dialogs: list[Dialog], analyses: dict[str, Analysis]
                 ) -> list[PersonaDetection]:
    """Per persona of the mutants' users: of their dialogs with a verdict, those that caught their mutant."""
    caught = {dialog for result in results for dialog in result.caught_in}
    counts: dict[str, list[bool]] = {}
    for dialog in dialogs:
        analysis = analyses.get(dialog.id)
        if dialog.persona is not None and analysis is not None and analysis.status in RATED:
            counts.setdefault(dialog.persona.name, []).append(dialog.id in caught)
    return [PersonaDetection(persona=name, detection=Rate.of(sum(found), len(found)))
            for name, found in sorted(counts.items())]


def _outcome(record: MutantRecord, dialogs: list[Dialog], analyses: dict[str, Analysis]) -> MutantResult:
    result = MutantResult(name=record.name, kind=record.kind, policies=record.policies, outcome="error",
                          dialogs=[d.id for d in dialogs], reason=record.reason)
    if record.status == "error":
        return result
    rated = [analyses[d.id] for d in dialogs if d.id in analyses and analyses[d.id].status in RATED]
    caught = {a.id: [v for v in a.violations if v.policy in record.policies] for a in rated}
    result.caught_in = [dialog for dialog, found in caught.items() if found]
    result.caught_by = sorted({v.check or v.source for found in caught.values() for v in found})
    result.outcome = "caught" if result.caught_in else "missed" if rated else "unjudged"
    if result.outcome == "unjudged":
        result.reason = "none of its dialogs got a verdict" if dialogs else "no event samples its policies"
    return result


def _false_alarms(mutated: set[str], dialogs: list[Dialog], analyses: dict[str, Analysis]) -> Share:
    alarms = tests = 0
    for dialog in dialogs:
        analysis = analyses.get(dialog.id)
        if analysis is None or analysis.status not in RATED:
            continue
        violated = {violation.policy for violation in analysis.violations}
        for policy in mutated.intersection(analysis.tested):
            tests += 1
            alarms += policy in violated
    return Share.of(alarms, tests)


def detection(calibration: Calibration | None, report: Report) -> list[str]:
    """The reliability line's part: the mutants caught and the false alarms; or that none was played."""
    if calibration is None:
        return ["no seeded violations (--calibrate plays mutants that break a rule on purpose)"]
    caught, alarms = calibration.detection, calibration.false_alarms
    if not caught.total:
        return [f"seeded violations: none of {len(calibration.mutants)} mutants got a verdict"]
    found = (f"seeded violations caught in {caught.passed} of {caught.total} mutants "
             f"({percent(caught.rate)}, 95% CI {percent(caught.low)}–{percent(caught.high)})")
    if not alarms.total:
        return [f"{found}; the chatbot itself was never judged on those rules, so false alarms are unknown"]
    return [f"{found}; false alarms on {alarms.count} of {alarms.total} tests of those rules ({percent(alarms.rate)})"]


def calibration_panel(calibration: Calibration, page: Page) -> str:
    """Every mutant: the rules it breaks, whether a dialog caught it and who, and how it was made."""
    caught, alarms = calibration.detection, calibration.false_alarms
    changes = {record.name: record for record in page.artifacts.mutants}
    rows = "".join(
        f'<tr><td>{escape(m.name)}</td><td>{", ".join(policy_link(p) for p in m.policies)}</td>'
        f'<td><span class="badge {OUTCOME_BADGES[m.outcome]}">{m.outcome}</span></td>'
        f'<td>{escape(", ".join(m.caught_in or m.dialogs))}</td><td>{escape(", ".join(m.caught_by))}</td>'
        f"<td>{_change(changes.get(m.name), m.reason)}</td></tr>"
        for m in calibration.mutants
    )
    return (
        '<section class="panel"><h2>Seeded violations</h2>'
        f'<p class="hint">Mutants of the chatbot each broke one rule on purpose. Caught: '
        f"{caught.passed} of {caught.total} judged mutants ({percent(caught.rate)}, {interval(caught)}). "
        f"False alarms on the chatbot under test: {alarms.count} of {alarms.total} tests of the mutated rules "
        f"({percent(alarms.rate)}; an upper bound, since the chatbot may really break them).{_by_persona(calibration)}"
        "</p>"
        '<table class="compact"><thead><tr><th>Mutant</th><th>Breaks</th><th>Outcome</th><th>Dialogs</th>'
        f"<th>Caught by</th><th>How it was made</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _by_persona(calibration: Calibration) -> str:
    """How often the mutants' dialogs caught their mutant, per kind of user."""
    if not calibration.personas:
        return ""
    parts = ", ".join(f"{escape(p.persona)} {p.detection.passed} of {p.detection.total}" for p in calibration.personas)
    return f" Dialogs that caught their mutant, per kind of user: {parts}."


def _change(record: MutantRecord | None, reason: str) -> str:
    if reason or record is None or record.removed is None:
        return escape(reason or "supplied")
    removed = f"<del>{escape(one_line(record.removed, 160))}</del>"
    return removed + (f" <ins>{escape(one_line(record.inserted, 160))}</ins>" if record.inserted else "")


def detection_gate(calibration: Calibration | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_detection` against the share of mutants caught."""
    minimum = settings.min_detection
    if minimum is None:
        return []
    if calibration is None:
        return [f"report.min_detection {minimum:g} is set, but no mutant was played; run with --calibrate (or supply "
                "mutants)"]
    return shortfall("detection of seeded violations", calibration.detection, minimum,
                     setting="report.min_detection", unit="mutants caught", gate_on=settings.gate_on)


def _measure(run: JudgedRun) -> Calibration | None:
    artifacts = run.artifacts
    return calibration(artifacts.mutants, artifacts.mutant_dialogs, artifacts.dialogs, run.analyses)


CALIBRATION = Section(
    key="calibration",
    figures=Calibration,
    measure=_measure,
    panel=calibration_panel,
    reliability=detection,
    asked_for=True,
    settings=("min_detection",),
    gate=detection_gate,
)
"""Seeded violations: mutants of the chatbot, and whether the run caught them."""
