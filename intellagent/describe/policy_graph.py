"""The policy graph: one node per policy, one weighted edge per pair (networkx, undirected).

An edge's weight (0–10) is how likely the two policies matter in the same conversation. The reference
design asks the LLM once per pair, N(N−1)/2 calls. Here one call scores a block of policies, each
against every other policy, so a run makes ⌈N / block size⌉ calls and every pair is scored twice,
once from each side. The two scores are averaged, which also evens out a model's lopsided answers.
With `sides=1` each policy scores only those after it, so every pair is scored once, by its earlier
policy: half the answer to write, the choice for a slow model.
A pair scored from one side only (the other call failed after its retries) keeps that score; a pair
scored from neither side gets the fallback weight: the mean of all scored pairs (5, the middle of
the scale, when nothing was scored), a neutral guess that neither favours nor excludes the pair.
Every edge keeps its two scores, and the graph lists its one-sided and fallback pairs, so each weight
can be explained from graph.json alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts import PolicyCatalog
from intellagent.config import DescribeConfig
from intellagent.context import log
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render

WEIGHT_RULE = (
    "mean of the directed scores (0-10): two when pair_scores is 2, one when it is 1; "
    "the one score when the other call failed; fallback_weight when no side was scored"
)
MIDDLE_WEIGHT = 5.0

# `graph_weights: flows`: the weights a model gives most often when it has little else to go on.
SHARED_FLOW_WEIGHT = 8.0
OTHER_FLOW_WEIGHT = 2.0
FLOWS_WEIGHT_RULE = (
    f"{SHARED_FLOW_WEIGHT:g} when the two policies share a flow, {OTHER_FLOW_WEIGHT:g} otherwise (no LLM call)"
)


@dataclass
class BlockScores:
    """What one scoring call returned: for each policy of its block, a score for every other policy."""

    block: tuple[str, ...]
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    error: str | None = None


def scoring_blocks(ids: list[str], size: int, *, sides: int = 2) -> list[tuple[str, ...]]:
    """The scoring policies in consecutive blocks of `size`: one call each (none for a single policy).

    With one side the last policy scores nothing: every pair it is in is scored by the other policy.
    """
    if len(ids) < 2:
        return []
    scorers = ids if sides == 2 else ids[:-1]
    return [tuple(scorers[start : start + size]) for start in range(0, len(scorers), size)]


def scores_schema(catalog: PolicyCatalog, block: tuple[str, ...], *, sides: int = 2) -> type[BaseModel]:
    """The answer of one scoring call: for each policy of `block`, each policy it scores → 0–10.

    Every key is a real policy id and is required, so the model can neither skip a pair nor invent one.
    The policies that share a flow with the scorer come first: a model writes the keys in schema order,
    and a small one tends to repeat its last number, so the likely pairs are scored together.
    """
    fields: dict[str, Any] = {
        scorer: (
            create_model(
                f"ScoresOf{scorer}",
                __base__=_Strict,
                **{other: (int, Field(ge=0, le=10)) for other in scored_by(catalog, scorer, sides=sides)},
            ),
            ...,
        )
        for scorer in block
    }
    return create_model("EdgeScores", __base__=_Strict, **fields)


def scored_by(catalog: PolicyCatalog, scorer: str, *, sides: int = 2) -> list[str]:
    """The ids `scorer` gives a score to — every other policy, or with one side those after it —
    those sharing a flow with `scorer` first, each group in id order."""
    flows = set(catalog.policy(scorer).flows)
    ids = [policy.id for policy in catalog.policies]
    after = ids.index(scorer) + 1 if sides == 1 else 0
    others = [policy for policy in catalog.policies[after:] if policy.id != scorer]
    return [p.id for p in others if flows & set(p.flows)] + [p.id for p in others if not flows & set(p.flows)]


class _Strict(BaseModel):
    # No keys beyond the required ones: a grammar-constrained model cannot pad its answer.
    model_config = ConfigDict(extra="forbid")


def scoring_prompt_values(catalog: PolicyCatalog, block: tuple[str, ...], *, sides: int = 2) -> dict[str, str]:
    """The edges prompt's values. The listing of every policy, the same in every call, comes first, so
    a provider's prefix cache reuses it; each policy shows its flows, and each scorer the policies it
    shares a flow with: the strongest hint of which policies meet in one conversation."""
    flow_names = {flow.id: flow.name for flow in catalog.flows}
    listing = {
        policy.id: f"{policy.id} ({', '.join(flow_names.get(f, f) for f in policy.flows)}): {policy.text}"
        for policy in catalog.policies
    }
    focus = []
    for scorer in block:
        flows = set(catalog.policy(scorer).flows)
        shared = [p.id for p in catalog.policies if p.id != scorer and flows & set(p.flows)]
        focus.append(f"{listing[scorer]}\n  Shares a flow with: {', '.join(shared) or 'none'}")
    first = block[0]
    inner = "".join(f'"{other}": score, ' for other in scored_by(catalog, first, sides=sides)[:2]) + "..."
    rest = ", ..." if len(block) > 1 else ""
    return {
        "policies": "\n".join(listing.values()),
        "focus": "\n".join(focus),
        "scope": "every other rule" if sides == 2 else "every rule listed after it in the list above",
        "example": f'{{"{first}": {{{inner}}}{rest}}}',
    }


async def scored_block(llm: LLM, catalog: PolicyCatalog, block: tuple[str, ...], *, sides: int) -> BlockScores:
    """One call: each policy of the block scored against the others; a failure is kept as data."""
    messages = render("describe/edges", **scoring_prompt_values(catalog, block, sides=sides))
    try:
        answer = await llm.answer(messages, scores_schema(catalog, block, sides=sides), step="describe/graph")
    except LLMError as error:
        return BlockScores(block=block, error=str(error))
    return BlockScores(block=block, scores=answer.model_dump())


def weighted_graph(catalog: PolicyCatalog, blocks: list[tuple[str, ...]], results: list[BlockScores],
                   settings: DescribeConfig) -> nx.Graph:
    """The policy graph: from every scoring call's answer (in the blocks' order), or from the flows."""
    if settings.graph_weights == "flows":
        return flows_graph(catalog)
    order = {block: number for number, block in enumerate(blocks)}
    results = sorted(results, key=lambda result: order[result.block])
    graph = assemble_graph(catalog, results, block_size=settings.edge_block_size, sides=settings.pair_scores)
    if graph.graph["fallback_pairs"]:
        log.warning("describe: %d policy pairs got the fallback weight (see graph.json)",
                    len(graph.graph["fallback_pairs"]))
    return graph


def assemble_graph(
    catalog: PolicyCatalog, results: list[BlockScores], *, block_size: int, sides: int = 2
) -> nx.Graph:
    """The weighted graph of `catalog`'s policies from the answers of the scoring calls.

    Args:
        catalog: the policies (nodes, with their text, category, challenge and flows).
        results: one entry per scoring call, failed ones with their error.
        block_size: policies per call, recorded with the graph.
        sides: the directed scores each pair was asked for (2, or 1: by its earlier policy only).
    """
    graph = _nodes(catalog)
    given = {
        (scorer, other): score for r in results for scorer, row in r.scores.items() for other, score in row.items()
    }
    ids = [policy.id for policy in catalog.policies]
    pairs = [(u, v) for i, u in enumerate(ids) for v in ids[i + 1 :]]
    scored = {pair: [given.get(pair), given.get(pair[::-1])] for pair in pairs}
    known = [fmean(s for s in scores if s is not None) for scores in scored.values() if scores != [None, None]]
    fallback = round(fmean(known), 2) if known else MIDDLE_WEIGHT
    for (u, v), scores in scored.items():
        present = [s for s in scores if s is not None]
        graph.add_edge(u, v, weight=fmean(present) if present else fallback, scores=scores)
    graph.graph.update(
        weight_rule=WEIGHT_RULE,
        block_size=block_size,
        pair_scores=sides,
        calls=len(results),
        fallback_weight=fallback,
        one_sided_pairs=[[u, v] for (u, v), s in scored.items() if sides == 2 and s.count(None) == 1],
        fallback_pairs=[[u, v] for (u, v), s in scored.items() if s == [None, None]],
        scoring_errors=[{"block": list(r.block), "error": r.error} for r in results if r.error],
    )
    return graph


def flows_graph(catalog: PolicyCatalog) -> nx.Graph:
    """The graph of `catalog` weighted from shared flows alone, without any LLM call."""
    graph = _nodes(catalog)
    policies = catalog.policies
    for i, first in enumerate(policies):
        for second in policies[i + 1 :]:
            shared = set(first.flows) & set(second.flows)
            graph.add_edge(first.id, second.id, weight=SHARED_FLOW_WEIGHT if shared else OTHER_FLOW_WEIGHT)
    graph.graph.update(weight_rule=FLOWS_WEIGHT_RULE, calls=0)
    return graph


def _nodes(catalog: PolicyCatalog) -> nx.Graph:
    """A graph with one node per policy, carrying its text, category, challenge and flows."""
    graph = nx.Graph()
    for policy in catalog.policies:
        graph.add_node(policy.id, text=policy.text, category=policy.category, challenge=policy.challenge,
                       flows=list(policy.flows))
    return graph
