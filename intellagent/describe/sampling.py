"""Sampling policy sets from the policy graph: what each scenario will test.

Each requested scenario is a slot with a target challenge level. The targets are drawn only from
levels the graph can give: the levels of `describe.challenge_range` that the challenge scores of some
set of policies add up to (the nearest such level when none of the range is reached, as with a
document of one easy rule). They come in shuffled rounds of every such level, so any number of slots
is balanced (no level more than once ahead of another) and the first n targets stay the same when
more slots are asked for later.

A sample is a weighted random walk: start at a random policy, step to an unvisited neighbour with
probability proportional to the edge weight (weight 0 never), and stop once the challenge scores of
the visited policies add up to the target. A walk stuck at a dead end (no unvisited neighbour with
weight > 0) restarts from a random unvisited policy.

A graph shaped by production (`describe.production_traffic`) gives each policy a `focus`: starts are drawn in
proportion to it, and a step's weight is multiplied by it, so that the walks lean towards what real
conversations exercise and break.

The walks seek new ground: a walk starts (and restarts) at one of the policies the earlier slots
sampled least, and a step's weight is divided by one plus the times its policy was already sampled.
A run's first scenarios thus spread over the graph before they repeat a rule, while within a scenario
the strong edges still lead: a hard pair stays likely, only a rule already sampled is less so. On the
airline example's graph (20 rules as the embedded model extracted them, weighted by flows, levels 5 to
10), over 200 seeds, three scenarios sample 8.7 distinct rules on average instead of 7.8, and ten
scenarios 19.9 of the 20 instead of 15.9.

Each slot gets its candidates up front, one per attempt: if writing the scenario of the first fails,
the second is tried, and so on. Every slot's first candidate is drawn before any slot's second, and
each candidate is a policy set no earlier candidate holds, while its level has one left. When it has
none (a short document, or more scenarios asked than there are sets), the candidate repeats the set
of its level used least so far, and its scenario is written as another situation and goal than those
of the same set before it (`Sample.repeat` counts them). So `samples: N` gives N scenarios whenever
the document holds one policy. The plan depends on nothing but the graph, the seed and the settings,
so it is the same on every run, and a resumed run finds exactly the samples it was working on.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from intellagent.artifacts import ChallengeLevels

# Walks tried for one new candidate before its level is taken as exhausted, seeking new ground and then
# from any policy: walks cost no LLM call, and a level with no unused set left after this many tries has,
# in practice, none (a set that one walk in twenty gives is missed once in thirty thousand times).
STEERED_WALKS = 50
PLAIN_WALKS = 200


@dataclass(frozen=True)
class Sample:
    """A policy set, the level it was drawn for, and how many candidates before it in the plan hold the same
    set (0: the set's first use)."""

    policies: tuple[str, ...]
    target: int
    challenge: int
    repeat: int = 0


@dataclass(frozen=True)
class Slot:
    """A requested scenario: its number, target level, one candidate sample per attempt, and the name of the
    persona each candidate's user is given (none: not dealt yet; see `describe.persona_mix`)."""

    number: int
    target: int
    candidates: tuple[Sample, ...]
    personas: tuple[str, ...] = ()


def challenge_levels(graph: nx.Graph, challenge_range: tuple[int, int]) -> ChallengeLevels:
    """The levels of the inclusive range that some set of the graph's policies reaches in total, or the
    reachable level nearest to the range when it holds none; `narrowed` says why levels were left out.
    """
    low, high = challenge_range
    totals = reachable_totals([graph.nodes[policy]["challenge"] for policy in graph.nodes])
    levels = [level for level in range(low, high + 1) if level in totals]
    narrowed: str | None = None
    if not totals:
        narrowed = "there is no policy to sample"
    elif not levels and max(totals) < low:
        levels = [max(totals)]
        narrowed = f"all the policies together reach only {levels[0]}, below the range: every scenario targets it"
    elif not levels:
        levels = [min(totals)]
        narrowed = f"the least challenging policy alone is {levels[0]}, above the range: every scenario targets it"
    elif len(levels) < high - low + 1:
        missing = [str(level) for level in range(low, high + 1) if level not in totals]
        narrowed = f"no set of the policies has a total challenge of {_listed(missing)}"
    return ChallengeLevels(configured=challenge_range, levels=levels, narrowed=narrowed)


def reachable_totals(challenges: Sequence[int]) -> set[int]:
    """Every sum of the challenge scores of a non-empty set of policies."""
    totals: set[int] = set()
    for challenge in challenges:
        totals |= {total + challenge for total in totals} | {challenge}
    return totals


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def challenge_targets(count: int, levels: Sequence[int], rng: random.Random) -> list[int]:
    """`count` target levels, balanced over `levels`: shuffled rounds of every level."""
    targets: list[int] = []
    while len(targets) < count and levels:
        block = list(levels)
        rng.shuffle(block)
        targets.extend(block)
    return targets[:count]


def walk(
    graph: nx.Graph, target: int, rng: random.Random, sampled: Counter[str] | None = None
) -> tuple[str, ...]:
    """The sorted ids of the policies a weighted random walk visits before reaching `target`.

    `sampled` counts how often earlier slots sampled each policy; the walk favours the least sampled.
    """
    sampled = sampled or Counter()
    unvisited = sorted(graph.nodes)
    visited: list[str] = []
    total = 0
    current: str | None = None
    while total < target and unvisited:
        steps = [] if current is None else _open_neighbours(graph, current, unvisited)
        if steps:
            weights = [graph.edges[current, n]["weight"] * _focus(graph, n) / (1 + sampled[n]) for n in steps]
            current = rng.choices(steps, weights=weights)[0]
        else:  # the start, or a dead end: begin again at a least-sampled policy not yet visited
            fewest = min(sampled[n] for n in unvisited)
            starts = [n for n in unvisited if sampled[n] == fewest]
            focus = [_focus(graph, n) for n in starts]
            # A graph without focus draws as it always did: the same seed gives the same plan.
            current = rng.choices(starts, weights=focus)[0] if set(focus) != {1.0} else rng.choice(starts)
        unvisited.remove(current)
        visited.append(current)
        total += graph.nodes[current]["challenge"]
    return tuple(sorted(visited))


def _focus(graph: nx.Graph, node: str) -> float:
    """How much a policy's weight is multiplied by (node attribute `focus`: production's traffic; 1 without)."""
    return float(graph.nodes[node].get("focus", 1.0))


def _open_neighbours(graph: nx.Graph, node: str, unvisited: list[str]) -> list[str]:
    open_nodes = set(unvisited)
    return sorted(n for n, edge in graph.adj[node].items() if n in open_nodes and edge["weight"] > 0)


def plan_samples(graph: nx.Graph, *, count: int, levels: Sequence[int], attempts: int, seed: int) -> list[Slot]:
    """The slots of `count` scenarios with `attempts` candidates each (no slot when the graph is empty).

    Args:
        graph: the policy graph (node attribute `challenge`, edge attribute `weight`).
        count: scenarios requested.
        levels: the target levels to balance the slots over (see `challenge_levels`).
        attempts: candidates per slot.
        seed: the run's seed.
    """
    if not graph.number_of_nodes():
        return []
    targets = challenge_targets(count, levels, random.Random(f"{seed}:targets"))
    draws = _Draws(graph)
    candidates: list[list[Sample]] = [[] for _ in targets]
    for attempt in range(attempts):
        for number, target in enumerate(targets, start=1):
            # One stream per candidate, so its walks do not depend on how many walks the others took (a slot's
            # first candidate keeps the stream of the slot, as when a slot had a single one).
            rng = random.Random(f"{seed}:sample:{number}" + (f":{attempt}" if attempt else ""))
            candidates[number - 1].append(draws.sample(target, rng, tried={c.policies for c in candidates[number - 1]},
                                                       first=attempt == 0))
    return [Slot(number=number, target=target, candidates=tuple(drawn))
            for number, (target, drawn) in enumerate(zip(targets, candidates, strict=True), start=1)]


class _Draws:
    """The candidates drawn so far, and what the walks found of each level."""

    def __init__(self, graph: nx.Graph) -> None:
        self.graph = graph
        self.uses: Counter[tuple[str, ...]] = Counter()  # candidates planned so far, per policy set
        self.sampled: Counter[str] = Counter()  # by the slots' first candidates, the ones that usually become scenarios
        self.exhausted: dict[int, set[tuple[str, ...]]] = {}  # level → its sets, once the walks found no new one

    def sample(self, target: int, rng: random.Random, *, tried: set[tuple[str, ...]], first: bool) -> Sample:
        """The next candidate at `target`: a set no candidate holds yet if the walks find one, else the set of
        this level used least so far, preferably one the slot has not tried."""
        policies = self._new_set(target, rng)
        if policies is None:
            choices = sorted(self.exhausted[target] - tried) or sorted(self.exhausted[target])
            fewest = min(self.uses[choice] for choice in choices)
            policies = rng.choice([choice for choice in choices if self.uses[choice] == fewest])
        challenge = sum(self.graph.nodes[p]["challenge"] for p in policies)
        drawn = Sample(policies, target, challenge, repeat=self.uses[policies])
        self.uses[policies] += 1
        if first:
            self.sampled.update(policies)
        return drawn

    def _new_set(self, target: int, rng: random.Random) -> tuple[str, ...] | None:
        """A set no candidate holds, or None once the level has none left.

        The walks first seek new ground (`sampled`), then start from any policy: a walk that must start at
        the least sampled policies may keep finding the same set. A level found exhausted is not searched
        again: later candidates only use its sets more.
        """
        if target in self.exhausted:
            return None
        found: set[tuple[str, ...]] = set()
        for steering, walks in ((self.sampled, STEERED_WALKS), (None, PLAIN_WALKS)):
            for _ in range(walks):
                policies = walk(self.graph, target, rng, steering)
                if not self.uses[policies]:
                    return policies
                found.add(policies)
        self.exhausted[target] = found
        return None
