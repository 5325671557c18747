"""What backs a policy's verdict, and its mark in the policy table.

A policy's verdict is backed where something other than a model's judgement ruled on it in a dialog with a
verdict: a verified expected outcome (`decided` in analysis.jsonl), or a program over the dialog's trace —
a hand-written check (the framework's or the domain's), a rules file's rule, an assertion compiled from the
policy's text — that ruled there (`checked`: it found a breach, or the dialog gave it something to rule on).
A program merely mapped to a policy backs nothing. A policy none of these reaches is judged by the LLM judge
alone.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Analysis, PolicyCatalog
from intellagent.artifacts.run_report import Backing, PolicyResult

BACKINGS: tuple[Backing, ...] = ("outcome", "program")
"""What backs a verdict, strongest first."""

BACKING_WORDS = {"outcome": "a verified outcome", "program": "a program (a check, a rule or a compiled assertion)"}


def backing(catalog: PolicyCatalog, rated: list[Analysis]) -> dict[str, list[Backing]]:
    """Per policy id, what backs its verdict, strongest first (none: the judge alone); `rated` are the analyses of
    the dialogs with a verdict, which say the policies an outcome and a program ruled on."""
    found = {"outcome": {policy for analysis in rated for policy in analysis.decided},
             "program": {policy for analysis in rated for policy in analysis.checked}}
    return {policy.id: [kind for kind in BACKINGS if policy.id in found[kind]] for policy in catalog.policies}


def backing_tag(policy: PolicyResult) -> str:
    """The mark of what backs a policy's verdict: the programs, or the judge alone."""
    if not policy.backed_by:
        return ' <span class="tag judge" title="no program rules on it: the LLM judge alone">judge alone</span>'
    said = ", ".join(BACKING_WORDS[kind] for kind in policy.backed_by)
    return (f' <span class="tag program" title="its verdict is backed by {escape(said)}">'
            f"{escape(' + '.join(policy.backed_by))}</span>")
