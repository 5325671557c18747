"""Production's counts on a hand-counted set, the report's figures from them, and sampling leaning towards them."""

from __future__ import annotations

from collections import Counter

import networkx as nx

from intellagent.artifacts import Analysis, Dialog, Flow, Policy, PolicyCatalog, Violation
from intellagent.describe.production_traffic import LEAN, Traffic
from intellagent.describe.sampling import plan_samples
from intellagent.reports.sections.production_figures import production_figures

IDS = ["P1", "P2", "P3", "P4", "P5", "P6"]


def verdict(item: str, tested: list[str], broken: list[str] = (), status: str = "") -> Analysis:  # type: ignore[assignment]
    violations = [Violation(policy=p, reason="quoted") for p in broken]
    return Analysis(id=item, status=status or ("fail" if broken else "pass"), tested=tested, violations=violations,
                    source="x")


# Four conversations with a verdict, one without: P1 in all four (broken twice), P2 with P1 twice (broken once),
# P5 once, never with a test.
PRODUCTION = [
    verdict("P0001", ["P1", "P2"], ["P1"]),
    verdict("P0002", ["P1", "P2"], ["P2"]),
    verdict("P0003", ["P1"], ["P1"]),
    verdict("P0004", ["P1", "P5"]),
    verdict("P0005", ["P3"], status="error"),
]
TESTS = [verdict("S001", ["P1", "P3"]), verdict("S002", ["P3", "P4"], ["P4"])]


def graph() -> nx.Graph:
    made = nx.Graph()
    for pid in IDS:
        made.add_node(pid, challenge=1)
    for first, second in [("P1", "P2"), ("P1", "P5"), ("P3", "P4"), ("P2", "P3"), ("P4", "P5"), ("P5", "P6"),
                          ("P6", "P1")]:
        made.add_edge(first, second, weight=8.0)
    return made


def catalog() -> PolicyCatalog:
    return PolicyCatalog(task_description="A desk.", flows=[Flow(id="F1", name="Everything")], policies=[
        Policy(id=pid, text=f"Rule {pid}.", flows=["F1"], category="user_consent", challenge=1) for pid in IDS])


def test_traffic_counts_conversations_with_a_verdict_only() -> None:
    traffic = Traffic.of(PRODUCTION)

    assert traffic.conversations == 4
    assert (traffic.exercised["P1"], traffic.broken["P1"], traffic.exercised["P3"]) == (4, 2, 0)
    assert (traffic.pairs[("P1", "P2")], traffic.broken_pairs[("P1", "P2")]) == (2, 2)
    assert traffic.focus("P1") == 1 + LEAN * 6 / 4 and traffic.focus("P6") == 1


def test_the_production_figures_match_the_hand_count() -> None:
    transcripts = [Dialog(id=a.id, status="incomplete", production="x") for a in PRODUCTION]
    figures = production_figures(catalog(), graph(), TESTS, transcripts, PRODUCTION, strong_edge=6)

    first = figures.policies[0]
    assert (first.id, first.seen, first.frequency, first.broken, first.pass_rate.passed, first.tested) == (
        "P1", 4, 1.0, 2, 2, 1)
    assert first.pass_rate.low is not None and first.pass_rate.low < 0.5 < first.pass_rate.high  # Wilson, 2 of 4
    assert figures.worst == ["P1", "P2"]  # 2 of 4, then 1 of 2
    assert figures.in_production_never_tested == ["P2", "P5"]
    assert figures.tested_never_in_production == ["P3", "P4"]
    assert [(p.policies, p.seen) for p in figures.pairs][:2] == [(("P1", "P2"), 2), (("P1", "P5"), 1)]
    assert figures.pairs_in_production_never_tested == [("P1", "P2"), ("P1", "P5")]
    assert (figures.pass_rate.passed, figures.pass_rate.total) == (1, 4)
    assert figures.regression == ["P0001", "P0002", "P0003"]


def sampled(on: nx.Graph, *, seed: int) -> Counter[str]:
    slots = plan_samples(on, count=2, levels=[2], attempts=1, seed=seed)
    return Counter(policy for slot in slots for policy in slot.candidates[0].policies)


def test_sampling_by_traffic_draws_what_production_exercises_and_breaks_more_often() -> None:
    plain, shaped = graph(), Traffic.of(PRODUCTION).shaped(graph())
    before = sum((sampled(plain, seed=seed) for seed in range(100)), Counter())
    after = sum((sampled(shaped, seed=seed) for seed in range(100)), Counter())

    assert after["P1"] > before["P1"] and after["P2"] > before["P2"]
    assert after["P6"] < before["P6"]  # production never reached it


def test_a_graph_without_traffic_samples_as_it_always_did() -> None:
    assert plan_samples(graph(), count=5, levels=[2], attempts=2, seed=1) == plan_samples(
        Traffic().shaped(graph()), count=5, levels=[2], attempts=2, seed=1)
