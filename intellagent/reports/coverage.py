"""Coverage: which policies, and which strongly linked pairs of policies, some dialog actually tested."""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from intellagent.artifacts import CATEGORIES, CATEGORY_LABELS, Analysis, PolicyCatalog
from intellagent.artifacts.run_report import Coverage, GroupCoverage, PairCoverage, PolicyPair


def share(part: int, whole: int) -> float | None:
    """part / whole rounded to four places, or None for an empty whole."""
    return round(part / whole, 4) if whole else None


def coverage(catalog: PolicyCatalog, graph: nx.Graph, rated: list[Analysis], *, strong_edge: float) -> Coverage:
    """What the dialogs with a verdict tested, overall, per flow, per category, and per strong pair; and the
    passages of the policy document no policy comes from, which nothing tests.

    Args:
        catalog: the run's policies and flows.
        graph: the policy graph (edge attribute `weight`, 0-10).
        rated: analyses of the dialogs with a verdict (pass or fail).
        strong_edge: the weight from which a pair of policies counts as strongly linked.
    """
    tested = {pid for analysis in rated for pid in analysis.tested}
    ids = [policy.id for policy in catalog.policies]
    flows = [
        _group(flow.id, flow.name, [p.id for p in catalog.policies if flow.id in p.flows], tested)
        for flow in catalog.flows
    ]
    categories = [
        _group(category, CATEGORY_LABELS[category], [p.id for p in catalog.policies if p.category == category], tested)
        for category in CATEGORIES
        if any(p.category == category for p in catalog.policies)
    ]
    covered = [pid for pid in ids if pid in tested]
    return Coverage(
        tested=len(covered),
        total=len(ids),
        share=share(len(covered), len(ids)),
        never_tested=[pid for pid in ids if pid not in tested],
        flows=flows,
        categories=categories,
        strong_pairs=strong_pairs(graph, set(ids), (set(a.tested) for a in rated), threshold=strong_edge),
        passages=catalog.passages,
        uncovered=catalog.uncovered,
    )


def strong_pairs(
    graph: nx.Graph, policy_ids: set[str], tested_sets: Iterable[set[str]], *, threshold: float
) -> PairCoverage:
    """The graph's pairs of weight `threshold` or more, each marked if one dialog tested both."""
    sets = list(tested_sets)
    pairs = []
    for a, b, weight in graph.edges(data="weight", default=0):
        if a == b or a not in policy_ids or b not in policy_ids or float(weight) < threshold:
            continue
        first, second = sorted((str(a), str(b)))
        together = any(first in s and second in s for s in sets)
        pairs.append(PolicyPair(policies=(first, second), weight=float(weight), tested_together=together))
    pairs.sort(key=lambda pair: pair.policies)
    hit = sum(pair.tested_together for pair in pairs)
    return PairCoverage(threshold=threshold, total=len(pairs), tested=hit, share=share(hit, len(pairs)), pairs=pairs)


def _group(group_id: str, name: str, members: list[str], tested: set[str]) -> GroupCoverage:
    hit = [pid for pid in members if pid in tested]
    return GroupCoverage(
        id=group_id,
        name=name,
        tested=len(hit),
        total=len(members),
        share=share(len(hit), len(members)),
        never_tested=[pid for pid in members if pid not in tested],
    )
