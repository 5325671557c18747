"""What a program can check of the policies, put into the catalog: each flow's procedure and the compiled assertions.

Describe reads each flow's procedure (`procedures`, one call per flow) and compiles the policies into
assertions (`assertions`, one call per batch), side by side; this module puts their results into the
catalog. A compiled assertion enters the catalog's check map by construction, as the check
`compiled <id>` enforcing the policy it was compiled from: no call maps it. A call that failed leaves its
flow without a procedure, or its batch without assertions, and is noted in the catalog's `errors`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from intellagent.artifacts import Assertion, PolicyCatalog, SopGraph


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


def with_programs(catalog: PolicyCatalog, procedures: list[ProcedureResult], batches: list[BatchResult]
                  ) -> PolicyCatalog:
    """The catalog with each flow's procedure, the assertions in policy order, each mapped to its policy as the
    check `compiled <id>`, and every note in `errors`."""
    read = {result.flow: result.procedure for result in procedures}
    flows = [flow.model_copy(update={"sop": read.get(flow.id)}) for flow in catalog.flows]
    by_policy: dict[str, list[Assertion]] = {policy.id: [] for policy in catalog.policies}
    for result in batches:
        for assertion in result.assertions:
            by_policy[assertion.policy].append(assertion)
    assertions = [assertion for found in by_policy.values() for assertion in found]
    checks = {**catalog.checks, **{assertion.check: [assertion.policy] for assertion in assertions}}
    order = {flow.id: number for number, flow in enumerate(catalog.flows)}
    ordered = sorted(procedures, key=lambda result: order.get(result.flow, len(order)))
    notes = [note for result in ordered for note in result.notes]
    notes += [note for result in sorted(batches, key=lambda r: r.batch) for note in result.notes]
    return catalog.model_copy(update={"flows": flows, "assertions": assertions, "checks": checks,
                                      "errors": [*catalog.errors, *notes]})
