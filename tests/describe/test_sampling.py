"""Sampling: targets at levels the graph reaches, balanced; weighted walks that restart at dead ends; distinct
sets before repeats; fully seeded."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import networkx as nx
import pytest

from intellagent.describe.sampling import challenge_levels, challenge_targets, plan_samples, walk


def policy_graph(challenges: list[int], weight=lambda u, v: 5.0) -> nx.Graph:
    """A complete graph P01… with these challenge scores and `weight(u, v)` on every edge."""
    graph = nx.Graph()
    ids = [f"P{n:02d}" for n in range(1, len(challenges) + 1)]
    for policy, challenge in zip(ids, challenges, strict=True):
        graph.add_node(policy, challenge=challenge)
    for u, v in combinations(ids, 2):
        graph.add_edge(u, v, weight=weight(u, v))
    return graph


def test_target_levels_are_balanced_over_the_levels():
    for count in (6, 12, 7, 100):
        levels = Counter(challenge_targets(count, [3, 4, 5, 7, 8], random.Random(count)))
        assert set(levels) <= {3, 4, 5, 7, 8}
        assert max(levels.values()) - min(levels[level] for level in (3, 4, 5, 7, 8)) <= 1


def test_asking_for_more_samples_keeps_the_first_targets():
    levels = range(2, 7)
    assert challenge_targets(12, levels, random.Random(1))[:5] == challenge_targets(5, levels, random.Random(1))


def test_levels_no_set_of_policies_reaches_are_not_drawn_and_the_reason_is_given():
    levels = challenge_levels(policy_graph([5, 4, 5]), (5, 10))
    assert levels.levels == [5, 9, 10]  # 4, 5, 9, 10 and 14 are the totals of the sets
    assert levels.narrowed == "no set of the policies has a total challenge of 6, 7 or 8"
    assert levels.configured == (5, 10)


def test_a_range_every_level_of_which_is_reached_is_kept_whole():
    levels = challenge_levels(policy_graph([1, 2, 3, 2, 1]), (3, 9))
    assert (levels.levels, levels.narrowed) == (list(range(3, 10)), None)


def test_a_range_above_all_the_policies_together_targets_their_total():
    levels = challenge_levels(policy_graph([1, 2]), (5, 10))
    assert levels.levels == [3] and "only 3" in levels.narrowed


def test_a_range_below_every_single_policy_targets_the_least_of_them():
    levels = challenge_levels(policy_graph([5, 4]), (1, 3))
    assert levels.levels == [4] and "least challenging policy alone is 4" in levels.narrowed


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
    plan = plan_samples(graph, count=6, levels=range(3, 9), attempts=3, seed=7)
    assert plan == plan_samples(graph, count=6, levels=range(3, 9), attempts=3, seed=7)
    other = plan_samples(graph, count=6, levels=range(3, 9), attempts=3, seed=8)
    assert [s.candidates[0].policies for s in plan] != [s.candidates[0].policies for s in other]


def test_no_two_candidates_share_a_policy_set_while_there_are_sets_enough():
    graph = policy_graph([1, 2, 3, 2, 1, 2, 3, 2])
    plan = plan_samples(graph, count=10, levels=range(2, 6), attempts=3, seed=1)
    sets = [c.policies for slot in plan for c in slot.candidates]
    assert len(sets) == 30 and len(set(sets)) == 30
    assert {c.repeat for slot in plan for c in slot.candidates} == {0}


def test_each_candidate_carries_its_target_and_the_challenge_it_reached():
    graph = policy_graph([1, 2, 3, 2, 1, 2])
    for slot in plan_samples(graph, count=4, levels=range(3, 7), attempts=2, seed=3):
        for candidate in slot.candidates:
            assert candidate.target == slot.target
            assert candidate.challenge == sum(graph.nodes[p]["challenge"] for p in candidate.policies)
            assert candidate.challenge >= slot.target


def test_every_set_of_a_level_is_used_before_one_repeats_and_repeats_are_spread():
    graph = policy_graph([5, 5, 5])  # at level 5, the sets are the three single policies
    for seed in range(10):
        plan = plan_samples(graph, count=7, levels=[5], attempts=1, seed=seed)
        firsts = [slot.candidates[0].policies for slot in plan]
        assert len(set(firsts[:3])) == 3
        assert sorted(Counter(firsts).values()) == [2, 2, 3]


def test_a_repeat_counts_the_candidates_planned_before_it_for_its_set():
    plan = plan_samples(policy_graph([4]), count=3, levels=[4], attempts=2, seed=0)
    # Every slot's first candidate before any slot's second: S1, S2, S3, then their second tries.
    assert [[c.repeat for c in slot.candidates] for slot in plan] == [[0, 3], [1, 4], [2, 5]]


def test_a_slot_tries_another_set_before_its_own_again():
    plan = plan_samples(policy_graph([5, 5]), count=1, levels=[5], attempts=2, seed=0)
    (slot,) = plan
    assert {c.policies for c in slot.candidates} == {("P01",), ("P02",)}


def test_a_single_policy_fills_every_slot_the_run_asks_for():
    graph = policy_graph([2])
    levels = challenge_levels(graph, (5, 10)).levels
    plan = plan_samples(graph, count=6, levels=levels, attempts=3, seed=4)
    assert len(plan) == 6 and all(c.policies == ("P01",) for slot in plan for c in slot.candidates)
    assert sorted(slot.candidates[0].repeat for slot in plan) == list(range(6))


def sets_at(graph: nx.Graph, level: int) -> set[tuple[str, ...]]:
    """Every set a walk to `level` can give, found by many walks."""
    return {walk(graph, level, random.Random(seed)) for seed in range(500)}


@pytest.mark.parametrize("challenges", [[3, 1, 4], [2, 2, 5, 1, 3], [5]], ids=["three", "five", "one"])
def test_a_set_repeats_only_once_every_set_of_its_level_is_used(challenges):
    graph = policy_graph(challenges)
    levels = challenge_levels(graph, (3, 9)).levels
    family = {level: sets_at(graph, level) for level in levels}
    for count in (1, 6, 25, 50):
        for seed in range(10):
            plan = plan_samples(graph, count=count, levels=levels, attempts=3, seed=seed)
            assert len(plan) == count and all(len(slot.candidates) == 3 for slot in plan)
            used: set[tuple[str, ...]] = set()
            for candidate in [slot.candidates[attempt] for attempt in range(3) for slot in plan]:  # plan order
                if candidate.repeat:
                    assert candidate.policies in used and family[candidate.target] <= used
                used.add(candidate.policies)


def test_walks_start_where_the_earlier_slots_have_not_been():
    # No edges of weight: every policy of a walk is a start. Three scenarios of two policies out of six
    # then sample all six, whatever the seed.
    graph = policy_graph([1] * 6, weight=lambda u, v: 0.0)
    for seed in range(20):
        plan = plan_samples(graph, count=3, levels=[2], attempts=1, seed=seed)
        assert sorted(p for slot in plan for p in slot.candidates[0].policies) == sorted(graph.nodes)


def test_a_step_to_a_policy_sampled_before_weighs_less():
    # From P01, P02 and P03 weigh the same; P02 was sampled three times and P03 once, so P03 (1/2) is
    # twice as likely as P02 (1/4).
    graph = policy_graph([1, 1, 1])
    sampled = Counter({"P02": 3, "P03": 1})
    pairs = Counter(walk(graph, 2, random.Random(seed), sampled) for seed in range(3000))
    assert set(pairs) == {("P01", "P02"), ("P01", "P03")}  # every walk starts at the unsampled P01
    assert 0.6 < pairs["P01", "P03"] / 3000 < 0.73
