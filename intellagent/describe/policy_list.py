"""A reviewed policy list (`environment.policy_list`, YAML): the task, flows, policies and check mapping a run reads
instead of extracting them from the policy document.

Extraction on every run costs several calls, and its ids drift from one run to the next (P03 is not the same rule
twice), so a baseline compares policies whose ids mean different things. A list extracted once by a strong model,
reviewed by a person and committed gives every run, on any model, the same policies under the same ids. What it
says is authoritative: categories and challenge scores are kept as written, and a check mapped in `checks:` enforces
exactly the policies listed for it.

    task: A customer-service assistant of a parcel company ...
    flows:
      - {id: F1, name: Holding a parcel, description: The customer wants a parcel kept at its depot.}
    policies:
      - id: P01
        text: A parcel can be held at its depot only while it is in transit.
        flows: [F1]
        category: company_policy
        challenge: 2
    checks:                 # optional: check name → the policies it enforces ([] for none)
      confirmed_before_write: [P01]

A named file that does not exist yet is written after describe extracts the policies, for review (`write_listed`);
an existing one is never overwritten.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from intellagent import text_limits
from intellagent.artifacts import Category, Flow, Policy, PolicyCatalog
from intellagent.checks import Check, every_check
from intellagent.context import RunContext, log
from intellagent.errors import UsageError
from intellagent.yaml_files import yaml_mapping

KEY = "environment.policy_list"

HEADER = """\
# The policies of {document}, extracted by a model ({model}) on {day}. Review every entry against the
# document before you commit this file: each policy one self-contained rule, in the flows it matters in, with a fair
# category and challenge (1 simple ... 5 intricate), and each check mapped to the policies it enforces. A run that
# names this file (environment.policy_list) reads it instead of extracting the policies.
"""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListedFlow(_Entry):
    """A family of conversations, as the list names it."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=2, max_length=text_limits.FLOW_NAME)
    description: str = Field(default="", max_length=text_limits.FLOW_DESCRIPTION)


class ListedPolicy(_Entry):
    """One self-contained rule, as the list words and classifies it."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=10, max_length=text_limits.POLICY)
    flows: list[str] = Field(min_length=1)
    category: Category
    challenge: int = Field(ge=1, le=5)


class PolicyList(_Entry):
    """The whole list: what a run reads instead of extracting it."""

    task: str = Field(min_length=10, max_length=text_limits.TASK)
    flows: list[ListedFlow] = Field(min_length=1)
    policies: list[ListedPolicy] = Field(min_length=1)
    checks: dict[str, list[str]] | None = Field(
        default=None, description="Check name → the policies it enforces (None: describe maps the checks)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> PolicyList:
        """Ids are unique, and every flow and policy an entry names is one of the list's."""
        for kind, ids in (("flow", [flow.id for flow in self.flows]), ("policy", [p.id for p in self.policies])):
            repeated = [name for name, count in Counter(ids).items() if count > 1]
            if repeated:
                raise ValueError(f"{kind} {repeated[0]} is listed twice; give each {kind} an id of its own")
        flows = {flow.id for flow in self.flows}
        for policy in self.policies:
            unknown = [flow for flow in policy.flows if flow not in flows]
            if unknown:
                raise ValueError(f"policy {policy.id}: flow {unknown[0]} is not one of the list's flows")
        policies = {policy.id for policy in self.policies}
        for name, ids in (self.checks or {}).items():
            unknown = [pid for pid in ids if pid not in policies]
            if unknown:
                raise ValueError(f"checks: {name}: policy {unknown[0]} is not one of the list's policies")
        return self


def read_policy_list(path: Path, checks: list[Check]) -> PolicyList:
    """The policy list at `path`, checked against the environment's checks.

    Raises:
        UsageError: the file is not YAML, or an entry is malformed or names a flow, policy or check that does not
            exist (one line naming the file and the entry).
    """
    data = yaml_mapping(path, key=KEY, holds="mapping of task, flows and policies")
    try:
        listed = PolicyList.model_validate(data)
    except ValidationError as error:
        raise UsageError(f"{KEY}: {path}: {_where(error, data)}") from None
    known = {check.name for check in checks}
    unknown = [name for name in listed.checks or {} if name not in known]
    if unknown:
        raise UsageError(f"{KEY}: {path}: checks: {unknown[0]} is not a check of the environment (its checks: "
                         f"{', '.join(sorted(known)) or 'none'})")
    return listed


def _where(error: ValidationError, data: dict[str, Any]) -> str:
    """The first problem, named by the flow or policy it is in."""
    first = error.errors()[0]
    place, said = list(first["loc"]), first["msg"].removeprefix("Value error, ")
    if len(place) >= 2 and place[0] in ("flows", "policies") and isinstance(place[1], int):
        entries = data.get(place[0]) or []
        raw = entries[place[1]] if place[1] < len(entries) else None
        kind = "flow" if place[0] == "flows" else "policy"
        named = raw.get("id") if isinstance(raw, dict) and raw.get("id") else f"number {place[1] + 1}"
        inside = ".".join(str(part) for part in place[2:])
        return f"{kind} {named}: {inside + ': ' if inside else ''}{said}"
    return f"{'.'.join(str(part) for part in place) + ': ' if place else ''}{said}"


def listed_catalog(listed: PolicyList) -> PolicyCatalog:
    """The catalog the list states: its task, flows and policies as written (no check mapped yet)."""
    return PolicyCatalog(
        task_description=listed.task,
        flows=[Flow(id=flow.id, name=flow.name, description=flow.description) for flow in listed.flows],
        policies=[Policy(**policy.model_dump()) for policy in listed.policies],
    )


def policy_list(catalog: PolicyCatalog, checks: list[Check]) -> PolicyList:
    """The list a catalog states, every check of the environment mapped (to none, where the catalog maps it to
    none), so that a reviewer sees each one. Not validated: what a model extracted is written as it is, for the
    review (and the reading) to judge."""
    return PolicyList.model_construct(
        task=catalog.task_description,
        flows=[ListedFlow.model_construct(id=flow.id, name=flow.name, description=flow.description)
               for flow in catalog.flows],
        policies=[ListedPolicy.model_construct(**policy.model_dump()) for policy in catalog.policies],
        checks={check.name: catalog.checks.get(check.name, []) for check in checks},
    )


def policy_list_text(listed: PolicyList) -> str:
    """A policy list as YAML: task, flows, policies (each with its id first), checks."""
    return yaml.safe_dump(listed.model_dump(exclude_none=True), sort_keys=False, allow_unicode=True, width=110)


def propose_list(ctx: RunContext, catalog: PolicyCatalog) -> None:
    """The extracted policies written to the policy list the config names, for review, when it does not exist yet,
    with a warning that points at it."""
    path = ctx.config.environment.policy_list
    if path is not None and write_listed(catalog, every_check(ctx.environment), path,
                                         document=ctx.config.environment.policy, model=ctx.llms["policies"].spec.label):
        log.warning("describe: the extracted policies are written to %s; review them there and commit the file, "
                    "which later runs read instead of extracting them", path)


def write_listed(catalog: PolicyCatalog, checks: list[Check], path: Path, *, document: Path, model: str) -> bool:
    """Write the policies of a catalog to `path` for review, with a header saying a model extracted them and when;
    an existing file is left as it is.

    Args:
        document: the policy document they were extracted from, which the header names.
        model: the model that extracted them, as its SPEC.

    Returns:
        Whether the file was written.
    """
    header = HEADER.format(document=document.name, model=model, day=date.today().isoformat())
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as file:  # never over a list someone wrote meanwhile
            file.write(header + policy_list_text(policy_list(catalog, checks)))
    except FileExistsError:
        return False
    return True
