"""Every passage of the policy document is the source of some policy, or is listed as the source of none.

Extraction flow by flow misses whole sections (a small model took no rule from four sections of a
store's policy: identifying the customer, asking consent, sticking to the tools, handing over), and a
rule nobody extracted is a rule the run never tests. So once the policies are merged, the passages none
of them covers (`passages.uncovered`) are read again in one call aimed at them. A rule that call gives
is kept only when it comes from one of those passages (a careless answer adds nothing), and is not one
the catalog already has; the passages still uncovered after it are listed in `policies.json`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent import text_limits
from intellagent.artifacts import CATEGORIES, Category, Passage, Policy, PolicyCatalog
from intellagent.describe.evidence import checked_policies
from intellagent.describe.extraction import same_rule, words
from intellagent.describe.passages import Span, passage_text, passages, rule_passage, uncovered
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render

RULES_PER_PASSAGE = 2
"""Rules the aimed extraction may give per passage read: a passage is a list item or a paragraph."""


class CoveringRule(BaseModel):
    """A rule read from a passage no policy came from, with the flow it matters most in."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=10, max_length=text_limits.POLICY)
    category: Category
    challenge: int = Field(ge=1, le=5)
    flow: str


async def covered(llm: LLM, catalog: PolicyCatalog, document: str, *, similarity: float,
                  shown: str | None = None) -> PolicyCatalog:
    """The catalog with the rules of the passages no policy came from, read again in one call aimed at them,
    and the passages still uncovered listed. A failed call is noted, and the passages are listed as they are.

    Args:
        similarity: word-sequence ratio from which a rule read is one the catalog already has.
        shown: the document as the prompt shows it, when not as given (its flowcharts read step by step);
            the passages are always the document's own.
    """
    spans = uncovered(document, [policy.text for policy in catalog.policies])
    if spans:
        messages = render("describe/uncovered", **prompt_values(document, catalog, spans, shown=shown))
        try:
            answer = await llm.answer(messages, covering_schema(catalog, len(spans)), step="describe/uncovered")
        except LLMError as error:
            catalog.errors.append(f"coverage: the passages no policy came from were not read again: {error}")
        else:
            catalog = with_covering_rules(catalog, answer, document, spans, similarity=similarity)
    return with_uncovered(catalog, document)


def covering_schema(catalog: PolicyCatalog, passages_read: int) -> type[BaseModel]:
    """The answer of the aimed extraction: rules whose flow is one of the catalog's, a few per passage, or none."""
    flow = Literal[tuple(f.id for f in catalog.flows)]  # type: ignore[valid-type]
    rule = create_model("CoveringRuleAnswer", __base__=CoveringRule, flow=(flow, ...))
    return create_model(
        "CoveringRules",
        __config__=ConfigDict(extra="forbid"),
        policies=(list[rule], Field(max_length=RULES_PER_PASSAGE * passages_read)),  # type: ignore[valid-type]
    )


def prompt_values(document: str, catalog: PolicyCatalog, spans: list[Span], *, shown: str | None = None
                  ) -> dict[str, str]:
    """What the aimed extraction's prompt shows: the document (as `shown`, if given), the passages, numbered with
    their lines, the flows, the categories."""
    numbered = [f"[{number}] ({f'line {b}' if b == a + 1 else f'lines {a + 1}-{b}'})\n{passage_text(document, (a, b))}"
                for number, (a, b) in enumerate(spans, start=1)]
    return {
        "policy": shown or document,
        "passages": "\n\n".join(numbered),
        "flows": "\n".join(f"- {flow.id}: {flow.name}" for flow in catalog.flows),
        "categories": ", ".join(CATEGORIES),
    }


def with_covering_rules(
    catalog: PolicyCatalog, answer: BaseModel, document: str, spans: list[Span], *, similarity: float
) -> PolicyCatalog:
    """The catalog with the aimed extraction's rules that come from one of `spans` and are new, and a note on
    the rules left out."""
    wanted = set(spans)
    known = [words(policy.text) for policy in catalog.policies]
    added: list[Policy] = []
    strays = 0
    for rule in answer.policies:  # type: ignore[attr-defined]
        said = words(rule.text)
        if rule_passage(document, rule.text) not in wanted:
            strays += 1
        elif not any(same_rule(other, said, similarity) for other in known):
            known.append(said)
            added.append(Policy(id=f"P{len(catalog.policies) + len(added) + 1:02d}",
                                text=text_limits.trimmed(rule.text, text_limits.POLICY), flows=[rule.flow],
                                category=rule.category, challenge=rule.challenge))
    added, corrected = checked_policies(added)
    errors = list(catalog.errors)
    if strays:
        errors.append(f"coverage: {strays} of the rules read again from the uncovered passages come from none of "
                      "them; left out")
    return catalog.model_copy(update={"policies": [*catalog.policies, *added], "errors": errors,
                                      "corrected": [*catalog.corrected, *corrected]})


def with_uncovered(catalog: PolicyCatalog, document: str) -> PolicyCatalog:
    """The catalog with the passages of `document` that none of its policies covers, and how many passages
    there are."""
    spans = uncovered(document, [policy.text for policy in catalog.policies])
    listed = [Passage(first_line=a + 1, last_line=b, text=passage_text(document, (a, b))) for a, b in spans]
    return catalog.model_copy(update={"passages": len(passages(document)), "uncovered": listed})
