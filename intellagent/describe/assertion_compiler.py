"""Policies compiled into assertions: one call per batch of policies, every answer checked before it is kept.

A batch's answer (`assertion_answers`) names tools, arguments and columns from enums of the domain's; each
assertion it proposes is turned into the typed language of `artifacts.assertions`, checked for types and
for evidence in its policy's words (`assertion_checks`), and kept with an id of its own (P07.1, P07.2, ...)
or refused with the reason, noted in policies.json's `errors`. A batch whose call fails compiles into
nothing, noted the same way: its policies are judged as before, by the checks mapped to them and the judge.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import BaseModel, TypeAdapter

from intellagent.artifacts import Assertion, Condition, PolicyCatalog, SameEntity
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertion_checks import problems
from intellagent.describe.vocabulary import Vocabulary
from intellagent.llm import LLM
from intellagent.prompt_files import render

_ASSERTION: TypeAdapter[Assertion] = TypeAdapter(Assertion)


def batches(catalog: PolicyCatalog, size: int) -> list[tuple[str, ...]]:
    """The catalog's policy ids in batches of `size`, in id order."""
    ids = [policy.id for policy in catalog.policies]
    return [tuple(ids[start:start + size]) for start in range(0, len(ids), size)]


async def compiled_batch(
    llm: LLM, reading: str, catalog: PolicyCatalog, batch: tuple[str, ...], vocabulary: Vocabulary
) -> tuple[list[Assertion], list[str]]:
    """The assertions a batch of policies compiles into, and why each proposed one that was refused was (one call).

    Args:
        reading: the policy document as describe's prompts show it.

    Raises:
        LLMError: no valid answer.
    """
    messages = render("describe/assertions", policy=reading, names=vocabulary.listing(),
                      policies=catalog.listing(list(batch)))
    answer = await llm.answer(messages, assertions_schema(vocabulary, list(batch)), step="describe/assertions")
    return compiled(answer, catalog, vocabulary)


def compiled(answer: BaseModel, catalog: PolicyCatalog, vocabulary: Vocabulary) -> tuple[list[Assertion], list[str]]:
    """The answer's assertions that stand, numbered per policy in answer order (a repeat kept once), and a note
    for each refused."""
    kept: dict[str, list[Assertion]] = defaultdict(list)
    notes = []
    for proposed in answer.assertions:  # type: ignore[attr-defined]
        fields = proposed.model_dump(mode="json")
        policy = catalog.policy(fields["policy"])
        assertion = _ASSERTION.validate_python({**typed(fields), "id": "", "policy": policy.id})
        found = problems(assertion, vocabulary, policy)
        if found:
            notes.append(f"assertions: a {assertion.kind} assertion of {policy.id} was refused: {'; '.join(found)}")
            continue
        content = assertion.model_dump(exclude={"id", "rationale"})
        if all(other.model_dump(exclude={"id", "rationale"}) != content for other in kept[policy.id]):
            kept[policy.id].append(assertion)
    numbered = [assertion.model_copy(update={"id": f"{pid}.{number}"})
                for pid in (p.id for p in catalog.policies) for number, assertion in enumerate(kept[pid], start=1)]
    return numbered, notes


def typed(fields: dict[str, Any]) -> dict[str, Any]:
    """An answered assertion in the language's own terms: `tool.argument` and `table.column` names split, and the
    fields of its kind."""
    kind = fields["kind"]
    found: dict[str, Any] = {"kind": kind, "rationale": " ".join(fields["rationale"].split())}
    if kind == "order":
        found.update(before=fields["before"], then=fields["then"])
        first, then = fields.get("before_argument"), fields.get("then_argument")
        if first or then:
            found["same"] = SameEntity(before=_own(fields["before"], first), then=_own(fields["then"], then))
    elif kind == "precondition":
        found.update(tool=fields["tool"], any_of=[_condition(fields["tool"], c) for c in fields["any_of"]])
    elif kind == "bound":
        table, key = fields["counted"].split(".", 1) if fields.get("counted") else (None, None)
        found.update(tool=fields["tool"], measure=fields["measure"], argument=_own(fields["tool"], fields["argument"]),
                     table=table, key=key, op=fields["op"], value=fields["value"])
    elif kind == "forbidden":
        argument = fields.get("argument")
        found.update(tool=fields["tool"], argument=_own(fields["tool"], argument) if argument else None,
                     value=fields.get("value"))
    else:
        found["tool"] = fields["tool"]
    return found


def _condition(tool: str, fields: dict[str, Any]) -> Condition:
    table, key = fields["key"].split(".", 1)
    column = _own(table, fields["column"])
    since = _own(table, fields["since_column"]) if fields.get("since_column") else None
    return Condition(argument=_own(tool, fields["argument"]), table=table, key=key, column=column, op=fields["op"],
                     value=fields["value"] if fields["value"] is not None else "", since=fields.get("since"),
                     since_column=since)


def _own(owner: str, qualified: str | None) -> str:
    """A `tool.argument` or `table.column` as a name of `owner`; one of another owner keeps its qualified name, and
    is refused as none of `owner`'s ('' when none was given: refused too)."""
    named_by, dot, name = (qualified or "").partition(".")
    return name if dot and named_by == owner else (qualified or "")
