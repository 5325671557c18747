"""A flow's standard operating procedure, read from the document in one call and made a canonical graph.

The answer lists steps (a tool to call, a fact to ask, a yes to get, something to tell, a handover) and
which step comes before which, by their numbers in the answer. What comes back is made a valid, canonical
directed acyclic graph with networkx, whatever the model said:

- a call or handover with no tool is dropped (a handover takes the domain's one tool that ends a
  conversation, if it has exactly one); a step of another kind names no tool; a call of a tool that ends
  the conversation is a handover;
- an edge to a step that does not exist, or from a step to itself, is dropped, and so is a repeat;
- a cycle is broken by dropping, of its edges, the one given last; an unconditional edge implied by
  others (a before b, b before c, and a before c) is dropped (`transitive_reduction`);
- the steps are numbered S1, S2, ... in a topological order that breaks ties by the steps' own content,
  not by the answer's order, so two readings of one procedure listed in other orders give one graph.

Every change is noted in policies.json's `errors`.
"""

from __future__ import annotations

from typing import Any, Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import STEP_KINDS, Flow, PolicyCatalog, SopEdge, SopGraph, SopStep
from intellagent.describe.vocabulary import Vocabulary, enum
from intellagent.llm import LLM
from intellagent.prompt_files import render

MAX_STEPS = 12
MAX_EDGES = 24
STEP_TEXT = 120
CONDITION = 160


def procedure_schema(vocabulary: Vocabulary, policies: list[str]) -> type[BaseModel]:
    """The answer of one flow's procedure: steps naming the domain's tools and the flow's policies, and edges."""
    tool = enum("Tool", list(vocabulary.tools)) if vocabulary.tools else None
    policy = enum("PolicyId", policies) if policies else None
    step = create_model(
        "StepAnswer", __config__=ConfigDict(extra="forbid"),
        kind=(Literal[STEP_KINDS], ...),  # type: ignore[valid-type]
        tool=((tool | None) if tool else None, None),
        text=(str, Field(default="", max_length=STEP_TEXT)),
        policies=(list[policy] if policy else list[str], Field(default_factory=list, max_length=4)),  # type: ignore[valid-type]
        required=(bool, Field(default=False, description="The policy demands this step before the steps after it.")),
    )
    edge = create_model("EdgeAnswer", __config__=ConfigDict(extra="forbid"),
                        before=(int, Field(ge=1, le=MAX_STEPS)), after=(int, Field(ge=1, le=MAX_STEPS)),
                        condition=(str, Field(default="", max_length=CONDITION)))
    return create_model("SopAnswer", __config__=ConfigDict(extra="forbid"),
                        steps=(list[step], Field(max_length=MAX_STEPS)),  # type: ignore[valid-type]
                        edges=(list[edge], Field(default_factory=list, max_length=MAX_EDGES)))  # type: ignore[valid-type]


async def flow_procedure(
    llm: LLM, reading: str, catalog: PolicyCatalog, flow: Flow, vocabulary: Vocabulary
) -> tuple[SopGraph | None, list[str]]:
    """The flow's procedure (None when the answer keeps no step), with a note for each change made to it (one call).

    Args:
        reading: the policy document as describe's prompts show it.

    Raises:
        LLMError: no valid answer.
    """
    ids = [policy.id for policy in catalog.policies if flow.id in policy.flows]
    label = f"{flow.name}: {flow.description}" if flow.description else flow.name
    messages = render("describe/sop", policy=reading, flow=label, policies=catalog.listing(ids) or "(none)",
                      tools=vocabulary.listing(tables=False))
    answer = await llm.answer(messages, procedure_schema(vocabulary, ids), step="describe/sop")
    return canonical_procedure(answer.model_dump(mode="json"), vocabulary, flow=flow.id, policies=set(ids))


def canonical_procedure(answer: dict[str, Any], vocabulary: Vocabulary, *, flow: str, policies: set[str]
                        ) -> tuple[SopGraph | None, list[str]]:
    """The answered steps and edges as a valid canonical graph, and a note for each change (see the module).

    Args:
        policies: the flow's policy ids, which alone a step may come from.
    """
    notes: list[str] = []
    steps = {number: step for number, step in enumerate(
        (_step(raw, vocabulary, flow, notes) for raw in answer["steps"]), start=1) if step is not None}
    for step in steps.values():
        step.policies = [policy for policy in step.policies if policy in policies]
    graph = nx.DiGraph()
    graph.add_nodes_from(steps)
    for position, raw in enumerate(answer["edges"]):
        before, after = raw["before"], raw["after"]
        if before not in steps or after not in steps or before == after:
            notes.append(f"{flow}: the order {before} → {after} names no pair of steps; left out")
        elif not graph.has_edge(before, after):
            graph.add_edge(before, after, condition=" ".join(raw["condition"].split()), position=position)
    _break_cycles(graph, flow, notes)
    _drop_implied(graph)
    if not steps:  # a flow the document gives no procedure, or one whose every step was left out (noted)
        return None, notes
    order = list(nx.lexicographical_topological_sort(graph, key=lambda n: (*_content(steps[n]), f"{n:03d}")))
    ids = {number: f"S{place}" for place, number in enumerate(order, start=1)}
    return SopGraph(
        steps=[steps[n].model_copy(update={"id": ids[n]}) for n in order],
        edges=sorted((SopEdge(before=ids[a], after=ids[b], condition=data["condition"])
                      for a, b, data in graph.edges(data=True)),
                     key=lambda e: (int(e.before[1:]), int(e.after[1:]))),
    ), notes


def _step(raw: dict[str, Any], vocabulary: Vocabulary, flow: str, notes: list[str]) -> SopStep | None:
    kind, tool = raw["kind"], raw.get("tool")
    if kind in ("call", "handoff"):
        if tool is None and kind == "handoff":
            ending = [name for name, found in vocabulary.tools.items() if found.ends_dialog]
            tool = ending[0] if len(ending) == 1 else None
        if tool is None:
            notes.append(f"{flow}: a {kind} step names no tool; left out")
            return None
        kind = "handoff" if vocabulary.tools[tool].ends_dialog else "call"
    else:
        tool = None
    return SopStep(id="", kind=kind, tool=tool, text=" ".join(raw.get("text", "").split()),
                   policies=list(dict.fromkeys(raw.get("policies", []))), required=bool(raw.get("required")))


def _content(step: SopStep) -> tuple[str, ...]:
    return (str(STEP_KINDS.index(step.kind)), step.tool or "", step.text.lower())


def _break_cycles(graph: nx.DiGraph, flow: str, notes: list[str]) -> None:
    """Drop, from each cycle left, the edge given last, until none is left."""
    while not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        before, after, *_ = max(cycle, key=lambda edge: graph.edges[edge[0], edge[1]]["position"])
        graph.remove_edge(before, after)
        notes.append(f"{flow}: the order {before} → {after} closed a cycle; left out")


def _drop_implied(graph: nx.DiGraph) -> None:
    """Drop the unconditional edges that other edges imply; a conditional one says more, and stays."""
    kept = nx.transitive_reduction(graph)
    for before, after, data in list(graph.edges(data=True)):
        if not kept.has_edge(before, after) and not data["condition"]:
            graph.remove_edge(before, after)
