"""A procedure's steps as a program sees them in a transcript, and the required ones as a rule.

A program sees three kinds of step in a transcript: the chatbot's calls of tools (a handover is the call of
its tool), and the user's explicit yes to an action the chatbot stated (`consent`). A procedure's other
steps (asking, telling) only carry the order through them: a call after a question after a yes comes after
the yes. Two steps the procedure orders both ways (a yes before a change, and another yes after it) are not
read for their order.

A step marked `required` makes the procedure a rule: a dialog breaks it when a step that every path of the
procedure reaches only through the required one (the required step dominates it) came without it before, or
came before it. A condition on the way does not matter: the later step came, so its path was taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import networkx as nx

from intellagent.artifacts import Finding, Message, SopGraph, SopStep
from intellagent.artifacts.rules import Procedure
from intellagent.checks.consent import explicit_yes
from intellagent.checks.trace import Trace

YES = "confirm"
"""How the user's explicit yes is named as a step that shows."""

Pair = tuple[str, str]
"""Two steps as a transcript shows them (`shown_as`), the first ordered before the second."""


def shown_as(step: SopStep) -> str | None:
    """The step as a transcript shows it: `call <tool>`, `confirm`, or None for a step no program sees."""
    if step.tool is not None:
        return f"call {step.tool}"
    return YES if step.kind == "confirm" else None


def observed(messages: Sequence[Message], agreed: dict[int, bool] | None = None) -> list[tuple[int, str]]:
    """The steps a program sees in a transcript, in order: each call the chatbot made on the world, and each
    explicit yes of the user (with its transcript index)."""
    seen = []
    for turn, message in enumerate(messages):
        if message.role == "chatbot":
            seen += [(turn, f"call {call.name}") for call in message.tool_calls if not call.reported]
        elif explicit_yes(messages, turn, agreed):
            seen.append((turn, YES))
    return seen


def orders(procedure: SopGraph) -> tuple[set[Pair], set[Pair]]:
    """The pairs of visible steps the procedure orders (before, after): those with no condition on the way, and
    all of them; a pair ordered both ways is left out of both."""
    shown = {step.id: signature for step in procedure.steps if (signature := shown_as(step))}
    every = nx.DiGraph([(e.before, e.after) for e in procedure.edges])
    plain = nx.DiGraph([(e.before, e.after) for e in procedure.edges if not e.condition])
    every.add_nodes_from(shown)
    plain.add_nodes_from(shown)
    pairs = {(shown[a], shown[b]) for a in shown for b in nx.descendants(every, a) if b in shown}
    unconditional = {(shown[a], shown[b]) for a in shown for b in nx.descendants(plain, a) if b in shown}
    both_ways = {(a, b) for a, b in pairs if (b, a) in pairs or a == b}
    return unconditional - both_ways, pairs - both_ways


def procedure_seen(procedure: Procedure, trace: Trace) -> bool:
    """Whether a step of the procedure shows in the dialog."""
    visible = {signature for step in procedure.steps if (signature := shown_as(step))}
    return any(signature in visible for _, signature in observed(trace.messages, dict(trace.agreed)))


def demanded(procedure: Procedure) -> set[Pair]:
    """The pairs of visible steps (required, later) where the required step dominates the later one: every path from
    the procedure's start to the later step goes through it."""
    graph = nx.DiGraph([(edge.before, edge.after) for edge in procedure.edges])
    graph.add_nodes_from(step.id for step in procedure.steps)
    start = object()
    graph.add_edges_from((start, node) for node in list(graph.nodes) if graph.in_degree(node) == 0)
    if graph.number_of_nodes() == 1 or not any(True for _ in graph.successors(start)):
        return set()  # every step is on a cycle: no start to dominate from
    dominators = nx.immediate_dominators(graph, start)
    shown = {step.id: signature for step in procedure.steps if (signature := shown_as(step))}
    pairs = set()
    for step in procedure.steps:
        if not step.required or step.id not in shown:
            continue
        for later, signature in shown.items():
            above = dominators.get(later)
            while above is not None and above is not start and above != step.id:
                above = dominators.get(above)
            if above == step.id and later != step.id and signature != shown[step.id]:
                pairs.add((shown[step.id], signature))
    return pairs


def procedure_breaches(procedure: Procedure, trace: Trace) -> Iterator[Finding]:
    """A finding for each required step missing before, or taken after, a step it dominates in the procedure.

    A yes belongs to no procedure in particular: the user agrees to a change of flights as to a cancellation. So
    where the procedure has a call of its own besides its required ones (the cancellation itself), its steps are
    read only in a dialog that made one; a dialog that agreed to another change never entered it."""
    required = {signature for step in procedure.steps if step.required and (signature := shown_as(step))}
    unconditional = demanded(procedure)
    first: dict[str, int] = {}
    for turn, signature in observed(trace.messages, dict(trace.agreed)):
        first.setdefault(signature, turn)
    own_calls = {signature for step in procedure.steps if step.tool is not None and not step.required
                 and (signature := shown_as(step))}
    if own_calls and not own_calls & first.keys():
        return
    for before in sorted(required):
        later = sorted((first[after], after) for step, after in unconditional if step == before and after in first)
        if not later:
            continue
        turn, after = later[0]  # told once, at the first step that needed it
        if before not in first:
            yield Finding(message=f"{procedure.flow}: {after} came with no {before} before it, which the procedure "
                                  "requires", turn=turn)
        elif turn < first[before]:
            yield Finding(message=f"{procedure.flow}: {after} (turn {turn}) came before {before} (turn "
                                  f"{first[before]}), which the procedure requires first", turn=turn)
