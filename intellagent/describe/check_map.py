"""Which policies each deterministic check enforces: one call, whose answer can only name real ids."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import PolicyCatalog
from intellagent.checks import Check


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


def check_map(answer: BaseModel) -> dict[str, list[str]]:
    """Check name → the policies it enforces (no repeats), from a validated answer."""
    return {name: list(dict.fromkeys(ids)) for name, ids in answer.model_dump(by_alias=True).items() if ids}
