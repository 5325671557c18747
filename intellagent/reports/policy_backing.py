"""Which programs back a policy's verdict, and its mark in the policy table.

A policy's verdict is backed by a program when one rules on it with no model's judgement: a verified
expected outcome ruled on it in a dialog with a verdict (`decided` in analysis.jsonl); a
hand-written check (the framework's or the domain's) enforces it; or an assertion compiled from its text
is in force. A policy none of these reaches is judged by the LLM judge alone.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Analysis, AssertionsInForce, PolicyCatalog
from intellagent.artifacts.assertions import COMPILED
from intellagent.artifacts.report import Backing, PolicyResult

BACKINGS: tuple[Backing, ...] = ("outcome", "check", "assertion")
"""The kinds of program, strongest first."""

BACKING_WORDS = {"outcome": "a verified outcome", "check": "a hand-written check", "assertion": "a compiled assertion"}


def backing(catalog: PolicyCatalog, review: AssertionsInForce | None, rated: list[Analysis]
            ) -> dict[str, list[Backing]]:
    """Per policy id, the programs that back its verdict, strongest first (none: the judge alone); `rated` are the
    analyses of the dialogs with a verdict, which say the policies an expected outcome ruled on."""
    by_outcome = {policy for analysis in rated for policy in analysis.decided}
    by_check = {policy for name, ids in catalog.checks.items() if not name.startswith(COMPILED) for policy in ids}
    by_assertion = {assertion.policy for assertion in catalog.assertions_in_force(review)}
    found = {"outcome": by_outcome, "check": by_check, "assertion": by_assertion}
    return {policy.id: [kind for kind in BACKINGS if policy.id in found[kind]] for policy in catalog.policies}


def backing_tag(policy: PolicyResult) -> str:
    """The mark of what backs a policy's verdict: the programs, or the judge alone."""
    if not policy.backed_by:
        return ' <span class="tag judge" title="no program rules on it: the LLM judge alone">judge alone</span>'
    said = ", ".join(BACKING_WORDS[kind] for kind in policy.backed_by)
    return (f' <span class="tag program" title="its verdict is backed by {escape(said)}">'
            f"{escape(' + '.join(policy.backed_by))}</span>")
