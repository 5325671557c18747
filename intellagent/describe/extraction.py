"""The extraction calls (the task, the flows, each flow's policies) and from their answers to a
`PolicyCatalog`: flow ids, policy ids, one policy per rule.

Policies are extracted flow by flow, so a rule that applies to several flows (confirm before any
change, say) comes back once per flow, usually worded almost alike. Two extracted rules are taken for
one when their normalised word sequences are at least `similarity` alike by difflib's ratio and they
state the same numbers: rules worded alike that differ in an amount or a limit ("100 dollars per
passenger" for a cancelled flight, "50" for a delayed one) are different rules. This needs no LLM
call, costs microseconds for a few dozen rules, and gives the same catalog for the same answers. The
merged policy keeps the wording, category and challenge of its first occurrence (flow order, then
answer order) and lists every flow it was found under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from intellagent import text_limits
from intellagent.artifacts import Category, Flow, Policy, PolicyCatalog
from intellagent.context import log
from intellagent.describe.evidence import checked_policies
from intellagent.errors import IntellAgentError, RunAborted, UsageError
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render

A = TypeVar("A", bound=BaseModel)

# Bounds that keep a small model from listing sub-steps as flows or rambling through one flow.
MAX_FLOWS = 8
MAX_POLICIES_PER_FLOW = 12


class TaskAnswer(BaseModel):
    """The chatbot's task and domain in a few sentences."""

    model_config = ConfigDict(extra="forbid")
    task_description: str = Field(min_length=10, max_length=text_limits.TASK)


class FlowAnswer(BaseModel):
    """One family of conversations."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=2, max_length=text_limits.FLOW_NAME)
    description: str = Field(max_length=text_limits.FLOW_DESCRIPTION)


class FlowsAnswer(BaseModel):
    """The flows of a policy document."""

    model_config = ConfigDict(extra="forbid")
    flows: list[FlowAnswer] = Field(min_length=1, max_length=MAX_FLOWS)


class PolicyAnswer(BaseModel):
    """One rule, as the model words and classifies it."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=10, max_length=text_limits.POLICY)
    category: Category
    challenge: int = Field(ge=1, le=5)


class PoliciesAnswer(BaseModel):
    """The rules of one flow: none when the document gives the chatbot no rule for it."""

    model_config = ConfigDict(extra="forbid")
    policies: list[PolicyAnswer] = Field(max_length=MAX_POLICIES_PER_FLOW)


async def task_description(llm: LLM, document: str) -> str:
    """The chatbot's task and domain, in a few sentences (the stage cannot do without it)."""
    answer = await _essential(llm, render("describe/task", policy=document), TaskAnswer, step="describe/task")
    return text_limits.trimmed(answer.task_description, text_limits.TASK)


async def extracted_flows(llm: LLM, document: str) -> list[Flow]:
    """The families of conversation the document covers, numbered (the stage cannot do without them)."""
    answer = await _essential(llm, render("describe/flows", policy=document), FlowsAnswer, step="describe/flows")
    return number_flows(answer)


async def flow_policies(llm: LLM, document: str, flow: Flow) -> list[PolicyAnswer]:
    """The policies of one flow.

    Raises:
        LLMError: no valid answer; the other flows go on without this one.
    """
    label = f"{flow.name}: {flow.description}" if flow.description else flow.name
    messages = render("describe/policies", policy=document, flow=label)
    answer = await llm.answer(messages, PoliciesAnswer, step="describe/policies")
    return answer.policies


def policy_catalog(task: str, flows: list[Flow], extracted: dict[str, list[PolicyAnswer]], failures: dict[str, str],
                   *, similarity: float, document: Path) -> PolicyCatalog:
    """One policy per rule across flows, categories and challenge scores checked against their text, and the
    flows whose extraction failed.

    Args:
        document: the policy document's path, which an error names.

    Raises:
        RunAborted, UsageError: no flow gave a policy (see `nothing_extracted`).
    """
    policies = merge_duplicates([(flow.id, extracted[flow.id]) for flow in flows if flow.id in extracted],
                                similarity=similarity)
    if not policies:
        raise nothing_extracted(document, flows, failures)
    errors = [f"{flow.id} ({flow.name}): {failures[flow.id]}" for flow in flows if flow.id in failures]
    policies, corrected = checked_policies(policies)
    for correction in corrected:
        log.info("describe: %s", correction)
    return PolicyCatalog(task_description=task, flows=flows, policies=policies, errors=errors, corrected=corrected)


async def _essential(llm: LLM, messages: list[Any], schema: type[A], *, step: str) -> A:
    """An answer the stage cannot do without: its failure stops the stage (artifacts so far stay)."""
    try:
        return await llm.answer(messages, schema, step=step)
    except LLMError as error:
        raise RunAborted(f"describe: {step} failed, so nothing can be extracted: {error}") from error


def number_flows(answer: FlowsAnswer) -> list[Flow]:
    """The answered flows with ids F1, F2, … in answer order; a name given twice is kept once."""
    flows: list[Flow] = []
    seen: set[str] = set()
    for item in answer.flows:
        key = " ".join(words(item.name))
        if key in seen:
            continue
        seen.add(key)
        description = text_limits.trimmed(item.description, text_limits.FLOW_DESCRIPTION)
        flows.append(Flow(id=f"F{len(flows) + 1}", name=item.name.strip(), description=description))
    return flows


@dataclass
class _Rule:
    words: list[str]
    answer: PolicyAnswer
    flows: list[str] = field(default_factory=list)


def merge_duplicates(extracted: list[tuple[str, list[PolicyAnswer]]], *, similarity: float) -> list[Policy]:
    """One policy per distinct rule, with ids P01, P02, … in order of first occurrence.

    Args:
        extracted: (flow id, its answered policies), in flow order.
        similarity: word-sequence ratio (0–1) from which two answers are the same rule.
    """
    rules: list[_Rule] = []
    for flow_id, answers in extracted:
        for answer in answers:
            said = words(answer.text)
            rule = next((r for r in rules if same_rule(r.words, said, similarity)), None)
            if rule is None:
                rule = _Rule(words=said, answer=answer)
                rules.append(rule)
            if flow_id not in rule.flows:
                rule.flows.append(flow_id)
    return [
        Policy(
            id=f"P{number:02d}",
            text=text_limits.trimmed(rule.answer.text, text_limits.POLICY),
            flows=rule.flows,
            category=rule.answer.category,
            challenge=rule.answer.challenge,
        )
        for number, rule in enumerate(rules, start=1)
    ]


def nothing_extracted(document: Path, flows: list[Flow], failures: dict[str, str]) -> IntellAgentError:
    """Why a document gave no policy: the model found no rule in any of its flows (a usage error that names
    the document: no re-run mends it), or some extraction failed (the run stops; the same command resumes).

    Args:
        document: the policy document's path.
        flows: the flows extracted, in order.
        failures: flow id → why its extraction failed.
    """
    failed = [f"{flow.id} ({flow.name}): {failures[flow.id]}" for flow in flows if flow.id in failures]
    if failed:
        return RunAborted(f"describe: no policy could be extracted from any flow; first failure: {failed[0]}")
    return UsageError(
        f"{document}: no rule found in this policy document (the policies model listed none for "
        f"{'its flow' if len(flows) == 1 else f'any of its {len(flows)} flows'}); write in it the rules the chatbot "
        "must keep, or give llm.policies a stronger model"
    )


def same_rule(first: list[str], second: list[str], similarity: float) -> bool:
    """Whether two normalised word sequences are one rule: alike enough, and with the same numbers."""
    if _numbers(first) != _numbers(second):
        return False
    matcher = SequenceMatcher(None, first, second, autojunk=False)
    # The cheap upper bounds rule out most pairs before the real ratio is computed.
    return matcher.real_quick_ratio() >= similarity and matcher.quick_ratio() >= similarity and (
        matcher.ratio() >= similarity
    )


_WORD = re.compile(r"[a-z0-9$%]+")


def words(text: str) -> list[str]:
    """Lower-case words without punctuation: wording noise that must not tell two rules apart."""
    return _WORD.findall(text.lower())


def _numbers(words: list[str]) -> set[str]:
    return {word for word in words if any(character.isdigit() for character in word)}
