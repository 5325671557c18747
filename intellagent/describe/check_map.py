"""Which policies each deterministic check enforces: one call, whose answer can only name real ids."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import Category, Policy, PolicyCatalog
from intellagent.checks import Check
from intellagent.describe.evidence import evidenced
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render


def check_map_schema(catalog: PolicyCatalog, checks: list[Check]) -> type[BaseModel]:
    """One list of policy ids per check, each id one of the catalog's."""
    ids = Literal[tuple(policy.id for policy in catalog.policies)]  # type: ignore[valid-type]
    fields = {
        f"c{number}": (list[ids], Field(default_factory=list, alias=check.name, max_length=len(catalog.policies),
                                        description=check.rule))
        for number, check in enumerate(checks)
    }
    return create_model("CheckPolicies", __config__=ConfigDict(extra="forbid", populate_by_name=True), **fields)


def checks_text(checks: list[Check]) -> str:
    """The checks as the prompt lists them."""
    return "\n".join(f"{check.name}: {check.rule}" for check in checks)


MAX_SHARE = 0.5
"""A check mapped to more than this share of the policies (of four or more) is not believed: one rule a
program decides cannot be the whole policy, and a small model tends to list every id for a check it
cannot place."""


def check_map(
    answer: BaseModel, catalog: PolicyCatalog, checks: list[Check]
) -> tuple[dict[str, list[str]], list[str]]:
    """Check name → the policies it enforces (no repeats), and a note for each mapping not believed.

    A check mapped to most policies is left unmapped; a check that declares a category keeps only the
    policies of that category (see `in_category`): the confirmation check is not pinned on a rule about
    changing items. A check left unmapped still runs; its findings then sit beside the judge's verdict
    without deciding any policy.
    """
    total = len(catalog.policies)
    declared = {check.name: check.category for check in checks if check.category}
    mapped: dict[str, list[str]] = {}
    notes = []
    for name, ids in answer.model_dump(by_alias=True).items():
        unique = list(dict.fromkeys(ids))
        if total >= 4 and len(unique) > MAX_SHARE * total:
            notes.append(f"checks: {name} was mapped to {len(unique)} of {total} policies; left unmapped")
            continue
        category = declared.get(name)
        if category:
            outside = [catalog.policy(pid) for pid in unique if not in_category(catalog.policy(pid), category)]
            if outside:
                shown = ", ".join(f"{policy.id} ({policy.category})" for policy in outside)
                notes.append(f"checks: {name} enforces {category} policies; its mapping to {shown} was refused")
                unique = [pid for pid in unique if pid not in {policy.id for policy in outside}]
        if unique:
            mapped[name] = unique
    return mapped, notes


def in_category(policy: Policy, category: Category) -> bool:
    """Whether a check of `category` may enforce `policy`: the policy is filed under the category, or its own
    words carry the category's cue though it was filed under another (a rule to hand the user over only
    after their explicit yes is filed as consent, and is an escalation rule too)."""
    return policy.category == category or evidenced(policy, category)


def by_category(unmapped: list[Check], catalog: PolicyCatalog) -> tuple[dict[str, list[str]], list[str]]:
    """The checks of `unmapped` that declare a category, mapped to that category's policies, with a note each.

    Only the policies that are of the category on evidence (`describe.evidence`): a confirmation check
    still decides the rules that ask for the user's yes when the model could not place it, and a
    grounding check is not pinned on a compensation rule a small model filed as knowledge extraction.
    """
    mapped, notes = {}, []
    for check in (check for check in unmapped if check.category):
        ids = [policy.id for policy in catalog.policies if evidenced(policy, check.category)]
        if ids:
            mapped[check.name] = ids
            notes.append(f"checks: {check.name} enforces the {check.category} policies ({', '.join(ids)}), "
                         "by the category it declares")
    return mapped, notes


def asks_declared(provider: str) -> bool:
    """Whether the checks that declare a category are put to a model of `provider` too. Not to the embedded
    model: it listed every id for each of them, a mapping `check_map` refuses, which cost a fifth of describe's
    output tokens for nothing; they are mapped by the policies' evidence instead (`by_category`)."""
    return provider != "local"


async def mapped_checks(llm: LLM, catalog: PolicyCatalog, checks: list[Check], *,
                        ask_declared: bool = True) -> PolicyCatalog:
    """`catalog` with the policies each deterministic check enforces (one call, none when no check is asked).

    A failed call, or a mapping not believed, leaves a check unmapped, noted in the catalog's errors:
    its findings are then reported without a policy, and the judge alone rules on every policy. A check
    that declares a category is mapped within it only, and when left unmapped, to that category's policies;
    with `ask_declared` off, it is not asked about at all.
    """
    asked = [check for check in checks if ask_declared or not check.category]
    if asked:
        messages = render("describe/checks", policies=catalog.listing(), checks=checks_text(asked))
        try:
            answer = await llm.answer(messages, check_map_schema(catalog, asked), step="describe/checks")
        except LLMError as error:
            catalog.errors.append(f"checks: not mapped to policies: {error}")
        else:
            catalog.checks, notes = check_map(answer, catalog, asked)
            catalog.errors += notes
    return _completed(catalog, checks, unmapped=[check for check in checks if check.name not in catalog.checks])


def listed_checks(catalog: PolicyCatalog, checks: list[Check], listed: dict[str, list[str]]) -> PolicyCatalog:
    """`catalog` with the policies each check enforces as a reviewed policy list maps them (no call): a check it maps
    to none enforces none, and one it does not name that declares a category is mapped to that category's
    policies, as when a model could not place it."""
    catalog.checks = {name: list(dict.fromkeys(ids)) for name, ids in listed.items() if ids}
    return _completed(catalog, checks, unmapped=[check for check in checks if check.name not in listed])


def _completed(catalog: PolicyCatalog, checks: list[Check], *, unmapped: list[Check]) -> PolicyCatalog:
    """The mapping completed by the categories the `unmapped` checks declare, and the checks that rule in every
    dialog named."""
    fallback, notes = by_category(unmapped, catalog)
    catalog.checks.update(fallback)
    catalog.errors += notes
    catalog.every_dialog = [check.name for check in checks if check.every_dialog and check.name in catalog.checks]
    return catalog
