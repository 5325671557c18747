"""One verdict per policy per dialog, from the expected outcome, the deterministic checks and the LLM judge, none
overruling another.

Where the event has a verified expected outcome, it rules on the sampled policies that require or forbid a
write (see `outcome_verdicts`: a forbidden write made, an expected write made otherwise or never made).
A check's finding is a violation of every policy the check enforces (describe's mapping) that the
dialog's scenario sampled, with its evidence; a check that reads every chatbot message (`every_dialog`)
rules on its policies in every dialog, passed or broken, and a reviewed rule wherever it ruled (a call of its
tool, or a breach). The judge rules on the scenario's policies.
Where the outcome or a check rules on a policy and the judge tested it, they may disagree (a breach the
judge calls held, or the reverse): every violation is kept and the policy is marked disputed; where the
judge gave the same verdict as each of them it is marked agreed, which the report counts as the judges'
agreement, per source. An outcome and a check that disagree are no dispute: they rule on different
things (the end state, the conversation's trace), and the breach either found stands. When the judge's
answer failed, the simulation's verdict stands beside the outcome's and the checks' findings, with the
failure recorded.
"""

from __future__ import annotations

from typing import get_args

from intellagent.artifacts import Analysis, AnalysisStatus, Dialog, ExpectedOutcome, PolicyCatalog, Violation
from intellagent.artifacts.analysis import VerdictSource
from intellagent.artifacts.rates import Share
from intellagent.reports.dialog_analysis import RATED, dialog_digest
from intellagent.reports.outcome_verdicts import outcome_ruling
from intellagent.reports.text import one_line

SOURCES: tuple[VerdictSource, ...] = get_args(VerdictSource)
"""The sources of a verdict, strongest first: a dialog's violations of one policy are listed in this order."""


def ruled_policies(dialog: Dialog, catalog: PolicyCatalog) -> list[str]:
    """The policies a dialog gets a verdict on: its scenario's, then those of the checks that rule wherever they ran
    (`_unbounded`)."""
    everywhere = _policies_of(_unbounded(dialog, catalog), catalog)
    return list(dict.fromkeys([*dialog.policies, *(p.id for p in catalog.policies if p.id in everywhere)]))


def reviewed_checks(catalog: PolicyCatalog) -> set[str]:
    """The checks of the rules file's rules in force: their policies come from the passage each cites, reviewed by a
    person, so they rule wherever they have something to rule on. Another check's policies are a model's mapping,
    which may be wrong, so it rules only on the policies its dialog's scenario sampled."""
    return {held.rule.check for held in catalog.rules}


def _unbounded(dialog: Dialog, catalog: PolicyCatalog) -> set[str]:
    """The checks that rule on their policies in the dialog whether or not its scenario sampled them: the every-dialog
    checks that ran, and the reviewed rules that ruled (their tool was called, or they found a breach)."""
    ruling = set(dialog.ruled) | {finding.check for finding in dialog.findings}
    return {name for name in dialog.checks if name in catalog.every_dialog} | (reviewed_checks(catalog) & ruling)


def _policies_of(checks: set[str], catalog: PolicyCatalog) -> set[str]:
    return {p for name in checks for p in catalog.checks.get(name, [])}


def _check_violations(dialog: Dialog, catalog: PolicyCatalog, ruled: list[str], unbounded: set[str]
                      ) -> tuple[list[str], list[Violation]]:
    """The policies a check ruled on in the dialog (see `Dialog.ruled`), and the checks' violations of them (one per
    policy); `unbounded`: the checks that rule on their policies whether or not the scenario sampled them."""
    enforced = {name: [p for p in catalog.checks.get(name, []) if p in dialog.policies or name in unbounded]
                for name in dialog.checks}
    # A check that ran but had nothing to rule on (no call of a tool it is about) held nothing: only those that
    # ruled, or found a breach, put their policies to the test.
    ruling = set(dialog.ruled) | {finding.check for finding in dialog.findings}
    checked = [p for p in ruled if any(p in policies for name, policies in enforced.items() if name in ruling)]
    found: dict[str, Violation] = {}
    for finding in dialog.findings:
        for policy in enforced.get(finding.check, []):
            found.setdefault(policy, Violation(
                policy=policy, turn=finding.turn, reason=one_line(f"{finding.check}: {finding.message}", 400),
                source="check", check=finding.check, call=finding.call, row=finding.row,
            ))
    return checked, [found[p] for p in ruled if p in found]


def combine(
    dialog: Dialog,
    catalog: PolicyCatalog,
    judged: Analysis | None,
    judge_error: str | None = None,
    *,
    expected: ExpectedOutcome | None = None,
) -> Analysis:
    """The dialog's analysis from its event's expected outcome (None: the event has no verified one), the checks,
    and the judge's analysis (None when the judge's answer failed)."""
    ruled = ruled_policies(dialog, catalog)
    decided, by_outcome = outcome_ruling(dialog, expected)
    unbounded = _unbounded(dialog, catalog)
    checked, by_checks = _check_violations(dialog, catalog, ruled, unbounded)
    broken_by_outcome = {v.policy for v in by_outcome}
    broken_by_checks = {v.policy for v in by_checks}
    # An every-dialog check tested its policies whether or not it found a breach, and a reviewed rule where its
    # tool was called; a check that needs an action tested nothing when the action never came, so its silence is
    # not a pass. The outcome tested what it decided: a write made, or one the chatbot had its chance to make.
    passed_everywhere = _policies_of(unbounded, catalog)
    ruled_without_judge = set(decided) | broken_by_checks | passed_everywhere
    if judged is None:
        tested = ruled_without_judge
        violations = by_outcome + by_checks
        disputed: list[str] = []
        agreed: list[str] = []
        status = _standing(dialog, violations)
    else:
        by_judge = judged.violations
        broken_by_judge = {v.policy for v in by_judge}
        tested = set(judged.tested) | ruled_without_judge
        violations = by_outcome + by_checks + by_judge
        compared = [p for p in ruled if p in judged.tested and (p in checked or p in decided)]
        disputed = [p for p in compared
                    if (p in checked and (p in broken_by_checks) != (p in broken_by_judge))
                    or (p in decided and (p in broken_by_outcome) != (p in broken_by_judge))]
        agreed = [p for p in compared if p not in disputed]
        status = "fail" if violations else "pass"
    return Analysis(
        id=dialog.id,
        status=status,
        error=judge_error if status == "incomplete" else None,
        tested=[p for p in ruled if p in tested],
        violations=sorted(violations, key=lambda v: (ruled.index(v.policy), SOURCES.index(v.source))),
        checked=checked,
        decided=decided,
        disputed=disputed,
        agreed=agreed,
        judge_error=judge_error,
        source=dialog_digest(dialog),
    )


def _standing(dialog: Dialog, violations: list[Violation]) -> AnalysisStatus:
    """The verdict when the judge gave none: the checks' breaches, else the simulation's own verdict."""
    if violations or dialog.status == "fail":
        return "fail"
    return "pass" if dialog.status == "pass" else "incomplete"


def judge_agreement(analyses: list[Analysis], source: VerdictSource = "check") -> Share | None:
    """How often the judge and a deterministic source (the checks, or the expected outcome) agreed where both ruled
    on a policy, over the analyses with a verdict; None when they never did."""
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
