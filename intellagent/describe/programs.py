"""What a program can check of the policies, put into the catalog: each flow's procedure, the compiled assertions
and the rules file's rules.

Describe reads each flow's procedure (`procedure_reading`, one call per flow) and compiles the policies into
assertions (`assertion_compiler`, one call per batch), side by side, and reads the domain's rules file with no call
(`rules.review`); this module puts their results into the catalog. Each enters the catalog's check map by
construction, with no call: a compiled assertion as the check `compiled <id>` enforcing the policy it was
compiled from, a rule as `rule <id>` enforcing the policies its citation maps it to, a procedure with
required steps as `procedure <flow id>` enforcing the flow's policies. A call that failed leaves its flow
without a procedure, or its batch without assertions, and is noted in the catalog's `errors`, as is each
rule refused or mapped to no policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from intellagent.artifacts import Assertion, PolicyCatalog, SopGraph
from intellagent.artifacts.rules import RefusedRule, RuleInForce
from intellagent.checks.compiled_checks import PROCEDURE


@dataclass(frozen=True)
class ProcedureResult:
    """A flow's procedure as read (None: the answer kept no step, or the call failed), and notes on it."""

    flow: str
    procedure: SopGraph | None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BatchResult:
    """A batch's compiled assertions, and notes on those refused (or why the call failed)."""

    batch: tuple[str, ...]
    assertions: list[Assertion]
    notes: list[str] = field(default_factory=list)


def with_programs(catalog: PolicyCatalog, procedures: list[ProcedureResult], batches: list[BatchResult],
                  rules: Sequence[RuleInForce] = (), refused: Sequence[RefusedRule] = ()) -> PolicyCatalog:
    """The catalog with each flow's procedure, the assertions in policy order and the rules in force, each mapped to
    its policies as a check (see the module), the rules refused, and every note in `errors`."""
    read = {result.flow: result.procedure for result in procedures}
    flows = [flow.model_copy(update={"sop": read.get(flow.id)}) for flow in catalog.flows]
    by_policy: dict[str, list[Assertion]] = {policy.id: [] for policy in catalog.policies}
    for result in batches:
        for assertion in result.assertions:
            by_policy[assertion.policy].append(assertion)
    assertions = [assertion for found in by_policy.values() for assertion in found]
    checks = {**catalog.checks, **{assertion.check: [assertion.policy] for assertion in assertions},
              **{held.rule.check: held.policies for held in rules}}
    for flow in flows:
        if flow.sop is not None and any(step.required for step in flow.sop.steps):
            checks[PROCEDURE + flow.id] = [policy.id for policy in catalog.policies if flow.id in policy.flows]
    order = {flow.id: number for number, flow in enumerate(catalog.flows)}
    ordered = sorted(procedures, key=lambda result: order.get(result.flow, len(order)))
    notes = [note for result in ordered for note in result.notes]
    notes += [note for result in sorted(batches, key=lambda r: r.batch) for note in result.notes]
    notes += [f"rules: {item.id} refused: {item.reason}" for item in refused]
    notes += [f"rules: {held.rule.id} enforces no policy of this run (none comes from its passage "
              f"{held.rule.cite.passage}); its findings decide none" for held in rules if not held.policies]
    return catalog.model_copy(update={"flows": flows, "assertions": assertions, "checks": checks,
                                      "rules": list(rules), "refused_rules": list(refused),
                                      "errors": [*catalog.errors, *notes]})
