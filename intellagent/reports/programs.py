"""What programs decide in a run: which policies' verdicts a program backs, the rules and compiled assertions, step
order.

A policy's verdict is backed where something other than a model's judgement ruled on it in a dialog with a
verdict: a verified expected outcome (`decided` in analysis.jsonl), or a program over the dialog's trace —
a hand-written check (the framework's or the domain's), a rules file's rule, an assertion compiled from the
policy's text — that ruled there (`checked`: it found a breach, or the dialog gave it something to rule on).
A program merely mapped to a policy backs nothing. A policy none of these reaches is judged by the LLM judge
alone. The share of policies backed is the report's headline figure beside coverage.
"""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog
from intellagent.artifacts.rates import Share
from intellagent.artifacts.report import AssertionResult, Backing, ProgramFigures
from intellagent.reports.step_order import step_order

BACKINGS: tuple[Backing, ...] = ("outcome", "program")
"""What backs a verdict, strongest first."""


def backing(catalog: PolicyCatalog, rated: list[Analysis]) -> dict[str, list[Backing]]:
    """Per policy id, what backs its verdict, strongest first (none: the judge alone); `rated` are the analyses of
    the dialogs with a verdict, which say the policies an outcome and a program ruled on."""
    found = {"outcome": {policy for analysis in rated for policy in analysis.decided},
             "program": {policy for analysis in rated for policy in analysis.checked}}
    return {policy.id: [kind for kind in BACKINGS if policy.id in found[kind]] for policy in catalog.policies}


def program_figures(catalog: PolicyCatalog, backed: dict[str, list[Backing]], dialogs: list[Dialog],
                    rated: list[Analysis]) -> ProgramFigures:
    """The run's program figures, over the chatbot's dialogs with a verdict (`rated` are their analyses)."""
    judged = {analysis.id for analysis in rated}
    played = [dialog for dialog in dialogs if dialog.id in judged]
    return ProgramFigures(
        backed=Share.of(sum(bool(kinds) for kinds in backed.values()), len(backed)),
        sources={kind: sum(kind in kinds for kinds in backed.values()) for kind in BACKINGS},
        assertions=_rules(catalog, played),
        flows=step_order(catalog, played),
    )


def _rules(catalog: PolicyCatalog, played: list[Dialog]) -> list[AssertionResult]:
    """Each rule in force and compiled assertion, with the dialogs it ruled in and breached; then each rule refused."""
    held = [(assertion.id, assertion.check, [assertion.policy], assertion.kind, assertion.rationale, assertion.text())
            for assertion in catalog.assertions]
    held += [(rule.rule.id, rule.rule.check, rule.policies, rule.rule.kind, rule.rule.cite.words, rule.rule.text())
             for rule in catalog.rules]
    results = []
    for name, check, policies, kind, words, text in held:
        ruled = [d for d in played if check in d.ruled and set(policies) & set(d.policies)]
        results.append(AssertionResult(
            id=name, check=check, policy=", ".join(policies), kind=kind, rationale=words, text=text, in_force=True,
            dialogs=len(ruled), breached=sum(any(f.check == check for f in d.findings) for d in ruled)))
    results += [AssertionResult(id=refused.id, policy="", kind="", rationale="", text="", in_force=False,
                                discarded=refused.reason) for refused in catalog.refused_rules]
    return results
