"""What programs decide in a run: which policies' verdicts a program backs, the compiled assertions, step order.

A policy's verdict is backed by a program when one rules on it with no model's judgement: a verified
expected outcome ruled on it in a dialog with a verdict (`decided` in analysis.jsonl); a
hand-written check (the framework's or the domain's) enforces it; or an assertion compiled from its text
is in force. A policy none of these reaches is judged by the LLM judge alone. The share of policies a
program backs is the report's headline figure beside coverage.
"""

from __future__ import annotations

from intellagent.artifacts import Analysis, AssertionsInForce, Dialog, PolicyCatalog
from intellagent.artifacts.assertions import COMPILED
from intellagent.artifacts.rates import Share
from intellagent.artifacts.report import AssertionResult, Backing, ProgramFigures
from intellagent.reports.step_order import step_order

BACKINGS: tuple[Backing, ...] = ("outcome", "check", "assertion")
"""The kinds of program, strongest first."""


def backing(catalog: PolicyCatalog, review: AssertionsInForce | None, rated: list[Analysis]
            ) -> dict[str, list[Backing]]:
    """Per policy id, the programs that back its verdict, strongest first (none: the judge alone); `rated` are the
    analyses of the dialogs with a verdict, which say the policies an expected outcome ruled on."""
    by_outcome = {policy for analysis in rated for policy in analysis.decided}
    by_check = {policy for name, ids in catalog.checks.items() if not name.startswith(COMPILED) for policy in ids}
    by_assertion = {assertion.policy for assertion in catalog.assertions_in_force(review)}
    found = {"outcome": by_outcome, "check": by_check, "assertion": by_assertion}
    return {policy.id: [kind for kind in BACKINGS if policy.id in found[kind]] for policy in catalog.policies}


def program_figures(catalog: PolicyCatalog, review: AssertionsInForce | None, backed: dict[str, list[Backing]],
                    dialogs: list[Dialog], rated: list[Analysis]) -> ProgramFigures:
    """The run's program figures, over the chatbot's dialogs with a verdict (`rated` are their analyses)."""
    judged = {analysis.id for analysis in rated}
    played = [dialog for dialog in dialogs if dialog.id in judged]
    return ProgramFigures(
        backed=Share.of(sum(bool(kinds) for kinds in backed.values()), len(backed)),
        sources={kind: sum(kind in kinds for kinds in backed.values()) for kind in BACKINGS},
        assertions=_assertions(catalog, review, played),
        outcomes=review.outcomes if review else 0,
        flows=step_order(catalog, played),
    )


def _assertions(catalog: PolicyCatalog, review: AssertionsInForce | None, played: list[Dialog]
                ) -> list[AssertionResult]:
    discarded = {item.id: item for item in review.discarded} if review else {}
    results = []
    for assertion in catalog.assertions:
        ran = [d for d in played if assertion.policy in d.policies and assertion.check in d.checks]
        gone = discarded.get(assertion.id)
        results.append(AssertionResult(
            id=assertion.id, policy=assertion.policy, kind=assertion.kind, rationale=assertion.rationale,
            text=assertion.text(), in_force=gone is None,
            discarded=None if gone is None else f"{gone.event}: {gone.reason}",
            dialogs=len(ran), breached=sum(any(f.check == assertion.check for f in d.findings) for d in ran),
        ))
    return results
