"""A rule's citation: the passage of the policy document it comes from, and the run's policies it enforces.

A passage is named by its lines, as `describe.passages` cuts the document: `L12` for a one-line list item,
`L12-14` for one that runs on. A citation stands when the passage exists and holds the quoted words (case,
spacing and Markdown emphasis aside): a policy edited under a rule makes `rules test` say so.

A run extracts its own policies, so a rule is mapped to them with no model: it enforces each policy whose
source is the cited passage, or whose words hold most of the quoted ones (`MIN_COVERAGE`), limited, where its
scope names flows, to the policies of the flows whose names share a word with them.
"""

from __future__ import annotations

import re

from intellagent.artifacts import PolicyCatalog, Rule
from intellagent.describe.passages import MIN_COVERAGE, Span, blocks, passage_text, rule_passage, stems

_EMPHASIS = re.compile(r"[*_`]+")


def passage_id(span: Span) -> str:
    """A passage's name by its lines: `L12`, or `L12-14`."""
    first, last = span[0] + 1, span[1]
    return f"L{first}" if last == first else f"L{first}-{last}"


def passages_by_id(document: str) -> dict[str, Span]:
    """Every passage of the document by its name."""
    return {passage_id(span): span for span in blocks(document)}


def citation_problems(rule: Rule, document: str) -> list[str]:
    """Why a rule's citation does not stand (none: it does)."""
    span = passages_by_id(document).get(rule.cite.passage)
    if span is None:
        return [f"it cites {rule.cite.passage}, which is no passage of the policy document"]
    if _flat(rule.cite.words) not in _flat(passage_text(document, span)):
        return [f"its passage {rule.cite.passage} does not hold the words it quotes (\"{rule.cite.words[:60]}\")"]
    return []


def _flat(text: str) -> str:
    return " ".join(_EMPHASIS.sub("", text).casefold().split())


def enforced_policies(rule: Rule, catalog: PolicyCatalog, document: str) -> list[str]:
    """The run's policies a rule enforces (see the module)."""
    span = passages_by_id(document).get(rule.cite.passage)
    quoted = stems(rule.cite.words)
    found = [policy for policy in catalog.policies
             if (span is not None and rule_passage(document, policy.text) == span)
             or (quoted and len(stems(policy.text) & quoted) >= MIN_COVERAGE * len(quoted))]
    if rule.scope.flows:
        wanted = stems(" ".join(rule.scope.flows))
        flows = {flow.id for flow in catalog.flows if stems(f"{flow.name} {flow.description}") & wanted}
        found = [policy for policy in found if set(policy.flows) & flows]
    return [policy.id for policy in found]
