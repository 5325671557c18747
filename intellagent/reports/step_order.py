"""Each dialog read against its flows' procedures: a missing step, a wrong order, an extra step (FlowBench's terms).

The steps are those a program sees in a transcript (`checks.procedure_steps`): the chatbot's calls and the
user's explicit yes; a procedure's other steps only carry the order through them. A dialog's flows are
those of the policies its scenario sampled.

- **missing**: a step came, but a step the procedure puts before it, with no condition on the way,
  never did (a change made with no lookup); told once, at the first step that needed it;
- **wrong order**: both came, but the later one first (a change before the yes);
- **extra**: a call that is a step of some other flow's procedure and of none of the dialog's own (a
  cancellation in a conversation about a change); calls that are no procedure's step (a lookup, a
  calculation) are the chatbot's own business.

Two steps the procedure orders both ways (a yes before a change, and another yes after it) are not read
for their order. A dialog follows its flow when none of the three shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from intellagent.artifacts import Dialog, Flow, PolicyCatalog
from intellagent.artifacts.rates import Share
from intellagent.artifacts.run_report import FlowOrder, StepDeviation
from intellagent.checks.procedure_steps import Pair, observed, orders, shown_as


def step_order(catalog: PolicyCatalog, dialogs: list[Dialog]) -> list[FlowOrder]:
    """Per flow with a procedure: its dialogs (those of `dialogs` that sampled one of its policies) and how many
    followed it, with every deviation."""
    procedural = _visible(catalog.flows)
    flows = {dialog.id: flows_of_dialog(catalog, dialog) for dialog in dialogs}
    extra = {dialog.id: procedural - _visible(flows[dialog.id]) for dialog in dialogs}
    found = []
    for flow in catalog.flows:
        if flow.sop is None:
            continue
        own = [dialog for dialog in dialogs if flow in flows[dialog.id]]
        required, ordered = orders(flow.sop)
        deviations: list[StepDeviation] = []
        followed = 0
        for dialog in own:
            seen = list(deviations_in(dialog, required, ordered, extra=extra[dialog.id]))
            followed += not seen
            deviations += seen
        found.append(FlowOrder(id=flow.id, name=flow.name, steps=len(flow.sop.steps), dialogs=len(own),
                               followed=Share.of(followed, len(own)), deviations=deviations))
    return found


def _visible(flows: Iterable[Flow]) -> set[str]:
    """The steps of the flows' procedures a transcript shows."""
    return {signature for flow in flows if flow.sop for step in flow.sop.steps if (signature := shown_as(step))}


def deviations_in(dialog: Dialog, required: set[Pair], ordered: set[Pair], *, extra: set[str]
                  ) -> Iterator[StepDeviation]:
    """Where `dialog` leaves a procedure whose `orders` are `required` and `ordered`; `extra` are the steps that are
    some other flow's and none of its own."""
    first: dict[str, int] = {}
    for turn, signature in observed(dialog.transcript):
        first.setdefault(signature, turn)
        if signature in extra:
            yield StepDeviation(dialog=dialog.id, kind="extra", step=signature, turn=turn,
                                detail=f"{signature} is a step of another flow's procedure, not of this dialog's")
    missing: dict[str, str] = {}  # a step that never came → the first step that needed it: reported once, there
    for before, after in sorted(ordered):
        if after not in first:
            continue
        if before not in first and (before, after) in required:
            if before not in missing or first[after] < first[missing[before]]:
                missing[before] = after
        elif before in first and first[after] < first[before]:
            yield StepDeviation(dialog=dialog.id, kind="wrong_order", step=after, turn=first[after],
                                detail=f"{after} (turn {first[after]}) came before {before} (turn {first[before]})")
    for before, after in sorted(missing.items()):
        yield StepDeviation(dialog=dialog.id, kind="missing", step=before, turn=first[after],
                            detail=f"{after} came with no {before} before it")


def flows_of_dialog(catalog: PolicyCatalog, dialog: Dialog) -> list[Flow]:
    """The flows of the policies a dialog's scenario sampled."""
    ids = {flow for policy in catalog.policies if policy.id in dialog.policies for flow in policy.flows}
    return [flow for flow in catalog.flows if flow.id in ids]
