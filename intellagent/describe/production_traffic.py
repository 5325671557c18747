"""What production exercises and breaks, counted from the verdicts on its conversations, and the policy graph
leaning towards it (`describe.weights_from: transcripts`).

Only conversations with a verdict (pass or fail) count. A policy is exercised by a conversation that tested
it and broken by one that violated it; a pair is exercised by a conversation that tested both, and broken
by one of those that violated either. For sampling, a policy's weight is multiplied by
1 + LEAN × (exercised + broken) / conversations, and so is a pair's edge: a rule that every conversation
reaches and breaks weighs 1 + 2 × LEAN times as much as one production never reaches, which keeps its weight.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

import networkx as nx

from intellagent.artifacts import Analysis

LEAN = 4.0
"""How far production pulls sampling: a share of 1 (every conversation) multiplies a weight by 1 + LEAN."""

RATED = ("pass", "fail")


@dataclass(frozen=True)
class Traffic:
    """Counts over production's conversations with a verdict."""

    conversations: int = 0
    exercised: Counter[str] = field(default_factory=Counter)
    broken: Counter[str] = field(default_factory=Counter)
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    broken_pairs: Counter[tuple[str, str]] = field(default_factory=Counter)

    @classmethod
    def of(cls, analyses: list[Analysis]) -> Traffic:
        """The counts of these analyses (those without a verdict are left out)."""
        rated = [analysis for analysis in analyses if analysis.status in RATED]
        traffic = cls(conversations=len(rated))
        for analysis in rated:
            violated = {violation.policy for violation in analysis.violations}
            traffic.exercised.update(set(analysis.tested))
            traffic.broken.update(violated)
            for pair in combinations(sorted(set(analysis.tested)), 2):
                traffic.pairs[pair] += 1
                if violated & set(pair):
                    traffic.broken_pairs[pair] += 1
        return traffic

    def focus(self, policy: str) -> float:
        """The factor production gives a policy's sampling weight (1: production never reached it)."""
        return self._lean(self.exercised[policy] + self.broken[policy])

    def pair_focus(self, first: str, second: str) -> float:
        """The factor production gives a pair's edge weight."""
        pair = (first, second) if first <= second else (second, first)
        return self._lean(self.pairs[pair] + self.broken_pairs[pair])

    def _lean(self, count: int) -> float:
        return 1.0 + LEAN * count / self.conversations if self.conversations else 1.0

    def shaped(self, graph: nx.Graph) -> nx.Graph:
        """A copy of the policy graph leaning towards production: each node's `focus`, each edge's weight
        multiplied by its pair's."""
        shaped = graph.copy()
        for node in shaped.nodes:
            shaped.nodes[node]["focus"] = self.focus(str(node))
        for first, second, data in shaped.edges(data=True):
            data["weight"] = float(data.get("weight", 0)) * self.pair_focus(str(first), str(second))
        return shaped
