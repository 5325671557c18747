"""Sampling policy sets from the policy graph: what each scenario will test.

Each requested scenario is a slot with a target challenge level. The targets come in shuffled rounds
of every level of the range, so any number of slots is balanced (no level more than once ahead of
another) and the first n targets stay the same when more slots are asked for later.

A sample is a weighted random walk: start at a random policy, step to an unvisited neighbour with
probability proportional to the edge weight (weight 0 never), and stop once the challenge scores of
the visited policies add up to the target. A walk stuck at a dead end (no unvisited neighbour with
weight > 0) restarts from a random unvisited policy.

The walks seek new ground: a walk starts (and restarts) at one of the policies the earlier slots
sampled least, and a step's weight is divided by one plus the times its policy was already sampled.
A run's first scenarios thus spread over the graph before they repeat a rule, while within a scenario
the strong edges still lead: a hard pair stays likely, only a rule already sampled is less so. On the
airline example's graph, over 200 seeds, three scenarios sample 6.7 distinct rules on average instead
of 6.2, and ten scenarios 17.8 of the 19 instead of 14.0.

Each slot gets its candidates up front, one per attempt: if writing the scenario of the first fails,
the second is tried, and so on. No two candidates, in any slots, are the same policy set. The plan
depends on nothing but the graph, the seed and the settings, so it is the same on every run, and a
resumed run finds exactly the samples it was working on.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import networkx as nx

# Walks tried for one new candidate before its level is taken as exhausted: walks cost no LLM call,
# and a level with no unused set left after this many tries has, in practice, none.
WALKS_PER_CANDIDATE = 50


@dataclass(frozen=True)
class Sample:
    """A policy set and the level it was drawn for."""

    policies: tuple[str, ...]
    target: int
    challenge: int


@dataclass(frozen=True)
class Slot:
    """A requested scenario: its number, target level, and one candidate sample per attempt."""

    number: int
    target: int
    candidates: tuple[Sample, ...]


def challenge_targets(count: int, challenge_range: tuple[int, int], rng: random.Random) -> list[int]:
    """`count` target levels, balanced over the inclusive range: shuffled rounds of every level."""
    low, high = challenge_range
    levels = list(range(low, high + 1))
    targets: list[int] = []
    while len(targets) < count:
        block = levels[:]
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
            weights = [graph.edges[current, n]["weight"] / (1 + sampled[n]) for n in steps]
            current = rng.choices(steps, weights=weights)[0]
        else:  # the start, or a dead end: begin again at a least-sampled policy not yet visited
            fewest = min(sampled[n] for n in unvisited)
            current = rng.choice([n for n in unvisited if sampled[n] == fewest])
        unvisited.remove(current)
        visited.append(current)
        total += graph.nodes[current]["challenge"]
    return tuple(sorted(visited))


def _open_neighbours(graph: nx.Graph, node: str, unvisited: list[str]) -> list[str]:
    open_nodes = set(unvisited)
    return sorted(n for n, edge in graph.adj[node].items() if n in open_nodes and edge["weight"] > 0)


def plan_samples(
    graph: nx.Graph, *, count: int, challenge_range: tuple[int, int], attempts: int, seed: int
) -> list[Slot]:
    """The slots of `count` scenarios with up to `attempts` distinct candidates each.

    Args:
        graph: the policy graph (node attribute `challenge`, edge attribute `weight`).
        count: scenarios requested.
        challenge_range: lowest and highest target level.
        attempts: candidates per slot (fewer when the graph has no unused set left at its level).
        seed: the run's seed.
    """
    targets = challenge_targets(count, challenge_range, random.Random(f"{seed}:targets"))
    taken: set[tuple[str, ...]] = set()
    sampled: Counter[str] = Counter()  # by the slots' first candidates, the ones that usually become scenarios
    slots: list[Slot] = []
    for number, target in enumerate(targets, start=1):
        # One stream per slot, so a slot's walks do not depend on how many walks earlier slots took.
        rng = random.Random(f"{seed}:sample:{number}")
        candidates: list[Sample] = []
        while len(candidates) < attempts:
            policies = _new_set(graph, target, rng, taken, sampled)
            if policies is None:
                break
            taken.add(policies)
            challenge = sum(graph.nodes[p]["challenge"] for p in policies)
            candidates.append(Sample(policies=policies, target=target, challenge=challenge))
        slots.append(Slot(number=number, target=target, candidates=tuple(candidates)))
        if candidates:
            sampled.update(candidates[0].policies)
    return slots


def _new_set(
    graph: nx.Graph, target: int, rng: random.Random, taken: set[tuple[str, ...]], sampled: Counter[str]
) -> tuple[str, ...] | None:
    if graph.number_of_nodes() == 0:
        return None
    for _ in range(WALKS_PER_CANDIDATE):
        policies = walk(graph, target, rng, sampled)
        if policies not in taken:
            return policies
    return None
