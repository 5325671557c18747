"""Sampling: balanced targets, weighted walks that restart at dead ends, distinct sets, fully seeded."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import networkx as nx

from intellagent.describe.sampling import challenge_targets, plan_samples, walk


def policy_graph(challenges: list[int], weight=lambda u, v: 5.0) -> nx.Graph:
    """A complete graph P01… with these challenge scores and `weight(u, v)` on every edge."""
    graph = nx.Graph()
    ids = [f"P{n:02d}" for n in range(1, len(challenges) + 1)]
    for policy, challenge in zip(ids, challenges, strict=True):
        graph.add_node(policy, challenge=challenge)
    for u, v in combinations(ids, 2):
        graph.add_edge(u, v, weight=weight(u, v))
    return graph


def test_target_levels_are_balanced_over_the_range():
    for count in (6, 12, 7, 100):
        levels = Counter(challenge_targets(count, (3, 8), random.Random(count)))
        assert set(levels) <= set(range(3, 9))
        assert max(levels.values()) - min(levels[level] for level in range(3, 9)) <= 1


def test_asking_for_more_samples_keeps_the_first_targets():
    assert challenge_targets(12, (2, 6), random.Random(1))[:5] == challenge_targets(5, (2, 6), random.Random(1))


def test_a_walk_stops_as_soon_as_the_target_is_reached():
    graph = policy_graph([1, 1, 1, 1, 1, 1])
    for seed in range(20):
        assert len(walk(graph, 3, random.Random(seed))) == 3


def test_a_walk_steps_only_along_edges_of_positive_weight():
    # Two clusters joined by weight-0 edges only: a walk of three never leaves the cluster it starts in.
    cluster = {"P01": 0, "P02": 0, "P03": 0, "P04": 1, "P05": 1, "P06": 1}
    graph = policy_graph([1] * 6, weight=lambda u, v: 5.0 if cluster[u] == cluster[v] else 0.0)
    for seed in range(30):
        assert len({cluster[p] for p in walk(graph, 3, random.Random(seed))}) == 1


def test_a_dead_end_restarts_the_walk_from_a_new_policy():
    graph = policy_graph([1, 1, 1, 1], weight=lambda u, v: 0.0)  # every policy is a dead end
    policies = walk(graph, 3, random.Random(0))
    assert len(policies) == 3


def test_a_walk_prefers_heavier_edges():
    # From P01, P02 weighs 9 and P03 1: the second policy of two-policy walks from P01 is mostly P02.
    graph = policy_graph([1, 1, 1], weight=lambda u, v: 9.0 if {u, v} == {"P01", "P02"} else 1.0)
    pairs = Counter(walk(graph, 2, random.Random(seed)) for seed in range(300))
    assert pairs["P01", "P02"] > 3 * pairs["P01", "P03"]


def test_the_same_seed_gives_the_same_plan_and_another_seed_another():
    graph = policy_graph([1, 2, 3, 4, 5, 2, 3, 1, 4, 2])
    plan = plan_samples(graph, count=6, challenge_range=(3, 8), attempts=3, seed=7)
    assert plan == plan_samples(graph, count=6, challenge_range=(3, 8), attempts=3, seed=7)
    other = plan_samples(graph, count=6, challenge_range=(3, 8), attempts=3, seed=8)
    assert [s.candidates[0].policies for s in plan] != [s.candidates[0].policies for s in other]


def test_no_two_candidates_share_a_policy_set():
    graph = policy_graph([1, 2, 3, 2, 1, 2, 3, 2])
    plan = plan_samples(graph, count=10, challenge_range=(2, 5), attempts=3, seed=1)
    sets = [c.policies for slot in plan for c in slot.candidates]
    assert len(sets) == 30 and len(set(sets)) == 30


def test_each_candidate_carries_its_target_and_the_challenge_it_reached():
    graph = policy_graph([1, 2, 3, 2, 1, 2])
    for slot in plan_samples(graph, count=4, challenge_range=(3, 6), attempts=2, seed=3):
        for candidate in slot.candidates:
            assert candidate.target == slot.target
            assert candidate.challenge == sum(graph.nodes[p]["challenge"] for p in candidate.policies)
            assert candidate.challenge >= slot.target


def test_a_level_with_no_unused_set_left_gets_fewer_candidates():
    graph = policy_graph([5, 5])  # only {P01} and {P02} reach level 3
    plan = plan_samples(graph, count=2, challenge_range=(3, 3), attempts=2, seed=0)
    assert [len(slot.candidates) for slot in plan] == [2, 0]


def test_walks_start_where_the_earlier_slots_have_not_been():
    # No edges of weight: every policy of a walk is a start. Three scenarios of two policies out of six
    # then sample all six, whatever the seed.
    graph = policy_graph([1] * 6, weight=lambda u, v: 0.0)
    for seed in range(20):
        plan = plan_samples(graph, count=3, challenge_range=(2, 2), attempts=1, seed=seed)
        assert sorted(p for slot in plan for p in slot.candidates[0].policies) == sorted(graph.nodes)


def test_a_step_to_a_policy_sampled_before_weighs_less():
    # From P01, P02 and P03 weigh the same; P02 was sampled three times and P03 once, so P03 (1/2) is
    # twice as likely as P02 (1/4).
    graph = policy_graph([1, 1, 1])
    sampled = Counter({"P02": 3, "P03": 1})
    pairs = Counter(walk(graph, 2, random.Random(seed), sampled) for seed in range(3000))
    assert set(pairs) == {("P01", "P02"), ("P01", "P03")}  # every walk starts at the unsampled P01
    assert 0.6 < pairs["P01", "P03"] / 3000 < 0.73
