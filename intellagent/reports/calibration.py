"""How far the instrument can be trusted: whether it catches rules broken on purpose, and whether its judges agree.

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
- **Agreement.** Of the policies that a deterministic source ruled on and the judge tested in one
  dialog, the share on which both gave the same verdict, per source (a check, the expected outcome);
  over every dialog with a verdict, the mutants' too, since it measures the instrument and not the
  chatbot.
"""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, MutantRecord
from intellagent.artifacts.analysis import VerdictSource
from intellagent.artifacts.report import (
    Calibration,
    MutantResult,
    PersonaDetection,
    PolicyDetection,
    Rate,
    Share,
)
from intellagent.reports.analysis import RATED


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


def agreement(analyses: list[Analysis], source: VerdictSource = "check") -> Share | None:
    """How often the judge and a deterministic source (the checks, or the expected outcome) agreed where both ruled
    on a policy; None when they never did."""
    agreed = compared = 0
    for analysis in analyses:
        if analysis.status not in RATED:
            continue
        ruled = analysis.decided if source == "outcome" else analysis.checked
        # The policies the judge's verdict was set beside a deterministic one's, of this source or another.
        for policy in set(analysis.agreed + analysis.disputed).intersection(ruled):
            compared += 1
            agreed += _broken(analysis, policy, "judge") == _broken(analysis, policy, source)
    return Share.of(agreed, compared) if compared else None


def _broken(analysis: Analysis, policy: str, source: VerdictSource) -> bool:
    return any(v.policy == policy and v.source == source for v in analysis.violations)
