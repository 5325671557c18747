"""The describe stage's logic: policies from a document, the policy graph, sampling, scenarios."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from intellagent.artifacts import PolicyCatalog, Scenario


@dataclass
class Described:
    """What the describe stage made: the policies, their graph and the scenarios."""

    catalog: PolicyCatalog
    graph: nx.Graph
    scenarios: list[Scenario]
