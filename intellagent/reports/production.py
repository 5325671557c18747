"""The production section of the report: the verdicts on the chatbot's real conversations, beside the tests'.

Per policy, how many conversations with a verdict reached it and how many broke it, with the pass rate's
95% Wilson interval; the policies production broke, worst first; and coverage on the policy graph both
ways: the policies and strong pairs by production frequency, those production reaches that no test dialog
tested, and those the tests tested that production never reaches.
"""

from __future__ import annotations

import networkx as nx

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog
from intellagent.artifacts.production import (
    ProductionBreach,
    ProductionFailure,
    ProductionFigures,
    ProductionPair,
    ProductionPolicy,
)
from intellagent.artifacts.report import Rate
from intellagent.files import id_order
from intellagent.production.traffic import Traffic
from intellagent.reports.analysis import RATED, by_status
from intellagent.reports.coverage import share, strong_pairs


def production_figures(catalog: PolicyCatalog, graph: nx.Graph, tests: list[Analysis], transcripts: list[Dialog],
                       production: list[Analysis], *, strong_edge: float) -> ProductionFigures:
    """The production section.

    Args:
        catalog: the run's policies.
        graph: the policy graph.
        tests: the test dialogs' analyses with a verdict.
        transcripts: the production conversations as read (transcripts.jsonl).
        production: their analyses (production.jsonl).
        strong_edge: the weight from which a pair of policies counts as strongly linked.
    """
    traffic = Traffic.of(production)
    rated = [analysis for analysis in production if analysis.status in RATED]
    tested = {pid for analysis in tests for pid in analysis.tested}
    ids = [policy.id for policy in catalog.policies]
    policies = [_policy(pid, traffic, tests) for pid in ids]
    policies.sort(key=lambda p: (-p.seen, id_order(p.id)))
    pairs = _pairs(graph, set(ids), tests, traffic, strong_edge=strong_edge)
    broken = [p for p in policies if p.broken]
    broken.sort(key=lambda p: (p.pass_rate.rate or 0, -p.broken, id_order(p.id)))
    return ProductionFigures(
        conversations=len(transcripts),
        by_status=by_status(production),
        skipped=[dialog.reason for dialog in transcripts if dialog.status == "error"],
        pass_rate=Rate.of(sum(a.status == "pass" for a in rated), len(rated)),
        policies=policies,
        worst=[p.id for p in broken],
        pairs=pairs,
        in_production_never_tested=[pid for pid in ids if traffic.exercised[pid] and pid not in tested],
        tested_never_in_production=[pid for pid in ids if pid in tested and not traffic.exercised[pid]],
        pairs_in_production_never_tested=[pair.policies for pair in pairs if pair.seen and not pair.tested_together],
        not_applicable=sorted({name for dialog in transcripts for name in dialog.inapplicable}),
        failures=_failures(transcripts, production),
    )


def _failures(transcripts: list[Dialog], production: list[Analysis]) -> list[ProductionFailure]:
    names = {dialog.id: dialog.production or dialog.id for dialog in transcripts}
    return [ProductionFailure(id=a.id, conversation=names.get(a.id, a.id), breaches=[
        ProductionBreach(policy=v.policy, turn=v.turn, reason=v.reason, source=v.source) for v in a.violations])
        for a in production if a.status == "fail"]


def _policy(policy_id: str, traffic: Traffic, tests: list[Analysis]) -> ProductionPolicy:
    seen, broken = traffic.exercised[policy_id], traffic.broken[policy_id]
    return ProductionPolicy(id=policy_id, seen=seen, frequency=share(seen, traffic.conversations), broken=broken,
                            pass_rate=Rate.of(seen - broken, seen),
                            tested=sum(policy_id in analysis.tested for analysis in tests))


def _pairs(graph: nx.Graph, ids: set[str], tests: list[Analysis], traffic: Traffic, *,
           strong_edge: float) -> list[ProductionPair]:
    """The strong pairs with their production frequency, the most frequent first."""
    strong = strong_pairs(graph, ids, (set(a.tested) for a in tests), threshold=strong_edge).pairs
    pairs = [ProductionPair(policies=pair.policies, weight=pair.weight, seen=traffic.pairs[pair.policies],
                            frequency=share(traffic.pairs[pair.policies], traffic.conversations),
                            tested_together=pair.tested_together) for pair in strong]
    return sorted(pairs, key=lambda pair: -pair.seen)
